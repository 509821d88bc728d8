/**
 * The REST door: the route table's rows (method, path, requirement, handler: routes.ts) as rows
 * of the router (router.ts), each authenticating its request, parsing its JSON body and turning
 * the handler's result or error into a response, before yoga's GraphQL handling sees it.
 * Handlers call one feature service each.
 *
 * A write (POST, PUT, PATCH, DELETE), or a route `sameSiteOnly`, is checked before its caller is
 * authenticated (so a forged request neither signs in an LDAP user nor counts as a failed
 * login): it must not come from another site and must be JSON or bodiless (body.ts). Its body
 * is read only after authentication, streamed and bounded. A route `requires: 'anonymous'`
 * (the browser's sign-in routes, sign-in-routes.ts) authenticates no one; its failures carry no
 * Basic challenge (a form's failure: no browser credentials prompt) and are never cached.
 */
import { ANONYMOUS, type Principal } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import type { Route, SiteSettings } from '../modules/shared/rest.js';
import type { Logger } from '../platform/logger.js';
import { isSharedAnswer, sharedAnswer } from './answer-cache.js';
import { clientAddress } from './auth/cookies.js';
import { readJsonBody, refuseCrossSite, requireJsonType, trustedOrigins } from './body.js';
import { AT_LEAST_HEADER, REVISION_HEADER } from './consistency.js';
import { errorResponse } from './responses.js';
import type { PathRoute, RouteContext } from './router.js';

/** Largest JSON body accepted by default, in bytes (MAX_REQUEST_BODY_BYTES). */
const MAX_BODY_BYTES = 1024 * 1024;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface RestDoorDeps {
  routes: Route[];
  /** What the sign-in routes answer with (cookie, ROOT_URL, sign-up). */
  site: SiteSettings;
  services: Services;
  authenticate: (request: Request) => Promise<Principal>;
  log: Logger;
  /** Largest body in bytes; 1 MiB by default. */
  maxBodyBytes?: number;
  /** CORS_ALLOWED_ORIGINS: other origins whose pages may send writes (body.ts refuseCrossSite). */
  allowedOrigins?: readonly string[];
  /** ROOT_URL: the service's public address, whose origin may send writes. */
  rootUrl?: string;
}

/** The Response class of the server adapter (`fetchAPI.Response` of yoga's hooks). */
type ResponseClass = typeof Response;

/**
 * A handler's JSON answer, built with the server adapter's own Response class: yoga's Node
 * adapter writes such a response's string body in one write, while a body of Node's global
 * Response (undici) is a stream it reads chunk by chunk (a large share of a small answer's CPU:
 * `npm run bench -- http --profile`). Same status, headers and body as responses.ts `json`.
 */
function jsonAnswer(ResponseClass: ResponseClass, status: number, body: unknown, request: Request): Response {
  if (isSharedAnswer(body)) {
    // A frozen value (a cached index's listing): its bytes made once (answer-cache.ts).
    const shared = sharedAnswer(body, request.headers.get('accept-encoding'));
    return new ResponseClass(shared.body, { status, headers: shared.headers });
  }
  return new ResponseClass(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

/** A failure of an anonymous route (module comment): no Basic challenge, never cached. */
function anonymousFailure(response: Response): Response {
  response.headers.delete('www-authenticate');
  response.headers.set('cache-control', 'no-store');
  return response;
}

/**
 * The route table's rows for the router (router.ts), each answering its method and path: the
 * request checked, authenticated, its body read, the handler's result or error as a response.
 * A path under /api/ that no row answers is the router's 404 or 405 (use-router.ts).
 */
export function restRoutes(deps: RestDoorDeps): PathRoute[] {
  const trusted = trustedOrigins(deps);
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES;

  async function answer(route: Route, { request, url, params, Response: ResponseClass }: RouteContext): Promise<Response> {
    const anonymous = route.requires === 'anonymous';
    try {
      const writes = WRITES.has(request.method);
      if (writes || route.sameSiteOnly) refuseCrossSite(request, trusted);
      if (writes) requireJsonType(request, route.bodyRequired);
      const principal = anonymous ? ANONYMOUS : await deps.authenticate(request);
      const atLeast = request.headers.get(AT_LEAST_HEADER);
      if (atLeast !== null && !anonymous) await deps.services.changes.requireRevision(atLeast);
      const body = writes ? await readJsonBody(request, Math.min(route.maxBodyBytes ?? maxBodyBytes, maxBodyBytes)) : undefined;
      const input = {
        principal,
        services: deps.services,
        params: params as Record<string, string>,
        query: url.searchParams,
        body,
        clientAddress: clientAddress(request),
        request,
        site: deps.site,
      };
      const result = anonymous ? await route.handler(input) : await deps.services.access.run(principal, () => route.handler(input));
      const response = result instanceof Response ? result : jsonAnswer(ResponseClass, route.status ?? 200, result, request);
      const revision = anonymous ? undefined : deps.services.access.committedRevision(principal);
      if (revision !== undefined) response.headers.set(REVISION_HEADER, String(revision));
      return response;
    } catch (error) {
      const response = errorResponse(error, deps.log);
      return anonymous ? anonymousFailure(response) : response;
    }
  }

  return deps.routes.map((route) => ({
    methods: [route.method],
    path: route.path,
    label: route.path,
    rest: true,
    handler: (context: RouteContext) => answer(route, context),
  }));
}
