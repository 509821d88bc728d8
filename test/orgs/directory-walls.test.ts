/**
 * Organizations are walls: every directory operation, tried by org 2's Admin
 * against org 1's objects and by org 1's Admin against org 2's, answers as if those objects did
 * not exist (404) or refuses (403 for operations that name the other organization or need a
 * Service Admin) — and changes nothing there, on the GraphQL door and on the organization REST
 * routes. Sending X-Service-Org-Id of the other organization is 401 for every one of them.
 */
import { describe, expect, it } from 'vitest';
import type { ErrorCode } from '../../src/kernel/errors.js';
import { expectData, expectGraphqlError, expectOutcome, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { type Actor, unique } from '../support/subjects.js';

useSeededApp();

/** One side of the wall: who attacks, what it owns, and what it must not reach. */
interface Side {
  name: string;
  attacker: Actor;
  own: { orgId: number; teamId: number };
  victim: { orgId: number; userId: number; teamId: number; teamMemberId: number; serviceAccountId: number };
}

const sides = (): Side[] => [
  {
    name: "org 2's Admin against org 1",
    attacker: fx.org2.admin,
    own: { orgId: fx.org2.id, teamId: fx.org2.team.id },
    victim: { orgId: 1, userId: fx.editor.id, teamId: fx.team.id, teamMemberId: fx.viewer.id, serviceAccountId: fx.serviceAccount.id },
  },
  {
    name: "org 1's Admin against org 2",
    attacker: fx.orgAdmin,
    own: { orgId: 1, teamId: fx.team.id },
    victim: {
      orgId: fx.org2.id,
      userId: fx.org2.admin.id,
      teamId: fx.org2.team.id,
      teamMemberId: fx.org2.admin.id,
      serviceAccountId: fx.org2.serviceAccount.id,
    },
  },
];

type Data = Record<string, unknown>;
interface Case {
  name: string;
  query: string;
  vars: (s: Side) => Record<string, unknown>;
  /** The expected error, or a check of the data the attacker gets back. */
  expect: ErrorCode | ((data: Data, s: Side) => void);
}

const ids = (list: unknown) => (list as { id: number }[]).map((x) => x.id);

const cases: Case[] = [
  {
    name: 'user(id)',
    query: 'query($id: Int!) { user(id: $id) { id } }',
    vars: (s) => ({ id: s.victim.userId }),
    expect: 'USER_NOT_FOUND',
  },
  {
    name: 'user(id) of a service account',
    query: 'query($id: Int!) { user(id: $id) { id } }',
    vars: (s) => ({ id: s.victim.serviceAccountId }),
    expect: 'USER_NOT_FOUND',
  },
  {
    name: 'users',
    query: '{ users { id orgs { orgId } } }',
    vars: () => ({}),
    expect: (d, s) => {
      expect(ids(d.users)).not.toContain(s.victim.userId);
      const orgIds = (d.users as { orgs: { orgId: number }[] }[]).flatMap((u) => u.orgs.map((m) => m.orgId));
      expect(orgIds).not.toContain(s.victim.orgId);
    },
  },
  { name: 'users(global)', query: '{ users(global: true) { id } }', vars: () => ({}), expect: 'ACCESS_DENIED' },
  {
    name: 'createUser',
    query: 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }',
    vars: () => {
      const login = unique('intruder');
      return { input: { login, email: `${login}@example.test`, password: 'secret-pw' } };
    },
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'updateUser',
    query: 'mutation($id: Int!) { updateUser(id: $id, input: { password: "hijacked" }) { id } }',
    vars: (s) => ({ id: s.victim.userId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'deleteUser',
    query: 'mutation($id: Int!) { deleteUser(id: $id) { message } }',
    vars: (s) => ({ id: s.victim.userId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'team(id)',
    query: 'query($id: Int!) { team(id: $id) { id } }',
    vars: (s) => ({ id: s.victim.teamId }),
    expect: 'TEAM_NOT_FOUND',
  },
  {
    name: 'teams',
    query: '{ teams { id orgId } }',
    vars: () => ({}),
    expect: (d, s) => expect(ids(d.teams)).not.toContain(s.victim.teamId),
  },
  {
    name: 'createTeam (lands in the own organization)',
    query: 'mutation($name: String!) { createTeam(input: { name: $name }) { id orgId } }',
    vars: () => ({ name: unique('intruder-team') }),
    expect: (d, s) => expect((d.createTeam as { orgId: number }).orgId).toBe(s.own.orgId),
  },
  {
    name: 'updateTeam',
    query: 'mutation($id: Int!) { updateTeam(id: $id, input: { name: "pwned" }) { id } }',
    vars: (s) => ({ id: s.victim.teamId }),
    expect: 'TEAM_NOT_FOUND',
  },
  {
    name: 'deleteTeam',
    query: 'mutation($id: Int!) { deleteTeam(id: $id) { message } }',
    vars: (s) => ({ id: s.victim.teamId }),
    expect: 'TEAM_NOT_FOUND',
  },
  {
    name: "addTeamMember (the other organization's team)",
    query: 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }',
    vars: (s) => ({ t: s.victim.teamId, u: s.attacker.id }),
    expect: 'TEAM_NOT_FOUND',
  },
  {
    name: "addTeamMember (the other organization's user into an own team)",
    query: 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }',
    vars: (s) => ({ t: s.own.teamId, u: s.victim.userId }),
    expect: 'USER_NOT_FOUND',
  },
  {
    name: 'removeTeamMember',
    query: 'mutation($t: Int!, $u: Int!) { removeTeamMember(teamId: $t, userId: $u) { id } }',
    vars: (s) => ({ t: s.victim.teamId, u: s.victim.teamMemberId }),
    expect: 'TEAM_NOT_FOUND',
  },
  {
    name: 'serviceAccount(id)',
    query: 'query($id: Int!) { serviceAccount(id: $id) { id } }',
    vars: (s) => ({ id: s.victim.serviceAccountId }),
    expect: 'SERVICE_ACCOUNT_NOT_FOUND',
  },
  {
    name: 'serviceAccounts',
    query: '{ serviceAccounts { id } }',
    vars: () => ({}),
    expect: (d, s) => expect(ids(d.serviceAccounts)).not.toContain(s.victim.serviceAccountId),
  },
  {
    name: 'createServiceAccount (lands in the own organization)',
    query: 'mutation($name: String!) { createServiceAccount(input: { name: $name, role: Admin }) { id orgId } }',
    vars: () => ({ name: unique('intruder-bot') }),
    expect: (d, s) => expect((d.createServiceAccount as { orgId: number }).orgId).toBe(s.own.orgId),
  },
  {
    name: 'updateServiceAccount',
    query: 'mutation($id: Int!) { updateServiceAccount(id: $id, input: { role: None }) { id } }',
    vars: (s) => ({ id: s.victim.serviceAccountId }),
    expect: 'SERVICE_ACCOUNT_NOT_FOUND',
  },
  {
    name: 'deleteServiceAccount',
    query: 'mutation($id: Int!) { deleteServiceAccount(id: $id) { message } }',
    vars: (s) => ({ id: s.victim.serviceAccountId }),
    expect: 'SERVICE_ACCOUNT_NOT_FOUND',
  },
  {
    name: 'addOrgUser (itself into the other organization)',
    query: 'mutation($o: Int!, $u: Int!) { addOrgUser(orgId: $o, userId: $u, role: Admin) { orgId } }',
    vars: (s) => ({ o: s.victim.orgId, u: s.attacker.id }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: "addOrgUser (the other organization's user into the own one)",
    query: 'mutation($o: Int!, $u: Int!) { addOrgUser(orgId: $o, userId: $u, role: Viewer) { orgId } }',
    vars: (s) => ({ o: s.own.orgId, u: s.victim.userId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'updateOrgUserRole (in the other organization)',
    query: 'mutation($o: Int!, $u: Int!) { updateOrgUserRole(orgId: $o, userId: $u, role: None) { orgId } }',
    vars: (s) => ({ o: s.victim.orgId, u: s.victim.userId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: "updateOrgUserRole (the other organization's user, own organization)",
    query: 'mutation($o: Int!, $u: Int!) { updateOrgUserRole(orgId: $o, userId: $u, role: None) { orgId } }',
    vars: (s) => ({ o: s.own.orgId, u: s.victim.userId }),
    expect: 'USER_NOT_FOUND',
  },
  {
    name: 'removeOrgUser (in the other organization)',
    query: 'mutation($o: Int!, $u: Int!) { removeOrgUser(orgId: $o, userId: $u) { message } }',
    vars: (s) => ({ o: s.victim.orgId, u: s.victim.userId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: "removeOrgUser (the other organization's user, own organization)",
    query: 'mutation($o: Int!, $u: Int!) { removeOrgUser(orgId: $o, userId: $u) { message } }',
    vars: (s) => ({ o: s.own.orgId, u: s.victim.userId }),
    expect: 'USER_NOT_FOUND',
  },
  {
    name: 'organization(id)',
    query: 'query($id: Int!) { organization(id: $id) { id } }',
    vars: (s) => ({ id: s.victim.orgId }),
    expect: 'ORG_NOT_FOUND',
  },
  {
    name: 'organizations',
    query: '{ organizations { id } }',
    vars: () => ({}),
    expect: (d, s) => expect(ids(d.organizations)).toEqual([s.own.orgId]),
  },
  {
    name: 'orgUsers (the other organization)',
    query: 'query($o: Int) { orgUsers(orgId: $o) { userId } }',
    vars: (s) => ({ o: s.victim.orgId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'orgUsers (own organization)',
    query: '{ orgUsers { userId orgId } }',
    vars: () => ({}),
    expect: (d, s) => {
      const members = d.orgUsers as { userId: number; orgId: number }[];
      expect(members.map((m) => m.userId)).not.toContain(s.victim.userId);
      expect(new Set(members.map((m) => m.orgId))).toEqual(new Set([s.own.orgId]));
    },
  },
  {
    name: 'addOrgUserByLogin (itself into the other organization)',
    query: 'mutation($o: Int, $l: String!) { addOrgUserByLogin(orgId: $o, loginOrEmail: $l, role: Admin) { orgId } }',
    vars: (s) => ({ o: s.victim.orgId, l: s.attacker.login }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'searchOrganizations',
    query: '{ searchOrganizations { id } }',
    vars: () => ({}),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'organizationByName',
    query: 'query($n: String!) { organizationByName(name: $n) { id } }',
    vars: (s) => ({ n: s.victim.orgId === 1 ? 'Main Org.' : 'Second Org.' }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'updateOrganization',
    query: 'mutation($id: Int) { updateOrganization(id: $id, input: { name: "pwned" }) { id } }',
    vars: (s) => ({ id: s.victim.orgId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'deleteOrganization',
    query: 'mutation($id: Int!) { deleteOrganization(id: $id) { message } }',
    vars: (s) => ({ id: s.victim.orgId }),
    expect: 'ACCESS_DENIED',
  },
  {
    name: 'createOrganization',
    query: 'mutation($name: String!) { createOrganization(input: { name: $name }) { id } }',
    vars: () => ({ name: unique('intruder-org') }),
    expect: 'ACCESS_DENIED',
  },
];

/** Everything of organization `orgId` the attacks could touch, to compare before and after. */
async function snapshot(orgId: number) {
  const db = app.database.prisma;
  const members = await db.orgUser.findMany({ where: { orgId }, orderBy: { userId: 'asc' } });
  return {
    org: await db.org.findUnique({ where: { id: orgId } }),
    members,
    users: await db.user.findMany({ where: { id: { in: members.map((m) => m.userId) } }, orderBy: { id: 'asc' } }),
    teams: await db.team.findMany({ where: { orgId }, orderBy: { id: 'asc' } }),
    teamMembers: await db.teamMember.findMany({ where: { orgId }, orderBy: [{ teamId: 'asc' }, { userId: 'asc' }] }),
  };
}

const SIDE_NAMES = ["org 2's Admin against org 1", "org 1's Admin against org 2"];

describe.each(SIDE_NAMES)('%s', (name) => {
  // fixtures exist only once beforeAll ran: build the side inside each test
  const side = () => sides().find((s) => s.name === name) as Side;

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    const s = side();
    const before = await snapshot(s.victim.orgId);
    const res = await app.graphql<Data>(c.query, c.vars(s), { auth: s.attacker.auth });
    if (typeof c.expect === 'string') expectGraphqlError(res, c.expect);
    else c.expect(expectData(res), s);
    expect(await snapshot(s.victim.orgId)).toEqual(before);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s with X-Service-Org-Id of the other organization: 401', async (_n, c) => {
    const s = side();
    const before = await snapshot(s.victim.orgId);
    const res = await app.graphql<Data>(c.query, c.vars(s), { auth: s.attacker.auth, orgId: s.victim.orgId });
    expectGraphqlError(res, 'ORG_NOT_ACCESSIBLE');
    expect(await snapshot(s.victim.orgId)).toEqual(before);
  });
});

/** The organization REST routes, tried across the wall: expected status and code. */
interface RestCase {
  name: string;
  method: string;
  path: (s: Side) => string;
  json?: (s: Side) => unknown;
  status: number;
  code: ErrorCode;
}

const restCases: RestCase[] = [
  { name: 'GET /api/orgs/:orgId', method: 'GET', path: (s) => `/api/orgs/${s.victim.orgId}`, status: 404, code: 'ORG_NOT_FOUND' },
  {
    name: 'PUT /api/orgs/:orgId',
    method: 'PUT',
    path: (s) => `/api/orgs/${s.victim.orgId}`,
    json: () => ({ name: 'pwned' }),
    status: 403,
    code: 'ACCESS_DENIED',
  },
  { name: 'DELETE /api/orgs/:orgId', method: 'DELETE', path: (s) => `/api/orgs/${s.victim.orgId}`, status: 403, code: 'ACCESS_DENIED' },
  { name: 'GET /api/orgs', method: 'GET', path: () => '/api/orgs', status: 403, code: 'ACCESS_DENIED' },
  {
    name: 'GET /api/orgs/name/:name',
    method: 'GET',
    path: (s) => `/api/orgs/name/${s.victim.orgId === 1 ? 'Main%20Org.' : 'Second%20Org.'}`,
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'GET /api/orgs/:orgId/users',
    method: 'GET',
    path: (s) => `/api/orgs/${s.victim.orgId}/users`,
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'GET /api/orgs/:orgId/users/search',
    method: 'GET',
    path: (s) => `/api/orgs/${s.victim.orgId}/users/search`,
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'POST /api/orgs/:orgId/users (itself)',
    method: 'POST',
    path: (s) => `/api/orgs/${s.victim.orgId}/users`,
    json: (s) => ({ loginOrEmail: s.attacker.login, role: 'Admin' }),
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'PATCH /api/orgs/:orgId/users/:userId',
    method: 'PATCH',
    path: (s) => `/api/orgs/${s.victim.orgId}/users/${s.victim.userId}`,
    json: () => ({ role: 'None' }),
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'DELETE /api/orgs/:orgId/users/:userId',
    method: 'DELETE',
    path: (s) => `/api/orgs/${s.victim.orgId}/users/${s.victim.userId}`,
    status: 403,
    code: 'ACCESS_DENIED',
  },
  // the other organization's user through the own organization's routes: not there
  {
    name: 'PATCH /api/org/users/:userId',
    method: 'PATCH',
    path: (s) => `/api/org/users/${s.victim.userId}`,
    json: () => ({ role: 'None' }),
    status: 404,
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'DELETE /api/org/users/:userId',
    method: 'DELETE',
    path: (s) => `/api/org/users/${s.victim.userId}`,
    status: 404,
    code: 'USER_NOT_FOUND',
  },
  {
    name: 'POST /api/org/users (a user of anywhere)',
    method: 'POST',
    path: () => '/api/org/users',
    json: () => ({ loginOrEmail: 'admin', role: 'Viewer' }),
    status: 403,
    code: 'ACCESS_DENIED',
  },
];

describe.each(SIDE_NAMES)('REST: %s', (name) => {
  const side = () => sides().find((s) => s.name === name) as Side;

  it.each(restCases.map((c) => [c.name, c] as const))('%s', async (_n, c) => {
    const s = side();
    const before = await snapshot(s.victim.orgId);
    const out = await rest(app, c.method, c.path(s), { auth: s.attacker.auth, ...(c.json && { json: c.json(s) }) });
    expectOutcome(out, c.status, c.code);
    expect(await snapshot(s.victim.orgId)).toEqual(before);
  });

  it.each(restCases.map((c) => [c.name, c] as const))('%s with X-Service-Org-Id of the other organization: 401', async (_n, c) => {
    const s = side();
    const before = await snapshot(s.victim.orgId);
    const out = await rest(app, c.method, c.path(s), {
      auth: s.attacker.auth,
      orgId: s.victim.orgId,
      ...(c.json && { json: c.json(s) }),
    });
    expectOutcome(out, 401, 'ORG_NOT_ACCESSIBLE');
    expect(await snapshot(s.victim.orgId)).toEqual(before);
  });
});

describe('a user in both organizations', () => {
  it("is visible to each organization with that organization's membership only", async () => {
    // admin (id 1) is Admin of org 1 and of org 2
    const asOrg2 = expectData(
      await app.graphql<{ user: { orgs: { orgId: number }[] } }>(
        '{ user(id: 1) { orgs { orgId role } } }',
        {},
        { auth: fx.org2.admin.auth },
      ),
    );
    expect(asOrg2.user.orgs).toEqual([{ orgId: fx.org2.id, role: 'Admin' }]);
    const asOrg1 = expectData(
      await app.graphql<{ user: { orgs: { orgId: number }[] } }>('{ user(id: 1) { orgs { orgId role } } }', {}, { auth: fx.orgAdmin.auth }),
    );
    expect(asOrg1.user.orgs).toEqual([{ orgId: 1, role: 'Admin' }]);
  });
});
