/**
 * Creating users over GraphQL: createUser — every success and error path — and passwords never
 * returned. Reading, updating and deleting users: users.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { expectData, expectGraphqlError } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createUserViaGraphql, unique } from '../support/subjects.js';
import { CREATE, UPDATE, USER, USER_FIELDS, USERS, type UserData, whoami } from './user-operations.js';

useSeededApp();

function newUserInput(overrides: Record<string, unknown> = {}) {
  const login = unique('user');
  return { login, email: `${login}@example.test`, password: `${login}-secret`, ...overrides };
}

describe('createUser', () => {
  it('creates a user in the request organization with the given org role; it can sign in', async () => {
    const input = newUserInput({ name: 'Ada Lovelace', orgRole: 'Editor' });
    const { createUser: user } = expectData(await app.graphql<{ createUser: UserData }>(CREATE, { input }));
    expect(user).toMatchObject({ login: input.login, email: input.email, name: 'Ada Lovelace', isServiceAdmin: false, isDisabled: false });
    expect(user.id).toBeGreaterThan(fx.org2.admin.id);
    expect(user.orgs).toEqual([expect.objectContaining({ orgId: 1, userId: user.id, role: 'Editor' })]);

    const me = expectData(await whoami(app, { login: input.login, password: input.password as string }));
    expect(me.viewer).toMatchObject({ id: user.id, orgId: 1, orgRole: 'Editor' });
    // email works as the basic-auth login too
    expect(expectData(await whoami(app, { login: input.email, password: input.password as string })).viewer.id).toBe(user.id);
  });

  it('defaults the org role to Viewer', async () => {
    const { createUser: user } = expectData(await app.graphql<{ createUser: UserData }>(CREATE, { input: newUserInput() }));
    expect(user.orgs).toEqual([expect.objectContaining({ orgId: 1, role: 'Viewer' })]);
  });

  it('joins the organization named by X-Service-Org-Id, which becomes the default organization', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Editor', orgId: fx.org2.id });
    const me = expectData(await whoami(app, user.auth));
    expect(me.viewer).toMatchObject({ id: user.id, orgId: fx.org2.id, orgRole: 'Editor' });
    expectGraphqlError(await whoami(app, user.auth, 1), 'ORG_NOT_ACCESSIBLE');
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
      const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput() }, { auth: actor.auth }), 'ACCESS_DENIED');
      expect(msg).toContain('users:create');
    }
  });

  it('403 for a user writer who is no Service Admin: no Service Admin flag, no org role above its own', async () => {
    const writer = await createUserViaGraphql(app, { orgRole: 'Viewer' });
    await assignUserRole(app, writer.id, 'fixed:users:writer', 0);
    const auth = writer.auth;
    const ok = expectData(await app.graphql<{ createUser: UserData }>(CREATE, { input: newUserInput({ orgRole: 'Viewer' }) }, { auth }));
    expect(ok.createUser.orgs[0]?.role).toBe('Viewer');
    expectGraphqlError(await app.graphql(CREATE, { input: newUserInput({ isServiceAdmin: true }) }, { auth }), 'ACCESS_DENIED');
    const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput({ orgRole: 'Admin' }) }, { auth }), 'ACCESS_DENIED');
    expect(msg).toMatch(/higher than/);
  });

  it('412 when the login or the email is taken, also crosswise (basic auth accepts either)', async () => {
    const taken = await createUserViaGraphql(app);
    const before = await app.database.prisma.user.count();
    for (const input of [{ login: taken.login }, { email: taken.email }, { login: taken.email }]) {
      const msg = expectGraphqlError(await app.graphql(CREATE, { input: newUserInput(input) }), 'USER_ALREADY_EXISTS');
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
      // Mutations are operations (setUserPassword takes one), not data a response carries.
      .filter((t) => t.kind === 'OBJECT' && !t.name.startsWith('__') && t.name !== 'Mutation')
      .flatMap((t) => (t.fields ?? []).map((f) => `${t.name}.${f.name}`));
    expect(outputFields.length).toBeGreaterThan(20);
    expect(outputFields.filter((f) => /password|hash/i.test(f))).toEqual([]);

    const user = await createUserViaGraphql(app);
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
