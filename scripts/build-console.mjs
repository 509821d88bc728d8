#!/usr/bin/env node
/**
 * Builds the web console (web/) into dist/console/ with esbuild: one minified ES
 * module and one stylesheet named by their content hash (`assets/main-<hash>.js`), the icon
 * likewise, each also brotli- and gzip-compressed, and `manifest.json` naming them with the hash
 * of the sources they were built from. Run by `npm install` (postinstall) and, when dist/ is
 * missing or older than the sources, by the server on the first console request
 * (src/http/console-routes.ts), so `npm install && npm start` needs no other command.
 *
 *   node scripts/build-console.mjs           build unless dist/console matches the sources
 *   node scripts/build-console.mjs --force   build anyway
 *
 * The new build is written beside the old one and renamed into place, so a server reading
 * dist/console never sees half a build.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Packages bundled into the console: their versions are part of the source hash. */
const BUNDLED = ['preact', 'preact-iso', '@urql/core', '@urql/preact', 'wonka', '@0no-co/graphql.web', 'gql.tada', 'esbuild'];
const COMPRESSIBLE = new Set(['.js', '.css', '.svg']);

/** Every file under `dir` whose name `keep` accepts, relative to ROOT, sorted (also scripts/build-server.mjs). */
export function filesUnder(dir, keep = () => true) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, keep));
    else if (keep(entry.name)) out.push(relative(ROOT, path));
  }
  return out.sort();
}

function versionOf(pkg) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;
  } catch {
    return 'missing';
  }
}

/**
 * SHA-256 (hex) of the console's sources: every file under web/, this script and the versions of
 * the bundled packages; null when web/ is absent (an installed copy without sources).
 */
export function consoleSourceHash(root = ROOT) {
  const files = filesUnder(join(root, 'web'));
  if (files.length === 0) return null;
  const hash = createHash('sha256');
  for (const file of [...files, relative(root, fileURLToPath(import.meta.url))]) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  for (const pkg of BUNDLED) hash.update(`${pkg}@${versionOf(pkg)}\0`);
  return hash.digest('hex');
}

/** The manifest of the build in `outDir`, or null when there is none. */
export function readManifest(outDir = join(ROOT, 'dist', 'console')) {
  try {
    return JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8'));
  } catch {
    return null;
  }
}

function contentName(path, body) {
  const ext = extname(path);
  return `${basename(path, ext)}-${createHash('sha256').update(body).digest('base64url').slice(0, 12)}${ext}`;
}

/**
 * Builds the console into `outDir` (default dist/console) unless its manifest already carries
 * the current source hash (`force` builds anyway). Resolves with the manifest:
 * `{ sourceHash, script, style, icon, files: { "<asset path>": bytes } }`, paths relative to outDir.
 * @throws the esbuild error when the sources do not compile.
 */
export async function buildConsole({ outDir = join(ROOT, 'dist', 'console'), force = false, quiet = false } = {}) {
  const sourceHash = consoleSourceHash();
  if (sourceHash === null) throw new Error('web/ (the console sources) is missing');
  const current = readManifest(outDir);
  if (!force && current?.sourceHash === sourceHash) return current;

  const { build } = await import('esbuild');
  const staging = `${outDir}.tmp-${process.pid}-${Date.now()}`;
  const assets = join(staging, 'assets');
  mkdirSync(assets, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: ['web/main.tsx'],
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      define: { 'process.env.NODE_ENV': '"production"' },
      outdir: assets,
      entryNames: '[name]-[hash]',
      assetNames: '[name]-[hash]',
      legalComments: 'none',
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = Object.keys(result.metafile.outputs).map((p) => relative(staging, join(ROOT, p)));
    const script = outputs.find((p) => p.endsWith('.js'));
    const style = outputs.find((p) => p.endsWith('.css'));
    if (!script || !style) throw new Error(`esbuild produced no script or stylesheet: ${outputs.join(', ')}`);

    const iconBody = readFileSync(join(ROOT, 'web', 'favicon.svg'));
    const icon = `assets/${contentName('favicon.svg', iconBody)}`;
    writeFileSync(join(staging, icon), iconBody);

    const files = {};
    for (const file of [script, style, icon]) {
      const body = readFileSync(join(staging, file));
      files[file] = body.length;
      if (!COMPRESSIBLE.has(extname(file))) continue;
      writeFileSync(join(staging, `${file}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      writeFileSync(join(staging, `${file}.gz`), gzipSync(body, { level: 9 }));
    }
    const manifest = { sourceHash, script, style, icon, files };
    writeFileSync(join(staging, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

    // Swap in the new build: the old one moves aside first (a rename cannot replace a directory).
    const old = `${outDir}.old-${process.pid}-${Date.now()}`;
    try {
      if (existsSync(outDir)) renameSync(outDir, old);
      renameSync(staging, outDir);
    } catch (error) {
      // Another process (a second server, a parallel test) swapped in the same build meanwhile.
      const theirs = readManifest(outDir);
      if (theirs?.sourceHash !== sourceHash) throw error;
      return theirs;
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
    if (!quiet) {
      const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
      const br = (f) => statSync(join(outDir, `${f}.br`)).size;
      process.stdout.write(
        `console built in ${relative(ROOT, outDir)}: ${script} ${kib(files[script])} (${kib(br(script))} brotli), ${style} ${kib(files[style])}\n`,
      );
    }
    return manifest;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  buildConsole({ force: process.argv.includes('--force') }).catch((error) => {
    process.stderr.write(`console build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
