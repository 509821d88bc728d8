/**
 * Revocation at the next request on every replica: two app instances on one database (A, the
 * test app, and B, a second client and app, as two replicas behind a load balancer). Whatever A
 * acknowledged before a request reaches B, B applies before it reads any cache (kernel/access.ts
 * `authenticate`: on PostgreSQL one read of the change version started after the request arrived;
 * on SQLite `PRAGMA data_version`, exact at every reading):
 * - with B's listener stalled (PostgreSQL only: its backend stopped with SIGSTOP, so no
 *   notification reaches B and its heartbeat has not yet noticed), every right and credential
 *   revoked through A is refused by B's very next request: a removed role (the user's listing,
 *   a guarded route, the admin's listing of the user, GraphQL `viewer { can }`, a session
 *   cookie), a changed password and a disabled account over Basic, a demoted org Admin, a
 *   deleted API key, a deleted service-account token, a revoked session, a removed team
 *   membership, a role whose permissions were replaced, a removed Service Admin flag;
 * - with B's listener killed, B answers 503 or the new state, never the old;
 * - without a stall, reads fired at B in parallel right after A's acknowledgement are all fresh;
 * - a disabled user is refused in the admin's listings and checks of it, on both doors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { LISTENER_NAME } from '../../src/platform/change-feed.js';
import { changesKnown, type Database } from '../../src/platform/database.js';
import { ADMIN, authHeader, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { createRole, createTeam, createUser, p, unique } from '../support/subjects.js';

const COOKIE = 'portcullis_session';

let a: TestApp;
let bDb: Database;
let b: App;
/** A's and B's listener backends (PostgreSQL). */
let aListeners: number[] = [];
let bListener: number | undefined;

/** Backend pids of the change-feed listeners on the app's database. */
async function listeners(): Promise<number[]> {
  const rows = await a.database.prisma.$queryRawUnsafe<{ pid: number }[]>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = '${LISTENER_NAME}'`,
  );
  return rows.map((row) => Number(row.pid));
}

beforeAll(async () => {
  a = await createTestApp();
  if (onPostgres) aListeners = await listeners();
  ({ db: bDb, app: b } = await openReplica(a));
  if (onPostgres) bListener = (await listeners()).find((pid) => !aListeners.includes(pid));
});
afterAll(async () => {
  try {
    if (bListener !== undefined) process.kill(bListener, 'SIGCONT');
  } catch {
    // gone already
  }
  await bDb?.close();
  await a?.close();
});

type Auth = Credentials | { cookie: string };

/** A request to replica B. */
function viaB(path: string, auth: Auth, init: { method?: string; json?: unknown } = {}): Promise<Response> {
  const headers = new Headers();
  if ('cookie' in auth) headers.set('cookie', `${COOKIE}=${auth.cookie}`);
  else headers.set('authorization', authHeader(auth));
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  return Promise.resolve(
    b.yoga.fetch(`http://test${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
    }),
  );
}

/** A write through A, which must be acknowledged. */
async function viaA(method: string, path: string, json?: unknown): Promise<Record<string, unknown>> {
  const res = await a.request(path, { method, ...(json !== undefined && { json }) });
  const body = (await res.json()) as Record<string, unknown>;
  expect([200, 201], `${method} ${path}: ${JSON.stringify(body)}`).toContain(res.status);
  return body;
}

/** Signs in through A; returns the session token. */
async function sessionOf(login: string, password: string): Promise<string> {
  const res = await a.request('/login', { method: 'POST', auth: null, json: { user: login, password } });
  expect(res.status).toBe(200);
  return /portcullis_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] as string;
}

/** Whether `auth` holds users:read according to B, through one door. */
const holds = {
  listing: async (auth: Auth) => {
    const res = await viaB('/api/access-control/user/permissions', auth);
    return res.status === 200 && Object.hasOwn((await res.json()) as object, 'users:read');
  },
  route: async (auth: Auth) => (await viaB('/api/users', auth)).status === 200,
  graphql: async (auth: Auth) => {
    const res = await viaB('/graphql', auth, {
      method: 'POST',
      json: { query: '{ viewer { can(action: "users:read", scope: "global.users:*") } }' },
    });
    const body = (await res.json()) as { data?: { viewer?: { can?: boolean } } };
    return body.data?.viewer?.can === true;
  },
  adminListing: async (userId: number, auth: Auth = ADMIN) => {
    const res = await viaB(`/api/access-control/users/${userId}/permissions`, auth);
    return ((await res.json()) as { action: string }[]).some((x) => x.action === 'users:read');
  },
};

/** Everything the revocations below take away, set up through A; returns what B is asked. */
async function rights() {
  const role = await createRole(a, unique('rev-users-read'), [p('users:read', 'global.users:*')]);
  const withRole = async (name: string) => {
    const user = await createUser(a, unique(name));
    await viaA('POST', `/api/access-control/users/${user.id}/roles`, { roleUid: role.uid });
    return user;
  };
  const u1 = await withRole('rev-u1');
  const u2 = await withRole('rev-u2');
  const u3 = await withRole('rev-u3');
  const u4 = await createUser(a, unique('rev-u4'), { orgRole: 'Admin' });
  const u5 = await createUser(a, unique('rev-u5'));
  const key = (await viaA('POST', '/api/auth/keys', { name: unique('rev-key'), role: 'Admin' })) as { id: number; key: string };
  const sa = (await viaA('POST', '/api/serviceaccounts', { name: unique('rev-sa'), role: 'Viewer' })) as { id: number };
  await viaA('POST', `/api/access-control/users/${sa.id}/roles`, { roleUid: role.uid });
  const token = (await viaA('POST', `/api/serviceaccounts/${sa.id}/tokens`, { name: unique('rev-token') })) as { id: number; key: string };
  // Through a team, a role whose permissions change, and the Service Admin flag.
  const u6 = await createUser(a, unique('rev-u6'));
  const team = await createTeam(a, unique('rev-team'), { members: [u6.id] });
  await viaA('POST', `/api/access-control/teams/${team.id}/roles`, { roleUid: role.uid });
  const edited = await createRole(a, unique('rev-edited'), [p('users:read', 'global.users:*')]);
  const u7 = await createUser(a, unique('rev-u7'));
  await viaA('POST', `/api/access-control/users/${u7.id}/roles`, { roleUid: edited.uid });
  const u8 = await createUser(a, unique('rev-u8'), { isServiceAdmin: true });
  return {
    u6,
    team,
    edited,
    u7,
    u8,
    role,
    u1,
    u2,
    u3,
    u4,
    u5,
    key,
    sa,
    token,
    u1Session: await sessionOf(u1.login, u1.password),
    u5Session: await sessionOf(u5.login, u5.password),
  };
}

type Rights = Awaited<ReturnType<typeof rights>>;

/** What B answers for each right, by name: true while it is still honoured. */
async function honoured(r: Rights): Promise<Record<string, boolean>> {
  const ok = async (res: Promise<Response>) => (await res).status === 200;
  const probes: Record<string, () => Promise<boolean>> = {
    listing: () => holds.listing(r.u1.auth),
    route: () => holds.route(r.u1.auth),
    adminListing: () => holds.adminListing(r.u1.id),
    graphql: () => holds.graphql(r.u1.auth),
    session: () => holds.listing({ cookie: r.u1Session }),
    oldPassword: () => ok(viaB('/api/user', r.u2.auth)),
    disabled: () => ok(viaB('/api/user', r.u3.auth)),
    demoted: () => ok(viaB('/api/serviceaccounts/search', r.u4.auth)),
    apiKey: () => ok(viaB('/api/access-control/user/permissions', { token: r.key.key })),
    saToken: () => holds.route({ token: r.token.key }),
    revokedSession: () => ok(viaB('/api/user', { cookie: r.u5Session })),
    team: () => holds.route(r.u6.auth),
    edited: () => holds.route(r.u7.auth),
    serviceAdmin: () => ok(viaB('/api/admin/users/1/permissions', r.u8.auth, { method: 'PUT', json: { isGrafanaAdmin: true } })),
  };
  const names = Object.keys(probes);
  const answers = await Promise.all(names.map((name) => (probes[name] as () => Promise<boolean>)()));
  return Object.fromEntries(names.map((name, i) => [name, answers[i] as boolean]));
}

/** Revokes every right of `r` through A, each acknowledged. */
async function revokeAll(r: Rights): Promise<void> {
  await viaA('DELETE', `/api/access-control/users/${r.u1.id}/roles/${r.role.uid}`);
  await viaA('PUT', `/api/admin/users/${r.u2.id}/password`, { password: 'an-entirely-new-password' });
  await viaA('POST', `/api/admin/users/${r.u3.id}/disable`);
  await viaA('PATCH', `/api/org/users/${r.u4.id}`, { role: 'Viewer' });
  await viaA('DELETE', `/api/auth/keys/${r.key.id}`);
  await viaA('DELETE', `/api/serviceaccounts/${r.sa.id}/tokens/${r.token.id}`);
  await viaA('POST', `/api/admin/users/${r.u5.id}/logout`);
  await viaA('DELETE', `/api/teams/${r.team.id}/members/${r.u6.id}`);
  await viaA('PUT', `/api/access-control/roles/${r.edited.uid}`, {
    version: 1,
    name: r.edited.name,
    permissions: [{ action: 'other:read' }],
  });
  await viaA('PUT', `/api/admin/users/${r.u8.id}/permissions`, { isGrafanaAdmin: false });
}

const ALL_HONOURED = {
  listing: true,
  route: true,
  adminListing: true,
  graphql: true,
  session: true,
  oldPassword: true,
  disabled: true,
  demoted: true,
  apiKey: true,
  saToken: true,
  revokedSession: true,
  team: true,
  edited: true,
  serviceAdmin: true,
};
const NONE_HONOURED = Object.fromEntries(Object.keys(ALL_HONOURED).map((k) => [k, false]));

describe('revocation through one replica, read through the other', () => {
  it.runIf(onPostgres)("with the other replica's listener stalled: every right is refused at its very next request", async () => {
    const r = await rights();
    expect(await honoured(r)).toEqual(ALL_HONOURED); // B holds all of it in its caches now
    expect(bListener).toBeTypeOf('number');
    process.kill(bListener as number, 'SIGSTOP');
    try {
      await revokeAll(r);
      expect(await honoured(r)).toEqual(NONE_HONOURED);
      expect(await honoured(r)).toEqual(NONE_HONOURED);
    } finally {
      process.kill(bListener as number, 'SIGCONT');
    }
  });

  it.runIf(onPostgres)("with the other replica's listener killed: 503 or the new state, never the old", async () => {
    const user = await createUser(a, unique('rev-killed'), { orgRole: 'Admin' });
    // B's listener may have reconnected since it was found (a stall longer than its heartbeat's
    // read timeout, on a busy machine): wait until B is caught up, then find its listener again.
    await expect.poll(() => changesKnown(bDb.prisma)).toBe(true);
    bListener = (await listeners()).find((pid) => !aListeners.includes(pid));
    expect((await viaB('/api/serviceaccounts/search', user.auth)).status).toBe(200);
    const killed = await a.database.prisma.$queryRawUnsafe<{ ok: boolean }[]>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE pid = ${bListener as number}`,
    );
    expect(killed[0]?.ok).toBe(true);
    await viaA('PATCH', `/api/org/users/${user.id}`, { role: 'Viewer' });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, async () => (await viaB('/api/serviceaccounts/search', user.auth)).status),
    );
    for (const status of statuses) expect([403, 503]).toContain(status);
    // B's listener is back once B answers again.
    await expect
      .poll(async () => (await viaB('/api/serviceaccounts/search', user.auth)).status, { timeout: 10_000, interval: 20 })
      .toBe(403);
    bListener = (await listeners()).find((pid) => !aListeners.includes(pid));
  });

  it('reads fired at the other replica in parallel the moment each revocation commits are all fresh', async () => {
    const role = await createRole(a, unique('race-users-read'), [p('users:read', 'global.users:*')]);
    const user = await createUser(a, unique('race-user'));
    const sa = (await viaA('POST', '/api/serviceaccounts', { name: unique('race-sa'), role: 'Viewer' })) as { id: number };
    const token = {
      token: ((await viaA('POST', `/api/serviceaccounts/${sa.id}/tokens`, { name: unique('race-token') })) as { key: string }).key,
    };
    const adminKey = {
      token: ((await viaA('POST', '/api/auth/keys', { name: unique('race-admin'), role: 'Admin' })) as { key: string }).key,
    };
    const reads = () => [
      ...Array.from({ length: 3 }, () => holds.listing(user.auth).then((held) => held && 'listing')),
      ...Array.from({ length: 3 }, () => holds.graphql(user.auth).then((held) => held && 'graphql')),
      ...Array.from({ length: 3 }, () => holds.listing(token).then((held) => held && 'token listing')),
      ...Array.from({ length: 3 }, () => holds.graphql(token).then((held) => held && 'token graphql')),
      ...Array.from({ length: 3 }, () => holds.route(token).then((held) => held && 'token route')),
      ...Array.from({ length: 3 }, () => holds.adminListing(user.id, adminKey).then((held) => held && 'admin listing')),
    ];
    // B's reads start the moment A's write transaction has committed, before A even answers
    // (sooner than any client could send them after the acknowledgement).
    const access = a.services.access;
    const write = access.write.bind(access);
    let inFlight: Promise<(string | false)[]>[] = [];
    access.write = async (work, options) => {
      const result = await write(work, options);
      inFlight.push(Promise.all(reads()));
      return result;
    };
    const stale: string[] = [];
    try {
      for (let round = 0; round < 6; round++) {
        await viaA('POST', `/api/access-control/users/${user.id}/roles`, { roleUid: role.uid });
        await viaA('POST', `/api/access-control/users/${sa.id}/roles`, { roleUid: role.uid });
        await Promise.all(inFlight);
        inFlight = [];
        // Granted: B's next requests see it, and cache it.
        expect([await holds.listing(user.auth), await holds.listing(token), await holds.adminListing(user.id, adminKey)]).toEqual([
          true,
          true,
          true,
        ]);
        await viaA('DELETE', `/api/access-control/users/${user.id}/roles/${role.uid}`);
        await viaA('DELETE', `/api/access-control/users/${sa.id}/roles/${role.uid}`);
        const [afterUser, afterBoth] = await Promise.all(inFlight);
        inFlight = [];
        // After the first revocation only the user's reads must be refused; after the second, all.
        for (const read of afterUser ?? []) if (read && !read.startsWith('token')) stale.push(`round ${round}: ${read}`);
        for (const read of afterBoth ?? []) if (read) stale.push(`round ${round}: ${read}`);
      }
    } finally {
      access.write = write;
    }
    expect(stale).toEqual([]);
  });
});

describe('a disabled subject', () => {
  it('is refused in the listings and checks of it, on both doors', async () => {
    const user = await createUser(a, unique('disabled-subject'), { permissions: [p('users:read', 'global.users:*')] });
    const check = { userId: user.id, action: 'users:read', scopes: ['global.users:*'] };
    const query = `query ($id: Int!) {
      userPermissions(userId: $id) { action }
      checkAccess(userId: $id, action: "users:read", scopes: ["global.users:*"]) { allowed subjectDisabled missing { action } }
    }`;
    const before = await a.request(`/api/access-control/users/${user.id}/permissions`);
    expect(((await before.json()) as unknown[]).length).toBeGreaterThan(0);
    expect(await (await a.request('/api/access-control/check', { method: 'POST', json: check })).json()).toMatchObject({
      allowed: true,
      subjectDisabled: false,
    });

    await viaA('POST', `/api/admin/users/${user.id}/disable`);
    for (const replica of [a, b]) {
      const send = (path: string, init: { method?: string; json?: unknown } = {}) =>
        replica === a ? a.request(path, init) : viaB(path, ADMIN, init);
      expect(await (await send(`/api/access-control/users/${user.id}/permissions`)).json()).toEqual([]);
      expect(await (await send('/api/access-control/check', { method: 'POST', json: check })).json()).toEqual({
        allowed: false,
        grantedBy: [],
        missing: [{ action: 'users:read', scope: 'global.users:*' }],
        subjectDisabled: true,
      });
      const search = await send(`/api/access-control/users/permissions/search?action=users:read&userId=${user.id}`);
      expect(await search.json()).toEqual({});
      const graphql = await send('/graphql', { method: 'POST', json: { query, variables: { id: user.id } } });
      expect(await graphql.json()).toEqual({
        data: {
          userPermissions: [],
          checkAccess: { allowed: false, subjectDisabled: true, missing: [{ action: 'users:read' }] },
        },
      });
    }

    await viaA('POST', `/api/admin/users/${user.id}/enable`);
    expect(await (await viaB('/api/access-control/check', ADMIN, { method: 'POST', json: check })).json()).toMatchObject({
      allowed: true,
      subjectDisabled: false,
    });
  });
});
