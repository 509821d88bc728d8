/**
 * The REST door as a yoga plugin: matches a request against the features' route tables
 * (method, path, requirement, handler), authenticates it, parses its JSON body and turns the
 * handler's result or error into a response, before yoga's GraphQL handling sees it. Handlers
 * call one feature service each.
 */
import type { Plugin } from 'graphql-yoga';
import { UNAVAILABLE_MESSAGE } from '../kernel/edition.js';
import { DomainError } from '../kernel/errors.js';
import type { Principal } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import type { Route } from '../modules/shared/rest.js';
import type { Logger } from '../platform/logger.js';
import { errorResponse, json } from './responses.js';

/** Largest JSON body accepted, in bytes. */
export const MAX_BODY_BYTES = 1024 * 1024;

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
}

async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.length === 0) return undefined;
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) {
    throw new DomainError('BAD_REQUEST', `request body is larger than ${MAX_BODY_BYTES} bytes`);
  }
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new DomainError('UNSUPPORTED_CONTENT_TYPE', 'bad request data: Content-Type must be application/json');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DomainError('INVALID_JSON', `bad request data: invalid JSON (${(error as Error).message})`);
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

/**
 * Builds the request handler. It answers every path under /api/ (404 for unknown ones, 405 for
 * a known path with another method) and returns null for any other path.
 */
function createRestRouter(deps: RestRouterDeps): (request: Request, url: URL) => Promise<Response | null> {
  // Static segments win over parameters, so `/roles/hard-reset` is never taken as a uid.
  const compiled: CompiledRoute[] = deps.routes
    .map((r) => ({ ...r, segments: split(r.path) }))
    .sort((a, b) => a.segments.filter((s) => s.startsWith(':')).length - b.segments.filter((s) => s.startsWith(':')).length);

  function match(method: string, pathname: string): { route: CompiledRoute; params: Record<string, string> } | 'method' | null {
    const parts = split(pathname);
    let pathMatched = false;
    for (const route of compiled) {
      if (route.segments.length !== parts.length) continue;
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

  return async (request, url) => {
    if (!url.pathname.startsWith('/api/')) return null;
    const started = performance.now();
    let response: Response;
    try {
      if (deps.unavailablePrefix && url.pathname.startsWith(deps.unavailablePrefix)) {
        throw new DomainError('ACCESS_CONTROL_UNAVAILABLE', UNAVAILABLE_MESSAGE);
      }
      const found = match(request.method, url.pathname);
      if (found === null) throw new DomainError('NOT_FOUND', 'Not found');
      if (found === 'method') throw new DomainError('METHOD_NOT_ALLOWED', `Method ${request.method} not allowed`);
      const principal = await deps.authenticate(request);
      const body = request.method === 'POST' || request.method === 'PUT' ? await readJsonBody(request) : undefined;
      const result = await found.route.handler({
        principal,
        services: deps.services,
        params: found.params,
        query: url.searchParams,
        body,
      });
      response = json(200, result);
    } catch (error) {
      response = errorResponse(error, deps.log);
    }
    deps.log.debug(
      { method: request.method, path: url.pathname, status: response.status, ms: Math.round(performance.now() - started) },
      'rest request',
    );
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
    async onRequest({ request, url, endResponse }) {
      const response = await rest(request, url);
      if (response) endResponse(response);
    },
  };
}
