/**
 * GraphiQL as a small page and content-addressed files. @graphql-yoga/render-graphiql inlines
 * GraphiQL's whole bundle (about 9 MB of text: its script, its stylesheet, the query editor's
 * three workers and its favicon) into the page, which is `no-store` like every answer that may name a principal,
 * so a browser downloaded all of it at every opening. Here the bundle's parts are files under
 * GRAPHIQL_ASSET_PREFIX, each named by the SHA-256 of its content
 * (`/graphql/assets/graphiql-<hash>.js`), answered without credentials (they are the public
 * library, the same for everyone) and cached a year (`public, max-age=31536000, immutable`, set by
 * use-security-headers.ts for answers marked as assets); a new version of the library is new names.
 * The page (graphiqlPage) is a few hundred bytes of HTML naming them: its two inline scripts
 * (the editor's worker URLs; the call that renders GraphiQL with the caller's options) are allowed
 * by hash, the files by `'self'` (graphiqlPolicy). The parts are loaded on the first request that
 * needs them, not at start: most gateways never serve GraphiQL. Each file is compressed once
 * per encoding, on the first request that accepts it (the script is about 9 MB of text), and
 * that copy answers every later request.
 */
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { type EncodedFile, type Encoding, fileResponse, negotiateEncoding } from './accept-encoding.js';
import type { PathRoute } from './router.js';
import { markConsoleAnswer } from './use-security-headers.js';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The folder of GraphiQL's files, under the GraphQL endpoint. */
export const GRAPHIQL_ASSET_PREFIX = '/graphql/assets/';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

interface Asset extends EncodedFile {
  /** Compressions under way or done, by encoding. */
  pending: Partial<Record<Encoding, Promise<void> | undefined>>;
}

/** GraphiQL's parts: the files by path, the URLs the page names, and the favicon (a data: URL). */
interface GraphiQLAssets {
  files: Map<string, Asset>;
  script: string;
  style: string;
  workers: { editorWorkerService: string; json: string; graphql: string };
  /** The favicon's URL: one of the files. */
  favicon: string;
}

let loaded: Promise<GraphiQLAssets> | undefined;

/**
 * The favicon's URL: a `data:` URL of base64 (render-graphiql's, about 150 KB, as large as the
 * rest of the page many times over) becomes a file through `add`; any other URL stays as it is.
 */
function favicon(url: string, add: (name: string, extension: string, type: string, content: Uint8Array<ArrayBuffer>) => string): string {
  const data = /^data:([\w/.+-]+);base64,(.*)$/s.exec(url);
  if (!data) return url;
  const body = new Uint8Array(Buffer.from(data[2] ?? '', 'base64'));
  return add('favicon', data[1] === 'image/x-icon' ? 'ico' : 'img', data[1] ?? 'application/octet-stream', body);
}

/** GraphiQL's parts, read from @graphql-yoga/render-graphiql once per process, on first use. */
function graphiqlAssets(): Promise<GraphiQLAssets> {
  loaded ??= import('@graphql-yoga/render-graphiql/graphiql').then((parts) => {
    const files = new Map<string, Asset>();
    const add = (name: string, extension: string, type: string, content: string | Uint8Array<ArrayBuffer>): string => {
      const body = typeof content === 'string' ? new TextEncoder().encode(content) : content;
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
      const path = `${GRAPHIQL_ASSET_PREFIX}${name}-${hash}.${extension}`;
      files.set(path, { type, body, pending: {} });
      return path;
    };
    return {
      files,
      script: add('graphiql', 'js', JS, parts.js),
      style: add('graphiql', 'css', CSS, parts.css),
      workers: {
        editorWorkerService: add('editor-worker', 'js', JS, parts.editorWorkerService),
        json: add('json-worker', 'js', JS, parts.jsonWorker),
        graphql: add('graphql-worker', 'js', JS, parts.graphqlWorker),
      },
      favicon: favicon(parts.favicon, add),
    };
  });
  return loaded;
}

/** `value` as JSON that is safe inside an inline `<script>` (no `</script>`, no `<!--`). */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** `text` safe in HTML text and attribute values. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The GraphiQL page for `options` (yoga's GraphiQL options: title, defaultQuery, ...): HTML that
 * loads GraphiQL's files from their hashed URLs and renders it with `options`.
 */
export async function graphiqlPage(options: { title?: string } & Record<string, unknown>): Promise<string> {
  const assets = await graphiqlAssets();
  const title = escapeHtml(options.title ?? 'GraphiQL');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="icon" href="${escapeHtml(assets.favicon)}">
<link rel="stylesheet" href="${assets.style}">
</head>
<body id="body" class="no-focus-outline">
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<script>self.MonacoEnvironment={globalAPI:false,getWorkerUrl:function(moduleId,label){return ${scriptJson(assets.workers)}[label];}};</script>
<script src="${assets.script}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'),${scriptJson(options)});</script>
</body>
</html>
`;
}

/** Counters for tests and diagnostics: compressions done, compressed answers served from a copy made before. */
export interface AssetCompressionStats {
  compressed: number;
  reused: number;
}

/** The counters of this process. */
export const assetCompressionStats: AssetCompressionStats = { compressed: 0, reused: 0 };

/**
 * One compression per file and encoding, kept with the file: brotli at quality 5 (once per file,
 * so a notch above the middleware's 4 costs nothing per request), gzip at level 6 (the
 * middleware's). Both run in libuv's thread pool.
 */
function compress(body: Uint8Array, encoding: Encoding): Promise<Buffer> {
  if (encoding === 'gzip') return gzipAsync(body, { level: 6 });
  return brotli(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 5,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength,
    },
  });
}

/** `asset` with its `encoding` copy made (once: concurrent first requests share the compression). */
async function withCopy(asset: Asset, encoding: Encoding): Promise<Asset> {
  const pending = asset.pending[encoding];
  if (pending) {
    await pending;
    assetCompressionStats.reused++;
    return asset;
  }
  assetCompressionStats.compressed++;
  const made = compress(asset.body, encoding).then((copy) => {
    asset[encoding] = copy;
  });
  asset.pending[encoding] = made;
  made.catch(() => {
    asset.pending[encoding] = undefined; // the next request tries again
  });
  await made;
  return asset;
}

/**
 * The router's row (router.ts) of GraphiQL's files: GET or HEAD of one (module comment) answers
 * it, marked as an asset (a year of caching), compressed as the request accepts; other paths
 * under GRAPHIQL_ASSET_PREFIX answer nothing here (the router's 404).
 */
export const graphiqlAssetRoute: PathRoute = {
  methods: ['GET', 'HEAD'],
  path: `${GRAPHIQL_ASSET_PREFIX}*`,
  handler: async ({ request, url }) => {
    const asset = (await graphiqlAssets()).files.get(url.pathname);
    if (!asset) return null;
    markConsoleAnswer(request, 'asset');
    const encoding = request.method === 'HEAD' ? null : negotiateEncoding(request.headers.get('accept-encoding'));
    if (encoding === null) return fileResponse(request, asset, null);
    try {
      return fileResponse(request, await withCopy(asset, encoding), encoding);
    } catch {
      return fileResponse(request, asset, null);
    }
  },
};
