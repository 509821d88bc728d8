/**
 * The web console, served by this process as rows of the router (router.ts): GET (or HEAD) on one of the console's
 * page paths (web/paths.ts: `/`, `/login`, `/api-keys`, `/roles`, ...) answers its page, a
 * shell that loads one script and one stylesheet; `/assets/<name>-<hash>.<ext>` answers the
 * files of the build's manifest, brotli or gzip when the browser accepts them. Near misses of a
 * page path are redirected (308, query kept): a trailing slash (`/roles/` -> `/roles`) and
 * `/index.html` -> `/`. Every other path and method is another row's, so `POST /login`
 * stays the sign-in route and the API keeps its JSON 404; only when no row answered a
 * browser's page request (GET or HEAD accepting text/html, outside /api/, /assets/, /graphql,
 * /metrics and /swagger) does the console page replace the JSON 404, still 404, so the
 * console's own "Page not found" shows in place of raw JSON. Pages carry CONSOLE_POLICY and
 * `no-store`; assets are cached a year under their content hash (use-security-headers.ts).
 *
 * The build (scripts/build-console.mjs, run by `npm install`) is checked on the first console
 * request: when dist/console is missing or older than web/, it is rebuilt then, so `npm start`
 * works without a separate build command. When no build can be had, console paths answer 503
 * with the reason.
 */
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONSOLE_PATHS, isConsolePath } from '../../web/paths.js';
import type { Logger } from '../platform/logger.js';
import { type EncodedFile, fileResponse, negotiateEncoding } from './accept-encoding.js';
import { METRICS_PATH } from './metrics-route.js';
import { REFERENCE_PATH } from './openapi-routes.js';
import type { PathRoute, RouteContext } from './router.js';
import { markConsoleAnswer } from './use-security-headers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ASSET_PREFIX = '/assets/';

/** Paths (and everything under them) that are never console pages: their 404 stays the API's JSON. */
const NOT_PAGES = ['/api', '/assets', '/graphql', METRICS_PATH, REFERENCE_PATH];

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

interface Loaded {
  page: string;
  /** The page's length in bytes, for its Content-Length. */
  pageBytes: number;
  assets: Map<string, EncodedFile>;
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
  const assets = new Map<string, EncodedFile>();
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
  const page = renderPage(manifest, deps.oauthName);
  // Its length lets the compression middleware (compression.ts) leave this short page as it is.
  return { page, pageBytes: Buffer.byteLength(page), assets };
}

/**
 * The page path a near miss means, to redirect to: `/index.html` -> `/`, a trailing slash (one or
 * more) off a page path (`/roles/` -> `/roles`); null for any other path. The answer is always one
 * of CONSOLE_PATHS, so a redirect can never lead off this origin (`//host` stays unanswered here).
 */
function canonicalPagePath(path: string): string | null {
  if (path === '/index.html') return '/';
  if (path.length < 2 || !path.endsWith('/')) return null;
  const trimmed = path.replace(/\/+$/, '') || '/';
  return isConsolePath(trimmed) ? trimmed : null;
}

/** A request a browser makes for a page (a navigation): GET or HEAD, accepting HTML, outside the API's paths. */
function isPageRequest(request: Request, path: string): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (!(request.headers.get('accept') ?? '').includes('text/html')) return false;
  return !NOT_PAGES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** What the router needs of the console: its rows, and its answers for paths no row answers. */
export interface ConsoleRoutes {
  routes: PathRoute[];
  /** The 308 redirect of a near miss of a page path (GET or HEAD), or null. */
  redirect(request: Request, url: URL): Response | null;
  /** For a browser's page request no row answered: the console page with status 404, or null (then the JSON 404). */
  notFoundPage(request: Request, path: string): Promise<Response | null> | null;
}

/** The console's rows for the router (router.ts), listed before the sign-in routes, whose minimal `GET /login` page it replaces. */
export function consoleRoutes(deps: ConsoleDeps): ConsoleRoutes {
  let loading: Promise<Loaded> | undefined;
  const loaded = (): Promise<Loaded> => {
    loading ??= load(deps).catch((error: unknown) => {
      deps.log.error({ err: error }, 'the web console could not be built or read');
      loading = undefined; // the next request tries again (sources may have been fixed)
      throw error;
    });
    return loading;
  };
  const page = (request: Request, built: Loaded, status: number): Response => {
    markConsoleAnswer(request, 'page');
    const headers = { 'content-type': 'text/html; charset=utf-8', 'content-length': String(built.pageBytes) };
    return new Response(request.method === 'HEAD' ? null : built.page, { status, headers });
  };

  /** A page path: the page, or 503 naming why there is none (`/login` then falls to the sign-in routes' page). */
  async function servePage({ request, url }: RouteContext): Promise<Response | null> {
    try {
      return page(request, await loaded(), 200);
    } catch (error) {
      if (url.pathname === '/login') return null;
      const reason = error instanceof Error ? error.message : String(error);
      return new Response(`The web console is not available: ${reason}\nBuild it with: node scripts/build-console.mjs\n`, {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
      });
    }
  }

  async function serveAsset({ request, url }: RouteContext): Promise<Response | null> {
    const built = await loaded().catch(() => null);
    const asset = built?.assets.get(url.pathname);
    if (!asset) return null;
    markConsoleAnswer(request, 'asset');
    return fileResponse(request, asset, negotiateEncoding(request.headers.get('accept-encoding')));
  }

  const methods = ['GET', 'HEAD'];
  return {
    routes: [
      ...CONSOLE_PATHS.map((path): PathRoute => ({ methods, path, handler: servePage })),
      { methods, path: `${ASSET_PREFIX}*`, handler: serveAsset },
    ],
    redirect(request, url) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return null;
      const canonical = canonicalPagePath(url.pathname);
      return canonical ? new Response(null, { status: 308, headers: { location: `${canonical}${url.search}` } }) : null;
    },
    notFoundPage(request, path) {
      if (!isPageRequest(request, path)) return null;
      return loaded().then(
        (built) => page(request, built, 404),
        () => null, // no console: the JSON 404 stands
      );
    },
  };
}
