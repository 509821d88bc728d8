/**
 * The yoga plugin that answers every path but the GraphQL endpoint's from the one router
 * (router.ts): one lookup per request, in the only onRequest hook that reads the path. Listed
 * right after useConnection (the client's address, read by the REST routes' throttles) and
 * before every GraphQL plugin, so the probes answer even while GraphQL work queues; the security
 * headers and the request log still see every answer (their onResponse hooks come later).
 *
 * A request no row answers (or whose rows all leave it):
 * - under the oss edition's unavailable prefix, whatever the path: 404 ACCESS_CONTROL_UNAVAILABLE;
 * - a near miss of a console page: its 308 redirect (console-routes.ts);
 * - under /api/, a REST path asked with another method: 405 METHOD_NOT_ALLOWED;
 * - a browser's page request: the console page with status 404;
 * - anything else: 404 `{"message":"Not found","code":"NOT_FOUND"}`, the REST door's shape,
 *   instead of yoga's empty 404 body.
 * The GraphQL endpoint is left to yoga (GraphiQL, operations, its 405 for other methods).
 */
import type { Plugin } from 'graphql-yoga';
import { UNAVAILABLE_MESSAGE } from '../kernel/edition.js';
import { DomainError } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import type { ConsoleRoutes } from './console-routes.js';
import { tagRoute } from './request-route.js';
import { errorResponse } from './responses.js';
import type { RouteAnswer, RouteContext, RouteEntry, Router } from './router.js';

export interface RouterPluginDeps {
  router: Router;
  /** Near misses and the 404 page of the console. */
  console: Pick<ConsoleRoutes, 'redirect' | 'notFoundPage'>;
  graphqlEndpoint: string;
  log: Logger;
  /** Paths under this prefix answer 404 ACCESS_CONTROL_UNAVAILABLE (the oss edition's /api/access-control/). */
  unavailablePrefix?: string;
}

/** The first answer of `entry`'s rows from `index` on; synchronous while the rows answer synchronously. */
function answerOf(entry: RouteEntry, context: RouteContext, index = 0): RouteAnswer | Promise<RouteAnswer> {
  const handler = entry.handlers[index];
  if (!handler) return null;
  const answer = handler(context);
  if (answer instanceof Promise) return answer.then((a) => a ?? answerOf(entry, context, index + 1));
  return answer ?? answerOf(entry, context, index + 1);
}

/** Yoga plugin: the router's answer to every request outside `graphqlEndpoint` (module comment). */
export function useRouter(deps: RouterPluginDeps): Plugin {
  const { router, log } = deps;

  /** The answer when no row answered (module comment). */
  function miss(request: Request, url: URL): Response | Promise<Response> {
    const path = url.pathname;
    const redirect = deps.console.redirect(request, url);
    if (redirect) return redirect;
    if (path.startsWith('/api/') && router.answersOtherMethod(request.method, path)) {
      return errorResponse(new DomainError('METHOD_NOT_ALLOWED', `Method ${request.method} not allowed`), log);
    }
    const notFound = errorResponse(new DomainError('NOT_FOUND', 'Not found'), log);
    const page = deps.console.notFoundPage(request, path);
    return page ? page.then((p) => p ?? notFound) : notFound;
  }

  // Not async: a synchronous answer (a probe, the 404) is ended without a promise to await.
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const path = url.pathname;
      if (path === deps.graphqlEndpoint) return;
      if (deps.unavailablePrefix && path.startsWith(deps.unavailablePrefix)) {
        endResponse(errorResponse(new DomainError('ACCESS_CONTROL_UNAVAILABLE', UNAVAILABLE_MESSAGE), log));
        return;
      }
      const found = router.find(request.method, path);
      if (!found) {
        const answer = miss(request, url);
        if (answer instanceof Promise) return answer.then(endResponse);
        endResponse(answer);
        return;
      }
      if (found.entry.label) tagRoute(request, found.entry.label);
      const answer = answerOf(found.entry, { request, url, params: found.params, Response: fetchAPI.Response });
      const end = (a: RouteAnswer): void | Promise<void> => {
        if (a) return endResponse(a);
        const fallback = miss(request, url);
        return fallback instanceof Promise ? fallback.then(endResponse) : endResponse(fallback);
      };
      if (answer instanceof Promise) return answer.then(end);
      return end(answer);
    },
  };
}
