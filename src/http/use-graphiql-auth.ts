/**
 * GraphiQL in a browser: ask for Basic credentials once. Yoga renders the GraphiQL page before
 * user plugins see the request, so the answer is swapped here for the 401 that makes the browser
 * prompt, unless the request authenticates (wrong credentials get their 401 too, not the page);
 * the browser then sends the credentials with every GraphiQL request. A console session (its
 * cookie) or an API key in the Authorization header opens the page without the prompt; the
 * page's first query greets the caller by the way it signed in (graphiqlOptions).
 *
 * The page names GraphiQL's files (graphiql-assets.ts: GraphiQL's whole bundle, about 9 MB
 * of text and 80 MB of resident memory once loaded, read on first use, not at start: most
 * gateways never serve GraphiQL). `graphiqlOptions` decides per request, before yoga renders: a
 * request without credentials (no Authorization header, no cookie) gets a placeholder, swapped
 * for the 401 below, so the browser's first, anonymous visit loads nothing and authenticates
 * nothing.
 */
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { unauthenticated } from '../kernel/errors.js';
import { ANONYMOUS, type Principal } from '../kernel/principal.js';
import type { Logger } from '../platform/logger.js';
import { graphiqlPage } from './graphiql-assets.js';
import type { RequestAuth } from './request-auth.js';
import { errorResponse } from './responses.js';
import { pathOf } from './url-path.js';

/** Marks the options of a request without credentials: render nothing, the 401 follows. */
const REFUSED = Symbol('graphiql refused');
type Options = GraphiQLOptions & { [REFUSED]?: true };

/** True when the request carries credentials (an Authorization header or a cookie). */
const hasCredentials = (request: Request): boolean => request.headers.has('authorization') || request.headers.has('cookie');

/** The `renderGraphiQL` option of createYoga: GraphiQL's page (graphiql-assets.ts). */
export async function renderGraphiQL(options: Options): Promise<string> {
  if (options[REFUSED]) return '<!doctype html><title>GraphiQL</title>';
  return graphiqlPage(options as Options & Record<string, unknown>);
}

/**
 * Characters of a greeting line: GraphiQL's query editor shows about fifty before its toolbar on a
 * 1280-pixel-wide window, and cuts longer lines off without wrapping them.
 */
export const GREETING_WIDTH = 46;

/** The comment lines opening GraphiQL's starting query: how this page was signed in, for each way it can be. */
function greeting(principal: Principal): string {
  if (principal.kind === 'anonymous') return '# Not signed in.';
  switch (principal.authMethod) {
    case 'session':
      return '# Signed in with your console session\n# (the cookie of the sign-in page);\n# sign out in the console.';
    case 'basic':
      return "# Signed in with a login and password\n# (HTTP basic auth: your browser's prompt\n# keeps them until it closes).";
    case 'api_key':
      return principal.kind === 'apiKey'
        ? '# Signed in with an API key\n# (the Authorization header).'
        : "# Signed in with a service account's token\n# (the Authorization header).";
    default:
      return '# Signed in.';
  }
}

/** GraphiQL's starting query for `principal`: the greeting, then who the caller is and what it may do. */
export function graphiqlDefaultQuery(principal: Principal): string {
  return `${greeting(principal)}\n{\n  viewer {\n    login\n    orgId\n    orgRole\n    roles { uid name }\n    permissions { action scope }\n  }\n}\n`;
}

/**
 * Yoga's `graphiql` option: the page's title and a starting query greeting the caller by its
 * sign-in; for a request without credentials, options marked so that renderGraphiQL answers a
 * placeholder (the request's one authentication, shared with useGraphiQLAuth; a failure is that
 * plugin's 401).
 */
export function graphiqlOptions(auth: RequestAuth): (request: Request) => Promise<Options> {
  const title = 'portcullis GraphiQL';
  return async (request) => {
    // Without credentials nothing is loaded nor authenticated: renderGraphiQL answers a
    // placeholder, which useGraphiQLAuth swaps for the 401.
    if (!hasCredentials(request)) return { title, [REFUSED]: true };
    return { title, defaultQuery: graphiqlDefaultQuery(await auth(request).catch(() => ANONYMOUS)) };
  };
}

/** Yoga plugin: the GraphiQL page (GET, text/html, 200) without valid credentials becomes a 401. */
export function useGraphiQLAuth(auth: RequestAuth, log: Logger): Plugin {
  return {
    // Not async: only the GraphiQL page has an authentication to wait for.
    onResponse({ request, response, setResponse }) {
      if (request.method !== 'GET' || response.status !== 200 || !(response.headers.get('content-type') ?? '').startsWith('text/html')) {
        return;
      }
      // Only the GraphiQL page: the web console's pages (console-routes.ts) sign in with their own form.
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
