/**
 * The OAuth login as a browser plays it against the app and the test OpenID provider
 * (oidc-provider.ts), shared by the OAuth test files: the app's settings for the provider, the
 * login's steps, the signed-in viewer, and the check of a refused login (a redirect to
 * `/login?error=...&code=...`, no session, no stack trace).
 */
import { expect } from 'vitest';
import type { TestApp } from '../support/app.js';
import { CLIENT, ROOT_URL, type TestProvider } from './oidc-provider.js';

export const SESSION_COOKIE = 'portcullis_session';
const STATE_COOKIE = 'portcullis_oauth_state';

/** Claims of the account the provider logs in next. */
export type Claims = Record<string, unknown> & { sub: string };

/** The app's variables for `provider` with discovery (its issuer), overridden by `extra`. */
export function oauthEnv(provider: TestProvider, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ROOT_URL,
    AUTH_GENERIC_OAUTH_ENABLED: 'true',
    AUTH_GENERIC_OAUTH_NAME: 'Test IdP',
    AUTH_GENERIC_OAUTH_CLIENT_ID: CLIENT.id,
    AUTH_GENERIC_OAUTH_CLIENT_SECRET: CLIENT.secret,
    AUTH_GENERIC_OAUTH_ISSUER: provider.issuer,
    AUTH_GENERIC_OAUTH_SCOPES: 'openid email profile',
    AUTH_GENERIC_OAUTH_ROLE_ATTRIBUTE_PATH:
      "contains(groups[*], 'admins') && 'Admin' || contains(groups[*], 'editors') && 'Editor' || 'Viewer'",
    ...extra,
  };
}

export function cookieValue(res: Response, name: string): string | undefined {
  for (const c of res.headers.getSetCookie()) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c);
    if (m?.[1]) return m[1];
  }
  return undefined;
}

/** Starts a login at the app (`query`: e.g. `?next=/roles`): the provider URL and the browser's state cookie. */
export async function begin(app: TestApp, query = ''): Promise<{ authUrl: string; state: string }> {
  const res = await app.request(`/login/generic_oauth${query}`, { auth: null });
  expect(res.status).toBe(302);
  return { authUrl: res.headers.get('location') as string, state: cookieValue(res, STATE_COOKIE) as string };
}

/** The provider's redirect back to the app, from the browser holding `state`. */
export function callback(app: TestApp, url: URL, state: string | undefined): Promise<Response> {
  return app.request(`/login/generic_oauth${url.search}`, { auth: null, headers: state ? { cookie: `${STATE_COOKIE}=${state}` } : {} });
}

/** The whole flow for `claims`; returns the app's final answer. */
export async function loginAs(provider: TestProvider, app: TestApp, claims: Claims, query = ''): Promise<Response> {
  provider.account.next = claims;
  const { authUrl, state } = await begin(app, query);
  return callback(app, await provider.browse(authUrl), state);
}

/** Who the session cookie of `res` signs in: `{login, orgRole, isServiceAdmin}`. */
export async function viewerOf(app: TestApp, res: Response): Promise<unknown> {
  const me = await app.request('/graphql', {
    method: 'POST',
    auth: null,
    headers: { cookie: `${SESSION_COOKIE}=${cookieValue(res, SESSION_COOKIE)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ viewer { login orgRole isServiceAdmin } }' }),
  });
  return ((await me.json()) as { data: { viewer: unknown } }).data.viewer;
}

/** A refused login: redirected to /login with the error matching `pattern` (and `code`), no session, no stack trace. */
export function expectLoginError(res: Response, pattern: RegExp, code?: string): void {
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') as string, 'http://x');
  expect(location.pathname).toBe('/login');
  expect(location.searchParams.get('error')).toMatch(pattern);
  if (code) expect(location.searchParams.get('code')).toBe(code);
  expect(cookieValue(res, SESSION_COOKIE)).toBeUndefined();
  expect(location.searchParams.get('error')).not.toMatch(/\n\s*at |\.[jt]s:\d+/); // no stack trace
}
