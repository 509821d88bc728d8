/**
 * Members of organizations over REST, Grafana's paths and OrgUserDTO shape, with their GraphQL
 * twins side by side: GET /api/org/users (+ /lookup, /search), POST /api/org/users,
 * PATCH/DELETE /api/org/users/:userId, and the same under /api/orgs/:orgId/users — every success
 * and error status, filtering by held scopes, the wall, and the audit rows.
 */
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectData, expectGraphqlError, expectOutcome, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { type Actor, assignUserRole, createUser, p, unique } from '../support/subjects.js';

useSeededApp();
let nobody: Actor;
beforeAll(async () => {
  nobody = await createUser(app, 'org-users-none', { orgRole: 'None' });
});

type Member = { orgId: number; userId: number; login: string; email: string; role: string; [k: string]: unknown };

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const membership = (orgId: number, userId: number) =>
  app.database.prisma.orgUser.findUnique({ where: { orgId_userId: { orgId, userId } } });
const audits = (action: string, orgId: number, userId: number) =>
  app.database.prisma.auditEvent.findMany({ where: { action, resourceKind: 'org_user', resourceId: `${orgId}:${userId}` } });

/** A new organization with an Admin, an Editor and a Viewer who belong to it only. */
async function tenant() {
  const org = await app.database.prisma.org.create({ data: { name: unique('Members') } });
  const admin = await createUser(app, unique('m-admin'), { orgId: org.id, orgRole: 'Admin' });
  const editor = await createUser(app, unique('m-editor'), { orgId: org.id, orgRole: 'Editor' });
  const viewer = await createUser(app, unique('m-viewer'), { orgId: org.id, orgRole: 'Viewer' });
  return { id: org.id, admin, editor, viewer };
}

const ORG_USERS =
  'query($orgId: Int, $query: String, $limit: Int) { orgUsers(orgId: $orgId, query: $query, limit: $limit) { orgId userId role user { login } } }';
const ADD = `mutation($orgId: Int, $login: String!, $role: OrgRole!) {
  addOrgUserByLogin(orgId: $orgId, loginOrEmail: $login, role: $role) { orgId userId role }
}`;

describe('GET /api/org/users', () => {
  it("Grafana's OrgUserDTO for every person of the organization, by login; no service accounts; same as orgUsers", async () => {
    const t = await tenant();
    const out = await rest(app, 'GET', '/api/org/users', { auth: t.admin.auth });
    expectOutcome(out, 200);
    const list = out.body as Member[];
    expect(list.map((m) => m.login)).toEqual([t.admin.login, t.editor.login, t.viewer.login].sort());
    const admin = list.find((m) => m.userId === t.admin.id);
    expect(admin).toEqual({
      orgId: t.id,
      userId: t.admin.id,
      email: t.admin.email,
      name: t.admin.login,
      avatarUrl: `/avatar/${md5(t.admin.email)}`,
      login: t.admin.login,
      role: 'Admin',
      lastSeenAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      lastSeenAtAge: '< 1 minute', // the admin making this request
      isDisabled: false,
      authLabels: [],
      isExternallySynced: false,
    });
    const main = (await rest(app, 'GET', '/api/org/users')).body as Member[];
    expect(main.map((m) => m.userId)).not.toContain(fx.serviceAccount.id);
    expect(main.map((m) => m.userId)).toEqual(expect.arrayContaining([1, fx.orgAdmin.id, fx.editor.id, fx.viewer.id]));
    const door = expectData(await app.graphql<{ orgUsers: { userId: number }[] }>(ORG_USERS, {}, { auth: t.admin.auth }));
    expect(door.orgUsers.map((m) => m.userId)).toEqual(list.map((m) => m.userId));
  });

  it('lastSeenAt is the last authenticated request of the user (Grafana last_seen_at); never seen: 10y', async () => {
    const t = await tenant();
    const seen = new Date(Date.now() - 3 * 3600_000);
    await app.database.prisma.user.update({ where: { id: t.editor.id }, data: { lastSeenAt: seen } });
    const members = async () => (await rest(app, 'GET', '/api/org/users', { auth: t.admin.auth })).body as Member[];
    expect((await members()).find((m) => m.userId === t.editor.id)).toMatchObject({ lastSeenAt: seen.toISOString(), lastSeenAtAge: '3h' });
    expect((await members()).find((m) => m.userId === t.viewer.id)).toMatchObject({ lastSeenAtAge: '10y' });
    expectOutcome(await rest(app, 'GET', '/api/user', { auth: t.viewer.auth }), 200);
    await app.services.sessions.seenWritesSettled();
    expect((await members()).find((m) => m.userId === t.viewer.id)).toMatchObject({ lastSeenAtAge: '< 1 minute' });
  });

  it('query matches login, email or name; limit keeps the first ones', async () => {
    const t = await tenant();
    const byLogin = (await rest(app, 'GET', `/api/org/users?query=${t.editor.login.toUpperCase()}`, { auth: t.admin.auth })).body;
    expect((byLogin as Member[]).map((m) => m.userId)).toEqual([t.editor.id]);
    const limited = (await rest(app, 'GET', '/api/org/users?limit=2', { auth: t.admin.auth })).body as Member[];
    expect(limited).toHaveLength(2);
    expect((await rest(app, 'GET', '/api/org/users?query=nobody-is-called-this', { auth: t.admin.auth })).body).toEqual([]);
    const door = expectData(await app.graphql<{ orgUsers: unknown[] }>(ORG_USERS, { limit: 1 }, { auth: t.admin.auth }));
    expect(door.orgUsers).toHaveLength(1);
    // The paging rule of every list (shared/paging.ts): not a number is the default (all), above 1000 is 400.
    expect((await rest(app, 'GET', '/api/org/users?limit=many', { auth: t.admin.auth })).body).toHaveLength(3);
    expectOutcome(await rest(app, 'GET', '/api/org/users?limit=1001', { auth: t.admin.auth }), 400, 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(ORG_USERS, { limit: 1001 }, { auth: t.admin.auth }), 'VALIDATION_FAILED');
  });

  it('lists only the users:id:<id> the caller covers with org.users:read', async () => {
    const t = await tenant();
    const narrow = await createUser(app, unique('narrow'), {
      orgId: t.id,
      orgRole: 'None',
      permissions: [p('org.users:read', `users:id:${t.editor.id}`)],
    });
    const out = await rest(app, 'GET', '/api/org/users', { auth: narrow.auth });
    expect((out.body as Member[]).map((m) => m.userId)).toEqual([t.editor.id]);
  });

  it('/lookup answers [{userId, login, avatarUrl}]; /search pages {totalCount, orgUsers, page, perPage}', async () => {
    const t = await tenant();
    const lookup = (await rest(app, 'GET', '/api/org/users/lookup', { auth: t.admin.auth })).body as Record<string, unknown>[];
    expect(lookup).toContainEqual({ userId: t.viewer.id, login: t.viewer.login, avatarUrl: `/avatar/${md5(t.viewer.email)}` });
    const all = (await rest(app, 'GET', '/api/org/users', { auth: t.admin.auth })).body as Member[];
    const page2 = await rest(app, 'GET', '/api/org/users/search?perpage=2&page=2', { auth: t.admin.auth });
    expect(page2.body).toEqual({ totalCount: 3, orgUsers: all.slice(2), page: 2, perPage: 2 });
    const first = await rest(app, 'GET', '/api/org/users/search', { auth: t.admin.auth });
    expect(first.body).toEqual({ totalCount: 3, orgUsers: all, page: 1, perPage: 1000 });
    const lenient = await rest(app, 'GET', '/api/org/users/search?perpage=-1&page=zero', { auth: t.admin.auth });
    expect(lenient.body).toEqual(first.body);
    expectOutcome(await rest(app, 'GET', '/api/org/users/search?perpage=10000', { auth: t.admin.auth }), 400, 'VALIDATION_FAILED');
  });

  it('401; 403 for org role None naming org.users:read', async () => {
    expectOutcome(await rest(app, 'GET', '/api/org/users', { auth: null }), 401, 'UNAUTHENTICATED');
    for (const path of ['/api/org/users', '/api/org/users/lookup', '/api/org/users/search']) {
      expect(expectOutcome(await rest(app, 'GET', path, { auth: nobody.auth }), 403, 'ACCESS_DENIED')).toContain('org.users:read');
    }
    expectGraphqlError(await app.graphql(ORG_USERS, {}, { auth: nobody.auth }), 'ACCESS_DENIED');
  });
});

describe('GET /api/orgs/:orgId/users', () => {
  it('a Service Admin lists the members of any organization; an org Admin those of the one it acts in', async () => {
    const t = await tenant();
    // The org Admin's own request below marks it seen: made first, so both lists agree.
    expectOutcome(await rest(app, 'GET', '/api/user', { auth: t.admin.auth }), 200);
    await app.services.sessions.seenWritesSettled();
    const out = await rest(app, 'GET', `/api/orgs/${t.id}/users`);
    // logins m-admin-*, m-editor-*, m-viewer-*: in that order
    expect((out.body as Member[]).map((m) => [m.userId, m.role])).toEqual([
      [t.admin.id, 'Admin'],
      [t.editor.id, 'Editor'],
      [t.viewer.id, 'Viewer'],
    ]);
    expect((out.body as Member[]).every((m) => m.orgId === t.id)).toBe(true);
    const own = await rest(app, 'GET', `/api/orgs/${t.id}/users`, { auth: t.admin.auth });
    expect(own.body).toEqual(out.body);
    const search = await rest(app, 'GET', `/api/orgs/${t.id}/users/search?perpage=1`);
    expect(search.body).toMatchObject({ totalCount: 3, page: 1, perPage: 1, orgUsers: [(out.body as Member[])[0]] });
    const door = expectData(await app.graphql<{ orgUsers: { orgId: number }[] }>(ORG_USERS, { orgId: t.id }));
    expect(door.orgUsers).toHaveLength(3);
  });

  it("403 for another organization's members (the wall); 404 for an unknown organization; 400 for a bad id", async () => {
    const t = await tenant();
    for (const path of [`/api/orgs/${t.id}/users`, `/api/orgs/${t.id}/users/search`]) {
      const message = expectOutcome(await rest(app, 'GET', path, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
      expect(message).toContain(`organization ${t.id}`);
    }
    expectGraphqlError(await app.graphql(ORG_USERS, { orgId: t.id }, { auth: fx.orgAdmin.auth }), 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', '/api/orgs/999999/users'), 404, 'ORG_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/orgs/nope/users'), 400, 'VALIDATION_FAILED');
  });
});

describe('POST /api/org/users and /api/orgs/:orgId/users', () => {
  it('a Service Admin adds a user by login or by email: {"message":"User added to organization","userId"}; audited', async () => {
    const t = await tenant();
    const outsider = await createUser(app, unique('outsider'), { orgId: fx.org2.id, orgRole: 'Viewer' });
    const out = await rest(app, 'POST', '/api/org/users', { orgId: t.id, json: { loginOrEmail: outsider.login, role: 'Editor' } });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User added to organization', userId: outsider.id });
    expect((await membership(t.id, outsider.id))?.role).toBe('Editor');
    const [event] = await audits('org_user.add', t.id, outsider.id);
    expect(event).toMatchObject({ orgId: t.id, actorId: 1 });
    expect(JSON.parse(event?.after ?? '{}')).toMatchObject({ orgId: t.id, userId: outsider.id, role: 'Editor' });

    // by email, into an organization the caller does not act in
    const other = await createUser(app, unique('by-email'), { orgId: fx.org2.id });
    const byEmail = await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json: { loginOrEmail: other.email, role: 'Viewer' } });
    expect(byEmail.body).toEqual({ message: 'User added to organization', userId: other.id });

    // GraphQL twin
    const third = await createUser(app, unique('by-graphql'), { orgId: fx.org2.id });
    const door = expectData(await app.graphql<{ addOrgUserByLogin: unknown }>(ADD, { orgId: t.id, login: third.login, role: 'Admin' }));
    expect(door.addOrgUserByLogin).toEqual({ orgId: t.id, userId: third.id, role: 'Admin' });
  });

  it('a user whose default organization it no longer belongs to gets the new one as default', async () => {
    const t = await tenant();
    const stray = await createUser(app, unique('stray'), { orgId: fx.org2.id });
    await app.database.prisma.orgUser.delete({ where: { orgId_userId: { orgId: fx.org2.id, userId: stray.id } } });
    expectOutcome(await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json: { loginOrEmail: stray.login, role: 'Viewer' } }), 200);
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: stray.id } })).orgId).toBe(t.id);
    const keeper = await createUser(app, unique('keeper'), { orgId: fx.org2.id });
    expectOutcome(await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json: { loginOrEmail: keeper.login, role: 'Viewer' } }), 200);
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: keeper.id } })).orgId).toBe(fx.org2.id);
  });

  it('409 "User is already member of this organization"; 404 "User not found" (also for a service account); 400 bad body', async () => {
    const t = await tenant();
    const conflict = await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json: { loginOrEmail: t.editor.login, role: 'Viewer' } });
    expect(expectOutcome(conflict, 409, 'ALREADY_EXISTS')).toBe('User is already member of this organization');
    expect((await membership(t.id, t.editor.id))?.role).toBe('Editor');
    const unknown = await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json: { loginOrEmail: 'nobody-at-all', role: 'Viewer' } });
    expect(expectOutcome(unknown, 404, 'USER_NOT_FOUND')).toBe('User not found');
    const sa = await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json: { loginOrEmail: fx.serviceAccount.login, role: 'Viewer' } });
    expectOutcome(sa, 404, 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(ADD, { orgId: t.id, login: 'nobody-at-all', role: 'Viewer' }), 'USER_NOT_FOUND');
    expectOutcome(
      await rest(app, 'POST', '/api/orgs/999999/users', { json: { loginOrEmail: t.editor.login, role: 'Viewer' } }),
      404,
      'ORG_NOT_FOUND',
    );
    for (const json of [
      { loginOrEmail: t.editor.login },
      { role: 'Viewer' },
      { loginOrEmail: '', role: 'Viewer' },
      { loginOrEmail: 'x', role: 'Owner' },
      'x',
    ]) {
      expectOutcome(await rest(app, 'POST', `/api/orgs/${t.id}/users`, { json }), 400, 'VALIDATION_FAILED');
    }
  });

  it('401; 403 for an org Admin (finding a user by login reaches every user), Editor, None; above-own role; the wall', async () => {
    const t = await tenant();
    const outsider = await createUser(app, unique('wanted'), { orgId: fx.org2.id });
    const json = { loginOrEmail: outsider.login, role: 'Viewer' };
    expectOutcome(await rest(app, 'POST', '/api/org/users', { auth: null, json }), 401, 'UNAUTHENTICATED');
    const message = expectOutcome(await rest(app, 'POST', '/api/org/users', { auth: t.admin.auth, json }), 403, 'ACCESS_DENIED');
    expect(message).toBe(`You'll need additional permissions to perform this action. Permissions needed: all of org.users:add, users:read`);
    // a user that does not exist answers the same: no login is revealed
    expectOutcome(
      await rest(app, 'POST', '/api/org/users', { auth: t.admin.auth, json: { loginOrEmail: 'ghost', role: 'Viewer' } }),
      403,
      'ACCESS_DENIED',
    );
    for (const actor of [t.editor, nobody]) {
      expect(expectOutcome(await rest(app, 'POST', '/api/org/users', { auth: actor.auth, json }), 403, 'ACCESS_DENIED')).toContain(
        'org.users:add',
      );
    }
    expectGraphqlError(await app.graphql(ADD, { login: outsider.login, role: 'Viewer' }, { auth: t.admin.auth }), 'ACCESS_DENIED');

    const manager = await createUser(app, unique('manager'), { orgId: t.id, orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:org.users:writer', t.id);
    await assignUserRole(app, manager.id, 'fixed:users:reader', 0);
    const above = await rest(app, 'POST', '/api/org/users', { auth: manager.auth, json: { ...json, role: 'Admin' } });
    expect(expectOutcome(above, 403, 'ACCESS_DENIED')).toMatch(/higher than/);
    const wall = await rest(app, 'POST', '/api/orgs/1/users', { auth: manager.auth, json });
    expect(expectOutcome(wall, 403, 'ACCESS_DENIED')).toContain('organization 1');
    expect(await membership(t.id, outsider.id)).toBeNull();
    expect(await membership(1, outsider.id)).toBeNull();
    expectOutcome(await rest(app, 'POST', '/api/org/users', { auth: manager.auth, json }), 200);
    expect((await membership(t.id, outsider.id))?.role).toBe('Viewer');
  });
});

describe('PATCH /api/org/users/:userId and /api/orgs/:orgId/users/:userId', () => {
  it('{"message":"Organization user updated"}; the member holds the new role on its next request; audited', async () => {
    const t = await tenant();
    const out = await rest(app, 'PATCH', `/api/org/users/${t.viewer.id}`, { auth: t.admin.auth, json: { role: 'Editor' } });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Organization user updated' });
    expect((await membership(t.id, t.viewer.id))?.role).toBe('Editor');
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: t.viewer.auth }), 200);
    const [event] = await audits('org_user.update', t.id, t.viewer.id);
    expect(JSON.parse(event?.before ?? '{}')).toMatchObject({ role: 'Viewer' });
    expect(JSON.parse(event?.after ?? '{}')).toMatchObject({ role: 'Editor' });
    const byId = await rest(app, 'PATCH', `/api/orgs/${t.id}/users/${t.viewer.id}`, { json: { role: 'None' } });
    expect(byId.body).toEqual({ message: 'Organization user updated' });
    expect((await membership(t.id, t.viewer.id))?.role).toBe('None');
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: t.viewer.auth }), 403, 'ACCESS_DENIED');
  });

  it('400 for the last Admin, a bad role or body; 404 for a non-member; 403 Editor, above-own role, the wall; 401', async () => {
    const t = await tenant();
    const last = await rest(app, 'PATCH', `/api/org/users/${t.admin.id}`, { auth: t.admin.auth, json: { role: 'Editor' } });
    expect(expectOutcome(last, 400, 'LAST_ORG_ADMIN')).toBe('Cannot change role so that there is no organization admin left');
    for (const json of [{}, { role: 'Owner' }, 'Admin']) {
      expectOutcome(await rest(app, 'PATCH', `/api/org/users/${t.viewer.id}`, { auth: t.admin.auth, json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(
      await rest(app, 'PATCH', `/api/org/users/${fx.editor.id}`, { auth: t.admin.auth, json: { role: 'Viewer' } }),
      404,
      'USER_NOT_FOUND',
    );
    expectOutcome(
      await rest(app, 'PATCH', '/api/org/users/abc', { auth: t.admin.auth, json: { role: 'Viewer' } }),
      400,
      'VALIDATION_FAILED',
    );
    const editor = await rest(app, 'PATCH', `/api/org/users/${t.viewer.id}`, { auth: t.editor.auth, json: { role: 'Viewer' } });
    expect(expectOutcome(editor, 403, 'ACCESS_DENIED')).toBe(
      `You'll need additional permissions to perform this action. Permissions needed: org.users:write`,
    );
    const manager = await createUser(app, unique('role-manager'), { orgId: t.id, orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:org.users:writer', t.id);
    const above = await rest(app, 'PATCH', `/api/org/users/${t.viewer.id}`, { auth: manager.auth, json: { role: 'Admin' } });
    expect(expectOutcome(above, 403, 'ACCESS_DENIED')).toMatch(/higher than/);
    const wall = await rest(app, 'PATCH', `/api/orgs/1/users/${fx.viewer.id}`, { auth: t.admin.auth, json: { role: 'Admin' } });
    expectOutcome(wall, 403, 'ACCESS_DENIED');
    expectOutcome(
      await rest(app, 'PATCH', `/api/org/users/${t.viewer.id}`, { auth: null, json: { role: 'Viewer' } }),
      401,
      'UNAUTHENTICATED',
    );
    expect((await membership(t.id, t.admin.id))?.role).toBe('Admin');
    expect((await membership(1, fx.viewer.id))?.role).toBe('Viewer');
    expect(await audits('org_user.update', t.id, t.viewer.id)).toHaveLength(0);
  });
});

describe('DELETE /api/org/users/:userId and /api/orgs/:orgId/users/:userId', () => {
  it('{"message":"User removed from organization"}, with its team memberships and role assignments there; audited as org_user.remove', async () => {
    const t = await tenant();
    const team = await app.database.prisma.team.create({
      data: { orgId: t.id, name: unique('team'), members: { create: { userId: t.editor.id, orgId: t.id } } },
    });
    await assignUserRole(app, t.editor.id, 'fixed:teams:reader', t.id);
    await assignUserRole(app, t.editor.id, 'fixed:users:reader', 0);
    const out = await rest(app, 'DELETE', `/api/org/users/${t.editor.id}`, { auth: t.admin.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User removed from organization' });
    expect(await membership(t.id, t.editor.id)).toBeNull();
    expect(await app.database.prisma.teamMember.count({ where: { teamId: team.id } })).toBe(0);
    // the assignment made in that organization went; the global one (orgId 0) stays
    const assignments = await app.database.prisma.userRole.findMany({ where: { userId: t.editor.id } });
    expect(assignments.map((a) => a.orgId)).toEqual([0]);
    const [event] = await audits('org_user.remove', t.id, t.editor.id);
    expect(JSON.parse(event?.before ?? '{}')).toMatchObject({ role: 'Editor' });
    expect(event?.after).toBeNull();
    const byId = await rest(app, 'DELETE', `/api/orgs/${t.id}/users/${t.viewer.id}`);
    expect(byId.body).toEqual({ message: 'User removed from organization' });
  });

  it('400 "Cannot remove last organization admin"; 404 non-member; 403 Viewer and the wall; 401', async () => {
    const t = await tenant();
    const last = await rest(app, 'DELETE', `/api/org/users/${t.admin.id}`, { auth: t.admin.auth });
    expect(expectOutcome(last, 400, 'LAST_ORG_ADMIN')).toBe('Cannot remove last organization admin');
    expectOutcome(await rest(app, 'DELETE', `/api/orgs/${t.id}/users/${fx.editor.id}`), 404, 'USER_NOT_FOUND');
    const viewer = await rest(app, 'DELETE', `/api/org/users/${t.editor.id}`, { auth: t.viewer.auth });
    expect(expectOutcome(viewer, 403, 'ACCESS_DENIED')).toContain('org.users:remove');
    expectOutcome(await rest(app, 'DELETE', `/api/orgs/1/users/${fx.viewer.id}`, { auth: t.admin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'DELETE', `/api/org/users/${t.editor.id}`, { auth: null }), 401, 'UNAUTHENTICATED');
    expect(await membership(t.id, t.admin.id)).not.toBeNull();
    expect(await membership(t.id, t.editor.id)).not.toBeNull();
    expect(await membership(1, fx.viewer.id)).not.toBeNull();
  });
});
