/**
 * Teams over Grafana's REST paths (`/api/teams/search`, `/api/teams`, `/api/teams/:teamId`,
 * `/api/teams/:teamId/members[/:userId]`): shapes, messages and status codes as Grafana answers
 * them, paging, the organization wall, the audit log, and the GraphQL twins (teamSearch,
 * teamMembers, addTeamMember, ...) answering the same through the same service.
 */
import { describe, expect, it } from 'vitest';
import type { TeamJson } from '../../src/modules/shared/directory.js';
import type { TeamMemberJson } from '../../src/modules/teams/rest.js';
import { auditOf, emailAvatar, nameAvatar, teamMemberIds } from '../support/effects.js';
import { expectData, expectGraphqlError, expectOutcome, mustGraphql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createRole, createTeamViaGraphql, createUserViaGraphql, p, unique } from '../support/subjects.js';

useSeededApp();

type SearchJson = { totalCount: number; teams: TeamJson[]; page: number; perPage: number };

const SEARCH = `query($query: String, $name: String, $page: Int, $perPage: Int, $sort: String, $teamIds: [Int!]) {
  teamSearch(query: $query, name: $name, page: $page, perPage: $perPage, sort: $sort, teamIds: $teamIds) {
    totalCount page perPage teams { id name email avatarUrl memberCount members { login } } } }`;
const MEMBERS = 'query($teamId: Int!) { teamMembers(teamId: $teamId) { id login } }';

describe('GET /api/teams/search', () => {
  it("answers Grafana's SearchTeamQueryResult: TeamDTOs with member counts and avatars, page 1 of 1000 by default", async () => {
    const out = await rest(app, 'GET', '/api/teams/search');
    expectOutcome(out, 200);
    const body = out.body as SearchJson;
    expect(Object.keys(body).sort()).toEqual(['page', 'perPage', 'teams', 'totalCount']);
    expect(body).toMatchObject({ page: 1, perPage: 1000 });
    expect(body.totalCount).toBe(body.teams.length);
    const team = body.teams.find((t) => t.id === fx.team.id);
    expect(team).toEqual({
      id: fx.team.id,
      orgId: 1,
      name: 'fixture-team',
      email: 'fixture-team@example.test',
      avatarUrl: emailAvatar('fixture-team@example.test'),
      memberCount: 2,
      permission: 0,
    });
    expect(body.teams.every((t) => t.orgId === 1)).toBe(true);
    expect(body.teams.map((t) => t.id)).not.toContain(fx.org2.team.id);
  });

  it('pages, filters by part of the name (any case), by the whole name and by id, and sorts; GraphQL teamSearch answers the same', async () => {
    const prefix = unique('Paging');
    const made = [];
    for (const suffix of ['a', 'b', 'c', 'd', 'e']) made.push(await createTeamViaGraphql(app, { name: `${prefix}-${suffix}` }));
    await mustGraphql(app, 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }', {
      t: made[3]?.id,
      u: fx.viewer.id,
    });

    const page2 = (await rest(app, 'GET', `/api/teams/search?query=${prefix.toUpperCase()}&perpage=2&page=2`)).body as SearchJson;
    expect(page2).toMatchObject({ totalCount: 5, page: 2, perPage: 2 });
    expect(page2.teams.map((t) => t.name)).toEqual([`${prefix}-c`, `${prefix}-d`]);
    const gql = expectData(
      await app.graphql<{
        teamSearch: { totalCount: number; page: number; perPage: number; teams: { id: number; memberCount: number }[] };
      }>(SEARCH, { query: prefix.toUpperCase(), perPage: 2, page: 2 }),
    );
    expect(gql.teamSearch).toMatchObject({ totalCount: 5, page: 2, perPage: 2 });
    expect(gql.teamSearch.teams.map((t) => t.id)).toEqual(page2.teams.map((t) => t.id));
    expect(gql.teamSearch.teams.map((t) => t.memberCount)).toEqual(page2.teams.map((t) => t.memberCount));

    const beyond = (await rest(app, 'GET', `/api/teams/search?query=${prefix}&perpage=2&page=9`)).body as SearchJson;
    expect(beyond).toMatchObject({ totalCount: 5, teams: [] });

    const byName = (await rest(app, 'GET', `/api/teams/search?name=${prefix}-b`)).body as SearchJson;
    expect(byName.teams.map((t) => t.name)).toEqual([`${prefix}-b`]);
    expect(((await rest(app, 'GET', `/api/teams/search?name=${prefix}`)).body as SearchJson).totalCount).toBe(0);

    const ids = `teamId=${made[0]?.id}&teamId=${made[4]?.id}&teamId=nope`;
    expect(((await rest(app, 'GET', `/api/teams/search?${ids}`)).body as SearchJson).teams.map((t) => t.id)).toEqual([
      made[0]?.id,
      made[4]?.id,
    ]);

    const sorted = (await rest(app, 'GET', `/api/teams/search?query=${prefix}&sort=memberCount-desc,name-desc`)).body as SearchJson;
    expect(sorted.teams.map((t) => t.name)).toEqual(['d', 'e', 'c', 'b', 'a'].map((s) => `${prefix}-${s}`));
    const gqlSorted = expectData(
      await app.graphql<{ teamSearch: { teams: { id: number }[] } }>(SEARCH, { query: prefix, sort: 'memberCount-desc,name-desc' }),
    );
    expect(gqlSorted.teamSearch.teams.map((t) => t.id)).toEqual(sorted.teams.map((t) => t.id));
  });

  it('reads bad paging numbers as Grafana does (defaults), refuses an unknown sort option (400) on both doors', async () => {
    const lenient = (await rest(app, 'GET', '/api/teams/search?perpage=abc&page=-3')).body as SearchJson;
    expect(lenient).toMatchObject({ page: 1, perPage: 1000 });
    expect(expectOutcome(await rest(app, 'GET', '/api/teams/search?sort=size-asc'), 400, 'VALIDATION_FAILED')).toContain('size-asc');
    expectGraphqlError(await app.graphql(SEARCH, { sort: 'name-up' }), 'VALIDATION_FAILED');
  });

  it('refuses more than 1000 rows per page (400) on both doors, the members inside an answer too', async () => {
    expectOutcome(await rest(app, 'GET', '/api/teams/search?perpage=1000'), 200);
    expect(expectOutcome(await rest(app, 'GET', '/api/teams/search?perpage=1001'), 400, 'VALIDATION_FAILED')).toMatch(/at most 1000$/);
    expectGraphqlError(await app.graphql(SEARCH, { perPage: 1001 }), 'VALIDATION_FAILED');
    const members = 'query($id: Int!, $first: Int) { team(id: $id) { members(first: $first) { login } } }';
    expectData(await app.graphql(members, { id: fx.team.id, first: 1000 }));
    const many = await app.graphql(members, { id: fx.team.id, first: 1001 });
    expect(many.body.errors?.[0]?.extensions?.code, JSON.stringify(many.body)).toBe('VALIDATION_FAILED');
    expect(many.body.errors?.[0]?.message).toBe('first must be at most 1000');
  });

  it('every org role searches (Grafana: teams:read); org role None 403, no credentials 401; the organization comes from the header', async () => {
    for (const actor of [fx.viewer, fx.editor, fx.orgAdmin]) {
      const body = (await rest(app, 'GET', '/api/teams/search', { auth: actor.auth })).body as SearchJson;
      expect(body.teams.map((t) => t.id)).toContain(fx.team.id);
    }
    const none = await createUserViaGraphql(app, { orgRole: 'None' });
    expect(expectOutcome(await rest(app, 'GET', '/api/teams/search', { auth: none.auth }), 403, 'ACCESS_DENIED')).toContain('teams:read');
    expectOutcome(await rest(app, 'GET', '/api/teams/search', { auth: null }), 401, 'UNAUTHENTICATED');
    const org2 = (await rest(app, 'GET', '/api/teams/search', { auth: fx.org2.admin.auth, orgId: fx.org2.id })).body as SearchJson;
    expect(org2.teams.map((t) => t.id)).toContain(fx.org2.team.id);
    expect(org2.teams.every((t) => t.orgId === fx.org2.id)).toBe(true);
  });

  it('a caller holding teams:read on one team id finds that team only, and totalCount counts only what it may read', async () => {
    const reader = await createUserViaGraphql(app, { orgRole: 'None' });
    const role = await createRole(app, unique('one-team'), [p('teams:read', `teams:id:${fx.team.id}`)], { name: unique('one team') });
    await assignUserRole(app, reader.id, role.uid);
    const body = (await rest(app, 'GET', '/api/teams/search', { auth: reader.auth })).body as SearchJson;
    expect(body).toMatchObject({ totalCount: 1, teams: [expect.objectContaining({ id: fx.team.id })] });
  });

  it("accesscontrol=true adds Grafana's accessControl map of the caller's actions on each team", async () => {
    const admin = (await rest(app, 'GET', `/api/teams/search?accesscontrol=true&teamId=${fx.team.id}`, { auth: fx.orgAdmin.auth }))
      .body as SearchJson;
    expect(admin.teams[0]?.accessControl).toMatchObject({ 'teams:read': true, 'teams:write': true, 'teams:delete': true });
    const viewer = (await rest(app, 'GET', `/api/teams/search?accesscontrol=true&teamId=${fx.team.id}`, { auth: fx.viewer.auth }))
      .body as SearchJson;
    expect(viewer.teams[0]?.accessControl).toMatchObject({ 'teams:read': true });
    expect(viewer.teams[0]?.accessControl).not.toHaveProperty('teams:write');
    const plain = (await rest(app, 'GET', `/api/teams/search?teamId=${fx.team.id}`)).body as SearchJson;
    expect(plain.teams.map((t) => t.id)).toEqual([fx.team.id]);
    expect(plain.teams[0]).not.toHaveProperty('accessControl');
  });

  it('GraphQL teamSearch loads teams, member counts and members in a constant number of SQL statements', async () => {
    await app.graphql(SEARCH, {}); // warm the permission cache
    app.resetQueries();
    expectData(await app.graphql(SEARCH, {}));
    const few = app.queries.length;
    const added: number[] = [];
    for (let i = 0; i < 3; i++) added.push((await createTeamViaGraphql(app, { memberIds: [fx.editor.id, fx.viewer.id] })).id);
    await app.graphql(SEARCH, {});
    app.resetQueries();
    const { teamSearch } = expectData(
      await app.graphql<{ teamSearch: { teams: { id: number; memberCount: number; members: { login: string }[] }[] } }>(SEARCH, {}),
    );
    expect(app.queries.length).toBe(few);
    // The same statements now load the new teams with their counts and members.
    const loaded = teamSearch.teams.filter((t) => added.includes(t.id)).sort((a, b) => a.id - b.id);
    expect(loaded).toEqual(
      added.map((id) => expect.objectContaining({ id, memberCount: 2, members: [{ login: 'editor' }, { login: 'viewer' }] })),
    );
  });
});

describe('POST /api/teams', () => {
  it('creates a team: {teamId, message: "Team created"}, recorded as team.create', async () => {
    const name = unique('Created');
    const out = await rest(app, 'POST', '/api/teams', { json: { name, email: 'created@example.test' }, auth: fx.orgAdmin.auth });
    expectOutcome(out, 200);
    const { teamId, message } = out.body as { teamId: number; message: string };
    expect(message).toBe('Team created');
    const got = (await rest(app, 'GET', `/api/teams/${teamId}`)).body as TeamJson;
    expect(got).toMatchObject({ id: teamId, orgId: 1, name, email: 'created@example.test', memberCount: 0 });
    const [event] = await auditOf(app, 'team.create', teamId);
    expect(event).toMatchObject({ orgId: 1, actorId: fx.orgAdmin.id, resourceKind: 'team', before: null });
    expect(event?.after).toMatchObject({ id: teamId, name, email: 'created@example.test' });
  });

  it("takes Go's any-case JSON keys (Grafana's OpenAPI spells them Name, Email)", async () => {
    const name = unique('Capital');
    const out = await rest(app, 'POST', '/api/teams', { json: { Name: name } });
    expectOutcome(out, 200);
    expect(((await rest(app, 'GET', `/api/teams/${(out.body as { teamId: number }).teamId}`)).body as TeamJson).name).toBe(name);
  });

  it('409 "Team name taken" in the same organization; the name is free in another', async () => {
    expect(expectOutcome(await rest(app, 'POST', '/api/teams', { json: { name: fx.team.name } }), 409, 'ALREADY_EXISTS')).toBe(
      'Team name taken',
    );
    const out = await rest(app, 'POST', '/api/teams', { json: { name: fx.team.name }, auth: fx.org2.admin.auth });
    expectOutcome(out, 200);
    const { teamId } = out.body as { teamId: number };
    expect(await app.database.prisma.team.findUniqueOrThrow({ where: { id: teamId } })).toMatchObject({
      orgId: fx.org2.id,
      name: fx.team.name,
    });
  });

  it('400 for a missing or empty name, a bad email or a body that is not an object; 401; 403 for Editor and Viewer', async () => {
    const before = await app.database.prisma.team.count();
    for (const json of [{}, { name: '  ' }, { name: unique('t'), email: 'nope' }, [1, 2]]) {
      expectOutcome(await rest(app, 'POST', '/api/teams', { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await rest(app, 'POST', '/api/teams', { json: { name: unique('t') }, auth: null }), 401, 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      const out = await rest(app, 'POST', '/api/teams', { json: { name: unique('t') }, auth: actor.auth });
      expect(expectOutcome(out, 403, 'ACCESS_DENIED')).toContain('teams:create');
    }
    // the permission is checked before the body: a bad body from a viewer is a 403, not a 400
    expectOutcome(await rest(app, 'POST', '/api/teams', { json: {}, auth: fx.viewer.auth }), 403, 'ACCESS_DENIED');
    expect(await app.database.prisma.team.count()).toBe(before);
  });
});

describe('GET, PUT and DELETE /api/teams/:teamId', () => {
  it("GET answers the TeamDTO; 404 for another organization's or an unknown team, 400 for a bad id, 403, 401", async () => {
    const out = await rest(app, 'GET', `/api/teams/${fx.team.id}`, { auth: fx.viewer.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual({
      id: fx.team.id,
      orgId: 1,
      name: fx.team.name,
      email: 'fixture-team@example.test',
      avatarUrl: emailAvatar('fixture-team@example.test'),
      memberCount: 2,
      permission: 0,
    });
    const gql = expectData(
      await app.graphql<{ team: { avatarUrl: string; memberCount: number } }>(
        'query($id: Int!) { team(id: $id) { avatarUrl memberCount } }',
        { id: fx.team.id },
      ),
    );
    expect(gql.team).toEqual({ avatarUrl: (out.body as TeamJson).avatarUrl, memberCount: 2 });
    // Grafana's text (pkg/api team getTeamByID), for an unknown team and one behind the wall alike
    expect(expectOutcome(await rest(app, 'GET', `/api/teams/${fx.org2.team.id}`), 404, 'TEAM_NOT_FOUND')).toBe('Team not found');
    expect(expectOutcome(await rest(app, 'GET', '/api/teams/999999'), 404, 'TEAM_NOT_FOUND')).toBe('Team not found');
    expectOutcome(await rest(app, 'GET', '/api/teams/abc'), 400, 'VALIDATION_FAILED');
    const none = await createUserViaGraphql(app, { orgRole: 'None' });
    expect(expectOutcome(await rest(app, 'GET', `/api/teams/${fx.team.id}`, { auth: none.auth }), 403, 'ACCESS_DENIED')).toBe(
      `You'll need additional permissions to perform this action. Permissions needed: teams:read`,
    );
    expectOutcome(await rest(app, 'GET', `/api/teams/${fx.team.id}`, { auth: null }), 401, 'UNAUTHENTICATED');
    const acl = (await rest(app, 'GET', `/api/teams/${fx.team.id}?accesscontrol=true`)).body as TeamJson;
    expect(acl.accessControl).toMatchObject({ 'teams:read': true, 'teams:write': true });
  });

  it('a team named by its email-less name gets the avatar of <name>@localhost, as Grafana', async () => {
    const team = await createTeamViaGraphql(app, { name: unique('No Mail') });
    const got = (await rest(app, 'GET', `/api/teams/${team.id}`)).body as TeamJson;
    expect(got.avatarUrl).toBe(nameAvatar(team.name));
  });

  it('PUT renames and re-mails a team: "Team updated", recorded as team.update with before and after', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    const name = unique('Renamed');
    const out = await rest(app, 'PUT', `/api/teams/${team.id}`, { json: { name, email: 'renamed@example.test' }, auth: fx.orgAdmin.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Team updated' });
    expect((await rest(app, 'GET', `/api/teams/${team.id}`)).body).toMatchObject({ name, email: 'renamed@example.test' });
    const [event] = await auditOf(app, 'team.update', team.id);
    expect(event?.before).toMatchObject({ name: team.name, email: '' });
    expect(event?.after).toMatchObject({ name, email: 'renamed@example.test' });
  });

  it("PUT: 409 for a taken name, 404 for another organization's team, 400 for a bad email, 403 for Editor, 401", async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    expectOutcome(await rest(app, 'PUT', `/api/teams/${team.id}`, { json: { name: fx.team.name } }), 409, 'ALREADY_EXISTS');
    expectOutcome(await rest(app, 'PUT', `/api/teams/${fx.org2.team.id}`, { json: { name: 'x' } }), 404, 'TEAM_NOT_FOUND');
    expectOutcome(await rest(app, 'PUT', `/api/teams/${team.id}`, { json: { email: 'nope' } }), 400, 'VALIDATION_FAILED');
    const denied = await rest(app, 'PUT', `/api/teams/${team.id}`, { json: { name: 'x' }, auth: fx.editor.auth });
    expect(expectOutcome(denied, 403, 'ACCESS_DENIED')).toContain('teams:write');
    expectOutcome(await rest(app, 'PUT', `/api/teams/${team.id}`, { json: { name: 'x' }, auth: null }), 401, 'UNAUTHENTICATED');
    expect((await app.database.prisma.team.findUniqueOrThrow({ where: { id: team.id } })).name).toBe(team.name);
    expect(await app.database.prisma.team.findUniqueOrThrow({ where: { id: fx.org2.team.id } })).toMatchObject({ name: 'org2-team' });
  });

  it('DELETE: "Team deleted" with its memberships, recorded as team.delete; then 404; 403 for Editor; the wall', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth, memberIds: [fx.viewer.id] });
    expect(expectOutcome(await rest(app, 'DELETE', `/api/teams/${team.id}`, { auth: fx.editor.auth }), 403, 'ACCESS_DENIED')).toContain(
      'teams:delete',
    );
    expectOutcome(await rest(app, 'DELETE', `/api/teams/${fx.org2.team.id}`), 404, 'TEAM_NOT_FOUND');
    const out = await rest(app, 'DELETE', `/api/teams/${team.id}`, { auth: fx.orgAdmin.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Team deleted' });
    expect(await teamMemberIds(app, team.id)).toEqual([]);
    // Grafana's text for this route (pkg/api team deleteTeamByID)
    expect(expectOutcome(await rest(app, 'DELETE', `/api/teams/${team.id}`), 404, 'TEAM_NOT_FOUND')).toBe(
      'Failed to delete Team. ID not found',
    );
    const [event] = await auditOf(app, 'team.delete', team.id);
    expect(event?.before).toMatchObject({ id: team.id, name: team.name, memberIds: [fx.viewer.id] });
    expect(event?.after).toBeNull();
    expect(await app.database.prisma.team.count({ where: { id: fx.org2.team.id } })).toBe(1);
  });
});

describe('team members', () => {
  it("GET lists Grafana's TeamMemberDTOs by login; GraphQL teamMembers lists the same users", async () => {
    const out = await rest(app, 'GET', `/api/teams/${fx.team.id}/members`, { auth: fx.viewer.auth });
    expectOutcome(out, 200);
    const members = out.body as TeamMemberJson[];
    expect(members).toEqual([
      {
        orgId: 1,
        teamId: fx.team.id,
        userId: fx.editor.id,
        auth_module: '',
        email: fx.editor.email,
        name: '', // created without a display name
        login: fx.editor.login,
        avatarUrl: emailAvatar(fx.editor.email),
        labels: [],
        permission: 0,
      },
      expect.objectContaining({ userId: fx.viewer.id, login: fx.viewer.login }),
    ]);
    const gql = expectData(await app.graphql<{ teamMembers: { id: number }[] }>(MEMBERS, { teamId: fx.team.id }, { auth: fx.viewer.auth }));
    expect(gql.teamMembers.map((u) => u.id)).toEqual(members.map((m) => m.userId));
  });

  it("GET: 404 for another organization's or an unknown team on both doors, 403 for org role None, 401", async () => {
    expectOutcome(await rest(app, 'GET', `/api/teams/${fx.org2.team.id}/members`), 404, 'TEAM_NOT_FOUND');
    expectGraphqlError(await app.graphql(MEMBERS, { teamId: fx.org2.team.id }), 'TEAM_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/teams/999999/members'), 404, 'TEAM_NOT_FOUND');
    const none = await createUserViaGraphql(app, { orgRole: 'None' });
    expectOutcome(await rest(app, 'GET', `/api/teams/${fx.team.id}/members`, { auth: none.auth }), 403, 'ACCESS_DENIED');
    expectGraphqlError(await app.graphql(MEMBERS, { teamId: fx.team.id }, { auth: none.auth }), 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', `/api/teams/${fx.team.id}/members`, { auth: null }), 401, 'UNAUTHENTICATED');
  });

  it('POST adds a member: "Member added to Team", recorded as team_member.add; DELETE removes it: "Team Member removed"', async () => {
    const team = await createTeamViaGraphql(app, { auth: fx.orgAdmin.auth });
    const user = await createUserViaGraphql(app);
    const added = await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: user.id }, auth: fx.orgAdmin.auth });
    expectOutcome(added, 200);
    expect(added.body).toEqual({ message: 'Member added to Team' });
    expect(await teamMemberIds(app, team.id)).toEqual([user.id]);
    expect((await auditOf(app, 'team_member.add', `${team.id}:${user.id}`))[0]).toMatchObject({
      orgId: 1,
      actorId: fx.orgAdmin.id,
      resourceKind: 'team_member',
      after: { teamId: team.id, userId: user.id },
    });

    const removed = await rest(app, 'DELETE', `/api/teams/${team.id}/members/${user.id}`, { auth: fx.orgAdmin.auth });
    expectOutcome(removed, 200);
    expect(removed.body).toEqual({ message: 'Team Member removed' });
    expect(await teamMemberIds(app, team.id)).toEqual([]);
    expect((await auditOf(app, 'team_member.remove', `${team.id}:${user.id}`))[0]).toMatchObject({
      before: { teamId: team.id, userId: user.id },
    });
    const again = await rest(app, 'DELETE', `/api/teams/${team.id}/members/${user.id}`);
    expect(expectOutcome(again, 404, 'USER_NOT_FOUND')).toBe('Team member not found');
  });

  it('POST: 400 "User is already added to this team" (Grafana) on both doors, 400 for a service account or a missing userId, 404 for a user of another organization', async () => {
    const team = await createTeamViaGraphql(app, { memberIds: [fx.viewer.id] });
    const again = await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: fx.viewer.id } });
    expect(expectOutcome(again, 400, 'ALREADY_TEAM_MEMBER')).toBe('User is already added to this team');
    const ADD = 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }';
    expectGraphqlError(await app.graphql(ADD, { t: team.id, u: fx.viewer.id }), 'ALREADY_TEAM_MEMBER');
    expect(
      expectOutcome(
        await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: fx.serviceAccount.id } }),
        400,
        'VALIDATION_FAILED',
      ),
    ).toContain('service accounts');
    expectOutcome(await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: {} }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: 'x' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: fx.org2.admin.id } }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: 999_999 } }), 404, 'USER_NOT_FOUND');
    expect(await teamMemberIds(app, team.id)).toEqual([fx.viewer.id]);
  });

  it("POST and DELETE: 404 for another organization's team, 403 for Editor and Viewer (checked before the body), 401", async () => {
    const org2 = `/api/teams/${fx.org2.team.id}/members`;
    expectOutcome(await rest(app, 'POST', org2, { json: { userId: fx.org2.admin.id } }), 404, 'TEAM_NOT_FOUND');
    expectOutcome(await rest(app, 'DELETE', `${org2}/${fx.org2.admin.id}`), 404, 'TEAM_NOT_FOUND');
    for (const actor of [fx.editor, fx.viewer]) {
      const add = await rest(app, 'POST', `/api/teams/${fx.team.id}/members`, { json: {}, auth: actor.auth });
      expect(expectOutcome(add, 403, 'ACCESS_DENIED')).toContain('teams:write');
      const remove = await rest(app, 'DELETE', `/api/teams/${fx.team.id}/members/${fx.viewer.id}`, { auth: actor.auth });
      expectOutcome(remove, 403, 'ACCESS_DENIED');
    }
    expectOutcome(await rest(app, 'POST', `/api/teams/${fx.team.id}/members`, { json: { userId: 1 }, auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'DELETE', `/api/teams/${fx.team.id}/members/abc`), 400, 'VALIDATION_FAILED');
    expect(await teamMemberIds(app, fx.team.id)).toEqual([fx.editor.id, fx.viewer.id]);
    expect(await teamMemberIds(app, fx.org2.team.id)).toEqual([fx.org2.admin.id]);
  });

  it("Grafana's teams.permissions:read / teams.permissions:write on one team let a caller list and manage that team's members", async () => {
    const manager = await createUserViaGraphql(app, { orgRole: 'None' });
    const team = await createTeamViaGraphql(app);
    const other = await createTeamViaGraphql(app);
    const scope = `teams:id:${team.id}`;
    const role = await createRole(app, unique('team-perms'), [p('teams.permissions:read', scope), p('teams.permissions:write', scope)], {
      name: unique('team permissions'),
    });
    await assignUserRole(app, manager.id, role.uid);
    const auth = manager.auth;
    expectOutcome(await rest(app, 'POST', `/api/teams/${team.id}/members`, { json: { userId: fx.editor.id }, auth }), 200);
    expect(((await rest(app, 'GET', `/api/teams/${team.id}/members`, { auth })).body as TeamMemberJson[]).map((m) => m.userId)).toEqual([
      fx.editor.id,
    ]);
    expectOutcome(await rest(app, 'DELETE', `/api/teams/${team.id}/members/${fx.editor.id}`, { auth }), 200);
    expect(await teamMemberIds(app, team.id)).toEqual([]);
    const denied = await rest(app, 'POST', `/api/teams/${other.id}/members`, { json: { userId: fx.editor.id }, auth });
    expect(expectOutcome(denied, 403, 'ACCESS_DENIED')).toContain('teams.permissions:write');
    expectOutcome(await rest(app, 'PUT', `/api/teams/${team.id}`, { json: { name: 'x' }, auth }), 403, 'ACCESS_DENIED');
  });
});
