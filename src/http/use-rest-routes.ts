/**
 * The REST door as a yoga plugin: matches a request against the route table (method, path,
 * requirement, handler: routes.ts), authenticates it, parses its JSON body and turns the
 * handler's result or error into a response, before yoga's GraphQL handling sees it. Handlers
 * call one feature service each.
 *
 * A write (POST, PUT, PATCH, DELETE), or a route `sameSiteOnly`, is checked before its caller is
 * authenticated (so a forged request neither signs in an LDAP user nor counts as a failed
 * login): it must not come from another site and must be JSON or bodiless (body.ts). Its body
 * is read only after authentication, streamed and bounded. A route `requires: 'anonymous'`
 * (the browser's sign-in routes, sign-in-routes.ts) authenticates no one; its failures carry no
 * Basic challenge (a form's failure: no browser credentials prompt) and are never cached.
 */
import type { Plugin } from 'graphql-yoga';
import { UNAVAILABLE_MESSAGE } from '../kernel/edition.js';
import { DomainError } from '../kernel/errors.js';
import { ANONYMOUS, type Principal } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import type { Route, SiteSettings } from '../modules/shared/rest.js';
import type { Logger } from '../platform/logger.js';
import { isSharedAnswer, sharedAnswer } from './answer-cache.js';
import { clientAddress } from './auth/cookies.js';
import { readJsonBody, refuseCrossSite, requireJsonType, trustedOrigins } from './body.js';
import { AT_LEAST_HEADER, REVISION_HEADER } from './consistency.js';
import { tagRoute } from './request-route.js';
import { errorResponse } from './responses.js';

/** Largest JSON body accepted by default, in bytes (MAX_REQUEST_BODY_BYTES). */
const MAX_BODY_BYTES = 1024 * 1024;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface CompiledRoute extends Route {
  segments: string[];
}

export interface RestRouterDeps {
  routes: Route[];
  /** What the sign-in routes answer with (cookie, ROOT_URL, sign-up). */
  site: SiteSettings;
  services: Services;
  authenticate: (request: Request) => Promise<Principal>;
  log: Logger;
  /** Paths under this prefix answer 404 (used for the oss edition's /api/access-control/). */
  unavailablePrefix?: string;
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
 * Response (undici) is a stream it reads chunk by chunk (20-25 % of the CPU of an
 * API-key `GET /api/access-control/user/permissions`, measured by bench/http.ts). Same status,
 * headers and body as responses.ts `json`.
 */
function jsonAnswer(ResponseClass: ResponseClass, status: number, body: unknown, request: Request): Response {
  if (isSharedAnswer(body)) {
    // A frozen value (a cached index's listing): its bytes made once (answer-cache.ts).
    const shared = sharedAnswer(body, request.headers.get('accept-encoding'));
    return new ResponseClass(shared.body, { status, headers: shared.headers });
  }
  return new ResponseClass(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/** The paths of the route table outside /api/ (the sign-in routes): only their exact matches are answered. */
function ownPaths(routes: readonly Route[]): Set<string> {
  return new Set(routes.filter((r) => !r.path.startsWith('/api/')).map((r) => r.path));
}

/** A failure of an anonymous route (module comment): no Basic challenge, never cached. */
function anonymousFailure(response: Response): Response {
  response.headers.delete('www-authenticate');
  response.headers.set('cache-control', 'no-store');
  return response;
}

/**
 * Builds the request handler. It answers every path under /api/ (404 for unknown ones, 405 for
 * a known path with another method) and the table's other paths for their methods, and returns
 * null for any other request.
 */
function createRestRouter(deps: RestRouterDeps): {
  /** Whether a request to `pathname` may be the router's: under /api/ or one of the table's other paths. */
  owns: (pathname: string) => boolean;
  answer: (request: Request, url: URL, ResponseClass: ResponseClass) => Promise<Response | null>;
} {
  const trusted = trustedOrigins(deps);
  // Static segments win over parameters, so `/roles/hard-reset` is never taken as a uid.
  const compiled: CompiledRoute[] = deps.routes
    .map((r) => ({ ...r, segments: split(r.path) }))
    .sort((a, b) => a.segments.filter((s) => s.startsWith(':')).length - b.segments.filter((s) => s.startsWith(':')).length);
  // Grouped by segment count (in that order), so a request is tried only against routes of its length.
  const byLength = new Map<number, CompiledRoute[]>();
  for (const route of compiled) byLength.set(route.segments.length, [...(byLength.get(route.segments.length) ?? []), route]);

  function match(method: string, pathname: string): { route: CompiledRoute; params: Record<string, string> } | 'method' | null {
    const parts = split(pathname);
    let pathMatched = false;
    for (const route of byLength.get(parts.length) ?? []) {
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) {
          try {
            params[seg.slice(1)] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        } else ok = seg === part;
      }
      if (!ok) continue;
      if (route.method === method) return { route, params };
      pathMatched = true;
    }
    return pathMatched ? 'method' : null;
  }

  const outsideApi = ownPaths(deps.routes);
  const maxBodyBytes = deps.maxBodyBytes ?? MAX_BODY_BYTES;

  const owns = (pathname: string) => pathname.startsWith('/api/') || outsideApi.has(pathname);

  const answer = async (request: Request, url: URL, ResponseClass: ResponseClass): Promise<Response | null> => {
    const api = url.pathname.startsWith('/api/');
    if (!owns(url.pathname)) return null;
    let anonymous = false;
    try {
      if (deps.unavailablePrefix && url.pathname.startsWith(deps.unavailablePrefix)) {
        throw new DomainError('ACCESS_CONTROL_UNAVAILABLE', UNAVAILABLE_MESSAGE);
      }
      const found = match(request.method, url.pathname);
      // Outside /api/ another method is not ours: it goes on to yoga (and its 404).
      if (!api && found === 'method') return null;
      if (found === null) throw new DomainError('NOT_FOUND', 'Not found');
      if (found === 'method') throw new DomainError('METHOD_NOT_ALLOWED', `Method ${request.method} not allowed`);
      const { route } = found;
      anonymous = route.requires === 'anonymous';
      tagRoute(request, route.path); // for the request log and metrics (use-request-log.ts)
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
        params: found.params,
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
  };
  return { owns, answer };
}

/**
 * Yoga plugin answering every path under /api/ from the route table (404 for unknown paths,
 * 405 for a known path with another method) and the table's sign-in paths for their methods;
 * other requests go on to yoga.
 */
export function useRestRoutes(deps: RestRouterDeps): Plugin {
  const rest = createRestRouter(deps);
  return {
    // Not async: requests to other paths (GraphQL, the console) pass without a promise to await.
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (!rest.owns(url.pathname)) return;
      return rest.answer(request, url, fetchAPI.Response).then((response) => {
        if (response) endResponse(response);
      });
    },
  };
}
