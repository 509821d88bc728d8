/**
 * The session cookie's `Secure` attribute (Secure when configured or behind
 * TLS) and TRUST_PROXY: a request that arrived over TLS (a TLS socket, or with TRUST_PROXY a
 * trusted proxy's `X-Forwarded-Proto: https`) gets Secure cookies; without TRUST_PROXY the proxy
 * headers are ignored, for the cookie and for the client address that throttling counts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { createUser } from '../support/subjects.js';

const COOKIE = 'portcullis_session';

function login(
  app: TestApp,
  options: { headers?: Record<string, string>; socket?: Record<string, unknown>; password?: string; user?: string } = {},
) {
  return app.yoga.fetch(
    'http://test/login',
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: JSON.stringify({ user: options.user ?? ADMIN.login, password: options.password ?? ADMIN.password }),
    },
    { req: { socket: { remoteAddress: '192.0.2.10', ...options.socket } } } as never,
  );
}

function sessionCookie(res: Response): string {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
  expect(cookie).toBeDefined();
  return cookie as string;
}

describe('TRUST_PROXY off (default)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '2' } });
  });
  afterAll(() => app.close());

  it('ignores X-Forwarded-Proto: the cookie is not Secure over plain HTTP', async () => {
    const res = await login(app, { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.status).toBe(200);
    expect(sessionCookie(res)).not.toMatch(/;\s*Secure/i);
  });
  it('a TLS socket makes the cookie Secure', async () => {
    const res = await login(app, { socket: { encrypted: true } });
    expect(sessionCookie(res)).toMatch(/;\s*Secure/i);
  });
  it('ignores X-Forwarded-For: a sprayer cannot pick the address its failures count against', async () => {
    // 2 per login, 10 per address; each guess claims another forwarded address.
    for (let i = 0; i < 10; i++) {
      const res = await login(app, { user: `ghost-${i}`, password: 'x', headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      expect(res.status).toBe(401);
    }
    const u = await createUser(app, 'same-socket');
    expect((await login(app, { user: u.login, password: 'whatever', headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(429);
  });
});

describe('TRUST_PROXY=true', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ env: { TRUST_PROXY: 'true', BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '2' } });
  });
  afterAll(() => app.close());

  it("X-Forwarded-Proto: https from the proxy makes the session cookie Secure; http doesn't", async () => {
    expect(sessionCookie(await login(app, { headers: { 'x-forwarded-proto': 'https' } }))).toMatch(/;\s*Secure/i);
    expect(sessionCookie(await login(app, { headers: { 'x-forwarded-proto': 'http' } }))).not.toMatch(/;\s*Secure/i);
    expect(sessionCookie(await login(app))).not.toMatch(/;\s*Secure/i);
  });
  it('the OAuth-state and cleared cookies follow the same rule', async () => {
    const token = sessionCookie(await login(app)).split(';')[0] as string;
    const out = await app.yoga.fetch('http://test/logout', { headers: { cookie: token, 'x-forwarded-proto': 'https' } });
    expect(out.status).toBe(302);
    expect(sessionCookie(out)).toMatch(/Max-Age=0/);
    expect(sessionCookie(out)).toMatch(/;\s*Secure/i);
  });
  it('counts failures against the last X-Forwarded-For entry, the one the proxy appended', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await login(app, { user: `spray-${i}`, password: 'x', headers: { 'x-forwarded-for': `10.9.9.9, 203.0.113.77` } });
      expect(res.status).toBe(401);
    }
    const u = await createUser(app, 'behind-proxy');
    const blocked = await login(app, { user: u.login, password: 'x', headers: { 'x-forwarded-for': '203.0.113.77' } });
    expect(blocked.status).toBe(429);
    // Another client behind the same proxy (same socket address) is not blocked.
    const other = await login(app, { user: u.login, password: 'x', headers: { 'x-forwarded-for': '203.0.113.78' } });
    expect(other.status).toBe(401);
  });
});
