/**
 * Users over GraphQL: createUser, updateUser, deleteUser, users, user — every success and error
 * path, passwords never returned, service accounts never pass basic auth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type Credentials, createTestApp, type TestApp } from '../../helpers/app.js';
import { type Actor, credentials, type Fixtures, mustGraphql, seedFixtures } from '../../helpers/fixtures.js';
import { expectData, expectGraphqlError } from '../../helpers/graphql-assert.js';
import { assignUserRole } from '../../helpers/subjects.js';
import { unique } from './helpers.js';

let app: TestApp;
let fx: Fixtures;

beforeAll(async () => {
  app = await createTestApp();
  fx = await seedFixtures(app);
});
afterAll(() => app.close());

const USER_FIELDS = 'id login email name isServiceAdmin isDisabled created updated orgs { orgId userId role created updated }';
const CREATE = `mutation($input: CreateUserInput!) { createUser(input: $input) { ${USER_FIELDS} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ${USER_FIELDS} } }`;
const DELETE = 'mutation($id: Int!) { deleteUser(id: $id) { message } }';
const USERS = `query($global: Boolean) { users(global: $global) { ${USER_FIELDS} } }`;
const USER = `query($id: Int!) { user(id: $id) { ${USER_FIELDS} } }`;
const WHOAMI = '{ viewer { id login orgId orgRole } }';

type UserData = { id: number; login: string; email: string; name: string; orgs: { orgId: number; role: string }[] };

function newUserInput(overrides: Record<string, unknown> = {}) {
  const login = unique('user');
  return { login, email: `${login}@example.test`, password: `${login}-secret`, ...overrides };
}

async function createUser(overrides: Record<string, unknown> = {}, options: { orgId?: number } = {}): Promise<Actor> {
  const input = newUserInput(overrides);
  const data = await mustGraphql<{ createUser: { id: number } }>(app, CREATE, { input }, options);
  return { id: data.createUser.id, login: input.login as string, email: input.email as string, password: input.password as string };
}

async function whoami(auth: Credentials, orgId?: number) {
  return app.graphql<{ viewer: { id: number; orgId: number; orgRole: string } }>(WHOAMI, {}, { auth, ...(orgId && { orgId }) });
}

describe('createUser', () => {
  it('creates a user in the request organization with the given org role; it can sign in', async () => {
    const input = newUserInput({ name: 'Ada Lovelace', orgRole: 'Editor' });
    const { createUser: user } = expectData(await app.graphql<{ createUser: UserData }>(CREATE, { input }));
    expect(user).toMatchObject({ login: input.login, email: input.email, name: 'Ada Lovelace', isServiceAdmin: false, isDisabled: false });
    expect(user.id).toBeGreaterThan(fx.org2.admin.id);
    expect(user.orgs).toEqual([expect.objectContaining({ orgId: 1, userId: user.id, role: 'Editor' })]);

    const me = expectData(await whoami({ login: input.login, password: input.password as string }));
    expect(me.viewer).toMatchObject({ id: user.id, orgId: 1, orgRole: 'Editor' });
    // email works as the basic-auth login too
    expect(expectData(await whoami({ login: input.email, password: input.password as string })).viewer.id).toBe(user.id);
  });

  it('defaults the org role to Viewer', async () => {
    const { createUser: user } = expectData(await app.graphql<{ createUser: UserData }>(CREATE, { input: newUserInput() }));
    expect(user.orgs).toEqual([expect.objectContaining({ orgId: 1, role: 'Viewer' })]);
  });

  it('joins the organization named by X-Service-Org-Id, which becomes the default organization', async () => {
    const user = await createUser({ orgRole: 'Editor' }, { orgId: fx.org2.id });
    const me = expectData(await whoami(credentials(user)));
    expect(me.viewer).toMatchObject({ id: user.id, orgId: fx.org2.id, orgRole: 'Editor' });
    expectGraphqlError(await whoami(credentials(user), 1), 'ORG_NOT_ACCESSIBLE');
  });

  it('lets a Service Admin create another Service Admin', async () => {
    const { createUser: user } = expectData(
      await app.graphql<{ createUser: UserData & { isServiceAdmin: boolean } }>(CREATE, { input: newUserInput({ isServiceAdmin: true }) }),
    );
    expect(user.isServiceAdmin).toBe(true);
  });

  it.each([
    { field: 'login', input: { login: '' }, message: /login/ },
    { field: 'login', input: { login: 'two words' }, message: /login/ },
    { field: 'login', input: { login: 'a:b' }, message: /login/ },
    { field: 'login', input: { login: 'api_key' }, message: /reserved/ },
    { field: 'login', input: { login: 'x'.repeat(191) }, message: /login/ },
    { field: 'email', input: { email: 'not-an-email' }, message: /email/ },
    { field: 'email', input: { email: '' }, message: /email/ },
    { field: 'password', input: { password: 'abc' }, message: /password/ },
    { field: 'name', input: { name: 'n'.repeat(191) }, message: /name/ },
  ])('400 when $field is invalid ($input)', async ({ input, message }) => {
    const before = await app.database.prisma.user.count();
    const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput(input) }), 'VALIDATION_FAILED');
    expect(msg).toMatch(message);
    expect(await app.database.prisma.user.count()).toBe(before);
  });

  it('401 without credentials, 401 with a wrong password', async () => {
    expectGraphqlError(await app.graphql(CREATE, { input: newUserInput() }, { auth: null }), 'UNAUTHENTICATED');
    expectGraphqlError(
      await app.graphql(CREATE, { input: newUserInput() }, { auth: { login: 'admin', password: 'nope' } }),
      'INVALID_CREDENTIALS',
    );
  });

  it('403 for callers without users:create (org Admin, Editor, Viewer)', async () => {
    for (const actor of [fx.orgAdmin, fx.editor, fx.viewer]) {
      const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput() }, { auth: credentials(actor) }), 'ACCESS_DENIED');
      expect(msg).toContain('users:create');
    }
  });

  it('403 for a user writer who is no Service Admin: no Service Admin flag, no org role above its own', async () => {
    const writer = await createUser({ orgRole: 'Viewer' });
    await assignUserRole(app, writer.id, 'fixed:users:writer', 0);
    const auth = credentials(writer);
    const ok = expectData(await app.graphql<{ createUser: UserData }>(CREATE, { input: newUserInput({ orgRole: 'Viewer' }) }, { auth }));
    expect(ok.createUser.orgs[0]?.role).toBe('Viewer');
    expectGraphqlError(await app.graphql(CREATE, { input: newUserInput({ isServiceAdmin: true }) }, { auth }), 'ACCESS_DENIED');
    const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput({ orgRole: 'Admin' }) }, { auth }), 'ACCESS_DENIED');
    expect(msg).toMatch(/higher than/);
  });

  it('409 when the login or the email is taken, also crosswise (basic auth accepts either)', async () => {
    const taken = await createUser();
    const before = await app.database.prisma.user.count();
    for (const input of [{ login: taken.login }, { email: taken.email }, { login: taken.email }]) {
      const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput(input) }), 'ALREADY_EXISTS');
      expect(msg).toContain('already exists');
    }
    expect(await app.database.prisma.user.count()).toBe(before);
  });
});

describe('passwords', () => {
  it('are never returned: no output field names a password or hash, and no response contains one', async () => {
    const schema = expectData(
      await app.graphql<{ __schema: { types: { name: string; kind: string; fields: { name: string }[] | null }[] } }>(
        '{ __schema { types { name kind fields { name } } } }',
      ),
    );
    const outputFields = schema.__schema.types
      .filter((t) => t.kind === 'OBJECT' && !t.name.startsWith('__'))
      .flatMap((t) => (t.fields ?? []).map((f) => `${t.name}.${f.name}`));
    expect(outputFields.length).toBeGreaterThan(20);
    expect(outputFields.filter((f) => /password|hash/i.test(f))).toEqual([]);

    const user = await createUser();
    const responses = [
      await app.graphql(USER, { id: user.id }),
      await app.graphql(USERS, {}),
      await app.graphql(USERS, { global: true }),
      await app.graphql(UPDATE, { id: user.id, input: { password: 'another-secret' } }),
      await app.graphql(`{ teams { members { ${USER_FIELDS} } } }`),
    ];
    const stored = await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    for (const res of responses) {
      const text = JSON.stringify(res.body);
      expect(res.body.errors).toBeUndefined();
      expect(text).not.toContain(user.password);
      expect(text).not.toContain('another-secret');
      expect(text).not.toContain('$argon2');
      expect(text).not.toContain(stored.passwordHash);
    }
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
  });
});

describe('users', () => {
  it('lists the members of the current organization, people only, to any org role', async () => {
    for (const actor of [fx.viewer, fx.editor, fx.orgAdmin]) {
      const { users } = expectData(await app.graphql<{ users: UserData[] }>(USERS, {}, { auth: credentials(actor) }));
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
    expectGraphqlError(await app.graphql(USERS, { global: true }, { auth: credentials(fx.orgAdmin) }), 'ACCESS_DENIED');
  });

  it('401 without credentials', async () => {
    expectGraphqlError(await app.graphql(USERS, {}, { auth: null }), 'UNAUTHENTICATED');
  });

  it('403 for a member with org role None', async () => {
    const none = await createUser({ orgRole: 'None' });
    expectGraphqlError(await app.graphql(USERS, {}, { auth: credentials(none) }), 'ACCESS_DENIED');
  });
});

describe('user', () => {
  it('returns a member of the current organization', async () => {
    const { user } = expectData(await app.graphql<{ user: UserData }>(USER, { id: fx.editor.id }, { auth: credentials(fx.viewer) }));
    expect(user).toMatchObject({ id: fx.editor.id, login: 'editor', email: fx.editor.email, orgs: [{ orgId: 1, role: 'Editor' }] });
  });

  it("shows only the current organization's membership, all of them to a Service Admin", async () => {
    const asViewer = expectData(await app.graphql<{ user: UserData }>(USER, { id: 1 }, { auth: credentials(fx.viewer) }));
    expect(asViewer.user.orgs.map((m) => m.orgId)).toEqual([1]);
    const asAdmin = expectData(await app.graphql<{ user: UserData }>(USER, { id: 1 }));
    expect(asAdmin.user.orgs.map((m) => m.orgId)).toEqual([1, fx.org2.id]);
  });

  it('404 for an unknown id, a service account, or a user of another organization; 400 for id 0', async () => {
    const auth = credentials(fx.orgAdmin);
    expectGraphqlError(await app.graphql(USER, { id: 999_999 }, { auth }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(USER, { id: fx.serviceAccount.id }, { auth }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(USER, { id: fx.org2.admin.id }, { auth }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(USER, { id: 0 }, { auth }), 'VALIDATION_FAILED');
    // a Service Admin sees every user
    expect(expectData(await app.graphql<{ user: UserData }>(USER, { id: fx.org2.admin.id })).user.login).toBe(fx.org2.admin.login);
  });

  it('401 without credentials, 403 for org role None', async () => {
    expectGraphqlError(await app.graphql(USER, { id: 1 }, { auth: null }), 'UNAUTHENTICATED');
    const none = await createUser({ orgRole: 'None' });
    expectGraphqlError(await app.graphql(USER, { id: 1 }, { auth: credentials(none) }), 'ACCESS_DENIED');
  });
});

describe('updateUser', () => {
  it('changes login, email, name and password; the new password works, the old one does not', async () => {
    const user = await createUser();
    const login = unique('renamed');
    const input = { login, email: `${login}@example.test`, name: 'Renamed', password: 'brand-new-secret' };
    const { updateUser } = expectData(await app.graphql<{ updateUser: UserData }>(UPDATE, { id: user.id, input }));
    expect(updateUser).toMatchObject({ id: user.id, login, email: input.email, name: 'Renamed' });
    expect(expectData(await whoami({ login, password: 'brand-new-secret' })).viewer.id).toBe(user.id);
    expectGraphqlError(await whoami({ login, password: user.password }), 'INVALID_CREDENTIALS');
  });

  it('keeps omitted fields', async () => {
    const user = await createUser({ name: 'Kept' });
    const { updateUser } = expectData(await app.graphql<{ updateUser: UserData }>(UPDATE, { id: user.id, input: {} }));
    expect(updateUser).toMatchObject({ login: user.login, email: user.email, name: 'Kept' });
    expect(expectData(await whoami(credentials(user))).viewer.id).toBe(user.id);
  });

  it('grants and revokes Service Admin; the change shows on the very next request', async () => {
    const user = await createUser();
    const auth = credentials(user);
    expectGraphqlError(await app.graphql(USERS, { global: true }, { auth }), 'ACCESS_DENIED');
    expectData(await app.graphql(UPDATE, { id: user.id, input: { isServiceAdmin: true } }));
    expectData(await app.graphql(USERS, { global: true }, { auth }));
    expectData(await app.graphql(UPDATE, { id: user.id, input: { isServiceAdmin: false } }));
    expectGraphqlError(await app.graphql(USERS, { global: true }, { auth }), 'ACCESS_DENIED');
  });

  it('400 for bad fields, 400 when the last Service Admin would lose the flag', async () => {
    const user = await createUser();
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
    const user = await createUser();
    expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { name: 'x' } }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.editor, fx.viewer]) {
      expectGraphqlError(await app.graphql(UPDATE, { id: user.id, input: { name: 'x' } }, { auth: credentials(actor) }), 'ACCESS_DENIED');
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
    const user = await createUser({ orgRole: 'Editor' });
    await mustGraphql(app, 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }', { t: fx.team.id, u: user.id });
    expect(expectData(await app.graphql<{ deleteUser: { message: string } }>(DELETE, { id: user.id })).deleteUser.message).toBe(
      'User deleted',
    );
    expectGraphqlError(await app.graphql(USER, { id: user.id }), 'USER_NOT_FOUND');
    expectGraphqlError(await whoami(credentials(user)), 'INVALID_CREDENTIALS');
    expect(await app.database.prisma.orgUser.count({ where: { userId: user.id } })).toBe(0);
    expect(await app.database.prisma.teamMember.count({ where: { userId: user.id } })).toBe(0);
  });

  it('401, 403 (org Admin and below), 404 (unknown, service account), 400 (bad id)', async () => {
    const user = await createUser();
    expectGraphqlError(await app.graphql(DELETE, { id: user.id }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.editor, fx.viewer]) {
      expectGraphqlError(await app.graphql(DELETE, { id: user.id }, { auth: credentials(actor) }), 'ACCESS_DENIED');
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
      expectGraphqlError(await whoami({ login: fx.serviceAccount.login, password }), 'INVALID_CREDENTIALS');
    }
    const res = await app.request('/api/access-control/status', { auth: { login: fx.serviceAccount.login, password: 'x' } });
    expect(res.status).toBe(401);
  });
});
