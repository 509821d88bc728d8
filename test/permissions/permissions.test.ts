/**
 * Permission listings through both doors: GET /api/access-control/user/permissions (and
 * `viewer { permissions }`), GET /api/access-control/users/:userId/permissions (and
 * `userPermissions`, `User.permissions`, `ServiceAccount.permissions`). Expected sets are built
 * from the role definitions, following the rule of upstream-behaviour.md "Permission
 * evaluation": direct roles (org and global), team roles of the org, the org role's basic role,
 * basic:service_admin for a Service Admin; nothing from another organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_ROLES } from '../../src/kernel/builtin-roles.js';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectFieldError, expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignTeamRole, assignUserRole, createRole, createTeam, createUser, p, seedFixtures } from '../support/subjects.js';

let app: TestApp;
let org2: { id: number };
let target: Actor;
let viewer: Actor;
let org2Admin: Actor;
let sa: { id: number };

const R_A = [p('apikey:read', 'apikey:*'), p('reports:read')];
const R_GLOBAL = [p('serviceaccounts:read', 'serviceaccounts:*')];
const R_TEAM = [p('org.users:write', 'users:*')];
const R_ORG2 = [p('org2:only', 'org2:*')];
const R_ORG2_TEAM = [p('org2team:only')];
const R_SA = [p('dashboards:read', 'dashboards:uid:abc')];

const basic = (name: string): PermissionPair[] => BASIC_ROLES.find((r) => r.basicRole === name)?.permissions ?? [];

/** Union of permission lists, sorted by action then scope (the listing's order). */
function union(...lists: PermissionPair[][]): PermissionPair[] {
  const seen = new Map<string, PermissionPair>();
  for (const perm of lists.flat()) seen.set(`${perm.action} ${perm.scope}`, { action: perm.action, scope: perm.scope });
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...seen.values()].sort((a, b) => cmp(a.action, b.action) || cmp(a.scope, b.scope));
}

/** The map action -> scopes of a permission list. */
function asMap(perms: PermissionPair[]): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const perm of union(perms)) map[perm.action] = [...(map[perm.action] ?? []), perm.scope];
  return map;
}

beforeAll(async () => {
  app = await createTestApp();
  // The seeded admin (Service Admin) is Admin of org 1 and of org 2, which it created.
  const fx = await seedFixtures(app);
  org2 = fx.org2;
  viewer = fx.viewer;
  org2Admin = fx.org2.admin; // member of org 2 only
  sa = fx.serviceAccount; // org role Viewer
  target = await createUser(app, 'target', { orgRole: 'Viewer', alsoIn: [{ orgId: org2.id, orgRole: 'Editor' }] });
  await createRole(app, 'r-a', R_A);
  await createRole(app, 'r-global', R_GLOBAL, { orgId: 0 });
  await createRole(app, 'r-team', R_TEAM);
  await createRole(app, 'r-org2', R_ORG2, { orgId: org2.id });
  await createRole(app, 'r-org2-team', R_ORG2_TEAM, { orgId: org2.id });
  await createRole(app, 'r-sa', R_SA);
  await assignUserRole(app, target.id, 'r-a');
  await assignUserRole(app, target.id, 'r-global', 0);
  await assignUserRole(app, target.id, 'r-org2', org2.id);
  const team = await createTeam(app, 'team-1', { members: [target.id] });
  await assignTeamRole(app, team.id, 'r-team');
  const team2 = await createTeam(app, 'team-2', { orgId: org2.id, members: [target.id] });
  await assignTeamRole(app, team2.id, 'r-org2-team');
  await assignUserRole(app, sa.id, 'r-sa');
});

afterAll(() => app.close());

describe('GET /api/access-control/user/permissions and viewer.permissions', () => {
  it("200: the caller's map action -> scopes; a Service Admin and org Admin holds both basic roles", async () => {
    const out = await rest(app, 'GET', '/api/access-control/user/permissions');
    expectOutcome(out, 200);
    expect(out.body).toEqual(asMap(union(basic('Admin'), basic('Service Admin'))));
  });

  it('200: a user holds direct, global and team roles of the org plus its basic role, nothing of org 2; same on GraphQL', async () => {
    const expected = union(basic('Viewer'), R_A, R_GLOBAL, R_TEAM);
    const out = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: target.auth });
    expect(out.body).toEqual(asMap(expected));
    const q = await gql(app, '{ viewer { permissions { action scope } } }', {}, { auth: target.auth });
    expect(q.data).toEqual({ viewer: { permissions: expected } });
  });

  it("200 in org 2 (X-Service-Org-Id) gives the org 2 view: its roles there, the global ones and org 2's org role", async () => {
    const out = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: target.auth, orgId: org2.id });
    expect(out.body).toEqual(asMap(union(basic('Editor'), R_ORG2, R_ORG2_TEAM, R_GLOBAL)));
  });

  it('reloadcache=true reads the database again; without it the cached answer stands', async () => {
    const before = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: viewer.auth });
    // A write that skips access.invalidate() (which every service write must call): the cache hides it...
    // (a transaction, so on PostgreSQL the process knows the commit as its own before the next
    // request's catch-up; a bare statement may be read there as another replica's commit)
    const role = await createRole(app, 'r-sneaky', [p('sneaky:read')]);
    await app.database.prisma.$transaction((tx) => tx.userRole.create({ data: { userId: viewer.id, roleId: role.id, orgId: 1 } }));
    expect((await rest(app, 'GET', '/api/access-control/user/permissions', { auth: viewer.auth })).body).toEqual(before.body);
    // ...until the caller asks to reload.
    const reloaded = await rest(app, 'GET', '/api/access-control/user/permissions?reloadcache=true', { auth: viewer.auth });
    expect(reloaded.body).toEqual(asMap(union(basic('Viewer'), [p('sneaky:read')])));
  });

  it('400 for a bad reloadcache; 401 without or with wrong credentials', async () => {
    expectOutcome(await rest(app, 'GET', '/api/access-control/user/permissions?reloadcache=soon'), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', '/api/access-control/user/permissions', { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(
      await rest(app, 'GET', '/api/access-control/user/permissions', { auth: { login: 'viewer', password: 'x' } }),
      401,
      'INVALID_CREDENTIALS',
    );
    expectOutcome(await gql(app, '{ viewer { permissions { action } } }', {}, { auth: null }), 401, 'UNAUTHENTICATED');
  });

  it('needs no permission: a member with org role None gets 200 and an empty map', async () => {
    const nobody = await createUser(app, 'nobody', { orgRole: 'None' });
    const out = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: nobody.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual({});
  });
});

describe('GET /api/access-control/users/:userId/permissions, userPermissions, User.permissions, ServiceAccount.permissions', () => {
  const userQuery = 'query ($id: Int!) { userPermissions(userId: $id) { action scope } }';

  it("200: a user's effective permissions in the caller's org as {action, scope}, the same on every door", async () => {
    const expected = union(basic('Viewer'), R_A, R_GLOBAL, R_TEAM);
    const out = await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`);
    expectOutcome(out, 200);
    expect(out.body).toEqual(expected);
    expect((await gql(app, userQuery, { id: target.id })).data).toEqual({ userPermissions: expected });
    const field = await gql(app, 'query ($id: Int!) { user(id: $id) { permissions { action scope } } }', { id: target.id });
    expect(field.data).toEqual({ user: { permissions: expected } });
  });

  it("200: the same user seen from org 2 by org 2's admin shows the org 2 view only", async () => {
    const out = await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`, { auth: org2Admin.auth });
    expect(out.body).toEqual(union(basic('Editor'), R_ORG2, R_ORG2_TEAM, R_GLOBAL));
  });

  it("200: a service account (same path) holds its roles and its org role's basic role", async () => {
    const expected = union(basic('Viewer'), R_SA);
    expect((await rest(app, 'GET', `/api/access-control/users/${sa.id}/permissions`)).body).toEqual(expected);
    const field = await gql(app, 'query ($id: Int!) { serviceAccount(id: $id) { permissions { action scope } } }', { id: sa.id });
    expect(field.data).toEqual({ serviceAccount: { permissions: expected } });
  });

  it('200: a Service Admin target holds basic:service_admin', async () => {
    const out = await rest(app, 'GET', '/api/access-control/users/1/permissions', { auth: org2Admin.auth });
    expect(out.body).toEqual(union(basic('Admin'), basic('Service Admin')));
  });

  it('400 for a bad id on both doors', async () => {
    for (const id of ['abc', '0', '12a']) {
      expectOutcome(await rest(app, 'GET', `/api/access-control/users/${id}/permissions`), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await gql(app, userQuery, { id: -5 }), 400, 'VALIDATION_FAILED');
  });

  it('401 on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await gql(app, userQuery, { id: target.id }, { auth: null }), 401, 'UNAUTHENTICATED');
  });

  it('403 without users.permissions:read on users:id:<id>, on both doors', async () => {
    expectOutcome(
      await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`, { auth: viewer.auth }),
      403,
      'ACCESS_DENIED',
    );
    expectOutcome(await gql(app, userQuery, { id: target.id }, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
    const field = await gql(
      app,
      'query ($id: Int!) { user(id: $id) { permissions { action } } }',
      { id: target.id },
      { auth: viewer.auth },
    );
    expectFieldError(field, ['user', 'permissions'], 'ACCESS_DENIED'); // the user is readable: a partial answer
  });

  it('403 → 200 once the caller holds users.permissions:read on exactly that user', async () => {
    await createRole(app, 'r-perm-reader', [p('users.permissions:read', `users:id:${target.id}`)]);
    await assignUserRole(app, viewer.id, 'r-perm-reader');
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`, { auth: viewer.auth }), 200);
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${sa.id}/permissions`, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
  });

  it('404 for a user of another organization or no user, on both doors', async () => {
    for (const id of [org2Admin.id, 999_999]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control/users/${id}/permissions`), 404, 'USER_NOT_FOUND');
      expectOutcome(await gql(app, userQuery, { id }), 404, 'USER_NOT_FOUND');
    }
    // The Service Admin finds the user itself; its permissions in this organization stay behind the wall.
    const field = await gql(app, 'query ($id: Int!) { user(id: $id) { permissions { action } } }', { id: org2Admin.id });
    expectFieldError(field, ['user', 'permissions'], 'USER_NOT_FOUND');
  });
});
