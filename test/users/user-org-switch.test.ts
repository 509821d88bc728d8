/**
 * Routes the Python grafana-client calls beside the directory: `POST /api/users/:id/using/:orgId`
 * (switch_user_organisation; GraphQL switchUserOrganization) and `GET /api/user/teams`
 * (get_actual_user_teams).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createOrg, createTeam, createUser, unique } from '../support/subjects.js';

let app: TestApp;
let member: Actor;
let orgAdmin: Actor;
let second: { id: number };

beforeAll(async () => {
  app = await createTestApp();
  second = await createOrg(app, unique('second'));
  member = await createUser(app, unique('two-orgs'), { orgRole: 'Viewer', alsoIn: [{ orgId: second.id, orgRole: 'Editor' }] });
  orgAdmin = await createUser(app, unique('org-admin'), { orgRole: 'Admin' });
});
afterAll(() => app.close());

const SWITCH = 'mutation($id: Int!, $orgId: Int!) { switchUserOrganization(id: $id, orgId: $orgId) { message } }';
const defaultOrg = async (id: number) => (await app.database.prisma.user.findUniqueOrThrow({ where: { id } })).orgId;

describe('POST /api/users/:id/using/:orgId', () => {
  it("switches a user's default organization to one it belongs to, on both doors, and audits it", async () => {
    const out = await rest(app, 'POST', `/api/users/${member.id}/using/${second.id}`);
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Active organization changed' });
    expect(await defaultOrg(member.id)).toBe(second.id);
    const back = await gql(app, SWITCH, { id: member.id, orgId: 1 });
    expect(back.data).toEqual({ switchUserOrganization: { message: 'Active organization changed' } });
    expect(await defaultOrg(member.id)).toBe(1);
    const events = await app.database.prisma.auditEvent.findMany({ where: { resourceKind: 'user', resourceId: String(member.id) } });
    expect(events.map((e) => [e.before, e.after])).toEqual([
      ['{"orgId":1}', `{"orgId":${second.id}}`],
      [`{"orgId":${second.id}}`, '{"orgId":1}'],
    ]);
  });

  it('401 "Not a valid organization" for an organization the user is not in; 404, 403, 401 otherwise', async () => {
    expect(expectOutcome(await rest(app, 'POST', `/api/users/${orgAdmin.id}/using/${second.id}`), 401, 'ORG_NOT_ACCESSIBLE')).toBe(
      'Not a valid organization',
    );
    expectOutcome(await gql(app, SWITCH, { id: orgAdmin.id, orgId: second.id }), 401, 'ORG_NOT_ACCESSIBLE');
    expect(await defaultOrg(orgAdmin.id)).toBe(1);
    expectOutcome(await rest(app, 'POST', `/api/users/99999/using/1`), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'POST', `/api/users/${member.id}/using/${second.id}`, { auth: orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, SWITCH, { id: member.id, orgId: second.id }, { auth: orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'POST', `/api/users/${member.id}/using/${second.id}`, { auth: null }), 401, 'UNAUTHENTICATED');
    expect(await defaultOrg(member.id)).toBe(1);
  });
});

describe('GET /api/user/teams', () => {
  it("answers the caller's teams in the organization it acts in, as Grafana's TeamDTO", async () => {
    const team = await createTeam(app, unique('mine'), { members: [member.id] });
    await createTeam(app, unique('not-mine'));
    await createTeam(app, unique('elsewhere'), { orgId: second.id, members: [member.id] });
    const out = await rest(app, 'GET', '/api/user/teams', { auth: member.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual([
      expect.objectContaining({
        id: team.id,
        orgId: 1,
        name: expect.any(String),
        memberCount: 1,
        permission: 0,
        avatarUrl: expect.stringMatching(/^\/avatar\//),
      }),
    ]);
    expect((await rest(app, 'GET', '/api/user/teams', { auth: orgAdmin.auth })).body).toEqual([]);
    expectOutcome(await rest(app, 'GET', '/api/user/teams', { auth: null }), 401, 'UNAUTHENTICATED');
  });
});
