/**
 * The browser's sign-in routes outside /api (Grafana's paths), as a yoga plugin that runs first:
 * - `POST /login` `{"user", "password"}` (login or email) -> `{"message": "Logged in"}` and the
 *   session cookie; failures 401 `{"message": "Invalid username or password"}`, 429 when blocked;
 * - `GET /logout`: ends the session, clears the cookie, redirects to /login;
 * - `GET /login/generic_oauth[?next=<path>]`: redirects to the OAuth provider; the provider's
 *   redirect back to the same path completes the login, starts a session and redirects to
 *   ROOT_URL (plus `next` when it is a same-origin path, web/next-path.ts; anything else means
 *   `/`), or on any failure redirects to `/login?error=<message>&code=<CODE>` with no session;
 * - `GET /login`: a minimal page naming the ways to sign in and the last error.
 * `POST /login` and `GET /logout` change state, so they follow the REST door's cross-site rule
 * (body.ts): refused with 403 from another site's page, unless its origin is trusted (ROOT_URL,
 * CORS_ALLOWED_ORIGINS); the login body is JSON only, streamed and refused with 413 past 16 KiB.
 * The OAuth callback is a navigation from the provider's site by design: what protects it is
 * the `state` bound to this browser's state cookie, with PKCE and `nonce` (modules/oauth/service.ts).
 * It also records each request's connection (client address for throttling, TLS for the cookie's
 * `Secure`; proxy headers only with TRUST_PROXY, see auth/cookies.ts) and adds the cookies the
 * authenticator queued (a rotated or cleared session token) to every response.
 */
import type { Plugin } from 'graphql-yoga';
import { safeNextPath } from '../../web/next-path.js';
import { AUTH_MODULE } from '../kernel/auth-module.js';
import { DomainError, isDomainError } from '../kernel/errors.js';
import type { Services } from '../modules/services.js';
import type { Logger } from '../platform/logger.js';
import {
  type CookieSettings,
  clearedCookie,
  clientAddress,
  cookieFor,
  readCookie,
  recordConnection,
  type SocketInfo,
  sessionCookie,
  takeCookies,
} from './auth/cookies.js';
import { readJsonBody, refuseCrossSite, requireJsonType, trustedOrigins } from './body.js';
import { requestIdOf } from './request-id.js';
import { errorResponse, json } from './responses.js';

/** Largest `POST /login` body, bytes: two 256-character strings fit many times over. */
const MAX_LOGIN_BODY_BYTES = 16 * 1024;
/** Grafana's auth module of a session started with a local password. */
const PASSWORD_MODULE = 'password';
export const OAUTH_PATH = '/login/generic_oauth';
const STATE_COOKIE = 'portcullis_oauth_state';

export interface LoginRoutesDeps {
  services: Pick<Services, 'signIn' | 'sessions' | 'oauth'>;
  cookie: CookieSettings;
  /** ROOT_URL: where a completed OAuth login lands. */
  rootUrl: string;
  /** AUTH_GENERIC_OAUTH_ALLOW_SIGN_UP. */
  allowSignUp: boolean;
  /** TRUST_PROXY: believe X-Forwarded-For / X-Forwarded-Proto (one trusted reverse proxy). */
  trustProxy: boolean;
  /** CORS_ALLOWED_ORIGINS: other origins whose pages may log in and out (body.ts refuseCrossSite). */
  allowedOrigins?: readonly string[];
  log: Logger;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(null, { status: 302, headers });
}

/**
 * `{user, password}` of a login.
 * @throws DomainError UNSUPPORTED_CONTENT_TYPE (400), REQUEST_TOO_LARGE (413), BAD_REQUEST
 *   (400: body cut short), INVALID_JSON (400), VALIDATION_FAILED (400).
 */
async function readLoginBody(request: Request): Promise<{ user: string; password: string }> {
  requireJsonType(request, true);
  const body = await readJsonBody(request, MAX_LOGIN_BODY_BYTES);
  const { user, password } = (body ?? {}) as { user?: unknown; password?: unknown };
  if (typeof user !== 'string' || typeof password !== 'string' || user === '' || user.length > 256 || password.length > 256) {
    throw new DomainError('VALIDATION_FAILED', 'user and password are required strings');
  }
  return { user, password };
}

/** Builds the plugin; register it before every other one. */
export function useLoginRoutes(deps: LoginRoutesDeps): Plugin {
  const { signIn, sessions, oauth } = deps.services;
  const trusted = trustedOrigins(deps);
  const meta = (request: Request) => ({ clientIp: clientAddress(request), userAgent: request.headers.get('user-agent') ?? '' });
  const failure = (error: unknown): Response => {
    const response = errorResponse(error, deps.log);
    // A form's failure, not a Basic challenge: no browser credentials prompt.
    response.headers.delete('www-authenticate');
    response.headers.set('cache-control', 'no-store');
    return response;
  };

  /** The request as the audit log names it (who is signing in comes from the sign-in itself). */
  const originOf = (request: Request) => ({ clientAddress: clientAddress(request), requestId: requestIdOf(request) });

  async function login(request: Request): Promise<Response> {
    try {
      refuseCrossSite(request, trusted);
      const { user, password } = await readLoginBody(request);
      const { userId, viaDirectory } = await signIn.checkPassword(user, password, originOf(request));
      const token = await sessions.start(userId, viaDirectory ? AUTH_MODULE.ldap : PASSWORD_MODULE, meta(request));
      const cookie = sessionCookie(cookieFor(request, deps.cookie), token);
      return json(200, { message: 'Logged in' }, { 'set-cookie': cookie, 'cache-control': 'no-store' });
    } catch (error) {
      return failure(error);
    }
  }

  async function logout(request: Request): Promise<Response> {
    try {
      refuseCrossSite(request, trusted);
    } catch (error) {
      return failure(error);
    }
    const token = readCookie(request, deps.cookie.name);
    if (token) await sessions.end(token);
    return redirect('/login', [clearedCookie(deps.cookie.name, cookieFor(request, deps.cookie).secure)]);
  }

  async function oauthRoute(request: Request, url: URL): Promise<Response> {
    const cookie = cookieFor(request, deps.cookie);
    const clearState = clearedCookie(STATE_COOKIE, cookie.secure);
    const isCallback = url.searchParams.has('code') || url.searchParams.has('error') || url.searchParams.has('state');
    try {
      if (!isCallback) {
        const { url: target, state } = await oauth.begin(safeNextPath(url.searchParams.get('next')));
        const stateCookie = sessionCookie({ name: STATE_COOKIE, secure: cookie.secure, maxAgeSeconds: 600 }, state);
        return redirect(target, [stateCookie]);
      }
      const { identity, next } = await oauth.finish(url, readCookie(request, STATE_COOKIE));
      const userId = await signIn.syncExternalUser(identity, AUTH_MODULE.oauth, deps.allowSignUp, originOf(request));
      const token = await sessions.start(userId, AUTH_MODULE.oauth, meta(request));
      // `next` was checked when the login began (a same-origin path); ROOT_URL ends with "/".
      return redirect(`${deps.rootUrl}${next.slice(1)}`, [clearState, sessionCookie(cookie, token)]);
    } catch (error) {
      const known = isDomainError(error);
      if (!known) deps.log.error({ err: error }, 'oauth login failed');
      const query = new URLSearchParams({ error: known ? error.message : 'OAuth login failed', code: known ? error.code : 'INTERNAL' });
      return redirect(`/login?${query}`, [clearState]);
    }
  }

  function loginPage(url: URL): Response {
    const error = url.searchParams.get('error');
    const provider = oauth.name;
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>portcullis sign-in</title></head><body>
<h1>Sign in to portcullis</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<p>POST /login with JSON {"user", "password"} sets the session cookie.</p>
${provider ? `<p><a href="${OAUTH_PATH}">Sign in with ${escapeHtml(provider)}</a></p>` : ''}</body></html>`;
    return new Response(html, { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
  }

  return {
    // Not async: only its own paths have anything to await; every other request passes at once.
    onRequest({ request, url, serverContext, endResponse }) {
      const socket = (serverContext as { req?: { socket?: SocketInfo } } | undefined)?.req?.socket;
      recordConnection(request, socket, deps.trustProxy);
      const path = url.pathname;
      if (path !== '/login' && path !== '/logout' && path !== OAUTH_PATH) return;
      const route = `${request.method} ${path}`;
      if (route === 'POST /login') return login(request).then(endResponse);
      if (route === 'GET /logout') return logout(request).then(endResponse);
      if (route === `GET ${OAUTH_PATH}`) return oauthRoute(request, url).then(endResponse);
      if (route === 'GET /login') endResponse(loginPage(url));
    },
    onResponse({ request, response }) {
      const cookies = takeCookies(request);
      for (const c of cookies) response.headers.append('set-cookie', c);
      if (cookies.length > 0) response.headers.set('cache-control', 'no-store');
    },
  };
}
