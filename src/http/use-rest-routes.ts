/**
 * A small REST router: a table of routes (method, path, the permission it needs, handler) and
 * the code that matches a request, authenticates it, parses its JSON body and turns the
 * handler's result or error into a response. Handlers call one core service each.
 */
import { DomainError, httpStatusOf, isDomainError } from '../kernel/errors.js';
import type { Principal } from '../kernel/principal.js';
import type { Services } from '../modules/services.js';
import type { Logger } from '../platform/logger.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RouteRequest {
  principal: Principal;
  services: Services;
  /** Path parameters by name (`:uid` -> params.uid), URI-decoded. */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body (POST/PUT), or undefined when none was sent. */
  body: unknown;
}

export interface Route {
  method: Method;
  /** `/api/...` with `:name` parameters. */
  path: string;
  /** The permission the core checks, for readers of the table (service-interface.md). */
  requires: string;
  handler: (req: RouteRequest) => Promise<unknown>;
}

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

/** JSON response with `status`. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * Response for an error: a DomainError gives its status and `{message, code}`; anything else is
 * logged with its stack and answered 500 `{"message": "Internal server error"}`.
 */
export function errorResponse(error: unknown, log: Logger): Response {
  if (isDomainError(error)) {
    const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': 'Basic realm="portcullis"' } : {};
    return json(httpStatusOf(error.code), { message: error.message, code: error.code }, headers);
  }
  log.error({ err: error }, 'unexpected error');
  return json(500, { message: 'Internal server error', code: 'INTERNAL' });
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
export function createRestRouter(deps: RestRouterDeps): (request: Request, url: URL) => Promise<Response | null> {
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
        throw new DomainError('ACCESS_CONTROL_UNAVAILABLE', 'Role-based access control is not available in this edition');
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
