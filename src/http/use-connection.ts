/**
 * The plugin that runs first: records each request's connection (client address for throttling,
 * TLS for the session cookie's `Secure`; proxy headers only with TRUST_PROXY, see
 * auth/cookies.ts) before anything authenticates, and adds the cookies the authenticator queued
 * (a rotated or cleared session token) to every response, which is then never cached.
 */
import type { Plugin } from 'graphql-yoga';
import { recordConnection, type SocketInfo, takeCookies } from './auth/cookies.js';

/** Builds the plugin; `trustProxy` is TRUST_PROXY. Register it before every plugin that authenticates. */
export function useConnection(trustProxy: boolean): Plugin {
  return {
    onRequest({ request, serverContext }) {
      const socket = (serverContext as { req?: { socket?: SocketInfo } } | undefined)?.req?.socket;
      recordConnection(request, socket, trustProxy);
    },
    onResponse({ request, response }) {
      const cookies = takeCookies(request);
      for (const c of cookies) response.headers.append('set-cookie', c);
      if (cookies.length > 0) response.headers.set('cache-control', 'no-store');
    },
  };
}
