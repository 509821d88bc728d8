/**
 * GraphiQL in a browser: ask for Basic credentials once. Yoga renders the GraphiQL page before
 * user plugins see the request, so the answer is swapped here for the 401 that makes the browser
 * prompt, unless the request authenticates (wrong credentials get their 401 too, not the page);
 * the browser then sends the credentials with every GraphiQL request. A console session (its
 * cookie) or an API key in the Authorization header opens the page without the prompt; the
 * page's first query greets the caller by the way it signed in (graphiqlOptions).
 */
import type { Plugin } from 'graphql-yoga';
import { unauthenticated } from '../kernel/errors.js';
import { ANONYMOUS, type Principal } from '../kernel/principal.js';
import type { Logger } from '../platform/logger.js';
import type { RequestAuth } from './request-auth.js';
import { errorResponse } from './responses.js';

/** The first line of GraphiQL's starting query: how this page was signed in, for each way it can be. */
function greeting(principal: Principal): string {
  if (principal.kind === 'anonymous') return '# Not signed in.';
  switch (principal.authMethod) {
    case 'session':
      return '# Signed in with your console session (the cookie of the sign-in page); sign out in the console.';
    case 'basic':
      return "# Signed in with a login and password (HTTP basic auth: your browser's prompt keeps them until it closes).";
    case 'api_key':
      return principal.kind === 'apiKey'
        ? '# Signed in with an API key (the Authorization header).'
        : "# Signed in with a service account's token (the Authorization header).";
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
 * sign-in (the request's one authentication, shared with useGraphiQLAuth; a failure is that
 * plugin's 401).
 */
export function graphiqlOptions(auth: RequestAuth): (request: Request) => Promise<{ title: string; defaultQuery: string }> {
  return async (request) => ({
    title: 'portcullis GraphiQL',
    defaultQuery: graphiqlDefaultQuery(await auth(request).catch(() => ANONYMOUS)),
  });
}

/** Yoga plugin: the GraphiQL page (GET, text/html, 200) without valid credentials becomes a 401. */
export function useGraphiQLAuth(auth: RequestAuth, log: Logger): Plugin {
  return {
    async onResponse({ request, response, setResponse }) {
      if (request.method !== 'GET' || response.status !== 200 || !(response.headers.get('content-type') ?? '').startsWith('text/html')) {
        return;
      }
      // Only the GraphiQL page: the web console's pages (use-console.ts) sign in with their own form.
      if (new URL(request.url).pathname !== '/graphql') return;
      try {
        if ((await auth(request)).kind === 'anonymous') throw unauthenticated();
      } catch (error) {
        setResponse(errorResponse(error, log));
      }
    },
  };
}
