/**
 * A member reads its own teams' roles, on both doors (GET
 * /api/access-control/teams/:teamId/roles and GraphQL Team.roles), without teams.roles:read
 * (Grafana's team members read their team; a member's effective permissions already show what
 * the team gives). The one-round-trip query frontends are promised answers whole for a Viewer in
 * a team. Membership counts only in the organization the caller acts in, only while it lasts,
 * and never for API keys; anyone else still needs teams.roles:read.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectData, expectFieldError, expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import {
  type Actor,
  addOrgMember,
  addTeamMember,
  assignTeamRole,
  createKey,
  createRole,
  createTeam,
  createUser,
  p,
} from '../support/subjects.js';

useSeededApp();

const PROMISED = '{ viewer { permissions { action } roles { uid } teams { roles { uid } } } }';
const TEAM_ROLES = 'query ($id: Int!) { team(id: $id) { name roles { uid } } }';

let other: { id: number };
let noRole: Actor;

beforeAll(async () => {
  await createRole(app, 'team-reports', [p('reports:read', 'reports:*')]);
  await assignTeamRole(app, fx.team.id, 'team-reports');
  other = await createTeam(app, 'not-the-viewers');
  await createRole(app, 'other-team-role', [p('reports:write', 'reports:*')]);
  await assignTeamRole(app, other.id, 'other-team-role');
  noRole = await createUser(app, 'member-without-org-role', { orgRole: 'None' });
  await addTeamMember(app, fx.team.id, noRole.id);
});

/** The team's roles as `who` reads them on each door: REST status and uids, GraphQL the same. */
async function readBoth(teamId: number, who: Actor['auth'], orgId?: number) {
  const restOut = await rest(app, 'GET', `/api/access-control/teams/${teamId}/roles`, { auth: who, ...(orgId && { orgId }) });
  const gqlOut = await gql(app, TEAM_ROLES, { id: teamId }, { auth: who, ...(orgId && { orgId }) });
  return { restOut, gqlOut };
}

describe("a member reads its own teams' roles", () => {
  it('the promised one-round-trip query answers whole for a Viewer in a team, which holds no teams.roles:read', async () => {
    const can = await gql(
      app,
      'query ($s: String) { viewer { can(action: "teams.roles:read", scope: $s) } }',
      { s: `teams:id:${fx.team.id}` },
      { auth: fx.viewer.auth },
    );
    expect(can.data).toEqual({ viewer: { can: false } });
    const res = await app.graphql(PROMISED, {}, { auth: fx.viewer.auth });
    const data = expectData(res) as {
      viewer: { permissions: { action: string }[]; roles: { uid: string }[]; teams: { roles: { uid: string }[] }[] };
    };
    expect(data.viewer.teams).toEqual([{ roles: [{ uid: 'team-reports' }] }]);
    expect(data.viewer.roles.map((r) => r.uid)).toContain('team-reports');
    expect(data.viewer.permissions.map((x) => x.action)).toContain('reports:read');
  });

  it.each([
    ['a Viewer', () => fx.viewer, true],
    ['an Editor', () => fx.editor, true],
    // Without an org role there is no teams:read, so team(id) is refused; its own teams are not.
    ['a user without an org role', () => noRole, false],
  ])('%s in the team: 200 with the same roles on both doors', async (_who, actor, readsTeams) => {
    const { restOut, gqlOut } = await readBoth(fx.team.id, actor().auth);
    expectOutcome(restOut, 200);
    expect(restOut.body).toMatchObject([{ uid: 'team-reports' }]);
    if (readsTeams) {
      expectOutcome(gqlOut, 200);
      expect(gqlOut.data).toEqual({ team: { name: fx.team.name, roles: [{ uid: 'team-reports' }] } });
    } else expectOutcome(gqlOut, 403, 'ACCESS_DENIED');
    const own = await gql(app, '{ viewer { teams { id roles { uid } } } }', {}, { auth: actor().auth });
    expectOutcome(own, 200);
    expect(own.data).toEqual({ viewer: { teams: [{ id: fx.team.id, roles: [{ uid: 'team-reports' }] }] } });
  });

  it("another team's roles stay refused: REST 403, GraphQL the team with its roles null and a 403 error for them", async () => {
    const { restOut, gqlOut } = await readBoth(other.id, fx.viewer.auth);
    expectOutcome(restOut, 403, 'ACCESS_DENIED');
    const message = expectFieldError(gqlOut, ['team', 'roles'], 'ACCESS_DENIED');
    expect(message).toContain('teams.roles:read');
    expect(gqlOut.data).toEqual({ team: { name: 'not-the-viewers', roles: null } });
    expect(JSON.stringify(gqlOut.body)).not.toContain('other-team-role');
  });

  it('membership counts only while it lasts', async () => {
    const leaver = await createUser(app, 'leaver', { orgRole: 'Viewer' });
    await addTeamMember(app, other.id, leaver.id);
    expectOutcome((await readBoth(other.id, leaver.auth)).restOut, 200);
    await app.database.prisma.teamMember.delete({ where: { teamId_userId: { teamId: other.id, userId: leaver.id } } });
    const { restOut, gqlOut } = await readBoth(other.id, leaver.auth);
    expectOutcome(restOut, 403, 'ACCESS_DENIED');
    expectFieldError(gqlOut, ['team', 'roles'], 'ACCESS_DENIED');
  });

  it('only in the organization the caller acts in: a member of an org 2 team reads it from org 2, not from org 1', async () => {
    const bridge = await createUser(app, 'team-bridge', { orgRole: 'Viewer' });
    await addOrgMember(app, fx.org2.id, bridge.id, 'Viewer');
    await addTeamMember(app, fx.org2.team.id, bridge.id);
    const fromOrg1 = await readBoth(fx.org2.team.id, bridge.auth);
    expectOutcome(fromOrg1.restOut, 403, 'ACCESS_DENIED');
    expectOutcome(fromOrg1.gqlOut, 404, 'TEAM_NOT_FOUND'); // team(id) itself stops at the organization wall
    const fromOrg2 = await readBoth(fx.org2.team.id, bridge.auth, fx.org2.id);
    expectOutcome(fromOrg2.restOut, 200);
    expectOutcome(fromOrg2.gqlOut, 200);
  });

  it('an API key belongs to no team: its Viewer role alone decides', async () => {
    const { key } = await createKey(app, { name: 'team-roles-key', role: 'Viewer' });
    const { restOut, gqlOut } = await readBoth(fx.team.id, { token: key });
    expectOutcome(restOut, 403, 'ACCESS_DENIED');
    expectFieldError(gqlOut, ['team', 'roles'], 'ACCESS_DENIED');
  });
});
