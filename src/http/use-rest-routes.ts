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
import { clientAddress } from './auth/cookies.js';
import { tagRoute } from './request-route.js';
import { errorResponse, json } from './responses.js';

/** Largest JSON body accepted by default, in bytes (MAX_REQUEST_BODY_BYTES). */
const MAX_BODY_BYTES = 1024 * 1024;

const LONE_SURROGATE = /\p{Cs}/u;

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
}

const tooLarge = (limit: number) => new DomainError('REQUEST_TOO_LARGE', `request body is larger than ${limit} bytes`);

/**
 * The body's bytes, refused with 413 on a Content-Length over `limit` before reading, or as soon
 * as the streamed bytes pass it (the rest is never read).
 */
async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && (!/^\d+$/.test(declared) || Number(declared) > limit)) {
    if (!/^\d+$/.test(declared)) throw new DomainError('BAD_REQUEST', 'Content-Length is invalid');
    throw tooLarge(limit);
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The JSON body, or undefined when empty.
 * @throws DomainError REQUEST_TOO_LARGE (413), UNSUPPORTED_CONTENT_TYPE (400) for anything but
 *   application/json, INVALID_JSON (400) for bad JSON, bad UTF-8 or lone surrogates.
 */
async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const bytes = await readBody(request, limit);
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('INVALID_JSON', 'bad request data: the body is not valid UTF-8');
  }
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new DomainError('UNSUPPORTED_CONTENT_TYPE', 'bad request data: Content-Type must be application/json');
  }
  let lone = false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value: unknown) => {
      if (LONE_SURROGATE.test(key) || (typeof value === 'string' && LONE_SURROGATE.test(value))) lone = true;
      return value;
    });
  } catch (error) {
    throw new DomainError('INVALID_JSON', `bad request data: invalid JSON (${(error as Error).message})`);
  }
  if (lone) throw new DomainError('INVALID_JSON', 'bad request data: text must be well-formed Unicode (lone surrogate)');
  return parsed;
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

  return async (request, url) => {
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
      const principal = await deps.authenticate(request);
      const writes = request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH';
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
      response = json(found.route.status ?? 200, result);
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
    async onRequest({ request, url, endResponse }) {
      const response = await rest(request, url);
      if (response) endResponse(response);
    },
  };
}
