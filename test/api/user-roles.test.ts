/**
 * Role assignments of users and service accounts through both doors:
 * GET|POST|PUT /api/access-control/users/:userId/roles, DELETE .../roles/:roleUID and the
 * GraphQL twins (User.roles, ServiceAccount.roles, addUserRole, removeUserRole, setUserRoles).
 * Every status code of each path (200, 400, 401, 403, 404), set semantics with and without
 * includeHidden, global assignments, basic roles and team roles never listed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, type Credentials, createTestApp, type TestApp } from '../helpers/app.js';
import { expectOutcome, gql, type Outcome, rest } from '../helpers/doors.js';
import { type Actor, credentials, seedFixtures } from '../helpers/fixtures.js';
import { assignTeamRole, assignUserRole, createRole, createTeam, createUser, p, type TestUser } from '../helpers/subjects.js';

let app: TestApp;
let orgAdmin: Actor;
let viewer: Actor;
let target: TestUser;
let adderOnly: TestUser;
let outsider: Actor;
let sa: { id: number };
let org2: { id: number };

const BAD_PASSWORD = { login: 'admin', password: 'wrong' };

/** Uids of the roles the REST list answers for `userId` (as ADMIN unless told). */
async function listed(userId: number, query = '', auth: Credentials = ADMIN): Promise<string[]> {
  const out = await rest(app, 'GET', `/api/access-control/users/${userId}/roles${query}`, { auth });
  expectOutcome(out, 200);
  return (out.body as { uid: string }[]).map((r) => r.uid);
}

/** Direct assignment rows of `userId` as "orgId:uid", sorted. */
async function rows(userId: number): Promise<string[]> {
  const all = await app.database.prisma.userRole.findMany({ where: { userId }, include: { role: true } });
  return all.map((r) => `${r.orgId}:${r.role.uid}`).sort();
}

async function resetAssignments(userId: number): Promise<void> {
  await app.database.prisma.userRole.deleteMany({ where: { userId } });
  app.services.access.invalidate();
}

/** The target's starting assignments: r-a and hidden r-hidden in org 1, r-global globally. */
async function seedTargetAssignments(): Promise<void> {
  await resetAssignments(target.id);
  await assignUserRole(app, target.id, 'r-a');
  await assignUserRole(app, target.id, 'r-hidden');
  await assignUserRole(app, target.id, 'r-global', 0);
}

const addMutation = `mutation ($userId: Int!, $roleUid: String!, $global: Boolean) {
  addUserRole(userId: $userId, roleUid: $roleUid, global: $global) { message } }`;
const removeMutation = `mutation ($userId: Int!, $roleUid: String!, $global: Boolean) {
  removeUserRole(userId: $userId, roleUid: $roleUid, global: $global) { message } }`;
const setMutation = `mutation ($userId: Int!, $roleUids: [String!]!, $global: Boolean, $includeHidden: Boolean) {
  setUserRoles(userId: $userId, roleUids: $roleUids, global: $global, includeHidden: $includeHidden) { message } }`;

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  org2 = fx.org2;
  orgAdmin = fx.orgAdmin; // not a Service Admin
  viewer = fx.viewer;
  outsider = fx.org2.admin; // member of org 2 only
  sa = fx.serviceAccount;
  target = await createUser(app, 'target', { orgRole: 'Viewer' });
  // Holds users.roles:add but not users.roles:delete (set needs both).
  adderOnly = await createUser(app, 'adder-only', { orgRole: 'None' });
  await createRole(app, 'adder', [
    p('users.roles:add', 'permissions:type:delegate'),
    p('users.roles:read', 'users:*'),
    p('teams:read', 'teams:*'),
  ]);
  await assignUserRole(app, adderOnly.id, 'adder');

  await createRole(app, 'r-a', [p('teams:read', 'teams:*')]);
  await createRole(app, 'r-b', [p('serviceaccounts:read', 'serviceaccounts:*')]);
  await createRole(app, 'r-hidden', [p('org.users:read', 'users:*')], { hidden: true });
  await createRole(app, 'r-global', [p('teams:read', 'teams:*')], { orgId: 0 });
  await createRole(app, 'r-team', [p('apikey:read', 'apikey:*')]);
  // users:delete on global.users:* is a Service Admin's, so an org Admin cannot delegate it.
  await createRole(app, 'r-escalate', [p('users:delete', 'global.users:*')]);
  await createRole(app, 'r-org2', [p('teams:read', 'teams:*')], { orgId: org2.id });
  const team = await createTeam(app, 'team-a', { members: [target.id] });
  await assignTeamRole(app, team.id, 'r-team');
});

afterAll(() => app.close());

describe('GET /api/access-control/users/:userId/roles and User.roles', () => {
  beforeAll(async () => {
    await seedTargetAssignments();
  });

  it('200: org-local and global direct roles; hidden only with includeHidden; never basic or team roles', async () => {
    // A basic role can't be assigned through the service; a stray row for one is still never listed.
    await assignUserRole(app, target.id, 'basic_editor');
    expect(await listed(target.id)).toEqual(['r-a', 'r-global']);
    expect(await listed(target.id, '?includeHidden=true')).toEqual(['r-a', 'r-global', 'r-hidden']);
    // The target holds basic:viewer through its org role and r-team through its team: both effective, neither listed.
    const perms = await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`);
    expect(perms.body).toEqual(expect.arrayContaining([{ action: 'apikey:read', scope: 'apikey:*' }]));
  });

  it('200: the role JSON has no permissions in lists; GraphQL answers the same uids and can nest permissions', async () => {
    const out = await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`);
    expect((out.body as Record<string, unknown>[])[0]).toMatchObject({ uid: 'r-a', global: false, hidden: false });
    expect((out.body as Record<string, unknown>[])[0]).not.toHaveProperty('permissions');
    const q = await gql(
      app,
      'query ($id: Int!) { user(id: $id) { a: roles { uid } b: roles(includeHidden: true) { uid permissions { action scope } } } }',
      {
        id: target.id,
      },
    );
    expectOutcome(q, 200);
    const user = q.data?.user as { a: { uid: string }[]; b: { uid: string; permissions: unknown[] }[] };
    expect(user.a.map((r) => r.uid)).toEqual(['r-a', 'r-global']);
    expect(user.b.map((r) => r.uid)).toEqual(['r-a', 'r-global', 'r-hidden']);
    expect(user.b[2]?.permissions).toEqual([{ action: 'org.users:read', scope: 'users:*' }]);
  });

  it('200 for a service account through the same path and ServiceAccount.roles', async () => {
    await assignUserRole(app, sa.id, 'r-b');
    expect(await listed(sa.id)).toEqual(['r-b']);
    const q = await gql(app, 'query ($id: Int!) { serviceAccount(id: $id) { roles { uid } } }', { id: sa.id });
    expect(q.data?.serviceAccount).toEqual({ roles: [{ uid: 'r-b' }] });
  });

  it('400 for a non-numeric or non-positive id and a bad includeHidden', async () => {
    for (const path of [
      '/users/abc/roles',
      '/users/0/roles',
      '/users/1.5/roles',
      '/users/-3/roles',
      `/users/${target.id}/roles?includeHidden=maybe`,
    ]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control${path}`), 400, 'VALIDATION_FAILED');
    }
  });

  it('401 without or with wrong credentials, on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(
      await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`, { auth: BAD_PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    );
    const q = await gql(app, 'query ($id: Int!) { user(id: $id) { roles { uid } } }', { id: target.id }, { auth: null });
    expectOutcome(q, 401, 'UNAUTHENTICATED');
  });

  it('403 without users.roles:read on users:id:<id>, on both doors', async () => {
    expectOutcome(
      await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`, { auth: credentials(viewer) }),
      403,
      'ACCESS_DENIED',
    );
    const q = await gql(app, 'query ($id: Int!) { user(id: $id) { roles { uid } } }', { id: target.id }, { auth: credentials(viewer) });
    expectOutcome(q, 403, 'ACCESS_DENIED');
  });

  it('404 for a user of another organization or no user at all, on both doors', async () => {
    for (const id of [outsider.id, 999_999]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control/users/${id}/roles`), 404, 'USER_NOT_FOUND');
    }
    const q = await gql(app, 'query ($id: Int!) { user(id: $id) { roles { uid } } }', { id: outsider.id });
    expectOutcome(q, 404, 'USER_NOT_FOUND');
  });
});

/** One add attempt through each door; both must agree. */
async function addBoth(
  userId: number,
  json: Record<string, unknown>,
  auth: Credentials | null = ADMIN,
): Promise<[Outcome, Awaited<ReturnType<typeof gql>>]> {
  const viaRest = await rest(app, 'POST', `/api/access-control/users/${userId}/roles`, { json, auth });
  const viaGql = await gql(app, addMutation, { userId, ...json }, { auth });
  return [viaRest, viaGql];
}

describe('POST /api/access-control/users/:userId/roles and addUserRole', () => {
  beforeEach(() => resetAssignments(target.id));

  it("200: adds an org-local assignment; adding it again is idempotent; the message is Grafana's", async () => {
    const [r, g] = await addBoth(target.id, { roleUid: 'r-a' });
    expect(r).toMatchObject({ status: 200, body: { message: 'Role added to the user.' } });
    expect(g.data).toEqual({ addUserRole: { message: 'Role added to the user.' } });
    expect(await rows(target.id)).toEqual(['1:r-a']);
    expect(await listed(target.id)).toEqual(['r-a']);
  });

  it('200: global true (Service Admin) writes a global assignment, global false an org-local one', async () => {
    expectOutcome((await addBoth(target.id, { roleUid: 'r-global', global: true }))[0], 200);
    expectOutcome((await addBoth(target.id, { roleUid: 'r-global', global: false }))[0], 200);
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-global']);
  });

  it('200 for a service account; an org Admin may delegate roles it holds', async () => {
    const [r, g] = await addBoth(sa.id, { roleUid: 'r-b' }, credentials(orgAdmin));
    expectOutcome(r, 200);
    expectOutcome(g, 200);
    expect(await listed(sa.id)).toContain('r-b');
  });

  const cases: {
    name: string;
    json: () => Record<string, unknown>;
    userId?: () => number;
    auth?: () => Credentials | null;
    status: number;
    code: string;
  }[] = [
    { name: 'unknown role', json: () => ({ roleUid: 'no-such-role' }), status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'role of another organization', json: () => ({ roleUid: 'r-org2' }), status: 404, code: 'ROLE_NOT_FOUND' },
    {
      name: 'user of another organization',
      json: () => ({ roleUid: 'r-a' }),
      userId: () => outsider.id,
      status: 404,
      code: 'USER_NOT_FOUND',
    },
    { name: 'no such user', json: () => ({ roleUid: 'r-a' }), userId: () => 999_999, status: 404, code: 'USER_NOT_FOUND' },
    { name: 'user id 0', json: () => ({ roleUid: 'r-a' }), userId: () => 0, status: 400, code: 'VALIDATION_FAILED' },
    { name: 'basic role', json: () => ({ roleUid: 'basic_viewer' }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'org role assigned globally', json: () => ({ roleUid: 'r-a', global: true }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'empty roleUid', json: () => ({ roleUid: '' }), status: 400, code: 'VALIDATION_FAILED' },
    { name: 'anonymous', json: () => ({ roleUid: 'r-a' }), auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'no users.roles:add', json: () => ({ roleUid: 'r-a' }), auth: () => credentials(viewer), status: 403, code: 'ACCESS_DENIED' },
    {
      name: 'global by an org Admin',
      json: () => ({ roleUid: 'r-global', global: true }),
      auth: () => credentials(orgAdmin),
      status: 403,
      code: 'ACCESS_DENIED',
    },
    {
      name: 'delegation: role above the caller',
      json: () => ({ roleUid: 'r-escalate' }),
      auth: () => credentials(orgAdmin),
      status: 403,
      code: 'ACCESS_DENIED',
    },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing written`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const [r, g] = await addBoth(c.userId ? c.userId() : target.id, c.json(), auth);
      expectOutcome(r, c.status, c.code);
      expectOutcome(g, c.status, c.code);
      expect(await rows(target.id)).toEqual([]);
    });
  }

  it('400 on REST for bodies GraphQL types rule out: missing, not JSON, wrong types, wrong content type, bad id', async () => {
    const path = `/api/access-control/users/${target.id}/roles`;
    expectOutcome(await rest(app, 'POST', path), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: {} }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: { roleUid: 7 } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: { roleUid: 'r-a', global: 'yes' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: ['r-a'] }), 400, 'VALIDATION_FAILED');
    expectOutcome(
      await rest(app, 'POST', path, { body: '{"roleUid":', headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_JSON',
    );
    expectOutcome(
      await rest(app, 'POST', path, { body: '{"roleUid":"r-a"}', headers: { 'content-type': 'text/plain' } }),
      400,
      'UNSUPPORTED_CONTENT_TYPE',
    );
    expectOutcome(await rest(app, 'POST', '/api/access-control/users/x1/roles', { json: { roleUid: 'r-a' } }), 400, 'VALIDATION_FAILED');
    expect(await rows(target.id)).toEqual([]);
  });

  it('401 with wrong credentials', async () => {
    const [r] = await addBoth(target.id, { roleUid: 'r-a' }, BAD_PASSWORD);
    expectOutcome(r, 401, 'INVALID_CREDENTIALS');
  });
});

describe('DELETE /api/access-control/users/:userId/roles/:roleUID and removeUserRole', () => {
  beforeEach(async () => {
    await resetAssignments(target.id);
    await assignUserRole(app, target.id, 'r-a');
    await assignUserRole(app, target.id, 'r-global', 0);
    await assignUserRole(app, target.id, 'r-escalate');
  });

  it("200: removes the org-local assignment over REST, Grafana's message; the global one stays", async () => {
    const out = await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-a`);
    expect(out).toMatchObject({ status: 200, body: { message: 'Role removed from user.' } });
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-escalate']);
  });

  it('200 over GraphQL; global=true removes the global assignment only; removing a role not assigned is 200', async () => {
    const g = await gql(app, removeMutation, { userId: target.id, roleUid: 'r-global', global: true });
    expect(g.data).toEqual({ removeUserRole: { message: 'Role removed from user.' } });
    expect(await rows(target.id)).toEqual(['1:r-a', '1:r-escalate']);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-global?global=true`), 200);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-b`), 200);
    expect(await rows(target.id)).toEqual(['1:r-a', '1:r-escalate']);
  });

  const cases: {
    name: string;
    uid: string;
    global?: boolean;
    userId?: () => number;
    auth?: () => Credentials | null;
    status: number;
    code: string;
  }[] = [
    { name: 'unknown role', uid: 'no-such-role', status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'role of another organization', uid: 'r-org2', status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'user of another organization', uid: 'r-a', userId: () => outsider.id, status: 404, code: 'USER_NOT_FOUND' },
    { name: 'basic role', uid: 'basic_viewer', status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'user id 0', uid: 'r-a', userId: () => 0, status: 400, code: 'VALIDATION_FAILED' },
    { name: 'anonymous', uid: 'r-a', auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'no users.roles:delete', uid: 'r-a', auth: () => adderOnly.auth, status: 403, code: 'ACCESS_DENIED' },
    {
      name: 'global by an org Admin',
      uid: 'r-global',
      global: true,
      auth: () => credentials(orgAdmin),
      status: 403,
      code: 'ACCESS_DENIED',
    },
    { name: 'delegation: role above the caller', uid: 'r-escalate', auth: () => credentials(orgAdmin), status: 403, code: 'ACCESS_DENIED' },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing removed`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const userId = c.userId ? c.userId() : target.id;
      const r = await rest(app, 'DELETE', `/api/access-control/users/${userId}/roles/${c.uid}${c.global ? '?global=true' : ''}`, { auth });
      const g = await gql(app, removeMutation, { userId, roleUid: c.uid, global: c.global ?? null }, { auth });
      expectOutcome(r, c.status, c.code);
      expectOutcome(g, c.status, c.code);
      expect(await rows(target.id)).toEqual(['0:r-global', '1:r-a', '1:r-escalate']);
    });
  }

  it('400 for a bad id or global on REST; 401 with wrong credentials', async () => {
    expectOutcome(await rest(app, 'DELETE', '/api/access-control/users/abc/roles/r-a'), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-a?global=perhaps`), 400, 'VALIDATION_FAILED');
    expectOutcome(
      await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-a`, { auth: BAD_PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-a', '1:r-escalate']);
  });
});

describe('PUT /api/access-control/users/:userId/roles and setUserRoles', () => {
  beforeEach(async () => {
    await seedTargetAssignments();
  });

  it('200: replaces the org-local set; hidden assignments and global ones stay without includeHidden', async () => {
    const out = await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: ['r-b', 'r-b'] } });
    expect(out).toMatchObject({ status: 200, body: { message: 'User roles have been updated.' } });
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-b', '1:r-hidden']);
  });

  it('200: with includeHidden the hidden assignment goes too (GraphQL)', async () => {
    const g = await gql(app, setMutation, { userId: target.id, roleUids: ['r-b'], includeHidden: true });
    expect(g.data).toEqual({ setUserRoles: { message: 'User roles have been updated.' } });
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-b']);
  });

  it('200: an empty set clears the visible org-local roles; global=true replaces only global assignments', async () => {
    expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: [] } }), 200);
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-hidden']);
    expectOutcome(await gql(app, setMutation, { userId: target.id, roleUids: ['fixed_' + 'x'], global: true }), 404, 'ROLE_NOT_FOUND');
    const reader = await app.database.prisma.role.findFirstOrThrow({ where: { name: 'fixed:teams:reader' } });
    expectOutcome(await gql(app, setMutation, { userId: target.id, roleUids: [reader.uid], global: true }), 200);
    expect(await rows(target.id)).toEqual([`0:${reader.uid}`, '1:r-hidden']);
  });

  it('200: a hidden role named in the request is added without includeHidden; a set equal to the current one changes nothing', async () => {
    await resetAssignments(target.id);
    expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: ['r-hidden', 'r-a'] } }), 200);
    expect(await rows(target.id)).toEqual(['1:r-a', '1:r-hidden']);
    const before = await app.database.prisma.userRole.findMany({ where: { userId: target.id }, orderBy: { id: 'asc' } });
    expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: ['r-a', 'r-hidden'] } }), 200);
    expect(await app.database.prisma.userRole.findMany({ where: { userId: target.id }, orderBy: { id: 'asc' } })).toEqual(before);
  });

  it('200 for a service account', async () => {
    expectOutcome(await gql(app, setMutation, { userId: sa.id, roleUids: ['r-a', 'r-b'] }), 200);
    expect(await listed(sa.id)).toEqual(['r-a', 'r-b']);
  });

  const cases: {
    name: string;
    json: () => Record<string, unknown>;
    userId?: () => number;
    auth?: () => Credentials | null;
    status: number;
    code: string;
  }[] = [
    { name: 'one unknown role among known ones', json: () => ({ roleUids: ['r-b', 'no-such-role'] }), status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'role of another organization', json: () => ({ roleUids: ['r-org2'] }), status: 404, code: 'ROLE_NOT_FOUND' },
    {
      name: 'user of another organization',
      json: () => ({ roleUids: [] }),
      userId: () => outsider.id,
      status: 404,
      code: 'USER_NOT_FOUND',
    },
    { name: 'basic role', json: () => ({ roleUids: ['r-b', 'basic_admin'] }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'org role in a global set', json: () => ({ roleUids: ['r-b'], global: true }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'anonymous', json: () => ({ roleUids: [] }), auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'viewer', json: () => ({ roleUids: [] }), auth: () => credentials(viewer), status: 403, code: 'ACCESS_DENIED' },
    {
      name: 'add without delete',
      json: () => ({ roleUids: ['r-a', 'r-hidden'] }),
      auth: () => adderOnly.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
    {
      name: 'global by an org Admin',
      json: () => ({ roleUids: [], global: true }),
      auth: () => credentials(orgAdmin),
      status: 403,
      code: 'ACCESS_DENIED',
    },
    {
      name: 'delegation: adding a role above the caller',
      json: () => ({ roleUids: ['r-a', 'r-escalate'] }),
      auth: () => credentials(orgAdmin),
      status: 403,
      code: 'ACCESS_DENIED',
    },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing changed`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const userId = c.userId ? c.userId() : target.id;
      const r = await rest(app, 'PUT', `/api/access-control/users/${userId}/roles`, { json: c.json(), auth });
      const g = await gql(app, setMutation, { userId, ...c.json() }, { auth });
      expectOutcome(r, c.status, c.code);
      expectOutcome(g, c.status, c.code);
      expect(await rows(target.id)).toEqual(['0:r-global', '1:r-a', '1:r-hidden']);
    });
  }

  it('403: removing a role above the caller is refused too, and nothing changes', async () => {
    await assignUserRole(app, target.id, 'r-escalate');
    const out = await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, {
      json: { roleUids: ['r-b'] },
      auth: credentials(orgAdmin),
    });
    expectOutcome(out, 403, 'ACCESS_DENIED');
    expect((out.body as { message: string }).message).toContain('users:delete on global.users:*');
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-a', '1:r-escalate', '1:r-hidden']);
  });

  it('400 on REST for a missing or malformed body and a bad id; 401 with wrong credentials', async () => {
    const path = `/api/access-control/users/${target.id}/roles`;
    for (const json of [undefined, {}, { roleUids: 'r-a' }, { roleUids: [1] }, { roleUids: [], includeHidden: 'no' }]) {
      expectOutcome(await rest(app, 'PUT', path, { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await rest(app, 'PUT', '/api/access-control/users/abc/roles', { json: { roleUids: [] } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await gql(app, setMutation, { userId: -1, roleUids: [] }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', path, { json: { roleUids: [] }, auth: BAD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expect(await rows(target.id)).toEqual(['0:r-global', '1:r-a', '1:r-hidden']);
  });
});
