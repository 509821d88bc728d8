/**
 * Teams over GraphQL: createTeam, updateTeam, deleteTeam, teams, team, addTeamMember,
 * removeTeamMember — every success and error path, and team membership changing permissions on
 * the very next request.
 */
import { describe, expect, it } from 'vitest';
import { teamMemberIds } from '../support/effects.js';
import { expectData, expectGraphqlError, mustGraphql } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createRole, createTeamViaGraphql, createUserViaGraphql, p, unique } from '../support/subjects.js';

useSeededApp();

const TEAM_FIELDS = 'id orgId name email created updated members { id login }';
const CREATE = `mutation($input: CreateTeamInput!) { createTeam(input: $input) { ${TEAM_FIELDS} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateTeamInput!) { updateTeam(id: $id, input: $input) { ${TEAM_FIELDS} } }`;
const DELETE = 'mutation($id: Int!) { deleteTeam(id: $id) { message } }';
const TEAMS = `{ teams { ${TEAM_FIELDS} } }`;
const TEAM = `query($id: Int!) { team(id: $id) { ${TEAM_FIELDS} } }`;
const ADD = `mutation($teamId: Int!, $userId: Int!) { addTeamMember(teamId: $teamId, userId: $userId) { ${TEAM_FIELDS} } }`;
const REMOVE = `mutation($teamId: Int!, $userId: Int!) { removeTeamMember(teamId: $teamId, userId: $userId) { ${TEAM_FIELDS} } }`;

type TeamData = { id: number; orgId: number; name: string; email: string; members: { id: number; login: string }[] };

describe('createTeam', () => {
  it('an org Admin creates a team in its organization', async () => {
    const { createTeam } = expectData(
      await app.graphql<{ createTeam: TeamData }>(
        CREATE,
        { input: { name: 'Platform', email: 'platform@example.test' } },
        { auth: fx.orgAdmin.auth },
      ),
    );
    expect(createTeam).toMatchObject({ orgId: 1, name: 'Platform', email: 'platform@example.test', members: [] });
    expect(createTeam.id).toBeGreaterThan(fx.org2.team.id);
    expect(await app.database.prisma.team.findUnique({ where: { id: createTeam.id } })).toMatchObject({
      orgId: 1,
      name: 'Platform',
      email: 'platform@example.test',
    });
  });

  it('the same name is free in another organization, taken (409) in the same one', async () => {
    expectGraphqlError(await app.graphql(CREATE, { input: { name: fx.team.name } }, { auth: fx.orgAdmin.auth }), 'ALREADY_EXISTS');
    const { createTeam } = expectData(
      await app.graphql<{ createTeam: TeamData }>(CREATE, { input: { name: fx.team.name } }, { auth: fx.org2.admin.auth }),
    );
    expect(createTeam).toMatchObject({ orgId: fx.org2.id, name: fx.team.name, email: '' });
  });

  it('400 for an empty name or a bad email; 401; 403 for Editor and Viewer', async () => {
    const before = await app.database.prisma.team.count();
    expectGraphqlError(await app.graphql(CREATE, { input: { name: ' ' } }), 'VALIDATION_FAILED');
    expect(expectGraphqlError(await app.graphql(CREATE, { input: { name: unique('t'), email: 'nope' } }), 'VALIDATION_FAILED')).toContain(
      'email',
    );
    expectGraphqlError(await app.graphql(CREATE, { input: { name: unique('t') } }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(
        expectGraphqlError(await app.graphql(CREATE, { input: { name: unique('t') } }, { auth: actor.auth }), 'ACCESS_DENIED'),
      ).toContain('teams:create');
    }
    expect(await app.database.prisma.team.count()).toBe(before);
  });
});

describe('teams and team', () => {
  it('every org role lists the teams of its organization only, with members', async () => {
    for (const actor of [fx.viewer, fx.editor, fx.orgAdmin]) {
      const { teams } = expectData(await app.graphql<{ teams: TeamData[] }>(TEAMS, {}, { auth: actor.auth }));
      expect(teams.every((t) => t.orgId === 1)).toBe(true);
      const fixture = teams.find((t) => t.id === fx.team.id);
      expect(fixture?.members.map((m) => m.login)).toEqual(['editor', 'viewer']);
      expect(teams.map((t) => t.id)).not.toContain(fx.org2.team.id);
    }
  });

  it('a caller holding teams:read on one team id lists that team only', async () => {
    const reader = await createUserViaGraphql(app, { orgRole: 'None' });
    const role = await createRole(app, unique('one-team'), [p('teams:read', `teams:id:${fx.team.id}`)], {
      name: unique('one team reader'),
    });
    await assignUserRole(app, reader.id, role.uid);
    const { teams } = expectData(await app.graphql<{ teams: TeamData[] }>(TEAMS, {}, { auth: reader.auth }));
    expect(teams.map((t) => t.id)).toEqual([fx.team.id]);
    const { team } = expectData(await app.graphql<{ team: TeamData }>(TEAM, { id: fx.team.id }, { auth: reader.auth }));
    expect(team).toMatchObject({ id: fx.team.id, name: fx.team.name });
    const other = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    expectGraphqlError(await app.graphql(TEAM, { id: other.id }, { auth: reader.auth }), 'ACCESS_DENIED');
  });

  it("team(id): 404 for another organization's or an unknown team, 400 for id 0, 401, 403 for org role None", async () => {
    const { team } = expectData(await app.graphql<{ team: TeamData }>(TEAM, { id: fx.team.id }, { auth: fx.viewer.auth }));
    expect(team).toMatchObject({ id: fx.team.id, name: fx.team.name, orgId: 1 });
    expectGraphqlError(await app.graphql(TEAM, { id: fx.org2.team.id }, { auth: fx.viewer.auth }), 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(TEAM, { id: fx.org2.team.id }), 'TEAM_NOT_FOUND'); // a Service Admin acts in one org too
    expectGraphqlError(await app.graphql(TEAM, { id: 999_999 }), 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(TEAM, { id: 0 }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(TEAM, { id: fx.team.id }, { auth: null }), 'UNAUTHENTICATED');
    expectGraphqlError(await app.graphql(TEAMS, {}, { auth: null }), 'UNAUTHENTICATED');
    const none = await createUserViaGraphql(app, { orgRole: 'None' });
    expectGraphqlError(await app.graphql(TEAM, { id: fx.team.id }, { auth: none.auth }), 'ACCESS_DENIED');
    expectGraphqlError(await app.graphql(TEAMS, {}, { auth: none.auth }), 'ACCESS_DENIED');
  });

  it('loads teams with members and their memberships in a constant number of SQL statements', async () => {
    const query = '{ teams { id members { id orgs { orgId role } } } }';
    await app.graphql(query); // warm the permission cache
    app.resetQueries();
    expectData(await app.graphql(query));
    const few = app.queries.length;
    const added: number[] = [];
    for (let i = 0; i < 3; i++) {
      const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
      added.push(team.id);
      for (let j = 0; j < 3; j++) await mustGraphql(app, ADD, { teamId: team.id, userId: (await createUserViaGraphql(app)).id });
    }
    await app.graphql(query);
    app.resetQueries();
    const { teams } = expectData(await app.graphql<{ teams: { id: number; members: { orgs: { orgId: number }[] }[] }[] }>(query));
    expect(app.queries.length).toBe(few);
    // The same statements now load the new teams, each with its three members and their memberships.
    const loaded = teams.filter((t) => added.includes(t.id));
    expect(loaded.map((t) => t.members.length)).toEqual([3, 3, 3]);
    expect(loaded.flatMap((t) => t.members.map((m) => m.orgs.map((o) => o.orgId)))).toEqual(Array(9).fill([1]));
  });
});

describe('updateTeam and deleteTeam', () => {
  it('renames a team and changes its email; omitted fields are kept', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    const name = unique('renamed');
    const { updateTeam } = expectData(
      await app.graphql<{ updateTeam: TeamData }>(UPDATE, { id: team.id, input: { name } }, { auth: fx.orgAdmin.auth }),
    );
    expect(updateTeam).toMatchObject({ id: team.id, name, email: '' });
    const again = expectData(await app.graphql<{ updateTeam: TeamData }>(UPDATE, { id: team.id, input: { email: 'x@example.test' } }));
    expect(again.updateTeam).toMatchObject({ name, email: 'x@example.test' });
    expect(await app.database.prisma.team.findUniqueOrThrow({ where: { id: team.id } })).toMatchObject({ name, email: 'x@example.test' });
  });

  it('updateTeam: 400, 401, 403, 404 (unknown or other organization), 409', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    expectGraphqlError(await app.graphql(UPDATE, { id: team.id, input: { name: '' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(UPDATE, { id: team.id, input: { name: 'x' } }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(
        expectGraphqlError(await app.graphql(UPDATE, { id: team.id, input: { name: 'x' } }, { auth: actor.auth }), 'ACCESS_DENIED'),
      ).toContain('teams:write');
    }
    expectGraphqlError(await app.graphql(UPDATE, { id: 999_999, input: { name: 'x' } }), 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: fx.org2.team.id, input: { name: 'x' } }), 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: team.id, input: { name: fx.team.name } }), 'ALREADY_EXISTS');
    expect((await app.database.prisma.team.findUniqueOrThrow({ where: { id: team.id } })).name).toBe(team.name);
  });

  it('deleteTeam removes the team with its memberships; 401, 403, 404, 400', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    const user = await createUserViaGraphql(app);
    await mustGraphql(app, ADD, { teamId: team.id, userId: user.id });
    expectGraphqlError(await app.graphql(DELETE, { id: team.id }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(expectGraphqlError(await app.graphql(DELETE, { id: team.id }, { auth: actor.auth }), 'ACCESS_DENIED')).toContain(
        'teams:delete',
      );
    }
    expectGraphqlError(await app.graphql(DELETE, { id: fx.org2.team.id }), 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: 999_999 }), 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: 0 }), 'VALIDATION_FAILED');
    const { deleteTeam } = expectData(
      await app.graphql<{ deleteTeam: { message: string } }>(DELETE, { id: team.id }, { auth: fx.orgAdmin.auth }),
    );
    expect(deleteTeam.message).toBe('Team deleted');
    expectGraphqlError(await app.graphql(TEAM, { id: team.id }), 'TEAM_NOT_FOUND');
    expect(await teamMemberIds(app, team.id)).toEqual([]);
    expect(await app.database.prisma.team.count({ where: { id: fx.org2.team.id } })).toBe(1);
  });
});

describe('addTeamMember and removeTeamMember', () => {
  it('adds and removes members; the returned team shows them', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    const [a, b] = [await createUserViaGraphql(app), await createUserViaGraphql(app)];
    const auth = fx.orgAdmin.auth;
    expectData(await app.graphql(ADD, { teamId: team.id, userId: a.id }, { auth }));
    const { addTeamMember } = expectData(await app.graphql<{ addTeamMember: TeamData }>(ADD, { teamId: team.id, userId: b.id }, { auth }));
    expect(addTeamMember.members.map((m) => m.id).sort()).toEqual([a.id, b.id].sort());
    const { removeTeamMember } = expectData(
      await app.graphql<{ removeTeamMember: TeamData }>(REMOVE, { teamId: team.id, userId: a.id }, { auth }),
    );
    expect(removeTeamMember.members.map((m) => m.id)).toEqual([b.id]);
    expect(await teamMemberIds(app, team.id)).toEqual([b.id]);
  });

  it("a member holds the team's roles on its very next request, and loses them on the next one after removal", async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer' });
    const role = await app.database.prisma.role.create({
      data: {
        uid: unique('team-role'),
        orgId: 1,
        name: unique('team role'),
        permissions: { create: [{ action: 'serviceaccounts:read', scope: 'serviceaccounts:*' }] },
      },
    });
    await app.database.prisma.teamRole.create({ data: { teamId: team.id, roleId: role.id, orgId: 1 } });
    const auth = user.auth;
    const query = '{ serviceAccounts { id } }';
    expectGraphqlError(await app.graphql(query, {}, { auth }), 'ACCESS_DENIED'); // cached without the team role
    expectData(await app.graphql(ADD, { teamId: team.id, userId: user.id }));
    expectData(await app.graphql(query, {}, { auth }));
    expectData(await app.graphql(REMOVE, { teamId: team.id, userId: user.id }));
    expectGraphqlError(await app.graphql(query, {}, { auth }), 'ACCESS_DENIED');
    expectData(await app.graphql(ADD, { teamId: team.id, userId: user.id }));
    expectData(await app.graphql(query, {}, { auth }));
    expectData(await app.graphql(DELETE, { id: team.id }));
    expectGraphqlError(await app.graphql(query, {}, { auth }), 'ACCESS_DENIED');
  });

  it("addTeamMember: 404 for a user outside the team's organization or unknown, 400 for a service account or a member (Grafana)", async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    expect(expectGraphqlError(await app.graphql(ADD, { teamId: team.id, userId: fx.org2.admin.id }), 'USER_NOT_FOUND')).toContain(
      'organization',
    );
    expectGraphqlError(await app.graphql(ADD, { teamId: team.id, userId: 999_999 }), 'USER_NOT_FOUND');
    expect(expectGraphqlError(await app.graphql(ADD, { teamId: team.id, userId: fx.serviceAccount.id }), 'VALIDATION_FAILED')).toContain(
      'service accounts',
    );
    expect(expectGraphqlError(await app.graphql(ADD, { teamId: fx.team.id, userId: fx.editor.id }), 'ALREADY_TEAM_MEMBER')).toContain(
      'User is already added to this team',
    );
    expectGraphqlError(await app.graphql(ADD, { teamId: 0, userId: fx.editor.id }), 'VALIDATION_FAILED');
    expect(await teamMemberIds(app, team.id)).toEqual([]);
  });

  it("both: 401, 403 for Editor and Viewer, 404 for another organization's or an unknown team", async () => {
    for (const mutation of [ADD, REMOVE]) {
      const vars = { teamId: fx.team.id, userId: fx.orgAdmin.id };
      expectGraphqlError(await app.graphql(mutation, vars, { auth: null }), 'UNAUTHENTICATED');
      for (const actor of [fx.editor, fx.viewer]) {
        expect(expectGraphqlError(await app.graphql(mutation, vars, { auth: actor.auth }), 'ACCESS_DENIED')).toContain('teams:write');
      }
      expectGraphqlError(await app.graphql(mutation, { teamId: fx.org2.team.id, userId: fx.org2.admin.id }), 'TEAM_NOT_FOUND');
      expectGraphqlError(await app.graphql(mutation, { teamId: 999_999, userId: fx.editor.id }), 'TEAM_NOT_FOUND');
    }
    expect(await teamMemberIds(app, fx.team.id)).toEqual([fx.editor.id, fx.viewer.id]);
    expect(await teamMemberIds(app, fx.org2.team.id)).toEqual([fx.org2.admin.id]);
  });

  it('removeTeamMember: 404 for a user who is not a member', async () => {
    // Grafana's text (pkg/api/team_members.go removeTeamMember)
    expect(expectGraphqlError(await app.graphql(REMOVE, { teamId: fx.team.id, userId: fx.orgAdmin.id }), 'USER_NOT_FOUND')).toBe(
      'Team member not found',
    );
  });

  it('a team writer for one team id manages that team only', async () => {
    const writer = await createUserViaGraphql(app, { orgRole: 'Viewer' });
    const [mine, other] = [
      await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth }),
      await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth }),
    ];
    const role = await createRole(app, unique('one-team-writer'), [p('teams:write', `teams:id:${mine.id}`)], {
      name: unique('one team writer'),
    });
    await assignUserRole(app, writer.id, role.uid);
    const auth = writer.auth;
    expectData(await app.graphql(ADD, { teamId: mine.id, userId: fx.viewer.id }, { auth }));
    expectGraphqlError(await app.graphql(ADD, { teamId: other.id, userId: fx.viewer.id }, { auth }), 'ACCESS_DENIED');
    expect([await teamMemberIds(app, mine.id), await teamMemberIds(app, other.id)]).toEqual([[fx.viewer.id], []]);
    await assignUserRole(app, writer.id, 'fixed:teams:writer', 1);
    expectData(await app.graphql(ADD, { teamId: other.id, userId: fx.viewer.id }, { auth }));
    expect(await teamMemberIds(app, other.id)).toEqual([fx.viewer.id]);
  });
});
