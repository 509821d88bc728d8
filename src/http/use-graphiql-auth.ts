/**
 * GraphiQL in a browser: ask for Basic credentials once. Yoga renders the GraphiQL page before
 * user plugins see the request, so the answer is swapped here for the 401 that makes the browser
 * prompt, unless the request authenticates (wrong credentials get their 401 too, not the page);
 * the browser then sends the credentials with every GraphiQL request.
 *
 * The page's assets (@graphql-yoga/render-graphiql: GraphiQL's whole bundle, about 9 MB of text
 * and 80 MB of resident memory once loaded) are loaded on the first page asked for with
 * credentials, not at start: most gateways never serve GraphiQL. `graphiqlFor` decides per
 * request, before yoga renders: a request without credentials (no Authorization header, no
 * cookie) gets a placeholder, swapped for the 401 below, so the browser's first, anonymous visit
 * loads nothing. It does not authenticate: yoga renders before the sign-in routes record the
 * client address that throttling counts failures by (use-login-routes.ts); the check below runs
 * after them.
 */
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { unauthenticated } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import type { RequestAuth } from './request-auth.js';
import { errorResponse } from './responses.js';
import { pathOf } from './url-path.js';

/** Marks the options of a request without credentials: render nothing, the 401 follows. */
const REFUSED = Symbol('graphiql refused');
type Options = GraphiQLOptions & { [REFUSED]?: true };

/**
 * The `graphiql` option of createYoga: `options` for a request carrying credentials (an
 * Authorization header or a cookie), else options marked so that `renderGraphiQL` answers a
 * placeholder (useGraphiQLAuth then answers 401 to it, as to bad credentials).
 */
export function graphiqlFor(options: GraphiQLOptions): (request: Request) => Options {
  const refused: Options = { ...options, [REFUSED]: true };
  return (request) => (request.headers.has('authorization') || request.headers.has('cookie') ? options : refused);
}

/** The `renderGraphiQL` option of createYoga: GraphiQL's page, its module loaded on first use. */
export async function renderGraphiQL(options: Options): Promise<string> {
  if (options[REFUSED]) return '<!doctype html><title>GraphiQL</title>';
  const { renderGraphiQL: render } = await import('@graphql-yoga/render-graphiql');
  return render(options);
}

/** Yoga plugin: the GraphiQL page (GET, text/html, 200) without valid credentials becomes a 401. */
export function useGraphiQLAuth(auth: RequestAuth, log: Logger): Plugin {
  return {
    // Not async: only the GraphiQL page has an authentication to wait for.
    onResponse({ request, response, setResponse }) {
      if (request.method !== 'GET' || response.status !== 200 || !(response.headers.get('content-type') ?? '').startsWith('text/html')) {
        return;
      }
      // Only the GraphiQL page: the web console's pages (use-console.ts) sign in with their own form.
      if (pathOf(request.url) !== '/graphql') return;
      return auth(request).then(
        (principal) => {
          if (principal.kind === 'anonymous') setResponse(errorResponse(unauthenticated(), log));
        },
        (error: unknown) => setResponse(errorResponse(error, log)),
      );
    },
  };
}
