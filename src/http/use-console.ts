/**
 * The web console (issue #13), served by this process: GET (or HEAD) on one of the console's
 * page paths (web/paths.ts: `/`, `/login`, `/api-keys`, `/roles`, ...) answers its page, a
 * shell that loads one script and one stylesheet; `/assets/<name>-<hash>.<ext>` answers the
 * files of the build's manifest, brotli or gzip when the browser accepts them. Every other path
 * and method passes through untouched, so unknown paths stay 404 and `POST /login` stays the
 * sign-in route. Pages carry CONSOLE_POLICY and `no-store`; assets are cached a year under their
 * content hash (use-security-headers.ts).
 *
 * The build (scripts/build-console.mjs, run by `npm install`) is checked on the first console
 * request: when dist/console is missing or older than web/, it is rebuilt then, so `npm start`
 * works without a separate build command. When no build can be had, console paths answer 503
 * with the reason.
 */
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import { isConsolePath } from '../../web/paths.js';
import type { Logger } from '../platform/logger.js';
import { negotiateEncoding } from './use-compression.js';
import { markConsoleAnswer } from './use-security-headers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ASSET_PREFIX = '/assets/';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** What scripts/build-console.mjs exports (loaded at run time, only when the console is asked for). */
interface BuildScript {
  consoleSourceHash(): string | null;
  readManifest(outDir?: string): Manifest | null;
  buildConsole(options: { outDir?: string; quiet?: boolean }): Promise<Manifest>;
}

/** dist/console/manifest.json: paths relative to the build directory. */
interface Manifest {
  sourceHash: string;
  script: string;
  style: string;
  icon: string;
  files: Record<string, number>;
}

interface Asset {
  type: string;
  body: Uint8Array;
  br?: Uint8Array;
  gzip?: Uint8Array;
}

interface Loaded {
  page: string;
  assets: Map<string, Asset>;
}

export interface ConsoleDeps {
  log: Logger;
  /** AUTH_GENERIC_OAUTH_NAME when OAuth is configured: the sign-in page shows its button. */
  oauthName: string | null;
  /** Where the build lives; default dist/console at the repository root. */
  distDir?: string;
}

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page every console path answers: no inline script or style (CONSOLE_POLICY). */
function renderPage(manifest: Manifest, oauthName: string | null): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>portcullis console</title>',
    oauthName ? `<meta name="portcullis-oauth" content="${escapeAttribute(oauthName)}">` : '',
    `<link rel="icon" type="image/svg+xml" href="/${manifest.icon}">`,
    `<link rel="stylesheet" href="/${manifest.style}">`,
    `<script type="module" src="/${manifest.script}"></script>`,
    '</head>',
    '<body>',
    '<div id="app"><p class="loading">Loading the portcullis console…</p></div>',
    '<noscript><p>The portcullis console needs JavaScript. The REST API and GraphQL (/graphql) work without it.</p></noscript>',
    '</body>',
    '</html>',
  ]
    .filter(Boolean)
    .join('\n');
}

function readOptional(path: string): Uint8Array | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Builds when needed, then reads the page and every asset into memory (a few hundred KiB). */
async function load(deps: ConsoleDeps): Promise<Loaded> {
  const distDir = deps.distDir ?? join(ROOT, 'dist', 'console');
  const script = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-console.mjs')).href)) as BuildScript;
  let manifest = script.readManifest(distDir);
  const sourceHash = script.consoleSourceHash();
  if (sourceHash !== null && manifest?.sourceHash !== sourceHash) {
    deps.log.info({ distDir }, manifest ? 'console sources changed: rebuilding the console' : 'building the console');
    manifest = await script.buildConsole({ outDir: distDir, quiet: true });
  }
  if (!manifest) throw new Error(`no console build in ${distDir} and no sources in web/ to build it from`);
  const assets = new Map<string, Asset>();
  for (const file of Object.keys(manifest.files)) {
    const path = join(distDir, file);
    const br = readOptional(`${path}.br`);
    const gzip = readOptional(`${path}.gz`);
    assets.set(`/${file}`, {
      type: TYPES[extname(file)] ?? 'application/octet-stream',
      body: readFileSync(path),
      ...(br && { br }),
      ...(gzip && { gzip }),
    });
  }
  return { page: renderPage(manifest, deps.oauthName), assets };
}

function assetResponse(request: Request, asset: Asset): Response {
  const wanted = negotiateEncoding(request.headers.get('accept-encoding'));
  const encoding = (wanted === 'br' && asset.br) || (wanted === 'gzip' && asset.gzip) ? wanted : null;
  const body = (encoding === 'br' && asset.br) || (encoding === 'gzip' && asset.gzip) || asset.body;
  const headers = new Headers({ 'content-type': asset.type, vary: 'accept-encoding', 'content-length': String(body.length) });
  if (encoding) headers.set('content-encoding', encoding);
  return new Response(request.method === 'HEAD' ? null : (body as BodyInit), { status: 200, headers });
}

/** Builds the plugin; register it before the sign-in routes, whose minimal `GET /login` page it replaces. */
export function useConsole(deps: ConsoleDeps): Plugin {
  let loading: Promise<Loaded> | undefined;
  const loaded = (): Promise<Loaded> => {
    loading ??= load(deps).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the web console could not be built or read');
      loading = undefined; // the next request tries again (sources may have been fixed)
      throw error;
    });
    return loading;
  };

  return {
    async onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      const path = url.pathname;
      const page = isConsolePath(path);
      if (!page && !path.startsWith(ASSET_PREFIX)) return;
      let built: Loaded;
      try {
        built = await loaded();
      } catch (error) {
        // Without a console, /login stays the sign-in routes' minimal page.
        if (!page || path === '/login') return;
        const reason = error instanceof Error ? error.message : String(error);
        endResponse(
          new Response(`The web console is not available: ${reason}\nBuild it with: node scripts/build-console.mjs\n`, {
            status: 503,
            headers: { 'content-type': 'text/plain; charset=utf-8' },
          }),
        );
        return;
      }
      if (page) {
        markConsoleAnswer(request, 'page');
        const headers = { 'content-type': 'text/html; charset=utf-8' };
        endResponse(new Response(request.method === 'HEAD' ? null : built.page, { status: 200, headers }));
        return;
      }
      const asset = built.assets.get(path);
      if (!asset) return;
      markConsoleAnswer(request, 'asset');
      endResponse(assetResponse(request, asset));
    },
  };
}
