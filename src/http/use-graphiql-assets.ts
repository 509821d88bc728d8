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
 * needs them, not at start: most gateways never serve GraphiQL.
 */
import { createHash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { pathOf } from './url-path.js';
import { markConsoleAnswer } from './use-security-headers.js';

/** The folder of GraphiQL's files, under the GraphQL endpoint. */
export const GRAPHIQL_ASSET_PREFIX = '/graphql/assets/';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

interface Asset {
  type: string;
  body: Uint8Array<ArrayBuffer>;
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
      files.set(path, { type, body });
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

/**
 * Yoga plugin: GET or HEAD of a GraphiQL file (module comment) answers it, marked as an asset
 * (a year of caching); other paths under GRAPHIQL_ASSET_PREFIX pass on to the 404.
 */
export function useGraphiQLAssets(): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || !pathOf(url.href).startsWith(GRAPHIQL_ASSET_PREFIX)) return;
      return graphiqlAssets().then((assets) => {
        const asset = assets.files.get(pathOf(url.href));
        if (!asset) return;
        markConsoleAnswer(request, 'asset');
        const headers = { 'content-type': asset.type, 'content-length': String(asset.body.byteLength) };
        endResponse(new Response(request.method === 'HEAD' ? null : asset.body, { status: 200, headers }));
      });
    },
  };
}
