/**
 * Organizations are walls for every assignment and permission path, on both
 * doors: a caller acting in org 1 that sends ids of org 2's users, service accounts, teams or
 * roles gets 404, and one that names org 2 in X-Service-Org-Id without belonging to it gets 401;
 * never org 2's data, and nothing of org 2 changes.
 *
 * On GraphQL the role and permission fields hang under `user(id)`, `serviceAccount(id)` and
 * `team(id)`. `serviceAccount(id)` and `team(id)` only find objects of the caller's organization,
 * so they answer the 404 themselves; `user(id)` finds any user for a Service Admin (users:read on
 * global.users:*), so for the Service Admin it is the field itself that must hold the wall.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { expectFieldError, expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import { type Actor, addTeamMember, assignTeamRole, assignUserRole, createRole, createUser, p, seedFixtures } from '../support/subjects.js';

let app: TestApp;
let org2: { id: number };
let admin1: Actor;
let user1: Actor;
let team1: { id: number };
let bridge: Actor;
let user2: Actor;
let sa2: { id: number };
let team2: { id: number };

/** Everything org 2 holds, to compare before and after. */
async function org2State() {
  const db = app.database.prisma;
  const [users, teams] = await Promise.all([
    db.userRole.findMany({ where: { orgId: { not: 1 } }, orderBy: { id: 'asc' } }),
    db.teamRole.findMany({ where: { orgId: org2.id }, orderBy: { id: 'asc' } }),
  ]);
  return { users, teams };
}

/** Every REST path of this branch with org 2's ids (or org 1's where the role is org 2's). */
const restCases = (): { method: string; path: string; json?: unknown; code: string }[] => [
  { method: 'GET', path: `/users/${user2.id}/roles`, code: 'USER_NOT_FOUND' },
  { method: 'GET', path: `/users/${sa2.id}/roles`, code: 'USER_NOT_FOUND' },
  { method: 'POST', path: `/users/${user2.id}/roles`, json: { roleUid: 'r1' }, code: 'USER_NOT_FOUND' },
  { method: 'POST', path: `/users/${sa2.id}/roles`, json: { roleUid: 'r1' }, code: 'USER_NOT_FOUND' },
  { method: 'POST', path: `/users/${user1.id}/roles`, json: { roleUid: 'r2' }, code: 'ROLE_NOT_FOUND' },
  { method: 'PUT', path: `/users/${user2.id}/roles`, json: { roleUids: [] }, code: 'USER_NOT_FOUND' },
  { method: 'PUT', path: `/users/${sa2.id}/roles`, json: { roleUids: [], includeHidden: true }, code: 'USER_NOT_FOUND' },
  { method: 'PUT', path: `/users/${user1.id}/roles`, json: { roleUids: ['r2'] }, code: 'ROLE_NOT_FOUND' },
  { method: 'DELETE', path: `/users/${user2.id}/roles/r2`, code: 'USER_NOT_FOUND' },
  { method: 'DELETE', path: `/users/${sa2.id}/roles/r2`, code: 'USER_NOT_FOUND' },
  { method: 'DELETE', path: `/users/${bridge.id}/roles/r2`, code: 'ROLE_NOT_FOUND' },
  { method: 'GET', path: `/teams/${team2.id}/roles`, code: 'TEAM_NOT_FOUND' },
  { method: 'POST', path: `/teams/${team2.id}/roles`, json: { roleUid: 'r1' }, code: 'TEAM_NOT_FOUND' },
  { method: 'POST', path: `/teams/${team1.id}/roles`, json: { roleUid: 'r2' }, code: 'ROLE_NOT_FOUND' },
  { method: 'PUT', path: `/teams/${team2.id}/roles`, json: { roleUids: [] }, code: 'TEAM_NOT_FOUND' },
  { method: 'PUT', path: `/teams/${team1.id}/roles`, json: { roleUids: ['r2'] }, code: 'ROLE_NOT_FOUND' },
  { method: 'DELETE', path: `/teams/${team2.id}/roles/r2`, code: 'TEAM_NOT_FOUND' },
  { method: 'GET', path: `/users/${user2.id}/permissions`, code: 'USER_NOT_FOUND' },
  { method: 'GET', path: `/users/${sa2.id}/permissions`, code: 'USER_NOT_FOUND' },
];

/** Every GraphQL operation of this branch aimed at org 2. */
const gqlCases = (): { name: string; query: string; variables: Record<string, unknown>; code: string }[] => [
  {
    name: 'user { roles }',
    query: 'query ($id: Int!) { user(id: $id) { roles(includeHidden: true) { uid } } }',
    variables: { id: user2.id },
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'user { permissions }',
    query: 'query ($id: Int!) { user(id: $id) { permissions { action } } }',
    variables: { id: user2.id },
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'serviceAccount { roles }',
    query: 'query ($id: Int!) { serviceAccount(id: $id) { roles { uid } } }',
    variables: { id: sa2.id },
    code: 'SERVICE_ACCOUNT_NOT_FOUND',
  },
  {
    name: 'serviceAccount { permissions }',
    query: 'query ($id: Int!) { serviceAccount(id: $id) { permissions { action } } }',
    variables: { id: sa2.id },
    code: 'SERVICE_ACCOUNT_NOT_FOUND',
  },
  {
    name: 'team { roles }',
    query: 'query ($id: Int!) { team(id: $id) { roles(includeHidden: true) { uid } } }',
    variables: { id: team2.id },
    code: 'TEAM_NOT_FOUND',
  },
  {
    name: 'userPermissions',
    query: 'query ($id: Int!) { userPermissions(userId: $id) { action } }',
    variables: { id: user2.id },
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'addUserRole',
    query: 'mutation ($id: Int!) { addUserRole(userId: $id, roleUid: "r1") { message } }',
    variables: { id: user2.id },
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'addUserRole (org 2 role)',
    query: 'mutation ($id: Int!) { addUserRole(userId: $id, roleUid: "r2") { message } }',
    variables: { id: user1.id },
    code: 'ROLE_NOT_FOUND',
  },
  {
    name: 'removeUserRole',
    query: 'mutation ($id: Int!) { removeUserRole(userId: $id, roleUid: "r2") { message } }',
    variables: { id: user2.id },
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'setUserRoles',
    query: 'mutation ($id: Int!) { setUserRoles(userId: $id, roleUids: []) { message } }',
    variables: { id: sa2.id },
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'addTeamRole',
    query: 'mutation ($id: Int!) { addTeamRole(teamId: $id, roleUid: "r1") { message } }',
    variables: { id: team2.id },
    code: 'TEAM_NOT_FOUND',
  },
  {
    name: 'removeTeamRole',
    query: 'mutation ($id: Int!) { removeTeamRole(teamId: $id, roleUid: "r2") { message } }',
    variables: { id: team2.id },
    code: 'TEAM_NOT_FOUND',
  },
  {
    name: 'setTeamRoles',
    query: 'mutation ($id: Int!) { setTeamRoles(teamId: $id, roleUids: [], includeHidden: true) { message } }',
    variables: { id: team2.id },
    code: 'TEAM_NOT_FOUND',
  },
  {
    name: 'setTeamRoles (org 2 role)',
    query: 'mutation ($id: Int!) { setTeamRoles(teamId: $id, roleUids: ["r2"]) { message } }',
    variables: { id: team1.id },
    code: 'ROLE_NOT_FOUND',
  },
];

/** No answer may carry org 2's role (its name, only stored there) or its permission. */
function expectNoOrg2Data(outcome: Outcome): void {
  const text = JSON.stringify(outcome.body);
  expect(text).not.toContain('org2:secret');
  expect(text).not.toContain('custom:r2');
}

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  org2 = fx.org2;
  admin1 = fx.orgAdmin; // org Admin of org 1, not a Service Admin, no member of org 2
  user1 = fx.viewer;
  team1 = fx.team; // user1 is a member
  user2 = fx.org2.admin; // member of org 2 only
  sa2 = fx.org2.serviceAccount;
  team2 = fx.org2.team; // user2 is a member
  bridge = await createUser(app, 'bridge', { orgRole: 'Viewer', alsoIn: [{ orgId: org2.id, orgRole: 'Editor' }] });
  await addTeamMember(app, team2.id, bridge.id);
  await createRole(app, 'r1', [p('teams:read', 'teams:*')]);
  await createRole(app, 'r2', [p('org2:secret', 'org2:*')], { orgId: org2.id });
  await assignUserRole(app, user2.id, 'r2', org2.id);
  await assignUserRole(app, sa2.id, 'r2', org2.id);
  await assignUserRole(app, bridge.id, 'r2', org2.id);
  await assignTeamRole(app, team2.id, 'r2');
});

afterAll(() => app.close());

describe('a caller in org 1 with org 2 ids', () => {
  for (const caller of ['org Admin', 'Service Admin'] as const) {
    it(`REST: 404 on every path for an ${caller}, no org 2 data, nothing of org 2 changed`, async () => {
      const auth: Credentials = caller === 'org Admin' ? admin1.auth : ADMIN;
      const before = await org2State();
      for (const c of restCases()) {
        const out = await rest(app, c.method, `/api/access-control${c.path}`, { auth, ...(c.json !== undefined && { json: c.json }) });
        expect({ ...c, status: out.status, got: out.code }).toEqual({ ...c, status: 404, got: c.code });
        expectNoOrg2Data(out);
      }
      expect(await org2State()).toEqual(before);
    });

    it(`GraphQL: 404 on every field and mutation for an ${caller}, no org 2 data, nothing changed`, async () => {
      const auth: Credentials = caller === 'org Admin' ? admin1.auth : ADMIN;
      const before = await org2State();
      for (const c of gqlCases()) {
        const out = await gql(app, c.query, c.variables, { auth });
        // A Service Admin finds the org 2 subject itself: then only its field is refused (partial answer, 200).
        const status = out.data ? 200 : 404;
        expect({ name: c.name, status: out.status, code: out.code }).toEqual({ name: c.name, status, code: c.code });
        if (caller === 'org Admin') expect(out.data ?? null).toBeNull();
        expectNoOrg2Data(out);
      }
      expect(await org2State()).toEqual(before);
    });
  }

  it('a member of both orgs, seen from org 1, shows none of its org 2 roles or permissions', async () => {
    const roles = await rest(app, 'GET', `/api/access-control/users/${bridge.id}/roles?includeHidden=true`, { auth: admin1.auth });
    expect(roles).toMatchObject({ status: 200, body: [] });
    const perms = await rest(app, 'GET', `/api/access-control/users/${bridge.id}/permissions`, { auth: admin1.auth });
    expectOutcome(perms, 200);
    expectNoOrg2Data(perms);
    // The same user through user(id), which finds it in org 1: the fields hold the wall.
    for (const auth of [admin1.auth, ADMIN]) {
      const fields = await gql(
        app,
        'query ($id: Int!) { user(id: $id) { roles(includeHidden: true) { uid } permissions { action scope } } }',
        { id: bridge.id },
        { auth },
      );
      expectOutcome(fields, 200);
      expect(fields.data).toMatchObject({ user: { roles: [] } });
      expectNoOrg2Data(fields);
    }
    const own = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: bridge.auth });
    expectOutcome(own, 200);
    expectNoOrg2Data(own);
    const viewerTeams = await gql(app, '{ viewer { teams { id name } } }', {}, { auth: bridge.auth });
    expect(viewerTeams.data).toEqual({ viewer: { teams: [] } });
  });

  it('a Service Admin finds an org 2 user with user(id), but its roles and permissions stay behind the wall', async () => {
    expect((await gql(app, 'query ($id: Int!) { user(id: $id) { login } }', { id: user2.id })).data).toEqual({
      user: { login: user2.login },
    });
    for (const field of ['roles(includeHidden: true) { uid }', 'permissions { action scope }']) {
      const out = await gql(app, `query ($id: Int!) { user(id: $id) { login ${field} } }`, { id: user2.id });
      expectFieldError(out, ['user', field.split(/[ (]/)[0] as string], 'USER_NOT_FOUND');
      expect(out.data).toMatchObject({ user: { login: user2.login } });
      expectNoOrg2Data(out);
    }
  });

  it('a global assignment to an org 2 user is out of reach from org 1, even for a Service Admin', async () => {
    const out = await rest(app, 'POST', `/api/access-control/users/${user2.id}/roles`, { json: { roleUid: 'r1', global: true } });
    expectOutcome(out, 404, 'USER_NOT_FOUND');
  });
});

describe('a caller naming org 2 in X-Service-Org-Id without belonging to it', () => {
  it('REST: 401 on every path, including the own listing and the reset', async () => {
    const before = await org2State();
    const cases = [
      ...restCases(),
      { method: 'GET', path: '/user/permissions' },
      { method: 'POST', path: '/roles/hard-reset', json: { BasicRoles: true } },
    ];
    for (const c of cases) {
      const out = await rest(app, c.method, `/api/access-control${c.path}`, {
        auth: admin1.auth,
        orgId: org2.id,
        ...(c.json !== undefined && { json: c.json }),
      });
      expect({ path: c.path, status: out.status, code: out.code }).toEqual({ path: c.path, status: 401, code: 'ORG_NOT_ACCESSIBLE' });
      expectNoOrg2Data(out);
    }
    expect(await org2State()).toEqual(before);
  });

  it('GraphQL: 401 on every field and mutation, including viewer and the reset', async () => {
    const before = await org2State();
    const cases = [
      ...gqlCases(),
      { name: 'viewer', query: '{ viewer { permissions { action } teams { roles { uid } } } }', variables: {} },
      { name: 'resetBasicRoles', query: 'mutation { resetBasicRoles(basicRoles: true) { message } }', variables: {} },
    ];
    for (const c of cases) {
      const out = await gql(app, c.query, c.variables, { auth: admin1.auth, orgId: org2.id });
      expect({ name: c.name, status: out.status, code: out.code }).toEqual({ name: c.name, status: 401, code: 'ORG_NOT_ACCESSIBLE' });
      expectNoOrg2Data(out);
    }
    expect(await org2State()).toEqual(before);
  });

  it('a member of org 2 naming it sees org 2 (the header works when allowed)', async () => {
    const out = await rest(app, 'GET', `/api/access-control/users/${user2.id}/roles`, { auth: user2.auth, orgId: org2.id });
    expect(out).toMatchObject({ status: 200, body: [{ uid: 'r2' }] });
  });
});
