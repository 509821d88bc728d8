/**
 * OAuth identities bound by (provider, subject), against the real OpenID
 * provider of oidc-provider.ts, and where the browser returns after the login (server
 * side):
 * - a second subject repeating a user's email (unverified, or verified with the setting off) or
 *   login is refused with 409 EXTERNAL_IDENTITY_CONFLICT, never signs in as that user and
 *   changes nothing of it; a bound subject whose provider moves it onto another's email likewise;
 * - with AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP and `email_verified: true` a subject is linked to
 *   the user holding the email (audited), once;
 * - a subject signs into its own user whatever its login claim becomes;
 * - no ID token from a provider with discovery: 401 OAUTH_ID_TOKEN_MISSING, no library text;
 * - without an issuer: claims from the user-info endpoint (an ID token, even forged, is never
 *   read), or from an ID token verified with JWK_SET_URL (forged or missing: refused); neither
 *   configured: the configuration is refused at start;
 * - `next` returns the browser to a same-origin path after the login, and to ROOT_URL for
 *   anything else (backslash, tab, scheme-relative, absolute).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Claims, cookieValue, expectLoginError, loginAs, oauthEnv, SESSION_COOKIE, viewerOf } from '../sign-in/oauth-flow.js';
import { newSigningKey, ROOT_URL, startProvider, type TestProvider } from '../sign-in/oidc-provider.js';
import { createTestApp, type TestApp } from '../support/app.js';

const MODULE = 'oauth_generic_oauth';
const CONFLICT = /^OAuth login failed: the login or email of this identity belongs to another user$/;
let provider: TestProvider;
let app: TestApp;
let linking: TestApp;

beforeAll(async () => {
  provider = await startProvider();
  app = await createTestApp({ env: oauthEnv(provider) });
  linking = await createTestApp({ env: oauthEnv(provider, { AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP: 'true' }) });
});
afterAll(async () => {
  await app.close();
  await linking.close();
  await provider.close();
});

const login = (claims: Claims, target: TestApp = app, query = '') => loginAs(provider, target, claims, query);

/** A row of the users table as a clash must leave it. */
const userRow = (target: TestApp, login: string) =>
  target.database.prisma.user.findUniqueOrThrow({ where: { login }, include: { auths: true, orgs: true } });

/** Signs `claims` up once (a new user bound to its subject). */
async function signUp(claims: Claims, target: TestApp = app): Promise<void> {
  const res = await login(claims, target);
  expect(res.headers.get('location')).toBe(ROOT_URL);
  // The session's start marks the user seen after the answer: let that write land first.
  await target.services.sessions.seenWritesSettled();
}

describe('a subject signs into its own user only', () => {
  it('a second subject with the same unverified email is refused and the user is left as it was', async () => {
    await signUp({ sub: 'ann-sub', preferred_username: 'ann', email: 'ann@idp.test', email_verified: true, groups: ['admins'] });
    const before = await userRow(app, 'ann');
    expect(before.auths.map((a) => [a.authModule, a.authId])).toEqual([[MODULE, 'ann-sub']]);
    for (const [target, verified] of [
      [app, false],
      [app, true], // verified, but the setting is off
      [linking, false],
    ] as const) {
      if (target === linking) await linking.database.prisma.user.create({ data: { login: 'ann', email: 'ann@idp.test', orgId: 1 } });
      const res = await login(
        { sub: 'mallory-sub', preferred_username: 'mallory', email: 'ann@idp.test', email_verified: verified },
        target,
      );
      expectLoginError(res, CONFLICT, 'EXTERNAL_IDENTITY_CONFLICT');
      expect(await target.database.prisma.user.count({ where: { login: 'mallory' } })).toBe(0);
      expect(await target.database.prisma.userAuth.count({ where: { authId: 'mallory-sub' } })).toBe(0);
    }
    expect(await userRow(app, 'ann')).toEqual(before);
  });

  it('a subject whose preferred_username is a user login is refused; that user keeps its email', async () => {
    await signUp({ sub: 'bea-sub', preferred_username: 'bea', email: 'bea@idp.test' });
    const local = await app.database.prisma.user.create({ data: { login: 'carl', email: 'carl@corp.test', orgId: 1 } });
    for (const target of ['bea', 'carl']) {
      const res = await login({ sub: `${target}-impostor`, preferred_username: target, email: `${target}-impostor@evil.test` });
      expectLoginError(res, CONFLICT, 'EXTERNAL_IDENTITY_CONFLICT');
    }
    expect((await userRow(app, 'bea')).email).toBe('bea@idp.test');
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: local.id } })).toEqual(local);
  });

  it('a bound subject keeps its user when its login claim changes, and cannot take another user’s email', async () => {
    await signUp({ sub: 'dan-sub', preferred_username: 'dan', email: 'dan@idp.test' });
    const renamed = await login({ sub: 'dan-sub', preferred_username: 'daniel', email: 'dan@idp.test', name: 'Daniel' });
    expect(await viewerOf(app, renamed)).toMatchObject({ login: 'dan' });
    expect((await userRow(app, 'dan')).name).toBe('Daniel');
    const eve = await app.database.prisma.user.create({ data: { login: 'eve', email: 'eve@corp.test', orgId: 1 } });
    const moved = await login({ sub: 'dan-sub', preferred_username: 'dan', email: 'eve@corp.test' });
    expectLoginError(moved, CONFLICT, 'EXTERNAL_IDENTITY_CONFLICT');
    expect((await userRow(app, 'dan')).email).toBe('dan@idp.test');
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: eve.id } })).toEqual(eve);
  });

  it('with the setting on, a verified email links the subject to its user, once; an unverified one does not', async () => {
    const local = await linking.database.prisma.user.create({
      data: { login: 'fay', email: 'fay@corp.test', name: 'Fay', orgId: 1, orgs: { create: { orgId: 1, role: 'Viewer' } } },
    });
    expectLoginError(
      await login({ sub: 'fay-unverified', preferred_username: 'fay.idp', email: 'fay@corp.test', email_verified: false }, linking),
      CONFLICT,
      'EXTERNAL_IDENTITY_CONFLICT',
    );
    const linked = await login({ sub: 'fay-sub', preferred_username: 'fay.idp', email: 'fay@corp.test', email_verified: true }, linking);
    expect(linked.headers.get('location')).toBe(ROOT_URL);
    expect(await viewerOf(linking, linked)).toMatchObject({ login: 'fay' });
    const row = await userRow(linking, 'fay');
    expect(row).toMatchObject({ id: local.id, authModule: MODULE });
    expect(row.auths.map((a) => a.authId)).toEqual(['fay-sub']);
    const [event] = await linking.database.prisma.auditEvent.findMany({
      where: { action: 'user_auth.link', resourceId: String(local.id) },
    });
    expect(event).toBeDefined();
    // Bound now: the next login is by subject, and another subject with the same verified email is refused.
    expect(await viewerOf(linking, await login({ sub: 'fay-sub', email: 'fay@corp.test' }, linking))).toMatchObject({ login: 'fay' });
    const second = await login({ sub: 'fay-twin', preferred_username: 'fay2', email: 'fay@corp.test', email_verified: true }, linking);
    expectLoginError(second, CONFLICT, 'EXTERNAL_IDENTITY_CONFLICT');
  });

  it('a provider that returns no ID token answers OAUTH_ID_TOKEN_MISSING, with no library text', async () => {
    provider.idTokenFilter = () => null;
    try {
      const res = await login({ sub: 'gus-sub', preferred_username: 'gus' });
      expectLoginError(
        res,
        /^OAuth login failed: the provider returned no ID token \(id_token\), which this setup requires$/,
        'OAUTH_ID_TOKEN_MISSING',
      );
    } finally {
      provider.idTokenFilter = null;
    }
    expect(await app.database.prisma.user.count({ where: { login: 'gus' } })).toBe(0);
  });
});

describe('without an issuer', () => {
  let endpoints: { authorization_endpoint: string; token_endpoint: string; userinfo_endpoint: string; jwks_uri: string };
  beforeAll(async () => {
    endpoints = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as typeof endpoints;
  });
  const undiscovered = (extra: Record<string, string>) => {
    const { AUTH_GENERIC_OAUTH_ISSUER: _discovery, ...env } = oauthEnv(provider, {
      AUTH_GENERIC_OAUTH_AUTH_URL: endpoints.authorization_endpoint,
      AUTH_GENERIC_OAUTH_TOKEN_URL: endpoints.token_endpoint,
      ...extra,
    });
    return env;
  };
  const withApp = async (env: Record<string, string>, run: (target: TestApp) => Promise<void>) => {
    const target = await createTestApp({ env });
    try {
      await run(target);
    } finally {
      await target.close();
    }
  };

  it('claims come from the user-info endpoint; a forged ID token in the answer is never read', async () => {
    await withApp(undiscovered({ AUTH_GENERIC_OAUTH_API_URL: endpoints.userinfo_endpoint }), async (target) => {
      provider.idTokenFilter = (token) =>
        provider.resign(token, (c) => Object.assign(c, { sub: 'admin-sub', preferred_username: 'admin' }), newSigningKey());
      try {
        const res = await login({ sub: 'hal-sub', preferred_username: 'hal', email: 'hal@idp.test', groups: ['editors'] }, target);
        expect(res.headers.get('location')).toBe(ROOT_URL);
        expect(await viewerOf(target, res)).toEqual({ login: 'hal', orgRole: 'Editor', isServiceAdmin: false });
      } finally {
        provider.idTokenFilter = null;
      }
      expect((await userRow(target, 'hal')).auths.map((a) => a.authId)).toEqual(['hal-sub']);
    });
  });

  it('with JWK_SET_URL the ID token is required and verified', async () => {
    await withApp(undiscovered({ AUTH_GENERIC_OAUTH_JWK_SET_URL: endpoints.jwks_uri }), async (target) => {
      const ok = await login({ sub: 'ida-sub', preferred_username: 'ida', email: 'ida@idp.test' }, target);
      expect(await viewerOf(target, ok)).toMatchObject({ login: 'ida' });
      provider.idTokenFilter = (token) => provider.resign(token, () => undefined, newSigningKey());
      try {
        expectLoginError(await login({ sub: 'ike-sub', preferred_username: 'ike' }, target), /ID token is not valid/, 'OAUTH_LOGIN_FAILED');
        provider.idTokenFilter = () => null;
        expectLoginError(await login({ sub: 'ike-sub', preferred_username: 'ike' }, target), /no ID token/, 'OAUTH_ID_TOKEN_MISSING');
      } finally {
        provider.idTokenFilter = null;
      }
      expect(await target.database.prisma.user.count({ where: { login: 'ike' } })).toBe(0);
    });
  });

  it('with neither a user-info endpoint nor keys the configuration is refused at start', async () => {
    const env = undiscovered({ DATABASE_URL: 'file:unused.db' });
    expect(() => loadConfig(env)).toThrow(
      /AUTH_GENERIC_OAUTH_API_URL: required \(or AUTH_GENERIC_OAUTH_JWK_SET_URL\) without AUTH_GENERIC_OAUTH_ISSUER/,
    );
    await expect(createTestApp({ env })).rejects.toThrow(/Invalid configuration/);
  });
});

describe('where the browser returns after an OAuth login (`next`)', () => {
  it.each([
    ['/roles?tab=permissions', `${ROOT_URL}roles?tab=permissions`],
    ['/%5Cevil.example/', ROOT_URL],
    ['/%09/evil.example/', ROOT_URL],
    ['//evil.example/', ROOT_URL],
    ['https://evil.example/', ROOT_URL],
    ['/.//evil.example/', ROOT_URL],
  ])('next=%s -> %s', async (next, expected) => {
    const res = await login({ sub: 'next-sub', preferred_username: 'next-user' }, app, `?next=${next}`);
    expect(res.headers.get('location')).toBe(expected);
    expect(cookieValue(res, SESSION_COOKIE)).toBeDefined();
  });
});
