/**
 * The REST door as a yoga plugin: matches a request against the features' route tables
 * (method, path, requirement, handler), authenticates it, parses its JSON body and turns the
 * handler's result or error into a response, before yoga's GraphQL handling sees it. Handlers
 * call one feature service each.
 *
 * A write (POST, PUT, PATCH, DELETE) is checked before its caller is authenticated (so a forged
 * request neither signs in an LDAP user nor counts as a failed login): it must not come from
 * another site and must be JSON or bodiless (body.ts). Its body is read only after
 * authentication, streamed and bounded.
 */
import type { Plugin } from 'graphql-yoga';
import { UNAVAILABLE_MESSAGE } from '../kernel/edition.js';
import { DomainError } from '../kernel/errors.js';
import type { Principal } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import type { Route } from '../modules/shared/rest.js';
import type { Logger } from '../platform/logger.js';
import { clientAddress } from './auth/cookies.js';
import { readJsonBody, refuseCrossSite, requireJsonType, trustedOrigins } from './body.js';
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
 * Response (undici) is a stream it reads chunk by chunk (issue 20: 20-25 % of the CPU of an
 * API-key `GET /api/access-control/user/permissions`, measured by bench/http.ts). Same status,
 * headers and body as responses.ts `json`.
 */
function jsonAnswer(ResponseClass: ResponseClass, status: number, body: unknown): Response {
  return new ResponseClass(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/**
 * Builds the request handler. It answers every path under /api/ (404 for unknown ones, 405 for
 * a known path with another method) and returns null for any other path.
 */
function createRestRouter(deps: RestRouterDeps): (request: Request, url: URL, ResponseClass: ResponseClass) => Promise<Response | null> {
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

  return async (request, url, ResponseClass) => {
    if (!url.pathname.startsWith('/api/')) return null;
    let response: Response;
    try {
      if (deps.unavailablePrefix && url.pathname.startsWith(deps.unavailablePrefix)) {
        throw new DomainError('ACCESS_CONTROL_UNAVAILABLE', UNAVAILABLE_MESSAGE);
      }
      const found = match(request.method, url.pathname);
      if (found === null) throw new DomainError('NOT_FOUND', 'Not found');
      if (found === 'method') throw new DomainError('METHOD_NOT_ALLOWED', `Method ${request.method} not allowed`);
      tagRoute(request, found.route.path); // for the request log and metrics (use-request-log.ts)
      const writes = WRITES.has(request.method);
      if (writes) {
        refuseCrossSite(request, trusted);
        requireJsonType(request);
      }
      const principal = await deps.authenticate(request);
      const body = writes ? await readJsonBody(request, deps.maxBodyBytes ?? MAX_BODY_BYTES) : undefined;
      const { handler } = found.route;
      const input = {
        principal,
        services: deps.services,
        params: found.params,
        query: url.searchParams,
        body,
        clientAddress: clientAddress(request),
      };
      const result = await deps.services.access.run(principal, () => handler(input));
      response = jsonAnswer(ResponseClass, found.route.status ?? 200, result);
    } catch (error) {
      response = errorResponse(error, deps.log);
    }
    return response;
  };
}

/**
 * Yoga plugin answering every path under /api/ from the route tables (404 for unknown paths,
 * 405 for a known path with another method); other paths go on to yoga.
 */
export function useRestRoutes(deps: RestRouterDeps): Plugin {
  const rest = createRestRouter(deps);
  return {
    // Not async: requests outside /api/ (GraphQL, the console) pass without a promise to await.
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith('/api/')) return;
      return rest(request, url, fetchAPI.Response).then((response) => {
        if (response) endResponse(response);
      });
    },
  };
}
