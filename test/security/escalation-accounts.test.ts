/**
 * Service-account tokens that would mint a higher role, and credential
 * takeover of a stronger account), on both doors: each attack answers 403 ACCESS_DENIED naming
 * what is missing and changes nothing (no token, the old password still signs in, login, email,
 * disabled flag and sessions as they were); the legitimate variants pass.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { type Actor, assignUserRole, createRole, createUser, p, SUBJECT_PASSWORD, unique } from '../support/subjects.js';

useSeededApp();

const CREATE_TOKEN = `mutation($id: Int!, $name: String!) {
  createServiceAccountToken(serviceAccountId: $id, name: $name) { id key } }`;
const SET_PASSWORD = 'mutation($id: Int!, $password: String!) { setUserPassword(id: $id, password: $password) { message } }';
const UPDATE_USER = 'mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id } }';
const DISABLE = 'mutation($id: Int!) { disableUser(id: $id) { message } }';
const DELETE = 'mutation($id: Int!) { deleteUser(id: $id) { message } }';

const tokensOf = (serviceAccountId: number) => app.database.prisma.apiKey.count({ where: { serviceAccountId } });

/** An Editor of org 1 holding fixed:serviceaccounts:writer (the token attacker). */
async function saWriter(): Promise<Actor> {
  const user = await createUser(app, unique('sa-writer'), { orgRole: 'Editor' });
  await assignUserRole(app, user.id, 'fixed:serviceaccounts:writer');
  return user;
}

/** A service account of org 1 with `role`, written straight to the database. */
async function account(role: string): Promise<number> {
  const login = unique('sa');
  const row = await app.database.prisma.user.create({
    data: { login, email: login, name: login, isServiceAccount: true, orgId: 1, orgs: { create: { orgId: 1, role } } },
  });
  app.services.access.invalidate();
  return row.id;
}

describe('service-account tokens', () => {
  it('an Editor cannot mint a token for an Admin service account, on either door; no token is created', async () => {
    const attacker = await saWriter();
    const admin = await account('Admin');
    const viaRest = await rest(app, 'POST', `/api/serviceaccounts/${admin}/tokens`, { auth: attacker.auth, json: { name: 'steal' } });
    expect(expectOutcome(viaRest, 403, 'ACCESS_DENIED')).toContain("Cannot assign a role higher than user's role (Admin is above Editor");
    const viaGraphql = await gql(app, CREATE_TOKEN, { id: admin, name: 'steal-2' }, { auth: attacker.auth });
    expectOutcome(viaGraphql, 403, 'ACCESS_DENIED');
    expect(viaGraphql.data?.createServiceAccountToken ?? null).toBeNull();
    expect(await tokensOf(admin)).toBe(0);
  });

  it('nor for a Viewer account holding a role the Editor could not grant', async () => {
    const attacker = await saWriter();
    const strong = await account('Viewer');
    await assignUserRole(app, strong, 'fixed:users:writer');
    const viaRest = await rest(app, 'POST', `/api/serviceaccounts/${strong}/tokens`, { auth: attacker.auth, json: { name: 'steal' } });
    expect(expectOutcome(viaRest, 403, 'ACCESS_DENIED')).toContain('delegation of users:create');
    expectOutcome(await gql(app, CREATE_TOKEN, { id: strong, name: 'steal' }, { auth: attacker.auth }), 403, 'ACCESS_DENIED');
    expect(await tokensOf(strong)).toBe(0);
  });

  it('legitimate: the Editor mints tokens for an Editor account; the Service Admin for any', async () => {
    const writer = await saWriter();
    const editorAccount = await account('Editor');
    expectOutcome(
      await rest(app, 'POST', `/api/serviceaccounts/${editorAccount}/tokens`, { auth: writer.auth, json: { name: 't1' } }),
      200,
    );
    expectOutcome(await gql(app, CREATE_TOKEN, { id: editorAccount, name: 't2' }, { auth: writer.auth }), 200);
    const admin = await account('Admin');
    expectOutcome(await gql(app, CREATE_TOKEN, { id: admin, name: 't3' }, { auth: ADMIN }), 200);
    expect([await tokensOf(editorAccount), await tokensOf(admin)]).toEqual([2, 1]);
  });
});

/** The takeover attacker: an Editor of org 1, not a Service Admin, holding fixed:users:writer everywhere. */
async function usersWriter(): Promise<Actor> {
  const user = await createUser(app, unique('users-writer'), { orgRole: 'Editor' });
  await assignUserRole(app, user.id, 'fixed:users:writer', 0);
  return user;
}

/** What a takeover would change, read straight from the database. */
async function accountState(id: number) {
  const user = await app.database.prisma.user.findUnique({
    where: { id },
    select: { login: true, email: true, isDisabled: true, passwordHash: true, _count: { select: { sessions: true } } },
  });
  return user;
}

describe('credential takeover', () => {
  it('a users:writer cannot change a Service Admin’s password, login, email, flag, sessions or existence on either door', async () => {
    const attacker = await usersWriter();
    await app.services.sessions.start(fx.admin.id, 'password', { clientIp: '127.0.0.1', userAgent: 'test' });
    const before = await accountState(fx.admin.id);
    const id = fx.admin.id;
    const as = { auth: attacker.auth };
    const attempts = [
      await rest(app, 'PUT', `/api/admin/users/${id}/password`, { ...as, json: { password: 'taken-over' } }),
      await rest(app, 'PUT', `/api/users/${id}`, { ...as, json: { login: 'admin', email: 'attacker@evil.test' } }),
      await rest(app, 'POST', `/api/admin/users/${id}/disable`, as),
      await rest(app, 'POST', `/api/admin/users/${id}/logout`, as),
      await rest(app, 'DELETE', `/api/admin/users/${id}`, as),
      await gql(app, SET_PASSWORD, { id, password: 'taken-over' }, as),
      await gql(app, UPDATE_USER, { id, input: { password: 'taken-over' } }, as),
      await gql(app, UPDATE_USER, { id, input: { email: 'attacker@evil.test' } }, as),
      await gql(app, DISABLE, { id }, as),
      await gql(app, DELETE, { id }, as),
    ];
    for (const out of attempts) expect(expectOutcome(out, 403, 'ACCESS_DENIED')).toContain('Service Admin to');
    expect(await accountState(fx.admin.id)).toEqual(before);
    expect((await rest(app, 'GET', '/api/user', { auth: ADMIN })).status).toBe(200);
    expect((await rest(app, 'GET', '/api/user', { auth: { login: 'admin', password: 'taken-over' } })).status).toBe(401);
  });

  it('nor a stronger account that is no Service Admin: an org Admin, one holding a role it lacks, another organization’s Admin', async () => {
    const attacker = await usersWriter();
    const special = await createUser(app, unique('special'), { orgRole: 'Viewer', permissions: [p('billing:write', 'billing:*')] });
    const cases = [
      { id: fx.orgAdmin.id, text: 'Admin is above Editor in organization 1' },
      { id: special.id, text: 'delegation of billing:write on billing:* in organization 1' },
      { id: fx.org2.admin.id, text: `Admin is above None in organization ${fx.org2.id}` },
    ];
    for (const { id, text } of cases) {
      const before = await accountState(id);
      const viaRest = await rest(app, 'PUT', `/api/admin/users/${id}/password`, { auth: attacker.auth, json: { password: 'taken-over' } });
      expect(expectOutcome(viaRest, 403, 'ACCESS_DENIED')).toContain(text);
      const viaGraphql = await gql(app, UPDATE_USER, { id, input: { login: unique('stolen') } }, { auth: attacker.auth });
      expect(expectOutcome(viaGraphql, 403, 'ACCESS_DENIED')).toContain(text);
      expect(await accountState(id)).toEqual(before);
    }
  });

  it('legitimate: a users:writer changes a weaker user’s password (REST) and email (GraphQL); the new password signs in', async () => {
    const writer = await usersWriter();
    const weak = await createUser(app, unique('weak'), { orgRole: 'Viewer' });
    const viaRest = await rest(app, 'PUT', `/api/admin/users/${weak.id}/password`, {
      auth: writer.auth,
      json: { password: 'new-password-1' },
    });
    expectOutcome(viaRest, 200);
    expect((await rest(app, 'GET', '/api/user', { auth: { login: weak.login, password: 'new-password-1' } })).status).toBe(200);
    expect((await rest(app, 'GET', '/api/user', { auth: { login: weak.login, password: SUBJECT_PASSWORD } })).status).toBe(401);
    const viaGraphql = await gql(app, UPDATE_USER, { id: weak.id, input: { email: `${weak.login}@new.test` } }, { auth: writer.auth });
    expectOutcome(viaGraphql, 200);
    expectOutcome(await gql(app, DISABLE, { id: weak.id }, { auth: writer.auth }), 200);
  });

  it('legitimate: the Service Admin sets an org Admin’s password; an escalator (users.roles:add on escalate) a stronger Editor’s', async () => {
    expectOutcome(await gql(app, SET_PASSWORD, { id: fx.orgAdmin.id, password: 'org-admin-new' }, { auth: ADMIN }), 200);
    const role = await createRole(app, unique('esc'), [p('users.roles:add', 'permissions:type:escalate')], { orgId: 0 });
    const escalator = await usersWriter();
    await assignUserRole(app, escalator.id, role.uid, 0);
    const stronger = await createUser(app, unique('stronger'), { orgRole: 'Editor', permissions: [p('billing:write', 'billing:*')] });
    const out = await rest(app, 'PUT', `/api/admin/users/${stronger.id}/password`, {
      auth: escalator.auth,
      json: { password: 'esc-pass' },
    });
    expectOutcome(out, 200);
  });
});
