/**
 * The one table from a request's method and path to what answers it, on find-my-way (Fastify's
 * router; why this library: docs/architecture.md). Every path the service answers outside the
 * GraphQL endpoint is a row of it: the probes (probes.ts), the metrics (metrics-route.ts), the
 * REST and sign-in routes (rest-door.ts), the OpenAPI document and its page (openapi-routes.ts),
 * the web console (console-routes.ts) and GraphiQL's files (graphiql-assets.ts). useRouter
 * (use-router.ts) looks a request up once.
 *
 * Matching, find-my-way's: a static segment wins over a parameter (`/roles/hard-reset` is never a
 * uid), a parameter is percent-decoded (a malformed escape matches nothing), case matters, a
 * trailing `*` takes the rest of the path. Under /api/ repeated and trailing slashes do not count
 * (`/api/x//y/` is `/api/x/y`); elsewhere only the exact path matches. Rows of the same method and
 * path are tried in their order until one answers (the console's `GET /login` page first, the
 * sign-in routes' minimal page when there is no console build).
 */
import FindMyWay, { type HTTPMethod } from 'find-my-way';

/** What a row's handler gets: the request, its parsed URL, the path's parameters (decoded). */
export interface RouteContext {
  request: Request;
  url: URL;
  params: Readonly<Record<string, string | undefined>>;
  /** The server adapter's Response class (yoga's `fetchAPI.Response`). */
  Response: typeof Response;
}

/** A response, or null (undefined) to leave the request to the next row of its method and path, then to the not-found answer. */
export type RouteAnswer = Response | null | undefined;

export type RouteHandler = (context: RouteContext) => RouteAnswer | Promise<RouteAnswer>;

/** One row: the methods and path (find-my-way's syntax: `:name` parameters, a final `*`) it answers. */
export interface PathRoute {
  methods: readonly string[];
  path: string;
  /** The route label of the request log and HTTP metrics (request-route.ts); none: the log's own. */
  label?: string;
  /** A REST route: under /api/, its path asked with another method answers 405 (not 404). */
  rest?: boolean;
  handler: RouteHandler;
}

/** The rows of one method and path. */
export interface RouteEntry {
  label: string | undefined;
  /** Whether a REST route is among the rows. */
  rest: boolean;
  handlers: RouteHandler[];
}

export interface Router {
  /** The rows matching `method` and `pathname` (a URL's pathname, still percent-encoded), or null. */
  find(method: string, pathname: string): { entry: RouteEntry; params: Record<string, string | undefined> } | null;
  /** Whether a REST row answers `pathname` with a method other than `method` (a 405 rather than a 404). */
  answersOtherMethod(method: string, pathname: string): boolean;
}

/** Longest parameter matched, in characters: a role uid or a scope fits many times over; longer matches nothing. */
const MAX_PARAM_LENGTH = 2048;

/** `/api/` paths without repeated or trailing slashes (the module comment). */
function normalized(pathname: string): string {
  if (!pathname.startsWith('/api/')) return pathname;
  if (!pathname.includes('//') && !pathname.endsWith('/')) return pathname;
  return pathname.replace(/\/{2,}/g, '/').replace(/(.)\/$/, '$1');
}

/** Builds the router from `routes`, in their order. */
export function createRouter(routes: readonly PathRoute[]): Router {
  const router = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  const entries = new Map<string, RouteEntry>();
  const restMethods = new Set<string>();
  const noop = () => undefined;
  for (const route of routes) {
    for (const method of route.methods) {
      const key = `${method} ${route.path}`;
      const existing = entries.get(key);
      if (existing) {
        existing.handlers.push(route.handler);
        existing.label ??= route.label;
        existing.rest ||= route.rest === true;
        continue;
      }
      const entry: RouteEntry = { label: route.label, rest: route.rest === true, handlers: [route.handler] };
      entries.set(key, entry);
      router.on(method as HTTPMethod, route.path, noop, entry);
      if (route.rest) restMethods.add(method);
    }
  }
  return {
    find(method, pathname) {
      const found = router.find(method as HTTPMethod, normalized(pathname));
      return found ? { entry: found.store as RouteEntry, params: found.params } : null;
    },
    answersOtherMethod(method, pathname) {
      const path = normalized(pathname);
      for (const other of restMethods) {
        if (other !== method && (router.find(other as HTTPMethod, path)?.store as RouteEntry | undefined)?.rest) return true;
      }
      return false;
    },
  };
}
