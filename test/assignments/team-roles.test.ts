/**
 * Role assignments of teams through both doors: GET|POST|PUT /api/access-control/teams/:teamId/roles,
 * DELETE .../roles/:roleUID and the GraphQL twins (Team.roles, addTeamRole, removeTeamRole,
 * setTeamRoles). Every status code of each path, set semantics, basic roles never listed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, BAD_PASSWORD, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { expectFieldError, expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignTeamRole, assignUserRole, createRole, createTeam, createUser, p, seedFixtures } from '../support/subjects.js';

let app: TestApp;
let orgAdmin: Actor;
let viewer: Actor;
let adderOnly: Actor;
let team: { id: number };
let team2: { id: number };

async function listed(teamId: number, query = ''): Promise<string[]> {
  const out = await rest(app, 'GET', `/api/access-control/teams/${teamId}/roles${query}`);
  expectOutcome(out, 200);
  return (out.body as { uid: string }[]).map((r) => r.uid);
}

/** Assignment rows of `teamId` as "orgId:uid", sorted. */
async function rows(teamId: number): Promise<string[]> {
  const all = await app.database.prisma.teamRole.findMany({ where: { teamId }, include: { role: true } });
  return all.map((r) => `${r.orgId}:${r.role.uid}`).sort();
}

async function resetAssignments(teamId: number, ...uids: string[]): Promise<void> {
  await app.database.prisma.teamRole.deleteMany({ where: { teamId } });
  for (const uid of uids) await assignTeamRole(app, teamId, uid);
  app.services.access.invalidate();
}

const listQuery = 'query ($id: Int!, $h: Boolean) { team(id: $id) { roles(includeHidden: $h) { uid } } }';
const addMutation = 'mutation ($teamId: Int!, $roleUid: String!) { addTeamRole(teamId: $teamId, roleUid: $roleUid) { message } }';
const removeMutation = 'mutation ($teamId: Int!, $roleUid: String!) { removeTeamRole(teamId: $teamId, roleUid: $roleUid) { message } }';
const setMutation = `mutation ($teamId: Int!, $roleUids: [String!]!, $includeHidden: Boolean) {
  setTeamRoles(teamId: $teamId, roleUids: $roleUids, includeHidden: $includeHidden) { message } }`;

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  const org2 = fx.org2;
  orgAdmin = fx.orgAdmin;
  viewer = fx.viewer;
  adderOnly = await createUser(app, 'adder-only', { orgRole: 'None' });
  await createRole(app, 'adder', [p('teams.roles:add', 'permissions:type:delegate'), p('teams:read', 'teams:*')]);
  await assignUserRole(app, adderOnly.id, 'adder');
  await createRole(app, 'r-a', [p('teams:read', 'teams:*')]);
  await createRole(app, 'r-b', [p('serviceaccounts:read', 'serviceaccounts:*')]);
  await createRole(app, 'r-hidden', [p('org.users:read', 'users:*')], { hidden: true });
  await createRole(app, 'r-global', [p('teams:read', 'teams:*')], { orgId: 0 });
  await createRole(app, 'r-escalate', [p('users:delete', 'global.users:*')]);
  await createRole(app, 'r-org2', [p('teams:read', 'teams:*')], { orgId: org2.id });
  // The team under test has no members, so no caller here holds its roles (the fixture team's members would).
  team = await createTeam(app, 'team-a');
  team2 = fx.org2.team;
});

afterAll(() => app.close());

describe('GET /api/access-control/teams/:teamId/roles and Team.roles', () => {
  beforeAll(() => resetAssignments(team.id, 'r-a', 'r-global', 'r-hidden', 'basic_viewer'));

  it('200: assigned roles by name; hidden only with includeHidden; never basic roles; same on GraphQL', async () => {
    expect(await listed(team.id)).toEqual(['r-a', 'r-global']);
    expect(await listed(team.id, '?includeHidden=true')).toEqual(['r-a', 'r-global', 'r-hidden']);
    const q = await gql(app, listQuery, { id: team.id, h: true });
    expect(q.data).toEqual({ team: { roles: [{ uid: 'r-a' }, { uid: 'r-global' }, { uid: 'r-hidden' }] } });
  });

  it('400 for a bad id or includeHidden', async () => {
    for (const path of ['/teams/abc/roles', '/teams/0/roles', `/teams/${team.id}/roles?includeHidden=2`]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control${path}`), 400, 'VALIDATION_FAILED');
    }
  });

  it('401 on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/access-control/teams/${team.id}/roles`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'GET', `/api/access-control/teams/${team.id}/roles`, { auth: BAD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expectOutcome(await gql(app, listQuery, { id: team.id }, { auth: null }), 401, 'UNAUTHENTICATED');
  });

  it('403 without teams.roles:read on teams:id:<id> on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/access-control/teams/${team.id}/roles`, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
    // The team itself is readable, so only its roles are refused: a partial answer.
    expectFieldError(await gql(app, listQuery, { id: team.id }, { auth: viewer.auth }), ['team', 'roles'], 'ACCESS_DENIED');
  });

  it('404 for a team of another organization or no team, on both doors', async () => {
    await assignTeamRole(app, team2.id, 'r-org2');
    for (const id of [team2.id, 999_999]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control/teams/${id}/roles`), 404, 'TEAM_NOT_FOUND');
    }
    const q = await gql(app, listQuery, { id: team2.id });
    expectOutcome(q, 404, 'TEAM_NOT_FOUND');
    expect(JSON.stringify(q.body)).not.toContain('r-org2');
  });
});

type Case = { name: string; uid: string; teamId?: () => number; auth?: () => Credentials | null; status: number; code: string };

/** Failure cases shared by add, remove and set (set sends `[uid]`). */
const failures = (action: 'add' | 'remove' | 'set'): Case[] => [
  { name: 'unknown role', uid: 'no-such-role', status: 404, code: 'ROLE_NOT_FOUND' },
  { name: 'role of another organization', uid: 'r-org2', status: 404, code: 'ROLE_NOT_FOUND' },
  { name: 'team of another organization', uid: 'r-a', teamId: () => team2.id, status: 404, code: 'TEAM_NOT_FOUND' },
  { name: 'basic role', uid: 'basic_editor', status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
  { name: 'team id 0', uid: 'r-a', teamId: () => 0, status: 400, code: 'VALIDATION_FAILED' },
  { name: 'anonymous', uid: 'r-a', auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
  { name: 'viewer', uid: 'r-a', auth: () => viewer.auth, status: 403, code: 'ACCESS_DENIED' },
  ...(action === 'add'
    ? []
    : [{ name: 'add permission only', uid: 'r-b', auth: () => adderOnly.auth, status: 403, code: 'ACCESS_DENIED' }]),
  { name: 'delegation: role above the caller', uid: 'r-escalate', auth: () => orgAdmin.auth, status: 403, code: 'ACCESS_DENIED' },
];

describe('POST /api/access-control/teams/:teamId/roles and addTeamRole', () => {
  beforeEach(() => resetAssignments(team.id));

  it("200: adds (idempotently) with Grafana's message; a stray `global` is ignored; an adder may add", async () => {
    const r = await rest(app, 'POST', `/api/access-control/teams/${team.id}/roles`, { json: { roleUid: 'r-a', global: true } });
    expect(r).toMatchObject({ status: 200, body: { message: 'Role added to the team.' } });
    const g = await gql(app, addMutation, { teamId: team.id, roleUid: 'r-a' });
    expect(g.data).toEqual({ addTeamRole: { message: 'Role added to the team.' } });
    expectOutcome(await gql(app, addMutation, { teamId: team.id, roleUid: 'r-global' }, { auth: adderOnly.auth }), 200);
    expect(await rows(team.id)).toEqual(['1:r-a', '1:r-global']);
  });

  for (const c of failures('add')) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing written`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const teamId = c.teamId ? c.teamId() : team.id;
      expectOutcome(
        await rest(app, 'POST', `/api/access-control/teams/${teamId}/roles`, { json: { roleUid: c.uid }, auth }),
        c.status,
        c.code,
      );
      expectOutcome(await gql(app, addMutation, { teamId, roleUid: c.uid }, { auth }), c.status, c.code);
      expect(await rows(team.id)).toEqual([]);
    });
  }

  it('400 for malformed bodies and ids; 401 with wrong credentials', async () => {
    const path = `/api/access-control/teams/${team.id}/roles`;
    for (const json of [undefined, {}, { roleUid: null }, { roleUid: ['r-a'] }]) {
      expectOutcome(await rest(app, 'POST', path, { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(
      await rest(app, 'POST', '/api/access-control/teams/team-a/roles', { json: { roleUid: 'r-a' } }),
      400,
      'VALIDATION_FAILED',
    );
    expectOutcome(await rest(app, 'POST', path, { json: { roleUid: 'r-a' }, auth: BAD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expect(await rows(team.id)).toEqual([]);
  });
});

describe('DELETE /api/access-control/teams/:teamId/roles/:roleUID and removeTeamRole', () => {
  beforeEach(() => resetAssignments(team.id, 'r-a', 'r-b', 'r-escalate'));

  it("200: removes with Grafana's message on both doors; a role not assigned is 200 too", async () => {
    const r = await rest(app, 'DELETE', `/api/access-control/teams/${team.id}/roles/r-a`);
    expect(r).toMatchObject({ status: 200, body: { message: 'Role removed from team.' } });
    const g = await gql(app, removeMutation, { teamId: team.id, roleUid: 'r-b' });
    expect(g.data).toEqual({ removeTeamRole: { message: 'Role removed from team.' } });
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/teams/${team.id}/roles/r-global`), 200);
    expect(await rows(team.id)).toEqual(['1:r-escalate']);
  });

  for (const c of failures('remove')) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing removed`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const teamId = c.teamId ? c.teamId() : team.id;
      expectOutcome(await rest(app, 'DELETE', `/api/access-control/teams/${teamId}/roles/${c.uid}`, { auth }), c.status, c.code);
      expectOutcome(await gql(app, removeMutation, { teamId, roleUid: c.uid }, { auth }), c.status, c.code);
      expect(await rows(team.id)).toEqual(['1:r-a', '1:r-b', '1:r-escalate']);
    });
  }

  it('400 for a bad id; 401 with wrong credentials', async () => {
    expectOutcome(await rest(app, 'DELETE', '/api/access-control/teams/1e3/roles/r-a'), 400, 'VALIDATION_FAILED');
    expectOutcome(
      await rest(app, 'DELETE', `/api/access-control/teams/${team.id}/roles/r-a`, { auth: BAD_PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect(await rows(team.id)).toEqual(['1:r-a', '1:r-b', '1:r-escalate']);
  });
});

describe('PUT /api/access-control/teams/:teamId/roles and setTeamRoles', () => {
  beforeEach(() => resetAssignments(team.id, 'r-a', 'r-hidden'));

  it("200: replaces the set, hidden assignment kept without includeHidden; Grafana's message", async () => {
    const r = await rest(app, 'PUT', `/api/access-control/teams/${team.id}/roles`, { json: { roleUids: ['r-b', 'r-global'] } });
    expect(r).toMatchObject({ status: 200, body: { message: 'Team roles have been updated.' } });
    expect(await rows(team.id)).toEqual(['1:r-b', '1:r-global', '1:r-hidden']);
  });

  it('200: with includeHidden the hidden one goes too (GraphQL); an empty set then clears everything', async () => {
    const g = await gql(app, setMutation, { teamId: team.id, roleUids: ['r-b'], includeHidden: true });
    expect(g.data).toEqual({ setTeamRoles: { message: 'Team roles have been updated.' } });
    expect(await rows(team.id)).toEqual(['1:r-b']);
    expectOutcome(
      await rest(app, 'PUT', `/api/access-control/teams/${team.id}/roles`, { json: { roleUids: [], includeHidden: true } }),
      200,
    );
    expect(await rows(team.id)).toEqual([]);
  });

  for (const c of failures('set')) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing changed`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const teamId = c.teamId ? c.teamId() : team.id;
      const json = { roleUids: ['r-a', c.uid] };
      expectOutcome(await rest(app, 'PUT', `/api/access-control/teams/${teamId}/roles`, { json, auth }), c.status, c.code);
      expectOutcome(await gql(app, setMutation, { teamId, ...json }, { auth }), c.status, c.code);
      expect(await rows(team.id)).toEqual(['1:r-a', '1:r-hidden']);
    });
  }

  it('403: removing a role above the caller is refused and nothing changes', async () => {
    await assignTeamRole(app, team.id, 'r-escalate');
    const out = await rest(app, 'PUT', `/api/access-control/teams/${team.id}/roles`, {
      json: { roleUids: ['r-a'] },
      auth: orgAdmin.auth,
    });
    expectOutcome(out, 403, 'ACCESS_DENIED');
    expect(await rows(team.id)).toEqual(['1:r-a', '1:r-escalate', '1:r-hidden']);
  });

  it('400 for malformed bodies and ids; 401 with wrong credentials', async () => {
    const path = `/api/access-control/teams/${team.id}/roles`;
    for (const json of [undefined, { roleUid: 'r-a' }, { roleUids: 'r-a' }, { roleUids: [''] }]) {
      expectOutcome(await rest(app, 'PUT', path, { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await gql(app, setMutation, { teamId: 0, roleUids: [] }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', path, { json: { roleUids: [] }, auth: BAD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expect(await rows(team.id)).toEqual(['1:r-a', '1:r-hidden']);
  });
});
