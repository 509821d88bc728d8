/**
 * DELETE /api/orgs/:orgId and deleteOrganization: one transaction removes the organization and
 * everything that lives in it — memberships, teams with their members and roles, API keys,
 * service accounts with their tokens, org-local roles and every assignment or basic-role grant
 * made in it (rows keyed by orgId without a foreign key included) — users whose default it was
 * get a valid one, the permission cache forgets it at once, and the audit log records it.
 */
import { describe, expect, it } from 'vitest';
import { fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import { expectData, expectGraphqlError, expectOutcome, mustGraphql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import {
  type Actor,
  createKey,
  createRole,
  createServiceAccountViaGraphql,
  createTeam,
  createUser,
  p,
  unique,
} from '../support/subjects.js';

useSeededApp();

const db = () => app.database.prisma;
const DELETE = 'mutation($id: Int!) { deleteOrganization(id: $id) { message } }';

/** An organization with one of everything that must go with it. */
async function doomed() {
  const org = await db().org.create({ data: { name: unique('Doomed') } });
  const id = org.id;
  const only = await createUser(app, unique('d-only'), { orgId: id, orgRole: 'Admin' });
  const both = await createUser(app, unique('d-both'), { orgId: id, orgRole: 'Editor', alsoIn: [{ orgId: 1, orgRole: 'Viewer' }] });
  const elsewhere = await createUser(app, unique('d-else'), { orgId: fx.org2.id, alsoIn: [{ orgId: id, orgRole: 'Viewer' }] });
  const local = await createRole(app, unique('doomed-role'), [p('teams:read', 'teams:*')], { orgId: id });
  const fixed = await db().role.findUniqueOrThrow({ where: { uid: fixedRoleUid('fixed:teams:reader') } });
  const team = await createTeam(app, unique('doomed-team'), { orgId: id, members: [both.id] });
  await db().teamRole.create({ data: { orgId: id, teamId: team.id, roleId: local.id } });
  await db().userRole.createMany({
    data: [
      { orgId: id, userId: both.id, roleId: local.id },
      { orgId: id, userId: elsewhere.id, roleId: fixed.id },
    ],
  });
  await db().basicRoleGrant.create({ data: { basicRole: 'Viewer', orgId: id, roleId: fixed.id } });
  // made by its own Admin, who acts there by default
  const bot = await createServiceAccountViaGraphql(app, { auth: only.auth, input: { name: unique('doomed-bot'), role: 'Viewer' } });
  const token = await rest(app, 'POST', `/api/serviceaccounts/${bot.id}/tokens`, { auth: only.auth, json: { name: 'doomed-token' } });
  expectOutcome(token, 200);
  const key = await createKey(app, { name: unique('doomed-key'), role: 'Viewer' }, { auth: only.auth });
  const session = await db().session.create({
    data: {
      userId: both.id,
      tokenHash: unique('doomed-session'),
      authMethod: 'password',
      orgId: id,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  app.services.access.invalidate();
  return {
    id,
    name: org.name,
    only,
    both,
    elsewhere,
    local,
    fixed,
    team,
    bot,
    tokenKey: (token.body as { key: string }).key,
    key,
    session,
  };
}

/** Rows of organization `id` left anywhere. */
async function leftovers(id: number) {
  return {
    members: await db().orgUser.count({ where: { orgId: id } }),
    teams: await db().team.count({ where: { orgId: id } }),
    teamMembers: await db().teamMember.count({ where: { orgId: id } }),
    teamRoles: await db().teamRole.count({ where: { orgId: id } }),
    roles: await db().role.count({ where: { orgId: id } }),
    userRoles: await db().userRole.count({ where: { orgId: id } }),
    grants: await db().basicRoleGrant.count({ where: { orgId: id } }),
    keys: await db().apiKey.count({ where: { orgId: id } }),
    serviceAccounts: await db().user.count({ where: { orgId: id, isServiceAccount: true } }),
    sessions: await db().session.count({ where: { orgId: id } }),
  };
}

const NOTHING = {
  members: 0,
  teams: 0,
  teamMembers: 0,
  teamRoles: 0,
  roles: 0,
  userRoles: 0,
  grants: 0,
  keys: 0,
  serviceAccounts: 0,
  sessions: 0,
};

describe('DELETE /api/orgs/:orgId', () => {
  it('a Service Admin deletes another organization with everything in it: {"message":"Organization deleted"}', async () => {
    const d = await doomed();
    expect(await leftovers(d.id)).toEqual({
      ...NOTHING,
      members: 4,
      teams: 1,
      teamMembers: 1,
      teamRoles: 1,
      roles: 1,
      userRoles: 2,
      grants: 1,
      keys: 2,
      serviceAccounts: 1,
      sessions: 1,
    });
    // warm the permission cache of a member acting there, and of the key
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: d.both.auth, orgId: d.id }), 200);
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: { token: d.key.key } }), 200);

    const out = await rest(app, 'DELETE', `/api/orgs/${d.id}`);
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Organization deleted' });
    expect(await db().org.findUnique({ where: { id: d.id } })).toBeNull();
    expect(await leftovers(d.id)).toEqual(NOTHING);
    expect(await db().user.findUnique({ where: { id: d.bot.id } })).toBeNull();
    expect(await db().permission.count({ where: { roleId: d.local.id } })).toBe(0);
    // global roles stay; only their assignments and grants made in the organization went
    expect(await db().role.findUnique({ where: { id: d.fixed.id } })).not.toBeNull();
    expect(await db().userRole.count({ where: { roleId: d.fixed.id, userId: d.elsewhere.id } })).toBe(0);
    expect((await db().session.findUniqueOrThrow({ where: { id: d.session.id } })).orgId).toBeNull();

    // nothing of it answers any more, on the very next request
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: d.both.auth, orgId: d.id }), 401, 'ORG_NOT_ACCESSIBLE');
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: { token: d.key.key } }), 401, 'INVALID_API_KEY');
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: { token: d.tokenKey } }), 401, 'INVALID_API_KEY');
  });

  it('users whose default it was get their first remaining membership, or else the first organization', async () => {
    const d = await doomed();
    expectOutcome(await rest(app, 'DELETE', `/api/orgs/${d.id}`), 200);
    const defaultOf = async (a: Actor) => (await db().user.findUniqueOrThrow({ where: { id: a.id } })).orgId;
    expect(await defaultOf(d.both)).toBe(1);
    expect(await defaultOf(d.elsewhere)).toBe(fx.org2.id);
    expect(await defaultOf(d.only)).toBe(1);
    expect((await rest(app, 'GET', '/api/org', { auth: d.both.auth })).body).toMatchObject({ id: 1 });
    // a member of nothing: not let in anywhere until added to an organization
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: d.only.auth }), 401, 'ORG_NOT_ACCESSIBLE');
    expectOutcome(await rest(app, 'POST', '/api/org/users', { json: { loginOrEmail: d.only.login, role: 'Viewer' } }), 200);
    expect((await rest(app, 'GET', '/api/org', { auth: d.only.auth })).body).toMatchObject({ id: 1 });
  });

  it('audited as org.delete with what went with it', async () => {
    const d = await doomed();
    expectOutcome(await rest(app, 'DELETE', `/api/orgs/${d.id}`), 200);
    const events = await db().auditEvent.findMany({ where: { action: 'org.delete', resourceKind: 'org', resourceId: String(d.id) } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ orgId: 0, actorId: 1, actorKind: 'user', after: null });
    expect(JSON.parse(events[0]?.before ?? '{}')).toMatchObject({
      id: d.id,
      name: d.name,
      members: 3,
      teams: 1,
      serviceAccounts: 1,
      roles: 1,
    });
  });

  it('deleteOrganization does the same on the GraphQL door', async () => {
    const d = await doomed();
    const data = expectData(await app.graphql<{ deleteOrganization: unknown }>(DELETE, { id: d.id }));
    expect(data.deleteOrganization).toEqual({ message: 'Organization deleted' });
    expect(await leftovers(d.id)).toEqual(NOTHING);
  });

  it("400 for the organization the request acts in, with Grafana's text; 404 unknown; 400 bad id; 401", async () => {
    const active = await rest(app, 'DELETE', '/api/orgs/1');
    // pkg/api/org.go DeleteOrgByID (the text grafana-client's tests expect from a server before 12)
    expect(expectOutcome(active, 400, 'CANNOT_DELETE_ACTIVE_ORG')).toBe('Can not delete org for current user');
    expectOutcome(await rest(app, 'DELETE', `/api/orgs/${fx.org2.id}`, { orgId: fx.org2.id }), 400, 'CANNOT_DELETE_ACTIVE_ORG');
    expectGraphqlError(await app.graphql(DELETE, { id: 1 }), 'CANNOT_DELETE_ACTIVE_ORG');
    const unknown = await rest(app, 'DELETE', '/api/orgs/999999');
    expect(expectOutcome(unknown, 404, 'ORG_NOT_FOUND')).toBe('Failed to delete organization. ID not found');
    for (const id of ['abc', '0', '-9999']) expectOutcome(await rest(app, 'DELETE', `/api/orgs/${id}`), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'DELETE', `/api/orgs/${fx.org2.id}`, { auth: null }), 401, 'UNAUTHENTICATED');
    expect(await db().org.count({ where: { id: { in: [1, fx.org2.id] } } })).toBe(2);
  });

  it('403 for org Admins (no orgs:delete), also of the organization itself, and for a holder of orgs:delete who is no Service Admin', async () => {
    const d = await doomed();
    for (const actor of [fx.orgAdmin, d.only]) {
      const out = await rest(app, 'DELETE', `/api/orgs/${d.id}`, { auth: actor.auth });
      expect(expectOutcome(out, 403, 'ACCESS_DENIED')).toBe(
        `You'll need additional permissions to perform this action. Permissions needed: orgs:delete`,
      );
      const gqlDenial = await app.graphql(DELETE, { id: d.id }, { auth: actor.auth });
      expectGraphqlError(gqlDenial, 'ACCESS_DENIED');
      expect(gqlDenial.body.errors?.[0]?.extensions).toMatchObject({ details: { needed: `action: orgs:delete scopes: orgs:id:${d.id}` } });
    }
    const deleter = await createUser(app, unique('deleter'), { orgRole: 'Admin', permissions: [p('orgs:delete', 'orgs:*')] });
    const out = await rest(app, 'DELETE', `/api/orgs/${d.id}`, { auth: deleter.auth });
    expect(expectOutcome(out, 403, 'ACCESS_DENIED')).toContain('Service Admin');
    expect(await db().org.findUnique({ where: { id: d.id } })).not.toBeNull();
    expect((await leftovers(d.id)).members).toBe(4);
    await mustGraphql(app, DELETE, { id: d.id });
  });
});
