/**
 * The server administrator's user routes, Grafana's paths (POST /api/admin/users, DELETE
 * /api/admin/users/:id, PUT .../password, PUT .../permissions, POST .../disable and .../enable),
 * each next to its GraphQL twin: every status, the sessions each change ends or narrows, the
 * last Service Admin, and the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { auditOf } from '../support/effects.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createRole, createUser, createUserViaGraphql, p, SUBJECT_PASSWORD, unique } from '../support/subjects.js';
import {
  CREATE,
  DELETE,
  DISABLE,
  ENABLE,
  SET_PASSWORD,
  SET_SERVICE_ADMIN,
  sessionStatus,
  signIn,
  UPDATE,
  USER,
  USER_GLOBAL,
  whoami,
} from './user-operations.js';

useSeededApp();

/** Whether `auth` still authenticates (a GraphQL viewer query). */
async function canSignIn(auth: Credentials): Promise<boolean> {
  return (await whoami(app, auth)).status === 200;
}

/** A user with a local password and a live session; `auth` signs it in with basic auth. */
async function userWithSession(orgRole = 'Viewer') {
  const user = await createUserViaGraphql(app, { orgRole });
  return { ...user, token: await signIn(app, user.login, user.password) };
}

describe('POST /api/admin/users', () => {
  it('creates a user in the organization acted in as Viewer: {id, message: "User created"}; it can sign in', async () => {
    const login = unique('adm');
    const body = { name: 'Created Here', email: `${login}@example.test`, login, password: 'pw-1234' };
    const out = await rest(app, 'POST', '/api/admin/users', { json: body });
    expectOutcome(out, 200);
    const { id } = out.body as { id: number };
    expect(out.body).toEqual({ id: expect.any(Number), message: 'User created' });
    expect(await app.database.prisma.orgUser.findMany({ where: { userId: id }, select: { orgId: true, role: true } })).toEqual([
      { orgId: 1, role: 'Viewer' },
    ]);
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id } })).toMatchObject({
      name: 'Created Here',
      isServiceAdmin: false,
    });
    expect(await canSignIn({ login, password: 'pw-1234' })).toBe(true);
    const [event] = await auditOf(app, 'user.create', id);
    expect(event).toMatchObject({ orgId: 0, actorId: 1, actorLogin: 'admin' });
    expect(JSON.stringify(event?.after)).not.toMatch(/argon2|pw-1234/);
    expect(event?.after).toMatchObject({ login, membership: { orgId: 1, role: 'Viewer' } });
  });

  it('joins OrgId (or orgId), which becomes the default organization', async () => {
    for (const key of ['OrgId', 'orgId']) {
      const login = unique('in-org2');
      const out = await rest(app, 'POST', '/api/admin/users', {
        json: { email: `${login}@example.test`, login, password: 'pw-1234', [key]: fx.org2.id },
      });
      expectOutcome(out, 200);
      const me = await whoami(app, { login, password: 'pw-1234' });
      expect(me.body.data?.viewer).toMatchObject({ orgId: fx.org2.id, orgRole: 'Viewer' });
    }
  });

  it('falls back as Grafana: login from the email, the email from the login', async () => {
    const email = `${unique('only-mail')}@example.test`;
    const byEmail = await rest(app, 'POST', '/api/admin/users', { json: { email, password: 'pw-1234' } });
    expectOutcome(byEmail, 200);
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: (byEmail.body as { id: number }).id } })).toMatchObject({
      login: email,
      email,
    });
    const login = unique('only-login');
    const byLogin = await rest(app, 'POST', '/api/admin/users', { json: { login, password: 'pw-1234' } });
    expectOutcome(byLogin, 200);
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: (byLogin.body as { id: number }).id } })).toMatchObject({
      login,
      email: login,
    });
  });

  it.each([
    { case: 'neither login nor email', json: { password: 'pw-1234' }, message: /either username or email/ },
    { case: 'a short password', json: { login: 'short-pw', password: 'abc' }, message: /password/ },
    { case: 'no password', json: { login: 'no-pw' }, message: /password/ },
    { case: 'a bad email', json: { login: 'bad-mail', email: 'not-mail', password: 'pw-1234' }, message: /email/ },
    { case: 'a bad login', json: { login: 'two words', password: 'pw-1234' }, message: /login/ },
    { case: 'an unknown OrgId', json: { login: 'lost', password: 'pw-1234', OrgId: 999 }, message: /organization 999 not found/ },
    { case: 'an array', json: [], message: /object/ },
  ])('400 for $case', async ({ json, message }) => {
    const before = await app.database.prisma.user.count();
    const msg = expectOutcome(await rest(app, 'POST', '/api/admin/users', { json }), 400, 'VALIDATION_FAILED');
    expect(msg).toMatch(message);
    expect(await app.database.prisma.user.count()).toBe(before);
  });

  it("412 when the login or email is taken (Grafana's admin creation), on both doors", async () => {
    const taken = await createUserViaGraphql(app);
    for (const json of [
      { login: taken.login, email: `${unique('x')}@example.test`, password: 'pw-1234' },
      { login: unique('y'), email: taken.email, password: 'pw-1234' },
      { login: taken.email, password: 'pw-1234' },
    ]) {
      const msg = expectOutcome(await rest(app, 'POST', '/api/admin/users', { json }), 412, 'USER_ALREADY_EXISTS');
      expect(msg).toMatch(/^User with email '.*' or username '.*' already exists$/);
    }
    const input = { login: taken.login, email: `${unique('z')}@example.test`, password: 'pw-1234' };
    expectOutcome(await gql(app, CREATE, { input }), 412, 'USER_ALREADY_EXISTS');
  });

  it('401; 403 without users:create; a user writer who is no Service Admin stays in its organization', async () => {
    const json = { login: unique('denied'), password: 'pw-1234' };
    expectOutcome(await rest(app, 'POST', '/api/admin/users', { json, auth: null }), 401, 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.viewer]) {
      const msg = expectOutcome(await rest(app, 'POST', '/api/admin/users', { json, auth: actor.auth }), 403, 'ACCESS_DENIED');
      expect(msg).toContain('users:create');
    }
    const writer = await createUserViaGraphql(app);
    await assignUserRole(app, writer.id, 'fixed:users:writer', 0);
    expectOutcome(await rest(app, 'POST', '/api/admin/users', { json, auth: writer.auth }), 200);
    const elsewhere = { login: unique('elsewhere'), password: 'pw-1234', OrgId: fx.org2.id };
    expectOutcome(await rest(app, 'POST', '/api/admin/users', { json: elsewhere, auth: writer.auth }), 403, 'ACCESS_DENIED');
    // createUser applies the same rule through orgId
    const input = { login: unique('elsewhere'), email: `${unique('e')}@example.test`, password: 'pw-1234', orgId: fx.org2.id };
    expectOutcome(await gql(app, CREATE, { input }, { auth: writer.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, CREATE, { input }), 200);
  });
});

describe('DELETE /api/admin/users/:id and deleteUser', () => {
  it('deletes the user, its memberships and sessions: {"message":"User deleted"}', async () => {
    const user = await userWithSession('Editor');
    const out = await rest(app, 'DELETE', `/api/admin/users/${user.id}`);
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User deleted' });
    expect(await sessionStatus(app, user.token)).toBe(401);
    expect(await canSignIn(user.auth)).toBe(false);
    expect(await app.database.prisma.orgUser.count({ where: { userId: user.id } })).toBe(0);
    expectOutcome(await rest(app, 'DELETE', `/api/admin/users/${user.id}`), 404, 'USER_NOT_FOUND');
    const [event] = await auditOf(app, 'user.delete', user.id);
    expect(event?.before).toMatchObject({ id: user.id, login: user.login });
  });

  it('401, 403 (org Admin), 404 (unknown, service account), 400, on both doors', async () => {
    const user = await createUserViaGraphql(app);
    expectOutcome(await rest(app, 'DELETE', `/api/admin/users/${user.id}`, { auth: null }), 401, 'UNAUTHENTICATED');
    const msg = expectOutcome(await rest(app, 'DELETE', `/api/admin/users/${user.id}`, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expect(msg).toBe(`You'll need additional permissions to perform this action. Permissions needed: users:delete`);
    const gqlDenial = await gql(app, DELETE, { id: user.id }, { auth: fx.orgAdmin.auth });
    expectOutcome(gqlDenial, 403, 'ACCESS_DENIED');
    expect(gqlDenial.body).toMatchObject({
      errors: [{ extensions: { details: { needed: `action: users:delete scopes: global.users:id:${user.id}` } } }],
    });
    expectOutcome(await rest(app, 'DELETE', `/api/admin/users/${fx.serviceAccount.id}`), 404, 'USER_NOT_FOUND');
    expectOutcome(await gql(app, DELETE, { id: fx.serviceAccount.id }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'DELETE', '/api/admin/users/abc'), 400, 'VALIDATION_FAILED');
    expect(await app.database.prisma.user.count({ where: { id: { in: [user.id, fx.serviceAccount.id] } } })).toBe(2);
    expect(await auditOf(app, 'user.delete', user.id)).toEqual([]);
  });
});

describe('PUT /api/admin/users/:id/password and setUserPassword', () => {
  it('sets the password: the new one works, the old one not, and the sessions end', async () => {
    const user = await userWithSession();
    const out = await rest(app, 'PUT', `/api/admin/users/${user.id}/password`, { json: { password: 'new-secret-1' } });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User password updated' });
    expect(await sessionStatus(app, user.token)).toBe(401);
    expect(await canSignIn({ login: user.login, password: 'new-secret-1' })).toBe(true);
    expect(await canSignIn(user.auth)).toBe(false);
    const stored = await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    const [event] = await auditOf(app, 'user.password_set', user.id);
    expect(event?.after).toEqual({ sessionsEnded: 1 });

    const graphql = await gql(app, SET_PASSWORD, { id: user.id, password: 'newer-secret-2' });
    expect(graphql.data?.setUserPassword).toEqual({ message: 'User password updated' });
    expect(await canSignIn({ login: user.login, password: 'newer-secret-2' })).toBe(true);
  });

  it("keeps the caller's own session when it sets its own password", async () => {
    const self = await createUser(app, unique('self'), { isServiceAdmin: true, orgRole: 'Admin' });
    const mine = await signIn(app, self.login, SUBJECT_PASSWORD);
    const other = await signIn(app, self.login, SUBJECT_PASSWORD);
    const res = await app.request(`/api/admin/users/${self.id}/password`, {
      method: 'PUT',
      auth: null,
      headers: { cookie: `portcullis_session=${mine}`, 'content-type': 'application/json' },
      body: JSON.stringify({ password: 'mine-only-1' }),
    });
    expect(res.status).toBe(200);
    expect(await sessionStatus(app, mine)).toBe(200);
    expect(await sessionStatus(app, other)).toBe(401);
  });

  it('400 for a short or missing password, and for an LDAP or OAuth user (PASSWORD_MANAGED_EXTERNALLY)', async () => {
    const user = await createUserViaGraphql(app);
    expectOutcome(await rest(app, 'PUT', `/api/admin/users/${user.id}/password`, { json: { password: 'abc' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', `/api/admin/users/${user.id}/password`, { json: {} }), 400, 'VALIDATION_FAILED');
    expectOutcome(await gql(app, SET_PASSWORD, { id: user.id, password: 'abc' }), 400, 'VALIDATION_FAILED');
    const ldap = await createUser(app, unique('ldap-pw'));
    await app.database.prisma.user.update({ where: { id: ldap.id }, data: { authModule: 'ldap', passwordHash: null } });
    const json = { password: 'local-1234' };
    expectOutcome(await rest(app, 'PUT', `/api/admin/users/${ldap.id}/password`, { json }), 400, 'PASSWORD_MANAGED_EXTERNALLY');
    expectOutcome(await gql(app, SET_PASSWORD, { id: ldap.id, password: 'local-1234' }), 400, 'PASSWORD_MANAGED_EXTERNALLY');
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: ldap.id } })).passwordHash).toBeNull();
  });

  it('needs users.password:write: users:write alone may not set one, on either door', async () => {
    const target = await createUserViaGraphql(app);
    const writer = await createUser(app, unique('profile-writer'), {
      permissions: [p('users:write', 'global.users:*')],
    });
    const msg = expectOutcome(
      await rest(app, 'PUT', `/api/admin/users/${target.id}/password`, { json: { password: 'pw-9999' }, auth: writer.auth }),
      403,
      'ACCESS_DENIED',
    );
    expect(msg).toBe(`You'll need additional permissions to perform this action. Permissions needed: users.password:write`);
    const gqlDenial = await gql(app, SET_PASSWORD, { id: target.id, password: 'pw-9999' }, { auth: writer.auth });
    expectOutcome(gqlDenial, 403, 'ACCESS_DENIED');
    expect(gqlDenial.body).toMatchObject({
      errors: [{ extensions: { details: { needed: `action: users.password:write scopes: global.users:id:${target.id}` } } }],
    });
    expectOutcome(await gql(app, UPDATE, { id: target.id, input: { password: 'pw-9999' } }, { auth: writer.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, UPDATE, { id: target.id, input: { name: 'fine' } }, { auth: writer.auth }), 200);
    expect(await canSignIn(target.auth)).toBe(true);
  });

  it('401, 403 (org Admin), 404 (unknown, service account)', async () => {
    const json = { password: 'pw-5678' };
    expectOutcome(await rest(app, 'PUT', '/api/admin/users/1/password', { json, auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(
      await rest(app, 'PUT', `/api/admin/users/${fx.viewer.id}/password`, { json, auth: fx.orgAdmin.auth }),
      403,
      'ACCESS_DENIED',
    );
    expectOutcome(await rest(app, 'PUT', '/api/admin/users/999999/password', { json }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'PUT', `/api/admin/users/${fx.serviceAccount.id}/password`, { json }), 404, 'USER_NOT_FOUND');
    expectOutcome(await gql(app, SET_PASSWORD, { id: 999_999, password: 'pw-5678' }), 404, 'USER_NOT_FOUND');
    expect(await canSignIn(fx.viewer.auth)).toBe(true);
  });
});

describe('PUT /api/admin/users/:id/permissions and setUserServiceAdmin', () => {
  it('grants and revokes the flag; a live session is narrowed on its very next request', async () => {
    const user = await userWithSession();
    const cookie = { auth: null, headers: { cookie: `portcullis_session=${user.token}` } };
    expect((await app.request('/api/users', cookie)).status).toBe(403);
    const out = await rest(app, 'PUT', `/api/admin/users/${user.id}/permissions`, { json: { isGrafanaAdmin: true } });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User permissions updated' });
    expect((await app.request('/api/users', cookie)).status).toBe(200);
    const graphql = await gql(app, SET_SERVICE_ADMIN, { id: user.id, isServiceAdmin: false });
    expect(graphql.data?.setUserServiceAdmin).toEqual({ message: 'User permissions updated' });
    expect((await app.request('/api/users', cookie)).status).toBe(403);
    expect(await sessionStatus(app, user.token)).toBe(200); // narrowed, not ended
    const events = await auditOf(app, 'user.service_admin_set', user.id);
    expect(events.map((e) => [e.before, e.after])).toEqual([
      [{ isServiceAdmin: false }, { isServiceAdmin: true }],
      [{ isServiceAdmin: true }, { isServiceAdmin: false }],
    ]);
  });

  it('400 for a missing or non-boolean isGrafanaAdmin', async () => {
    const user = await createUserViaGraphql(app);
    for (const json of [{}, { isGrafanaAdmin: 'yes' }, { isServiceAdmin: true }]) {
      expectOutcome(await rest(app, 'PUT', `/api/admin/users/${user.id}/permissions`, { json }), 400, 'VALIDATION_FAILED');
    }
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).isServiceAdmin).toBe(false);
  });

  it('needs a Service Admin besides users.permissions:write: fixed:users:writer alone is 403 on both doors', async () => {
    const user = await createUserViaGraphql(app);
    const writer = await createUserViaGraphql(app);
    await assignUserRole(app, writer.id, 'fixed:users:writer', 0);
    const json = { isGrafanaAdmin: true };
    const msg = expectOutcome(
      await rest(app, 'PUT', `/api/admin/users/${user.id}/permissions`, { json, auth: writer.auth }),
      403,
      'ACCESS_DENIED',
    );
    expect(msg).toMatch(/Service Admin/);
    expectOutcome(await gql(app, SET_SERVICE_ADMIN, { id: user.id, isServiceAdmin: true }, { auth: writer.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, UPDATE, { id: user.id, input: { isServiceAdmin: true } }, { auth: writer.auth }), 403, 'ACCESS_DENIED');
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).isServiceAdmin).toBe(false);
    expect(await auditOf(app, 'user.service_admin_set', user.id)).toEqual([]);
  });

  it('401, 403 (org Admin), 404 (unknown, service account)', async () => {
    const json = { isGrafanaAdmin: true };
    expectOutcome(await rest(app, 'PUT', '/api/admin/users/1/permissions', { json, auth: null }), 401, 'UNAUTHENTICATED');
    const msg = expectOutcome(
      await rest(app, 'PUT', `/api/admin/users/${fx.viewer.id}/permissions`, { json, auth: fx.orgAdmin.auth }),
      403,
      'ACCESS_DENIED',
    );
    expect(msg).toBe(`You'll need additional permissions to perform this action. Permissions needed: users.permissions:write`);
    expectOutcome(await rest(app, 'PUT', '/api/admin/users/999999/permissions', { json }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'PUT', `/api/admin/users/${fx.serviceAccount.id}/permissions`, { json }), 404, 'USER_NOT_FOUND');
  });
});

describe('POST /api/admin/users/:id/disable and /enable, disableUser and enableUser', () => {
  it('a disabled user cannot sign in, its sessions end, it keeps its data; enabled, it signs in again', async () => {
    const user = await userWithSession('Editor');
    await app.database.prisma.teamMember.create({ data: { teamId: fx.team.id, userId: user.id, orgId: 1 } });
    const out = await rest(app, 'POST', `/api/admin/users/${user.id}/disable`);
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User disabled' });
    expect(await sessionStatus(app, user.token)).toBe(401);
    expect(await canSignIn(user.auth)).toBe(false);
    const login = await app.request('/login', { method: 'POST', auth: null, json: { user: user.login, password: user.password } });
    expect(login.status).toBe(401);
    expect(await app.database.prisma.orgUser.count({ where: { userId: user.id } })).toBe(1);
    expect(await app.database.prisma.teamMember.count({ where: { userId: user.id } })).toBe(1);
    expect((await gql(app, USER_GLOBAL, { id: user.id })).data?.user).toMatchObject({ isDisabled: true });
    expect((await rest(app, 'GET', `/api/users/${user.id}`)).body).toMatchObject({ isDisabled: true });
    // disabling again changes nothing
    expectOutcome(await rest(app, 'POST', `/api/admin/users/${user.id}/disable`), 200);

    const enabled = await rest(app, 'POST', `/api/admin/users/${user.id}/enable`);
    expectOutcome(enabled, 200);
    expect(enabled.body).toEqual({ message: 'User enabled' });
    expect(await canSignIn(user.auth)).toBe(true);
    expect((await auditOf(app, 'user.disable', user.id)).map((e) => e.after)).toEqual([{ isDisabled: true }, { isDisabled: true }]);
    expect(await auditOf(app, 'user.enable', user.id)).toHaveLength(1);
  });

  it('the GraphQL twins do the same', async () => {
    const user = await createUserViaGraphql(app);
    expect((await gql(app, DISABLE, { id: user.id })).data?.disableUser).toEqual({ message: 'User disabled' });
    expect(await canSignIn(user.auth)).toBe(false);
    expect((await gql(app, ENABLE, { id: user.id })).data?.enableUser).toEqual({ message: 'User enabled' });
    expect(await canSignIn(user.auth)).toBe(true);
  });

  it('a disabled LDAP user is refused too (directory users are disabled here, not by the directory)', async () => {
    const ldap = await createUser(app, unique('ldap-off'));
    const token = await signIn(app, ldap.login, SUBJECT_PASSWORD);
    await app.database.prisma.user.update({ where: { id: ldap.id }, data: { authModule: 'ldap' } });
    expect(await sessionStatus(app, token)).toBe(200);
    expectOutcome(await rest(app, 'POST', `/api/admin/users/${ldap.id}/disable`), 200);
    expect((await app.database.prisma.user.findUniqueOrThrow({ where: { id: ldap.id } })).isDisabled).toBe(true);
    expect(await sessionStatus(app, token)).toBe(401);
  });

  it('401, 403 (org Admin, and users:disable does not enable), 404 (unknown, service account), 400', async () => {
    const user = await createUserViaGraphql(app);
    for (const verb of ['disable', 'enable']) {
      expectOutcome(await rest(app, 'POST', `/api/admin/users/${user.id}/${verb}`, { auth: null }), 401, 'UNAUTHENTICATED');
      const msg = expectOutcome(
        await rest(app, 'POST', `/api/admin/users/${user.id}/${verb}`, { auth: fx.orgAdmin.auth }),
        403,
        'ACCESS_DENIED',
      );
      expect(msg).toBe(`You'll need additional permissions to perform this action. Permissions needed: users:${verb}`);
      expectOutcome(await rest(app, 'POST', `/api/admin/users/999999/${verb}`), 404, 'USER_NOT_FOUND');
      expectOutcome(await rest(app, 'POST', `/api/admin/users/${fx.serviceAccount.id}/${verb}`), 404, 'USER_NOT_FOUND');
      expectOutcome(await rest(app, 'POST', `/api/admin/users/0/${verb}`), 400, 'VALIDATION_FAILED');
    }
    const role = await createRole(app, unique('disabler'), [p('users:disable', 'global.users:*')], { orgId: 0 });
    const disabler = await createUserViaGraphql(app);
    await assignUserRole(app, disabler.id, role.uid, 0);
    expectOutcome(await rest(app, 'POST', `/api/admin/users/${user.id}/disable`, { auth: disabler.auth }), 200);
    expectOutcome(await gql(app, ENABLE, { id: user.id }, { auth: disabler.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, DISABLE, { id: fx.serviceAccount.id }), 404, 'USER_NOT_FOUND');
  });
});

describe('the last enabled Service Admin', () => {
  let solo: TestApp;
  beforeAll(async () => {
    solo = await createTestApp();
  });
  afterAll(() => solo.close());

  it('can be neither demoted, disabled nor deleted, on either door; with another one it can', async () => {
    for (const [method, path, json] of [
      ['PUT', '/api/admin/users/1/permissions', { isGrafanaAdmin: false }],
      ['POST', '/api/admin/users/1/disable', undefined],
      ['DELETE', '/api/admin/users/1', undefined],
    ] as const) {
      const msg = expectOutcome(await rest(solo, method, path, json ? { json } : {}), 400, 'LAST_SERVICE_ADMIN');
      expect(msg).toBe('cannot remove the last Service Admin');
    }
    expectOutcome(await gql(solo, SET_SERVICE_ADMIN, { id: 1, isServiceAdmin: false }), 400, 'LAST_SERVICE_ADMIN');
    expectOutcome(await gql(solo, DISABLE, { id: 1 }), 400, 'LAST_SERVICE_ADMIN');
    expect(await solo.database.prisma.user.findUniqueOrThrow({ where: { id: 1 } })).toMatchObject({
      isServiceAdmin: true,
      isDisabled: false,
    });

    // a disabled Service Admin does not count
    const other = await createUser(solo, 'other-admin', { isServiceAdmin: true, orgRole: 'Admin' });
    expectOutcome(await rest(solo, 'POST', `/api/admin/users/${other.id}/disable`), 200);
    expectOutcome(await rest(solo, 'POST', '/api/admin/users/1/disable'), 400, 'LAST_SERVICE_ADMIN');
    expectOutcome(await rest(solo, 'POST', `/api/admin/users/${other.id}/enable`), 200);
    const asOther = { auth: other.auth };
    expectOutcome(await rest(solo, 'PUT', '/api/admin/users/1/permissions', { json: { isGrafanaAdmin: false }, ...asOther }), 200);
    expect((await gql(solo, USER, { id: 1 }, asOther)).data?.user).toMatchObject({ isServiceAdmin: false });
    expectOutcome(await rest(solo, 'GET', '/api/users', { auth: ADMIN }), 403, 'ACCESS_DENIED');
  });
});
