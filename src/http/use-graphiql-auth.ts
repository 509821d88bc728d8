/**
 * GraphiQL in a browser: ask for Basic credentials once. Yoga renders the GraphiQL page before
 * user plugins see the request, so the answer is swapped here for the 401 that makes the browser
 * prompt, unless the request authenticates (wrong credentials get their 401 too, not the page);
 * the browser then sends the credentials with every GraphiQL request.
 */
import type { Plugin } from 'graphql-yoga';
import { unauthenticated } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import type { RequestAuth } from './request-auth.js';
import { errorResponse } from './responses.js';

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
