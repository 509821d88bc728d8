/**
 * The REST door's OpenAPI 3.1 document and its browsable reference:
 * - `GET /api/openapi.json`: the document built from the route table (openapi.ts), without
 *   credentials, like Grafana's published spec;
 * - `GET /swagger` (Grafana's path): Swagger UI (swagger-ui-dist, served from node_modules) on
 *   that document, without credentials; "Try it out" sends the session cookie of a signed-in
 *   browser, or the credentials given to its "Authorize" button;
 * - `GET /swagger/assets/<version>/<file>`: the page's files, a fixed list, with their content
 *   type and a year-long immutable cache (the version is in the path).
 * The page has no inline script: its policy is `script-src 'self'`, no `unsafe-eval`.
 * They are rows of the router (router.ts), like the REST routes.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Route } from '../modules/shared/rest.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import { json } from './responses.js';
import type { PathRoute } from './router.js';
import { markConsoleAnswer } from './use-security-headers.js';

/** Path of the document. */
export const OPENAPI_PATH = '/api/openapi.json';
/** Path of the reference page (Grafana serves its Swagger UI at /swagger too). */
export const REFERENCE_PATH = '/swagger';

const require = createRequire(import.meta.url);
const UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const UI_VERSION = (JSON.parse(readFileSync(join(UI_DIR, 'package.json'), 'utf8')) as { version: string }).version;
const ASSETS = `${REFERENCE_PATH}/assets/${UI_VERSION}/`;
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The page's own script: starts Swagger UI on the element that names the document. */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({ url: root.getAttribute('data-url'), domNode: root, deepLinking: true, validatorUrl: null });
});
`;

/** Files the page loads: name -> [content type, where it comes from]. */
const FILES: Record<string, { type: string; source: string | { text: string } }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', source: 'swagger-ui.css' },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', source: 'swagger-ui-bundle.js' },
  'favicon-32x32.png': { type: 'image/png', source: 'favicon-32x32.png' },
  'favicon-16x16.png': { type: 'image/png', source: 'favicon-16x16.png' },
  'init.js': { type: 'text/javascript; charset=utf-8', source: { text: INIT_SCRIPT } },
};

// Relative addresses, so the page also works behind a proxy that serves the service under a sub-path.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>portcullis REST API</title>
<link rel="stylesheet" href="${ASSETS.slice(1)}swagger-ui.css">
<link rel="icon" type="image/png" sizes="32x32" href="${ASSETS.slice(1)}favicon-32x32.png">
<link rel="icon" type="image/png" sizes="16x16" href="${ASSETS.slice(1)}favicon-16x16.png">
</head>
<body>
<div id="swagger-ui" data-url="${OPENAPI_PATH.slice(1)}"></div>
<script src="${ASSETS.slice(1)}swagger-ui-bundle.js"></script>
<script src="${ASSETS.slice(1)}init.js"></script>
</body>
</html>
`;

/** Policy of the page: scripts and styles from this origin only (inline styles: Swagger UI sets style attributes). */
export const REFERENCE_PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export interface OpenApiDeps {
  routes: readonly Route[];
  cookieName: string;
  /** Left out of the document (the oss edition's /api/access-control/). */
  unavailablePrefix?: string;
}

const fileCache = new Map<string, Uint8Array<ArrayBuffer>>();

/** The bytes of asset `name`, read once. */
function asset(name: string): Uint8Array<ArrayBuffer> {
  let bytes = fileCache.get(name);
  if (!bytes) {
    const source = (FILES[name] as (typeof FILES)[string]).source;
    bytes = typeof source === 'string' ? new Uint8Array(readFileSync(join(UI_DIR, source))) : new TextEncoder().encode(source.text);
    fileCache.set(name, bytes);
  }
  return bytes;
}

function answer(request: Request, status: number, type: string, body: Uint8Array<ArrayBuffer> | string): Response {
  return new Response(request.method === 'HEAD' ? null : body, { status, headers: { 'content-type': type } });
}

/**
 * The router's rows (router.ts) of the document, the page and its files (GET and HEAD). The
 * document is built on first use and kept; the page carries its own policy and the files a
 * year-long cache, in place of the API defaults (markConsoleAnswer, use-security-headers.ts).
 */
export function openApiRoutes(deps: OpenApiDeps): PathRoute[] {
  let document: OpenApiDocument | undefined;
  const methods = ['GET', 'HEAD'];
  return [
    {
      methods,
      path: OPENAPI_PATH,
      handler: ({ request }) => {
        document ??= buildOpenApiDocument(deps.routes, {
          version: VERSION,
          cookieName: deps.cookieName,
          ...(deps.unavailablePrefix && { unavailablePrefix: deps.unavailablePrefix }),
        });
        const response = json(200, document);
        return request.method === 'HEAD' ? new Response(null, { headers: response.headers }) : response;
      },
    },
    {
      methods,
      path: REFERENCE_PATH,
      handler: ({ request }) => {
        markConsoleAnswer(request, 'page', REFERENCE_PAGE_POLICY);
        return answer(request, 200, 'text/html; charset=utf-8', PAGE);
      },
    },
    {
      methods,
      path: `${ASSETS}*`,
      handler: ({ request, params }) => {
        const name = params['*'] ?? '';
        const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
        if (!file) return answer(request, 404, 'text/plain; charset=utf-8', 'Not found');
        markConsoleAnswer(request, 'asset');
        return answer(request, 200, file.type, asset(name));
      },
    },
  ];
}
