/**
 * The browser's sign-in routes outside /api (Grafana's paths), rows of the route table
 * (routes.ts) that authenticate no one (`requires: 'anonymous'`):
 * - `POST /login` `{"user", "password"}` (login or email) -> `{"message": "Logged in"}` and the
 *   session cookie; failures 401 `{"message": "Invalid username or password"}`, 429 when blocked;
 * - `GET /logout`: ends the session, clears the cookie, redirects to /login;
 * - `GET /login/generic_oauth[?next=<path>]`: redirects to the OAuth provider; the provider's
 *   redirect back to the same path completes the login, starts a session and redirects to
 *   ROOT_URL (plus `next` when it is a same-origin path, web/next-path.ts; anything else means
 *   `/`), or on any failure redirects to `/login?error=<message>&code=<CODE>` with no session;
 * - `GET /login`: a minimal page naming the ways to sign in and the last error (the web
 *   console's page answers it instead when the console is built, console-routes.ts).
 * `POST /login` and `GET /logout` change state, so the router refuses them from another site's
 * page, unless its origin is trusted (ROOT_URL, CORS_ALLOWED_ORIGINS; body.ts); the login body
 * is JSON only, streamed and refused with 413 past 16 KiB. The OAuth callback is a navigation
 * from the provider's site by design: what protects it is the `state` bound to this browser's
 * state cookie, with PKCE and `nonce` (modules/oauth/service.ts). Failures answer no Basic
 * challenge and are never cached (rest-door.ts, for every anonymous route).
 */
import { safeNextPath } from '../../web/next-path.js';
import { AUTH_MODULE } from '../kernel/auth-module.js';
import { DomainError, isDomainError } from '../kernel/errors.js';
import type { Route, RouteRequest } from '../modules/shared/rest.js';
import { clearedCookie, clientAddress, cookieFor, readCookie, sessionCookie } from './auth/cookies.js';
import { requestIdOf } from './request-id.js';
import { json } from './responses.js';

/** Largest `POST /login` body, bytes: two 256-character strings fit many times over. */
const MAX_LOGIN_BODY_BYTES = 16 * 1024;
/** Grafana's auth module of a session started with a local password. */
const PASSWORD_MODULE = 'password';
export const OAUTH_PATH = '/login/generic_oauth';
const STATE_COOKIE = 'portcullis_oauth_state';

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, 'cache-control': 'no-store' });
  for (const c of cookies) headers.append('set-cookie', c);
  return new Response(null, { status: 302, headers });
}

/**
 * `{user, password}` of a login body.
 * @throws DomainError VALIDATION_FAILED (400) unless both are strings of at most 256 characters, `user` not empty.
 */
function loginInput(body: unknown): { user: string; password: string } {
  const { user, password } = (body ?? {}) as { user?: unknown; password?: unknown };
  if (typeof user !== 'string' || typeof password !== 'string' || user === '' || user.length > 256 || password.length > 256) {
    throw new DomainError('VALIDATION_FAILED', 'user and password are required strings');
  }
  return { user, password };
}

/** Who is asking, as a session records it. */
const meta = (request: Request) => ({ clientIp: clientAddress(request), userAgent: request.headers.get('user-agent') ?? '' });
/** The request as the audit log names it (who is signing in comes from the sign-in itself). */
const originOf = (request: Request) => ({ clientAddress: clientAddress(request), requestId: requestIdOf(request) });

async function login({ request, body, services, site }: RouteRequest): Promise<Response> {
  const { user, password } = loginInput(body);
  const { userId, viaDirectory } = await services.signIn.checkPassword(user, password, originOf(request));
  const token = await services.sessions.start(userId, viaDirectory ? AUTH_MODULE.ldap : PASSWORD_MODULE, meta(request));
  const cookie = sessionCookie(cookieFor(request, site.cookie), token);
  return json(200, { message: 'Logged in' }, { 'set-cookie': cookie, 'cache-control': 'no-store' });
}

async function logout({ request, services, site }: RouteRequest): Promise<Response> {
  const token = readCookie(request, site.cookie.name);
  if (token) await services.sessions.end(token);
  return redirect('/login', [clearedCookie(site.cookie.name, cookieFor(request, site.cookie).secure)]);
}

/** Both legs of the OAuth login: every failure becomes a redirect to /login naming it. */
async function oauthLogin({ request, query, services, site }: RouteRequest): Promise<Response> {
  const cookie = cookieFor(request, site.cookie);
  const clearState = clearedCookie(STATE_COOKIE, cookie.secure);
  const isCallback = query.has('code') || query.has('error') || query.has('state');
  try {
    if (!isCallback) {
      const { url: target, state } = await services.oauth.begin(safeNextPath(query.get('next')));
      const stateCookie = sessionCookie({ name: STATE_COOKIE, secure: cookie.secure, maxAgeSeconds: 600 }, state);
      return redirect(target, [stateCookie]);
    }
    const { identity, next } = await services.oauth.finish(new URL(request.url), readCookie(request, STATE_COOKIE));
    const userId = await services.signIn.syncExternalUser(identity, AUTH_MODULE.oauth, site.allowSignUp, originOf(request));
    const token = await services.sessions.start(userId, AUTH_MODULE.oauth, meta(request));
    // `next` was checked when the login began (a same-origin path); ROOT_URL ends with "/".
    return redirect(`${site.rootUrl}${next.slice(1)}`, [clearState, sessionCookie(cookie, token)]);
  } catch (error) {
    const known = isDomainError(error);
    if (!known) site.log.error({ err: error }, 'oauth login failed');
    const params = new URLSearchParams({ error: known ? error.message : 'OAuth login failed', code: known ? error.code : 'INTERNAL' });
    return redirect(`/login?${params}`, [clearState]);
  }
}

async function loginPage({ query, services }: RouteRequest): Promise<Response> {
  const error = query.get('error');
  const provider = services.oauth.name;
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>portcullis sign-in</title></head><body>
<h1>Sign in to portcullis</h1>${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<p>POST /login with JSON {"user", "password"} sets the session cookie.</p>
${provider ? `<p><a href="${OAUTH_PATH}">Sign in with ${escapeHtml(provider)}</a></p>` : ''}</body></html>`;
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': String(Buffer.byteLength(html)),
  };
  return new Response(html, { status: 200, headers });
}

export const browserSignInRoutes: Route[] = [
  {
    method: 'POST',
    path: '/login',
    requires: 'anonymous',
    summary: 'Sign in with a login (or email) and password: sets the session cookie',
    bodyRequired: true,
    maxBodyBytes: MAX_LOGIN_BODY_BYTES,
    handler: login,
  },
  {
    method: 'GET',
    path: '/logout',
    requires: 'anonymous',
    summary: 'End the session: redirects to /login',
    sameSiteOnly: true,
    handler: logout,
  },
  {
    method: 'GET',
    path: OAUTH_PATH,
    requires: 'anonymous',
    summary: 'Sign in with the OAuth provider, and its callback',
    handler: oauthLogin,
  },
  { method: 'GET', path: '/login', requires: 'anonymous', summary: 'The sign-in page', handler: loginPage },
];
