/**
 * SECURITY.md "One delegation rule for every path to a permission": joining a team, joining an
 * organization and changing an org role pass the one delegation rule (src/kernel/delegation.ts),
 * on both doors. Each attack answers 403 ACCESS_DENIED naming what is missing, and nothing
 * changes (no membership, no new role, the stolen power not held); the legitimate variants pass.
 */
import { describe, expect, it } from 'vitest';
import { fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import { ADMIN } from '../support/app.js';
import { teamMemberIds } from '../support/effects.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignTeamRole, assignUserRole, createRole, createTeam, createUser, p, unique } from '../support/subjects.js';

useSeededApp();

const ADD_MEMBER = 'mutation($teamId: Int!, $userId: Int!) { addTeamMember(teamId: $teamId, userId: $userId) { id } }';
const ADD_ORG_USER =
  'mutation($orgId: Int!, $userId: Int!, $role: OrgRole!) { addOrgUser(orgId: $orgId, userId: $userId, role: $role) { role } }';
const SET_ORG_ROLE =
  'mutation($orgId: Int!, $userId: Int!, $role: OrgRole!) { updateOrgUserRole(orgId: $orgId, userId: $userId, role: $role) { role } }';

/** A team of org 1 holding fixed:users:writer, given by the Service Admin (the set-up). */
async function writersTeam() {
  const team = await createTeam(app, unique('writers'));
  await assignTeamRole(app, team.id, fixedRoleUid('fixed:users:writer'));
  return team;
}

/** The admin password still signs in, and the org Admin still cannot set it: the power was not gained. */
async function expectNoTakeover(): Promise<void> {
  expect((await rest(app, 'GET', '/api/user', { auth: ADMIN })).status).toBe(200);
  const attempt = await rest(app, 'PUT', `/api/admin/users/${fx.admin.id}/password`, {
    auth: fx.orgAdmin.auth,
    json: { password: 'taken-over' },
  });
  expectOutcome(attempt, 403, 'ACCESS_DENIED');
}

describe('team membership', () => {
  it('REST: an org Admin cannot join a team whose roles it could not grant; nothing is written', async () => {
    const team = await writersTeam();
    const out = await rest(app, 'POST', `/api/teams/${team.id}/members`, { auth: fx.orgAdmin.auth, json: { userId: fx.orgAdmin.id } });
    const message = expectOutcome(out, 403, 'ACCESS_DENIED');
    expect(message).toContain('delegation of');
    expect(message).toContain('users:write on global.users:*');
    expect(message).toContain(`add user ${fx.orgAdmin.id} to team ${team.id}`);
    expect(await teamMemberIds(app, team.id)).toEqual([]);
    await expectNoTakeover();
  });

  it('GraphQL: addTeamMember is refused the same way, for itself and for another user', async () => {
    const team = await writersTeam();
    for (const userId of [fx.orgAdmin.id, fx.viewer.id]) {
      const out = await gql(app, ADD_MEMBER, { teamId: team.id, userId }, { auth: fx.orgAdmin.auth });
      expectOutcome(out, 403, 'ACCESS_DENIED');
      expect(out.message).toContain('users.password:write on global.users:*');
    }
    const rest403 = await rest(app, 'POST', `/api/teams/${team.id}/members`, { auth: fx.orgAdmin.auth, json: { userId: fx.viewer.id } });
    expectOutcome(rest403, 403, 'ACCESS_DENIED');
    expect(await teamMemberIds(app, team.id)).toEqual([]);
    await expectNoTakeover();
  });

  it('grants Grafana’s team member permissions alone (teams.permissions:write) do not bypass it', async () => {
    const team = await writersTeam();
    const member = await createUser(app, unique('tpw'), { orgRole: 'Viewer', permissions: [p('teams.permissions:write', 'teams:*')] });
    const out = await rest(app, 'POST', `/api/teams/${team.id}/members`, { auth: member.auth, json: { userId: member.id } });
    expectOutcome(out, 403, 'ACCESS_DENIED');
    expect(await teamMemberIds(app, team.id)).toEqual([]);
  });

  it('legitimate: an org Admin adds members to a team whose roles it covers, on both doors', async () => {
    const team = await createTeam(app, unique('readers'));
    await assignTeamRole(app, team.id, fixedRoleUid('fixed:teams:reader'));
    const viaRest = await rest(app, 'POST', `/api/teams/${team.id}/members`, { auth: fx.orgAdmin.auth, json: { userId: fx.viewer.id } });
    expectOutcome(viaRest, 200);
    const viaGraphql = await gql(app, ADD_MEMBER, { teamId: team.id, userId: fx.editor.id }, { auth: fx.orgAdmin.auth });
    expectOutcome(viaGraphql, 200);
    expect(await teamMemberIds(app, team.id)).toEqual([fx.editor.id, fx.viewer.id].sort((a, b) => a - b));
  });

  it('legitimate: the Service Admin, and a caller holding users.roles:add on permissions:type:escalate, add to any team', async () => {
    const team = await writersTeam();
    expectOutcome(await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: fx.viewer.id } }), 200);
    const escalator = await createUser(app, unique('esc'), {
      orgRole: 'Admin',
      permissions: [p('users.roles:add', 'permissions:type:escalate')],
    });
    expectOutcome(await gql(app, ADD_MEMBER, { teamId: team.id, userId: fx.editor.id }, { auth: escalator.auth }), 200);
    expect(await teamMemberIds(app, team.id)).toEqual([fx.editor.id, fx.viewer.id].sort((a, b) => a - b));
  });
});

describe('organization membership and org role', () => {
  it('joining an organization gives the user its global roles there: an org Admin cannot bring in what it could not grant', async () => {
    const org2 = fx.org2;
    // Admin of org 2 who may also look users up (users:read on global.users:*), as addUserByLogin needs.
    const hub = await createUser(app, unique('hub'), {
      orgId: org2.id,
      orgRole: 'Admin',
      permissions: [p('users:read', 'global.users:*')],
    });
    const strong = await createUser(app, unique('strong'), { orgId: 1 });
    await assignUserRole(app, strong.id, 'fixed:users:writer', 0);
    const as = { auth: hub.auth, orgId: org2.id };
    const viaRest = await rest(app, 'POST', `/api/orgs/${org2.id}/users`, { ...as, json: { loginOrEmail: strong.login, role: 'Viewer' } });
    const message = expectOutcome(viaRest, 403, 'ACCESS_DENIED');
    expect(message).toContain('users:write on global.users:*');
    expect(message).toContain(`in organization ${org2.id} (to add user ${strong.id} to organization ${org2.id} as Viewer`);
    const viaGraphql = await gql(app, ADD_ORG_USER, { orgId: org2.id, userId: strong.id, role: 'Viewer' }, as);
    expectOutcome(viaGraphql, 403, 'ACCESS_DENIED');
    expect(await app.database.prisma.orgUser.count({ where: { orgId: org2.id, userId: strong.id } })).toBe(0);
    // Legitimate: a user holding nothing beyond its org role joins.
    const plain = await createUser(app, unique('plain'), { orgId: 1 });
    expectOutcome(
      await rest(app, 'POST', `/api/orgs/${org2.id}/users`, { ...as, json: { loginOrEmail: plain.login, role: 'Editor' } }),
      200,
    );
    expect(await app.database.prisma.orgUser.count({ where: { orgId: org2.id, userId: plain.id } })).toBe(1);
  });

  it('an org role whose basic role holds more than the caller is refused, although within its ceiling; nothing changes', async () => {
    // A caller may change org roles and is Admin, but basic:editor was given (by the Service Admin)
    // a product permission basic:admin does not hold.
    const fresh = await createUser(app, unique('member'), { orgRole: 'Viewer' });
    const extra = await createRole(app, unique('editor-extra'), [p('reports:send', 'reports:*')], { orgId: 0 });
    const grant = await app.database.prisma.basicRoleGrant.create({ data: { basicRole: 'Editor', orgId: 0, roleId: extra.id } });
    app.services.access.invalidate();
    try {
      const viaRest = await rest(app, 'PATCH', `/api/org/users/${fresh.id}`, { auth: fx.orgAdmin.auth, json: { role: 'Editor' } });
      expect(expectOutcome(viaRest, 403, 'ACCESS_DENIED')).toContain('reports:send on reports:*');
      const viaGraphql = await gql(app, SET_ORG_ROLE, { orgId: 1, userId: fresh.id, role: 'Editor' }, { auth: fx.orgAdmin.auth });
      expectOutcome(viaGraphql, 403, 'ACCESS_DENIED');
      const membership = await app.database.prisma.orgUser.findUniqueOrThrow({ where: { orgId_userId: { orgId: 1, userId: fresh.id } } });
      expect(membership.role).toBe('Viewer');
      // The Service Admin may.
      expectOutcome(await rest(app, 'PATCH', `/api/org/users/${fresh.id}`, { json: { role: 'Editor' } }), 200);
    } finally {
      await app.database.prisma.basicRoleGrant.delete({ where: { id: grant.id } });
      app.services.access.invalidate();
    }
  });

  it('legitimate: an org Admin adds a plain user and raises a member to Admin, on both doors', async () => {
    const plain = await createUser(app, unique('plain'), { orgId: fx.org2.id, orgRole: 'Viewer' });
    const added = await gql(app, ADD_ORG_USER, { orgId: 1, userId: plain.id, role: 'Editor' }, { auth: ADMIN });
    expectOutcome(added, 200);
    const raised = await rest(app, 'PATCH', `/api/org/users/${plain.id}`, { auth: fx.orgAdmin.auth, json: { role: 'Admin' } });
    expectOutcome(raised, 200);
    const lowered = await gql(app, SET_ORG_ROLE, { orgId: 1, userId: plain.id, role: 'Viewer' }, { auth: fx.orgAdmin.auth });
    expectOutcome(lowered, 200);
  });
});
