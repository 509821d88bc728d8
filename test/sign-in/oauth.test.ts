/**
 * OAuth 2 / OpenID Connect login against a real OpenID provider on 127.0.0.1
 * (oidc-provider): success with a session, role mapping by JMESPath at every login, sign-up off,
 * wrong state, replayed code, bad nonce, expired or wrongly signed ID token (rewritten in transit
 * by the provider's proxy), provider down before the redirect or during the code exchange, a
 * provider user whose login or email belongs to a local account (409 EXTERNAL_IDENTITY_CONFLICT).
 * Subjects and email links, providers without an issuer, `next`: test/security/oauth-identities.test.ts.
 * Failures redirect to /login?error=... with no session, no new user and no stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import * as flow from './oauth-flow.js';
import { type Claims, cookieValue, expectLoginError, oauthEnv, SESSION_COOKIE, viewerOf } from './oauth-flow.js';
import { newSigningKey, ROOT_URL, startProvider, type TestProvider } from './oidc-provider.js';

let provider: TestProvider;
let app: TestApp;

const env = (extra: Record<string, string> = {}) => oauthEnv(provider, extra);
const begin = (target: TestApp = app) => flow.begin(target);
const callback = (url: URL, state: string | undefined, target: TestApp = app) => flow.callback(target, url, state);
const loginAs = (claims: Claims, target: TestApp = app) => flow.loginAs(provider, target, claims);
const viewer = (res: Response) => viewerOf(app, res);
const COOKIE = SESSION_COOKIE;

/** A full login whose ID token the provider's proxy rewrites with `filter`: refused, nobody created. */
async function expectRefusedIdToken(login: string, filter: (idToken: string) => string, pattern: RegExp): Promise<void> {
  const sessionsBefore = await app.database.prisma.session.count();
  provider.idTokenFilter = filter;
  try {
    const res = await loginAs({ sub: `${login}-sub`, preferred_username: login });
    expectLoginError(res, pattern);
    expect(await res.text()).toBe('');
  } finally {
    provider.idTokenFilter = null;
  }
  expect(await app.database.prisma.user.count({ where: { login } })).toBe(0);
  expect(await app.database.prisma.session.count()).toBe(sessionsBefore);
}

beforeAll(async () => {
  provider = await startProvider();
  app = await createTestApp({ env: env() });
});
afterAll(async () => {
  await app.close();
  await provider.close();
});

describe('generic_oauth', () => {
  it('redirects with state, PKCE and nonce', async () => {
    const { authUrl, state } = await begin();
    const url = new URL(authUrl);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get('state')).toBe(state);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(`${ROOT_URL}login/generic_oauth`);
  });
  it('signs a new user up, starts a session and maps the role; the mapping is synced at every login', async () => {
    const claims = { sub: 'alice-sub', preferred_username: 'alice', email: 'alice@idp.test', name: 'Alice', groups: ['editors'] };
    const first = await loginAs(claims);
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe(ROOT_URL);
    expect(await viewer(first)).toEqual({ login: 'alice', orgRole: 'Editor', isServiceAdmin: false });
    const second = await loginAs({ ...claims, groups: [] });
    expect(await viewer(second)).toEqual({ login: 'alice', orgRole: 'Viewer', isServiceAdmin: false });
    const user = await app.database.prisma.user.findUniqueOrThrow({ where: { login: 'alice' } });
    expect(user).toMatchObject({ email: 'alice@idp.test', name: 'Alice', authModule: 'oauth_generic_oauth', passwordHash: null });
  });
  it('a provider user whose login or email is a local account is refused, saying why', async () => {
    const local = await app.database.prisma.user.create({
      data: { login: 'lena', email: 'lena@corp.test', name: 'Lena (local)', orgId: 1, orgs: { create: { orgId: 1, role: 'Viewer' } } },
    });
    const reason = /^OAuth login failed: the login or email of this identity belongs to another user$/;
    const byLogin = await loginAs({ sub: 'lena-sub', preferred_username: 'lena', email: 'other@idp.test' });
    expectLoginError(byLogin, reason);
    expect(new URL(byLogin.headers.get('location') as string, 'http://x').searchParams.get('code')).toBe('EXTERNAL_IDENTITY_CONFLICT');
    expectLoginError(await loginAs({ sub: 'lena2-sub', preferred_username: 'lena2', email: 'lena@corp.test' }), reason);
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: local.id } })).toMatchObject({
      name: 'Lena (local)',
      authModule: '',
    });
    expect(await app.database.prisma.user.count({ where: { login: 'lena2' } })).toBe(0);
  });
  it('a wrong or missing state is refused', async () => {
    provider.account.next = { sub: 'mallory', preferred_username: 'mallory' };
    const { authUrl } = await begin();
    const back = await provider.browse(authUrl);
    expectLoginError(await callback(back, 'someone-elses-state'), /state/);
    expectLoginError(await callback(back, undefined), /state/);
  });
  it('a replayed callback (same code and state) is refused', async () => {
    provider.account.next = { sub: 'bob-sub', preferred_username: 'bob' };
    const { authUrl, state } = await begin();
    const back = await provider.browse(authUrl);
    expect(cookieValue(await callback(back, state), COOKIE)).toBeDefined();
    expectLoginError(await callback(back, state), /state/);
  });
  it('an ID token with another nonce is refused', async () => {
    provider.account.next = { sub: 'carol-sub', preferred_username: 'carol' };
    const { authUrl, state } = await begin();
    const tampered = new URL(authUrl);
    tampered.searchParams.set('nonce', 'attacker-nonce');
    const back = await provider.browse(tampered.href);
    expectLoginError(await callback(back, state), /"nonce" claim/);
  });
  it('an expired ID token, signed with the provider key, is refused', async () => {
    const past = Math.floor(Date.now() / 1000) - 600; // far beyond openid-client's 30 s tolerance
    await expectRefusedIdToken(
      'erin',
      (token) =>
        provider.resign(token, (claims) => {
          claims.iat = past - 60;
          claims.exp = past;
        }),
      /expiration is past current timestamp/,
    );
  });
  it('an ID token signed with a key the provider does not publish is refused', async () => {
    const foreign = newSigningKey();
    await expectRefusedIdToken('frank', (token) => provider.resign(token, () => undefined, foreign), /signature verification failed/i);
  });
  it('an ID token with a corrupted signature is refused', async () => {
    await expectRefusedIdToken(
      'grace',
      (token) => `${token.slice(0, token.lastIndexOf('.') + 1)}${Buffer.alloc(256, 7).toString('base64url')}`,
      /signature verification failed/i,
    );
  });
  it('with sign-up off, unknown users are refused and known ones get in', async () => {
    const closed = await createTestApp({ env: env({ AUTH_GENERIC_OAUTH_ALLOW_SIGN_UP: 'false' }) });
    try {
      expectLoginError(await loginAs({ sub: 'dave-sub', preferred_username: 'dave' }, closed), /Signup is not allowed/);
      expect(await closed.database.prisma.user.count({ where: { login: 'dave' } })).toBe(0);
      // Known: bound to the provider's subject (UserAuth), as its first login would have left it.
      await closed.database.prisma.user.create({
        data: {
          login: 'erik',
          email: 'erik@idp.test',
          name: 'Erik',
          orgId: 1,
          authModule: 'oauth_generic_oauth',
          auths: { create: { authModule: 'oauth_generic_oauth', authId: 'erik-sub' } },
        },
      });
      const known = await loginAs({ sub: 'erik-sub', preferred_username: 'erik', email: 'erik@idp.test' }, closed);
      expect(known.headers.get('location')).toBe(ROOT_URL);
      expect(cookieValue(known, COOKIE)).toBeDefined();
    } finally {
      await closed.close();
    }
  });
  it('a provider that goes down during the code exchange redirects to the login page with the error', async () => {
    provider.account.next = { sub: 'heidi-sub', preferred_username: 'heidi' };
    const { authUrl, state } = await begin();
    const back = await provider.browse(authUrl);
    provider.tokenEndpointDown = true;
    try {
      expectLoginError(await callback(back, state), /unavailable/);
    } finally {
      provider.tokenEndpointDown = false;
    }
    expect(await app.database.prisma.user.count({ where: { login: 'heidi' } })).toBe(0);
  });
  it('a provider that is down redirects to the login page with the error', async () => {
    const down = await createTestApp({ env: env({ AUTH_GENERIC_OAUTH_ISSUER: 'http://127.0.0.1:9' }) });
    try {
      const res = await down.request('/login/generic_oauth', { auth: null });
      expectLoginError(res, /unavailable/);
    } finally {
      await down.close();
    }
  });
});
