/**
 * Login sessions: POST /login, the cookie on both doors and GraphiQL,
 * rotation, idle and absolute expiry (expired sessions are not listed), logout, /api/user*,
 * revocation on password change, deletion, demotion and removal from the organization; a
 * Service Admin cannot log itself out everywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp, TestClock } from '../support/app.js';
import { createUser, SUBJECT_PASSWORD } from '../support/subjects.js';

const COOKIE = 'portcullis_session';
let app: TestApp;
const clock = new TestClock();

/** The session token from a response's Set-Cookie, or undefined. */
function tokenOf(res: Response): string | undefined {
  for (const c of res.headers.getSetCookie()) {
    const m = new RegExp(`^${COOKIE}=([^;]*)`).exec(c);
    if (m) return m[1];
  }
  return undefined;
}

async function login(user: string, password: string): Promise<Response> {
  return app.request('/login', { method: 'POST', auth: null, json: { user, password } });
}

async function signIn(user: string, password = SUBJECT_PASSWORD): Promise<string> {
  const res = await login(user, password);
  expect(res.status).toBe(200);
  return tokenOf(res) as string;
}

function withCookie(token: string, init: RequestInit & { json?: unknown } = {}) {
  return { ...init, auth: null, headers: { cookie: `${COOKIE}=${token}` } };
}

beforeAll(async () => {
  app = await createTestApp({ clock });
});
afterAll(() => app.close());

describe('POST /login', () => {
  it('answers Logged in and sets an HttpOnly SameSite=Lax cookie at Path=/', async () => {
    const res = await login(ADMIN.login, ADMIN.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Logged in' });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`)) as string;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const stored = await app.database.prisma.session.findMany();
    expect(stored.some((s) => s.tokenHash === tokenOf(res))).toBe(false); // only a hash is stored
  });
  it('accepts the email as user', async () => {
    const u = await createUser(app, 'by-email');
    expect((await login(u.email, SUBJECT_PASSWORD)).status).toBe(200);
  });
  it('401 with a clear message and no cookie for a wrong password or unknown user', async () => {
    for (const [user, password] of [
      [ADMIN.login, 'wrong'],
      ['nobody', 'whatever'],
    ] as const) {
      const res = await login(user, password);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ message: 'Invalid username or password', code: 'INVALID_CREDENTIALS' });
      expect(tokenOf(res)).toBeUndefined();
    }
  });
  it('400 for a form post or a missing field', async () => {
    const form = await app.request('/login', {
      method: 'POST',
      auth: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'user=admin&password=x',
    });
    expect(form.status).toBe(400);
    expect((await login('', 'x')).status).toBe(400);
  });
});

describe('the cookie', () => {
  it('authenticates REST, GraphQL and the GraphiQL page', async () => {
    const u = await createUser(app, 'cookie-user', { orgRole: 'Editor' });
    const token = await signIn(u.login);
    const me = await app.request('/api/user', withCookie(token));
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: u.id, login: u.login, email: u.email, orgId: 1, isServiceAdmin: false });
    const gql = await app.request('/graphql', {
      method: 'POST',
      auth: null,
      headers: { cookie: `${COOKIE}=${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { login orgRole } }' }),
    });
    expect(await gql.json()).toEqual({ data: { viewer: { login: u.login, orgRole: 'Editor' } } });
    const page = await app.request('/graphql', { ...withCookie(token), headers: { cookie: `${COOKIE}=${token}`, accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });
  it('an unknown cookie answers 401 and clears it', async () => {
    const res = await app.request('/api/user', withCookie('forged'));
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'SESSION_EXPIRED' });
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true);
  });
});

describe('lifetime', () => {
  it('rotates every 10 minutes; the old token has a short grace period', async () => {
    const u = await createUser(app, 'rotating');
    const token = await signIn(u.login);
    clock.advance(9 * 60);
    const early = await app.request('/api/user', withCookie(token));
    expect(early.status).toBe(200);
    expect(tokenOf(early)).toBeUndefined();
    clock.advance(2 * 60);
    const due = await app.request('/api/user', withCookie(token));
    expect(due.status).toBe(200);
    const rotated = tokenOf(due) as string;
    expect(rotated).toBeDefined();
    expect(rotated).not.toBe(token);
    expect((await app.request('/api/user', withCookie(rotated))).status).toBe(200);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(200); // in flight
    clock.advance(2 * 60);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(401);
    expect((await app.request('/api/user', withCookie(rotated))).status).toBe(200);
  });
  it('ends after 7 days idle', async () => {
    const u = await createUser(app, 'idle');
    const token = await signIn(u.login);
    clock.advance(7 * 86_400 + 1);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(401);
  });
  it('ends 30 days after login even when used every day', async () => {
    const u = await createUser(app, 'busy');
    let token = await signIn(u.login);
    for (let day = 0; day < 29; day++) {
      clock.advance(86_400);
      const res = await app.request('/api/user', withCookie(token));
      expect(res.status).toBe(200);
      token = tokenOf(res) ?? token;
    }
    clock.advance(86_400);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(401);
  });
});

describe('logout and revocation', () => {
  it('GET /logout ends the session and clears the cookie', async () => {
    const u = await createUser(app, 'leaving');
    const token = await signIn(u.login);
    const res = await app.request('/logout', withCookie(token));
    expect(res.status).toBe(302);
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${COOKIE}=;`))).toBe(true);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(401);
  });
  it('lists and revokes own sessions, not the active one', async () => {
    const u = await createUser(app, 'two-browsers');
    const a = await signIn(u.login);
    const b = await signIn(u.login);
    const list = (await (await app.request('/api/user/auth-tokens', withCookie(a))).json()) as { id: number; isActive: boolean }[];
    expect(list).toHaveLength(2);
    const active = list.find((s) => s.isActive) as { id: number };
    const other = list.find((s) => !s.isActive) as { id: number };
    const self = await app.request('/api/user/revoke-auth-token', { ...withCookie(a), method: 'POST', json: { authTokenId: active.id } });
    expect(self.status).toBe(400);
    const revoke = await app.request('/api/user/revoke-auth-token', {
      method: 'POST',
      auth: null,
      headers: { cookie: `${COOKIE}=${a}` },
      json: { authTokenId: other.id },
    });
    expect(revoke.status).toBe(200);
    expect((await app.request('/api/user', withCookie(b))).status).toBe(401);
  });
  it('a Service Admin logs a user out everywhere; others get 403', async () => {
    const u = await createUser(app, 'forced-out');
    const token = await signIn(u.login);
    expect((await app.request(`/api/admin/users/${u.id}/logout`, { method: 'POST', auth: u.auth })).status).toBe(403);
    expect((await app.request(`/api/admin/users/${u.id}/logout`, { method: 'POST' })).status).toBe(200);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(401);
  });
  it('a Service Admin cannot log itself out everywhere: 400, as in Grafana, and its sessions stay', async () => {
    const boss = await createUser(app, 'self-logout', { orgRole: 'Admin', isServiceAdmin: true });
    const token = await signIn(boss.login);
    const res = await app.request(`/api/admin/users/${boss.id}/logout`, { method: 'POST', auth: boss.auth });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: 'You cannot logout yourself', code: 'BAD_REQUEST' });
    const viaCookie = await app.request(`/api/admin/users/${boss.id}/logout`, { ...withCookie(token), method: 'POST' });
    expect(viaCookie.status).toBe(400);
    expect((await app.request('/api/user', withCookie(token))).status).toBe(200);
  });
  it('idle sessions are not listed, on REST and in viewer.sessions', async () => {
    const u = await createUser(app, 'idle-listing');
    let kept = await signIn(u.login);
    const idle = await signIn(u.login);
    const idleId = Math.max(...(await app.database.prisma.session.findMany({ where: { userId: u.id } })).map((s) => s.id));
    const use = async () => {
      const res = await app.request('/api/user/auth-tokens', withCookie(kept));
      expect(res.status).toBe(200);
      kept = tokenOf(res) ?? kept;
      return ((await res.json()) as { id: number }[]).map((s) => s.id);
    };
    clock.advance(6 * 86_400);
    expect(await use()).toContain(idleId); // 6 days unused: still live
    clock.advance(86_400 + 60);
    expect(await use()).not.toContain(idleId); // 7 days unused: ended, though its row is still there
    expect(await use()).toHaveLength(1);
    expect(await app.database.prisma.session.count({ where: { id: idleId } })).toBe(1);
    const gql = await app.request('/graphql', {
      method: 'POST',
      auth: null,
      headers: { cookie: `${COOKIE}=${kept}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { sessions { id isActive } } }' }),
    });
    expect(((await gql.json()) as { data: { viewer: { sessions: unknown[] } } }).data.viewer.sessions).toEqual([
      { id: expect.any(Number), isActive: true },
    ]);
    expect((await app.request('/api/user', withCookie(idle))).status).toBe(401);
  });
  it('changing the own password keeps this session and ends the others', async () => {
    const u = await createUser(app, 'new-password');
    const here = await signIn(u.login);
    const there = await signIn(u.login);
    const wrong = await app.request('/api/user/password', {
      method: 'PUT',
      auth: null,
      headers: { cookie: `${COOKIE}=${here}` },
      json: { oldPassword: 'nope', newPassword: 'another-one' },
    });
    expect(wrong.status).toBe(401);
    const ok = await app.request('/api/user/password', {
      method: 'PUT',
      auth: null,
      headers: { cookie: `${COOKIE}=${here}` },
      json: { oldPassword: SUBJECT_PASSWORD, newPassword: 'another-one' },
    });
    expect(ok.status).toBe(200);
    expect((await app.request('/api/user', withCookie(here))).status).toBe(200);
    expect((await app.request('/api/user', withCookie(there))).status).toBe(401);
    expect((await login(u.login, 'another-one')).status).toBe(200);
  });
  it('deletion, disabling, demotion and removal from the org apply on the next request', async () => {
    const u = await createUser(app, 'demoted', { orgRole: 'Admin', isServiceAdmin: true });
    const token = await signIn(u.login);
    const viewer = async () => (await (await app.request('/api/user', withCookie(token))).json()) as { isServiceAdmin: boolean };
    expect((await viewer()).isServiceAdmin).toBe(true);
    await app.services.access.write((tx) => tx.user.update({ where: { id: u.id }, data: { isServiceAdmin: false } }));
    expect((await viewer()).isServiceAdmin).toBe(false);
    await app.services.access.write((tx) => tx.orgUser.deleteMany({ where: { userId: u.id } }));
    expect((await app.request('/api/user', withCookie(token))).status).toBe(401);
    const v = await createUser(app, 'deleted');
    const vt = await signIn(v.login);
    await app.services.access.write((tx) => tx.user.delete({ where: { id: v.id } }));
    expect((await app.request('/api/user', withCookie(vt))).status).toBe(401);
  });
});

describe('/api/user/orgs and /api/user/using/:orgId', () => {
  it('lists memberships and switches the session organization', async () => {
    const org = await app.database.prisma.org.create({ data: { name: 'second-org' } });
    const u = await createUser(app, 'two-orgs', { alsoIn: [{ orgId: org.id, orgRole: 'Editor' }] });
    const token = await signIn(u.login);
    const orgs = await (await app.request('/api/user/orgs', withCookie(token))).json();
    expect(orgs).toEqual([
      { orgId: 1, name: 'Main Org.', role: 'Viewer' },
      { orgId: org.id, name: 'second-org', role: 'Editor' },
    ]);
    expect((await app.request(`/api/user/using/${org.id}`, { ...withCookie(token), method: 'POST' })).status).toBe(200);
    expect(await (await app.request('/api/user', withCookie(token))).json()).toMatchObject({ orgId: org.id });
    expect((await app.request('/api/user/using/999', { ...withCookie(token), method: 'POST' })).status).toBe(401);
  });
});
