#!/usr/bin/env node
/**
 * Builds the server (src/main.ts and everything it imports from src/) into dist/server/main.js
 * with esbuild: ES modules, our TypeScript only (every npm package stays an import, resolved
 * from node_modules at run time), names kept, source maps beside them (`node --enable-source-maps`
 * reads them), and manifest.json with the hash of the sources it was built from. What the sources
 * load with a dynamic `import()` (the PostgreSQL driver on SQLite, the LDAP and OpenID clients,
 * to save memory) goes into chunks of its own (`<name>-<hash>.js` beside main.js), so it
 * and the packages it imports are loaded only when used. Chunks of earlier builds are left in
 * place: a server still running an earlier build may load its chunks later. dist/server/ sits
 * two folders below the project folder, as every file under src/ does, so paths the code
 * resolves against its own location (`new URL('../..', import.meta.url)`: migrations, the
 * console, package.json) point at the same places.
 *
 * Run by `npm install` (postinstall) and by `npm start` (scripts/start.mjs) when the sources
 * changed since, so `npm install && npm start` on a fresh clone needs no other command.
 *
 *   node scripts/build-server.mjs           build unless dist/server matches the sources
 *   node scripts/build-server.mjs --force   build anyway
 *
 * Each file is written beside its old version and renamed into place, the manifest last, so a
 * start racing a build loads either build whole, never half of one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder } from './build-console.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The folder of the build. */
export const SERVER_DIR = join(ROOT, 'dist', 'server');
/** The built entry point. */
export const SERVER_ENTRY = join(SERVER_DIR, 'main.js');
const MANIFEST = join(SERVER_DIR, 'manifest.json');

/**
 * SHA-256 (hex) of what the build depends on: every file under src/ but tests (the generated
 * Prisma client included), tsconfig.json, this script and esbuild's version. null when src/ is
 * absent (an installed copy without sources: the build present is used as it is).
 */
export function serverSourceHash() {
  const files = sourceFiles();
  if (files.length === 0) return null;
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    if (existsSync(join(ROOT, file))) hash.update(readFileSync(join(ROOT, file)));
    hash.update('\0');
  }
  try {
    hash.update(`esbuild@${JSON.parse(readFileSync(join(ROOT, 'node_modules', 'esbuild', 'package.json'), 'utf8')).version}`);
  } catch {
    hash.update('esbuild@missing');
  }
  return hash.digest('hex');
}

/** What the build depends on, relative to the project: src/ but tests, tsconfig.json, this script. */
function sourceFiles() {
  const files = filesUnder(join(ROOT, 'src'), (name) => !name.endsWith('.test.ts'));
  if (files.length === 0) return [];
  return [...files, 'tsconfig.json', relative(ROOT, fileURLToPath(import.meta.url))];
}

/**
 * SHA-1 (hex) of the names, sizes and modification times of the files serverSourceHash reads:
 * a stat of each, no reading, so `npm start` checks its build in a few milliseconds (for
 * start time; hashing the whole src/ tree, the generated Prisma client included, took ~80 ms on a
 * loaded machine). Only a fast path: a different signature (a touched file, a checkout) falls
 * back to the content hash, so an edit is never missed because its mtime went backwards, and a
 * touch alone rebuilds nothing.
 */
export function serverStatSignature() {
  const hash = createHash('sha1');
  // esbuild's package.json stands for its version (an upgrade rewrites it).
  for (const file of [...sourceFiles(), join('node_modules', 'esbuild', 'package.json')]) {
    const stat = statSync(join(ROOT, file), { throwIfNoEntry: false });
    hash.update(`${file}\0${stat ? `${stat.size}\0${stat.mtimeMs}` : '-'}\0`);
  }
  return hash.digest('hex');
}

/**
 * True when dist/server holds a build of the current sources: the stat signature recorded in
 * the manifest matches, or else the content hash does (the manifest then records the new
 * signature, so the next start takes the fast path again).
 */
export function serverBuildIsCurrent() {
  if (!existsSync(SERVER_ENTRY)) return false;
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  } catch {
    return false;
  }
  const signature = serverStatSignature();
  if (manifest.statSignature === signature) return true;
  const source = serverSourceHash();
  if (source === null) return true;
  if (manifest.sourceHash !== source) return false;
  try {
    writeAtomically(MANIFEST, `${JSON.stringify({ ...manifest, statSignature: signature }, null, 2)}\n`);
  } catch {
    // A read-only install: the content hash is checked on every start, as before.
  }
  return true;
}

/** Writes `body` to `path` through a temporary file renamed into place. */
function writeAtomically(path, body) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, body);
  renameSync(temporary, path);
}

/**
 * Builds dist/server unless it is current (or anyway with `force`). Answers whether it built.
 * @throws esbuild's error when the sources do not compile.
 */
export async function buildServer({ force = false } = {}) {
  if (!force && serverBuildIsCurrent()) return false;
  const sourceHash = serverSourceHash();
  const statSignature = serverStatSignature();
  const esbuild = await import('esbuild');
  try {
    const result = await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: ['src/main.ts'],
      bundle: true,
      splitting: true,
      chunkNames: '[name]-[hash]',
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'external',
      sourcesContent: false,
      keepNames: true,
      legalComments: 'none',
      write: false,
      outdir: SERVER_DIR,
      logLevel: 'warning',
    });
    mkdirSync(SERVER_DIR, { recursive: true });
    // The entry last (before the manifest): the chunks it imports are in place when it is.
    const files = [...result.outputFiles].sort((a, b) => Number(a.path === SERVER_ENTRY) - Number(b.path === SERVER_ENTRY));
    for (const file of files) writeAtomically(file.path, file.contents);
    writeAtomically(MANIFEST, `${JSON.stringify({ sourceHash, statSignature, builtAt: new Date().toISOString() }, null, 2)}\n`);
  } finally {
    await esbuild.stop();
  }
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const built = await buildServer({ force: process.argv.includes('--force') });
  process.stdout.write(
    built
      ? `server built into ${relative(process.cwd(), SERVER_DIR) || '.'} in ${Math.round(performance.now() - started)} ms\n`
      : 'server build is current\n',
  );
}
