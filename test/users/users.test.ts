/**
 * Users over GraphQL: users, user, updateUser, deleteUser — every success and error path — and
 * service accounts never passing basic auth. Creating users and passwords: users-create.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN } from '../support/app.js';
import { expectData, expectGraphqlError, mustGraphql } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { createUserViaGraphql, unique } from '../support/subjects.js';
import { DELETE, UPDATE, USER, USERS, type UserData, whoami } from './user-operations.js';

useSeededApp();

describe('users', () => {
  it('lists the members of the current organization, people only, to any org role', async () => {
    for (const actor of [fx.viewer, fx.editor, fx.orgAdmin]) {
      const { users } = expectData(await app.graphql<{ users: UserData[] }>(USERS, {}, { auth: actor.auth }));
      const logins = users.map((u) => u.login);
      expect(logins).toEqual(expect.arrayContaining(['admin', 'org-admin', 'editor', 'viewer']));
      expect(logins).not.toContain(fx.org2.admin.login);
      expect(logins).not.toContain(fx.serviceAccount.login);
      expect(logins).toEqual([...logins].sort());
      // memberships of other organizations stay hidden
      expect(users.flatMap((u) => u.orgs.map((m) => m.orgId))).toEqual(users.map(() => 1));
    }
  });

  it('global: true lists every user to a Service Admin, 403 to others', async () => {
    const { users } = expectData(await app.graphql<{ users: UserData[] }>(USERS, { global: true }));
    const logins = users.map((u) => u.login);
    expect(logins).toEqual(expect.arrayContaining(['admin', 'viewer', fx.org2.admin.login]));
    expect(logins).not.toContain(fx.serviceAccount.login);
    const admin = users.find((u) => u.login === 'admin');
    expect(admin?.orgs.map((m) => m.orgId)).toEqual([1, fx.org2.id]);
    expectGraphqlError(await app.graphql(USERS, { global: true }, { auth: fx.orgAdmin.auth }), 'ACCESS_DENIED');
  });

  it('401 without credentials', async () => {
    expectGraphqlError(await app.graphql(USERS, {}, { auth: null }), 'UNAUTHENTICATED');
  });

  it('403 for a member with org role None', async () => {
    const none = await createUserViaGraphql(app, { orgRole: 'None' });
    expectGraphqlError(await app.graphql(USERS, {}, { auth: none.auth }), 'ACCESS_DENIED');
  });
});

describe('user', () => {
  it('returns a member of the current organization', async () => {
    const { user } = expectData(await app.graphql<{ user: UserData }>(USER, { id: fx.editor.id }, { auth: fx.viewer.auth }));
    expect(user).toMatchObject({ id: fx.editor.id, login: 'editor', email: fx.editor.email, orgs: [{ orgId: 1, role: 'Editor' }] });
  });

  it("shows only the current organization's membership, all of them to a Service Admin", async () => {
    const asViewer = expectData(await app.graphql<{ user: UserData }>(USER, { id: 1 }, { auth: fx.viewer.auth }));
    expect(asViewer.user.orgs.map((m) => m.orgId)).toEqual([1]);
    const asAdmin = expectData(await app.graphql<{ user: UserData }>(USER, { id: 1 }));
    expect(asAdmin.user.orgs.map((m) => m.orgId)).toEqual([1, fx.org2.id]);
  });

  it('404 for an unknown id, a service account, or a user of another organization; 400 for id 0', async () => {
    const auth = fx.orgAdmin.auth;
    expectGraphqlError(await app.graphql(USER, { id: 999_999 }, { auth }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(USER, { id: fx.serviceAccount.id }, { auth }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(USER, { id: fx.org2.admin.id }, { auth }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(USER, { id: 0 }, { auth }), 'VALIDATION_FAILED');
    // a Service Admin sees every user
    expect(expectData(await app.graphql<{ user: UserData }>(USER, { id: fx.org2.admin.id })).user.login).toBe(fx.org2.admin.login);
  });

  it('401 without credentials, 403 for org role None', async () => {
    expectGraphqlError(await app.graphql(USER, { id: 1 }, { auth: null }), 'UNAUTHENTICATED');
    const none = await createUserViaGraphql(app, { orgRole: 'None' });
    expectGraphqlError(await app.graphql(USER, { id: 1 }, { auth: none.auth }), 'ACCESS_DENIED');
  });
});

describe('updateUser', () => {
  it('changes login, email, name and password; the new password works, the old one does not', async () => {
    const user = await createUserViaGraphql(app);
    const login = unique('renamed');
    const input = { login, email: `${login}@example.test`, name: 'Renamed', password: 'brand-new-secret' };
    const { updateUser } = expectData(await app.graphql<{ updateUser: UserData }>(UPDATE, { id: user.id, input }));
    expect(updateUser).toMatchObject({ id: user.id, login, email: input.email, name: 'Renamed' });
    expect(expectData(await whoami(app, { login, password: 'brand-new-secret' })).viewer.id).toBe(user.id);
    expectGraphqlError(await whoami(app, { login, password: user.password }), 'INVALID_CREDENTIALS');
  });

  it('keeps omitted fields', async () => {
    const user = await createUserViaGraphql(app, { input: { name: 'Kept' } });
    const { updateUser } = expectData(await app.graphql<{ updateUser: UserData }>(UPDATE, { id: user.id, input: {} }));
    expect(updateUser).toMatchObject({ login: user.login, email: user.email, name: 'Kept' });
    expect(expectData(await whoami(app, user.auth)).viewer.id).toBe(user.id);
  });

  it('grants and revokes Service Admin; the change shows on the very next request', async () => {
    const user = await createUserViaGraphql(app);
    const auth = user.auth;
    expectGraphqlError(await app.graphql(USERS, { global: true }, { auth }), 'ACCESS_DENIED');
    expectData(await app.graphql(UPDATE, { id: user.id, input: { isServiceAdmin: true } }));
    expectData(await app.graphql(USERS, { global: true }, { auth }));
    expectData(await app.graphql(UPDATE, { id: user.id, input: { isServiceAdmin: false } }));
    expectGraphqlError(await app.graphql(USERS, { global: true }, { auth }), 'ACCESS_DENIED');
  });

  it('400 for bad fields, 400 when the last Service Admin would lose the flag', async () => {
    const user = await createUserViaGraphql(app);
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { email: 'nope' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { password: 'x' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(UPDATE, { id: -1, input: {} }), 'VALIDATION_FAILED');
    // other Service Admins were created above; demote them first so admin is the last one
    const others = await app.database.prisma.user.findMany({ where: { isServiceAdmin: true, id: { not: 1 } } });
    for (const other of others) expectData(await app.graphql(UPDATE, { id: other.id, input: { isServiceAdmin: false } }));
    const msg = expectGraphqlError(await app.graphql(UPDATE, { id: 1, input: { isServiceAdmin: false } }), 'LAST_SERVICE_ADMIN');
    expect(msg).toMatch(/last Service Admin/);
    expectGraphqlError(await app.graphql(DELETE, { id: 1 }), 'LAST_SERVICE_ADMIN');
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: 1 } })).isServiceAdmin).toBe(true);
  });

  it('401, 403 (org Admin and below), 404 (unknown id, service account), 409 (login or email taken)', async () => {
    const user = await createUserViaGraphql(app);
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { name: 'x' } }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.editor, fx.viewer]) {
      expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { name: 'x' } }, { auth: actor.auth }), 'ACCESS_DENIED');
    }
    expectGraphqlError(await app.graphql(UPDATE, { id: 999_999, input: { name: 'x' } }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: fx.serviceAccount.id, input: { name: 'x' } }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { login: 'editor' } }), 'ALREADY_EXISTS');
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { email: fx.viewer.email } }), 'ALREADY_EXISTS');
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { login: fx.viewer.email } }), 'ALREADY_EXISTS');
    // its own login and email are not "taken"
    expectData(await app.graphql(UPDATE, { id: user.id, input: { login: user.login, email: user.email } }));
    const unchanged = await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(unchanged).toMatchObject({ login: user.login, email: user.email, name: '' });
  });
});

describe('deleteUser', () => {
  it('deletes a user with its memberships; it can no longer sign in', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await mustGraphql(app, 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }', { t: fx.team.id, u: user.id });
    expect(expectData(await app.graphql<{ deleteUser: { message: string } }>(DELETE, { id: user.id })).deleteUser.message).toBe(
      'User deleted',
    );
    expectGraphqlError(await app.graphql(USER, { id: user.id }), 'USER_NOT_FOUND');
    expectGraphqlError(await whoami(app, user.auth), 'INVALID_CREDENTIALS');
    expect(await app.database.prisma.orgUser.count({ where: { userId: user.id } })).toBe(0);
    expect(await app.database.prisma.teamMember.count({ where: { userId: user.id } })).toBe(0);
  });

  it('401, 403 (org Admin and below), 404 (unknown, service account), 400 (bad id)', async () => {
    const user = await createUserViaGraphql(app);
    expectGraphqlError(await app.graphql(DELETE, { id: user.id }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.editor, fx.viewer]) {
      expectGraphqlError(await app.graphql(DELETE, { id: user.id }, { auth: actor.auth }), 'ACCESS_DENIED');
    }
    expectGraphqlError(await app.graphql(DELETE, { id: 999_999 }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: fx.serviceAccount.id }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: 0 }), 'VALIDATION_FAILED');
    expect(await app.database.prisma.user.count({ where: { id: { in: [user.id, fx.serviceAccount.id] } } })).toBe(2);
  });
});

describe('service accounts and basic auth', () => {
  it('a service account cannot sign in with basic auth, whatever password it sends', async () => {
    for (const password of ['', 'x', fx.serviceAccount.login, ADMIN.password]) {
      expectGraphqlError(await whoami(app, { login: fx.serviceAccount.login, password }), 'INVALID_CREDENTIALS');
    }
    const res = await app.request('/api/access-control/status', { auth: { login: fx.serviceAccount.login, password: 'x' } });
    expect(res.status).toBe(401);
  });
});
