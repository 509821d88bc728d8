/**
 * Time-bound assignments at request level, on two replicas of one database sharing one test
 * clock (SQLite, and PostgreSQL under TEST_DATABASE=postgres): a grant given through one replica
 * for a while is refused by the other from the very instant it expires, and a pending one granted
 * from its start, through every door and credential (REST, GraphQL, a service account's token,
 * Basic, a session) and with no write in between: the clock moves, nothing else. Windows are
 * validated, listed on both doors, and their boundaries are written to the audit log and the
 * change feed once (modules/assignments/boundaries.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import type { Database } from '../../src/platform/database.js';
import { authHeader, type Credentials, createTestApp, type TestApp, TestClock } from '../support/app.js';
import { watchForeignCommits } from '../support/changes.js';
import { onPostgres } from '../support/postgres.js';
import { openReplica } from '../support/replica.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createRole, createTeam, createUser, p, unique } from '../support/subjects.js';

const clock = new TestClock();
let one: TestApp;
let twoDb: Database;
let two: App;

beforeAll(async () => {
  one = await createTestApp({ clock });
  ({ db: twoDb, app: two } = await openReplica(one, { deps: { clock } }));
});
afterAll(async () => {
  await twoDb?.close();
  await one?.close();
});

const iso = (secondsFromNow: number) => new Date(clock.now().getTime() + secondsFromNow * 1000).toISOString();

/** A request to replica two with `auth` (Basic, a token, or a session cookie). */
async function viaTwo(path: string, auth: Credentials | { cookie: string }, init: { method?: string; json?: unknown } = {}) {
  const headers = new Headers();
  if ('cookie' in auth) headers.set('cookie', auth.cookie);
  else headers.set('authorization', authHeader(auth));
  if (init.json !== undefined) headers.set('content-type', 'application/json');
  const res = await two.yoga.fetch(`http://test${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Whether `auth` holds `action` according to replica two, asked through REST and through GraphQL. */
async function holdsOnTwo(auth: Credentials | { cookie: string }, action: string): Promise<[boolean, boolean]> {
  const viaRest = await viaTwo('/api/access-control/user/permissions', auth);
  expect(viaRest.status).toBe(200);
  const viaGql = await viaTwo('/graphql', auth, { method: 'POST', json: { query: '{ viewer { permissions { action } } }' } });
  const actions = (viaGql.body as { data: { viewer: { permissions: { action: string }[] } } }).data.viewer.permissions;
  return [Object.hasOwn(viaRest.body, action), actions.some((x) => x.action === action)];
}

/** Runs a write through replica one and waits until replica two knows of it (a state, never a sleep). */
async function throughOne<T>(write: () => Promise<T>): Promise<T> {
  const commits = watchForeignCommits(twoDb.prisma);
  const result = await write();
  await commits.seen();
  return result;
}

/** Signs `actor` in on replica two and answers its session cookie. */
async function sessionOnTwo(actor: Actor): Promise<{ cookie: string }> {
  const res = await two.yoga.fetch('http://test/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: actor.login, password: actor.password }),
  });
  expect(res.status).toBe(200);
  const cookie = res.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error('no session cookie');
  return { cookie };
}

describe('a grant for a while, watched through another replica', () => {
  it('is refused from the instant it expires on REST, GraphQL, Basic, a session and a service account token, with no write', async () => {
    const action = `tb:${unique('expire')}`;
    const role = await createRole(one, unique('tb-role'), [p(action)]);
    const user = await createUser(one, unique('tb-user'));
    const sa = (await rest(one, 'POST', '/api/serviceaccounts', { json: { name: unique('tb-sa'), role: 'Viewer' } })).body as {
      id: number;
    };
    const token = (await rest(one, 'POST', `/api/serviceaccounts/${sa.id}/tokens`, { json: { name: 'tb' } })).body as { key: string };
    const expiresAt = iso(60);
    await throughOne(async () => {
      for (const id of [user.id, sa.id])
        expectOutcome(await rest(one, 'POST', `/api/access-control/users/${id}/roles`, { json: { roleUid: role.uid, expiresAt } }), 200);
    });
    const session = await sessionOnTwo(user);
    const credentials = [user.auth, session, { token: token.key }];
    // Held now, and cached by replica two.
    for (const auth of credentials) expect(await holdsOnTwo(auth, action)).toEqual([true, true]);

    clock.advance(59.999);
    for (const auth of credentials) expect(await holdsOnTwo(auth, action)).toEqual([true, true]);
    clock.advance(0.001); // the instant expiresAt
    for (const auth of credentials) expect(await holdsOnTwo(auth, action)).toEqual([false, false]);
  });

  it('a pending grant is granted from its notBefore, for a user and for a team member', async () => {
    const action = `tb:${unique('start')}`;
    const role = await createRole(one, unique('tb-pending'), [p(action)]);
    const user = await createUser(one, unique('tb-pending-user'));
    const member = await createUser(one, unique('tb-member'));
    const team = await createTeam(one, unique('tb-team'), { members: [member.id] });
    const window = { notBefore: iso(30), expiresAt: iso(90) };
    await throughOne(async () => {
      expectOutcome(await rest(one, 'POST', `/api/access-control/users/${user.id}/roles`, { json: { roleUid: role.uid, ...window } }), 200);
      const added = await gql(
        one,
        'mutation($t: Int!, $r: String!, $n: DateTime, $e: DateTime) { addTeamRole(teamId: $t, roleUid: $r, notBefore: $n, expiresAt: $e) { message } }',
        { t: team.id, r: role.uid, n: window.notBefore, e: window.expiresAt },
      );
      expectOutcome(added, 200);
    });
    for (const who of [user, member]) expect(await holdsOnTwo(who.auth, action)).toEqual([false, false]);
    clock.advance(30);
    for (const who of [user, member]) expect(await holdsOnTwo(who.auth, action)).toEqual([true, true]);
    clock.advance(60);
    for (const who of [user, member]) expect(await holdsOnTwo(who.auth, action)).toEqual([false, false]);
  });
});

describe('windows on both doors', () => {
  it('REST and GraphQL list the window; ended assignments are no longer listed; the check says until when', async () => {
    const role = await createRole(one, unique('tb-listed'), [p('tb:listed')]);
    const user = await createUser(one, unique('tb-listed-user'));
    const expiresAt = iso(120);
    expectOutcome(await rest(one, 'POST', `/api/access-control/users/${user.id}/roles`, { json: { roleUid: role.uid, expiresAt } }), 200);
    const listed = await rest(one, 'GET', `/api/access-control/users/${user.id}/roles`);
    expect(listed.body).toEqual([expect.objectContaining({ uid: role.uid, expiresAt })]);
    expect(listed.body).toEqual([expect.not.objectContaining({ notBefore: expect.anything() })]);
    const viaGql = await gql(one, 'query($id: Int!) { user(id: $id) { roleAssignments { role { uid } source notBefore expiresAt } } }', {
      id: user.id,
    });
    expect(viaGql.data).toEqual({ user: { roleAssignments: [{ role: { uid: role.uid }, source: 'org', notBefore: null, expiresAt }] } });
    const check = await rest(one, 'POST', '/api/access-control/check', { json: { action: 'tb:listed' }, auth: user.auth });
    expect(check.body).toMatchObject({ allowed: true, allowedUntil: expiresAt, grantedBy: [{ source: 'direct', until: expiresAt }] });
    const can = await gql(
      one,
      '{ viewer { can(action: "tb:listed") canUntil(action: "tb:listed") basic: canUntil(action: "teams:read") } }',
      {},
      {
        auth: user.auth,
      },
    );
    expect(can.data).toEqual({ viewer: { can: true, canUntil: expiresAt, basic: null } });

    clock.advance(120);
    expect((await rest(one, 'GET', `/api/access-control/users/${user.id}/roles`)).body).toEqual([]);
  });

  it('a body without a window keeps Grafana’s behaviour: assigned for good, listed without window fields', async () => {
    const role = await createRole(one, unique('tb-plain'), [p('tb:plain')]);
    const user = await createUser(one, unique('tb-plain-user'));
    expectOutcome(await rest(one, 'POST', `/api/access-control/users/${user.id}/roles`, { json: { roleUid: role.uid } }), 200);
    const [listed] = (await rest(one, 'GET', `/api/access-control/users/${user.id}/roles`)).body as Record<string, unknown>[];
    expect(Object.keys(listed ?? {})).not.toContain('expiresAt');
    clock.advance(365 * 86_400);
    const check = await rest(one, 'POST', '/api/access-control/check', { json: { action: 'tb:plain' }, auth: user.auth });
    expect(check.body).toMatchObject({ allowed: true });
    expect(check.body).not.toHaveProperty('allowedUntil');
  });

  it('400 with a stable code for windows that make no sense, on both doors; nothing written', async () => {
    const role = await createRole(one, unique('tb-bad'), [p('tb:bad')]);
    const capped = await createRole(one, unique('tb-capped'), [p('tb:capped')]);
    await one.database.prisma.role.update({ where: { id: capped.id }, data: { maxAssignmentSeconds: 3600 } });
    const user = await createUser(one, unique('tb-bad-user'));
    const cases: { json: Record<string, unknown>; code: string }[] = [
      { json: { roleUid: role.uid, notBefore: iso(60), expiresAt: iso(30) }, code: 'ASSIGNMENT_WINDOW_INVALID' },
      { json: { roleUid: role.uid, expiresAt: iso(-1) }, code: 'ASSIGNMENT_WINDOW_PAST' },
      { json: { roleUid: capped.uid }, code: 'ASSIGNMENT_TOO_LONG' },
      { json: { roleUid: capped.uid, expiresAt: iso(3601) }, code: 'ASSIGNMENT_TOO_LONG' },
      { json: { roleUid: 'basic_viewer', expiresAt: iso(60) }, code: 'ROLE_NOT_ASSIGNABLE' },
      { json: { roleUid: role.uid, expiresAt: 'tomorrow' }, code: 'VALIDATION_FAILED' },
    ];
    for (const { json, code } of cases) {
      expectOutcome(await rest(one, 'POST', `/api/access-control/users/${user.id}/roles`, { json }), 400, code);
      const { roleUid, ...window } = json;
      expectOutcome(
        await rest(one, 'PUT', `/api/access-control/users/${user.id}/roles`, { json: { roleUids: [roleUid], ...window } }),
        400,
        code,
      );
    }
    const viaGql = await gql(
      one,
      'mutation($u: Int!, $r: String!, $e: DateTime) { addUserRole(userId: $u, roleUid: $r, expiresAt: $e) { message } }',
      {
        u: user.id,
        r: capped.uid,
        e: iso(7200),
      },
    );
    expectOutcome(viaGql, 400, 'ASSIGNMENT_TOO_LONG');
    expect(await one.database.prisma.userRole.count({ where: { userId: user.id } })).toBe(0);
    expectOutcome(
      await rest(one, 'POST', `/api/access-control/users/${user.id}/roles`, { json: { roleUid: capped.uid, expiresAt: iso(3600) } }),
      200,
    );
  });
});

describe('delegation knows time', () => {
  it('a caller holding a role until T grants it until T at most, never for good, never past T', async () => {
    const role = await createRole(one, unique('tb-deleg'), [p('tb:delegated')]);
    const manager = await createUser(one, unique('tb-manager'), {
      orgRole: 'Viewer',
      permissions: [p('users.roles:add', 'permissions:type:delegate')],
    });
    const subject = await createUser(one, unique('tb-subject'));
    const until = iso(600);
    expectOutcome(
      await rest(one, 'POST', `/api/access-control/users/${manager.id}/roles`, { json: { roleUid: role.uid, expiresAt: until } }),
      200,
    );
    const add = (json: Record<string, unknown>) =>
      rest(one, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: role.uid, ...json }, auth: manager.auth });
    expectOutcome(await add({}), 403, 'ACCESS_DENIED');
    expectOutcome(await add({ expiresAt: iso(601) }), 403, 'ACCESS_DENIED');
    const setForGood = await gql(
      one,
      'mutation($u: Int!, $r: [String!]!) { setUserRoles(userId: $u, roleUids: $r) { message } }',
      {
        u: subject.id,
        r: [role.uid],
      },
      { auth: manager.auth },
    );
    expectOutcome(setForGood, 403, 'ACCESS_DENIED');
    expectOutcome(await add({ expiresAt: until }), 200);
  });
});

describe('starts and ends are events', () => {
  it('each boundary is written once across replicas, to the audit log and the change feed', async () => {
    const role = await createRole(one, unique('tb-event'), [p('tb:event')]);
    const user = await createUser(one, unique('tb-event-user'));
    const window = { notBefore: iso(10), expiresAt: iso(20) };
    expectOutcome(await rest(one, 'POST', `/api/access-control/users/${user.id}/roles`, { json: { roleUid: role.uid, ...window } }), 200);
    const before = (await rest(one, 'GET', '/api/access-control/changes?limit=1000')).body as { next: number };

    // Both replicas sweep each boundary. On PostgreSQL at once; on SQLite one after the other (two
    // in-process SQLite writers would wait on each other's lock inside one event loop).
    const both = async () => {
      const sweeps = [one, two].map((app) => () => app.services.assignmentBoundaries.sweep());
      const counts = onPostgres ? await Promise.all(sweeps.map((sweep) => sweep())) : [await sweeps[0]?.(), await sweeps[1]?.()];
      return counts.reduce((a: number, b) => a + (b ?? 0), 0);
    };
    clock.advance(10);
    expect(await both()).toBeGreaterThanOrEqual(1);
    clock.advance(10);
    expect(await both()).toBeGreaterThanOrEqual(1);
    expect(await both()).toBe(0);

    const feed = (await rest(one, 'GET', `/api/access-control/changes?after=${before.next}&limit=1000`)).body as {
      changes: { kinds: string[]; users: number[]; roles: string[] }[];
    };
    const mine = feed.changes.filter((c) => c.users.includes(user.id));
    expect(mine.map((c) => c.kinds)).toEqual([['user_role.start'], ['user_role.expire']]);
    expect(mine.every((c) => c.roles.includes(role.uid))).toBe(true);
    const audit = await one.database.prisma.auditEvent.findMany({
      where: { action: { in: ['user_role.start', 'user_role.expire'] }, resourceId: String(user.id) },
    });
    expect(audit.map((e) => e.action).sort()).toEqual(['user_role.expire', 'user_role.start']);
  });
});
