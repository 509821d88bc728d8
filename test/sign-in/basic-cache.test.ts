/**
 * Remembered Basic-auth credentials (src/modules/sign-in/verified-passwords.ts):
 * a login and password that passed an argon2 check are honoured without one for
 * BASIC_AUTH_CACHE_SECONDS, and that memory is dropped by a password change (own or set by an
 * administrator), a disable, a deletion, a logout, another connection's commit and the TTL; a
 * locked name or account never signs in from it; failures are never remembered and the throttle
 * still counts them. Every drop is checked on both doors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/platform/database.js';
import { hashPassword, verifyPassword } from '../../src/platform/passwords.js';
import { type Credentials, createTestApp, type TestApp, TestClock } from '../support/app.js';
import { watchForeignCommits } from '../support/changes.js';
import { type Actor, createUser, SUBJECT_PASSWORD } from '../support/subjects.js';

const COOKIE = 'portcullis_session';
const clock = new TestClock();
let checks = 0;
const counting = async (stored: string | null, password: string) => {
  checks++;
  return verifyPassword(stored, password);
};
let app: TestApp;
let locking: TestApp;
let other: Database;

beforeAll(async () => {
  app = await createTestApp({ clock, verifyPassword: counting });
  locking = await createTestApp({ clock, verifyPassword: counting, env: { BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: '3' } });
  other = await openDatabase({ databaseUrl: app.config.databaseUrl, migrate: false });
});
afterAll(async () => {
  await other.close();
  await Promise.all([app.close(), locking.close()]);
});

/** Statuses of one Basic request on each door: REST user/permissions and GraphQL viewer. */
async function doors(auth: Credentials, on = app): Promise<[number, number]> {
  const rest = await on.request('/api/access-control/user/permissions', { auth });
  const graphql = await on.graphql('{ viewer { login } }', {}, { auth });
  return [rest.status, graphql.status];
}

/** Signs in on both doors twice: one argon2 check in all, the other three requests remembered. */
async function warm(user: Actor, on = app): Promise<void> {
  const before = checks;
  expect(await doors(user.auth, on)).toEqual([200, 200]);
  expect(await doors(user.auth, on)).toEqual([200, 200]);
  expect(checks - before).toBe(1);
}

/** The next Basic requests check the password again (one check, then remembered again). */
async function checkedAgain(user: Actor): Promise<void> {
  const before = checks;
  expect(await doors(user.auth)).toEqual([200, 200]);
  expect(checks - before).toBe(1);
}

const gql = async (query: string, variables: Record<string, unknown>) => {
  const res = await app.graphql(query, variables);
  expect(res.body.errors).toBeUndefined();
};

describe('remembered Basic credentials', () => {
  it('skip argon2 on both doors, and are checked again after BASIC_AUTH_CACHE_SECONDS (60 s)', async () => {
    const user = await createUser(app, 'basic-ttl');
    await warm(user);
    clock.advance(59);
    const before = checks;
    expect(await doors(user.auth)).toEqual([200, 200]);
    expect(checks).toBe(before);
    clock.advance(1);
    await checkedAgain(user);
  });

  it('are dropped by the own password change: the old password is refused at once, on both doors', async () => {
    const user = await createUser(app, 'basic-own-password');
    await warm(user);
    const res = await app.request('/api/user/password', {
      method: 'PUT',
      auth: user.auth,
      json: { oldPassword: SUBJECT_PASSWORD, newPassword: 'a-new-password' },
    });
    expect(res.status).toBe(200);
    expect(await doors(user.auth)).toEqual([401, 401]);
    expect(await doors({ login: user.login, password: 'a-new-password' })).toEqual([200, 200]);
  });

  it('are dropped by a password set over REST and over GraphQL', async () => {
    const viaRest = await createUser(app, 'basic-set-rest');
    await warm(viaRest);
    expect(
      (await app.request(`/api/admin/users/${viaRest.id}/password`, { method: 'PUT', json: { password: 'set-by-admin' } })).status,
    ).toBe(200);
    expect(await doors(viaRest.auth)).toEqual([401, 401]);

    const viaGraphql = await createUser(app, 'basic-set-graphql');
    await warm(viaGraphql);
    await gql('mutation ($id: Int!) { setUserPassword(id: $id, password: "set-by-admin") { message } }', { id: viaGraphql.id });
    expect(await doors(viaGraphql.auth)).toEqual([401, 401]);
  });

  it('are dropped by a disable over REST and over GraphQL', async () => {
    const viaRest = await createUser(app, 'basic-disable-rest');
    await warm(viaRest);
    expect((await app.request(`/api/admin/users/${viaRest.id}/disable`, { method: 'POST' })).status).toBe(200);
    expect(await doors(viaRest.auth)).toEqual([401, 401]);

    const viaGraphql = await createUser(app, 'basic-disable-graphql');
    await warm(viaGraphql);
    await gql('mutation ($id: Int!) { disableUser(id: $id) { message } }', { id: viaGraphql.id });
    expect(await doors(viaGraphql.auth)).toEqual([401, 401]);
  });

  it('are dropped by a deletion over REST and over GraphQL', async () => {
    const viaRest = await createUser(app, 'basic-delete-rest');
    await warm(viaRest);
    expect((await app.request(`/api/admin/users/${viaRest.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(await doors(viaRest.auth)).toEqual([401, 401]);

    const viaGraphql = await createUser(app, 'basic-delete-graphql');
    await warm(viaGraphql);
    await gql('mutation ($id: Int!) { deleteUser(id: $id) { message } }', { id: viaGraphql.id });
    expect(await doors(viaGraphql.auth)).toEqual([401, 401]);
  });

  it('are dropped by a logout: the user own GET /logout and an administrator logout', async () => {
    const user = await createUser(app, 'basic-logout');
    await warm(user);
    const login = await app.request('/login', { method: 'POST', auth: null, json: { user: user.login, password: SUBJECT_PASSWORD } });
    expect(login.status).toBe(200);
    const token = /portcullis_session=([^;]*)/.exec(login.headers.getSetCookie().join('\n'))?.[1] as string;
    const before = checks;
    expect(await doors(user.auth)).toEqual([200, 200]); // a login is no reason to check again
    expect(checks).toBe(before);
    expect((await app.request('/logout', { auth: null, headers: { cookie: `${COOKIE}=${token}` } })).status).toBe(302);
    await checkedAgain(user);

    expect((await app.request(`/api/admin/users/${user.id}/logout`, { method: 'POST' })).status).toBe(200);
    await checkedAgain(user);
  });

  it("are dropped by another connection's commit (a password changed by the CLI or a second server)", async () => {
    const user = await createUser(app, 'basic-foreign');
    await warm(user);
    const passwordHash = await hashPassword('changed-elsewhere');
    // On PostgreSQL the app learns of the commit by its notification, moments after: wait for it.
    const commits = watchForeignCommits(app.database.prisma);
    await other.prisma.user.update({ where: { id: user.id }, data: { passwordHash } });
    await commits.seen();
    expect(await doors(user.auth)).toEqual([401, 401]);
    expect(await doors({ login: user.login, password: 'changed-elsewhere' })).toEqual([200, 200]);
  });

  it('hold no failure: every wrong password is a full check, on both doors', async () => {
    const user = await createUser(app, 'basic-failures');
    await warm(user);
    const before = checks;
    for (let i = 0; i < 2; i++) expect(await doors({ login: user.login, password: 'wrong' })).toEqual([401, 401]);
    expect(checks - before).toBe(4);
  });
});

describe('remembered Basic credentials and the sign-in throttle (3 attempts)', () => {
  it('a name locked by failed attempts answers 429 on both doors, even with a remembered password', async () => {
    const user = await createUser(locking, 'basic-locked-name');
    await warm(user, locking);
    for (let i = 0; i < 3; i++)
      expect((await locking.request('/api/user', { auth: { login: user.login, password: 'wrong' } })).status).toBe(401);
    expect(await doors(user.auth, locking)).toEqual([429, 429]);
  });

  it('an account locked through its email answers 401 under its login, even with a remembered password', async () => {
    const user = await createUser(locking, 'basic-locked-account');
    await warm(user, locking);
    for (let i = 0; i < 3; i++)
      expect((await locking.request('/api/user', { auth: { login: user.email, password: 'wrong' } })).status).toBe(401);
    expect(await doors(user.auth, locking)).toEqual([401, 401]);
  });
});
