/**
 * The user directory over REST, Grafana's paths and shapes (GET /api/users, /api/users/search,
 * /api/users/lookup, /api/users/:id, /api/users/:id/orgs, /api/users/:id/teams, PUT
 * /api/users/:id), each next to its GraphQL twin: every status, paging, the organization wall.
 * The admin routes (/api/admin/users...): users-admin.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ageString } from '../../src/modules/shared/directory.js';
import { emailAvatar, nameAvatar } from '../support/effects.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createTeam, createUser, createUserViaGraphql, SUBJECT_PASSWORD, unique } from '../support/subjects.js';
import { LOOKUP, signIn, UPDATE, USER, USER_GLOBAL, USER_SEARCH, USER_TEAMS } from './user-operations.js';

useSeededApp();

type Hit = { id: number; login: string; email: string; isAdmin: boolean; lastSeenAt: string; lastSeenAtAge: string };
type SearchPage = { totalCount: number; users: Hit[]; page: number; perPage: number };

/** Grafana's 403 text when users:read (on global.users:*) is missing: its evaluator prints the action only. */
const NEEDS_SEARCH = `You'll need additional permissions to perform this action. Permissions needed: users:read`;

describe('GET /api/users', () => {
  it("answers every person (not service accounts) by login in Grafana's hit shape", async () => {
    const out = await rest(app, 'GET', '/api/users');
    expectOutcome(out, 200);
    const hits = out.body as unknown as Hit[];
    const logins = hits.map((h) => h.login);
    expect(logins).toEqual(expect.arrayContaining(['admin', 'org-admin', 'editor', 'viewer', 'org2-admin']));
    expect(logins).not.toContain(fx.serviceAccount.login);
    expect(logins).toEqual([...logins].sort());
    const admin = hits.find((h) => h.login === 'admin');
    expect(admin).toEqual({
      id: 1,
      name: 'admin',
      login: 'admin',
      email: 'admin@localhost',
      avatarUrl: emailAvatar('admin@localhost'),
      isAdmin: true,
      isDisabled: false,
      lastSeenAt: expect.any(String),
      lastSeenAtAge: '< 1 minute', // the admin made the fixtures' requests (Basic): seen, as in Grafana
      authLabels: [],
    });
    // Nobody signed in as the viewer yet: Grafana's "never seen" (created minus 10 years).
    expect(hits.find((h) => h.login === 'viewer')?.lastSeenAtAge).toBe('10y');
  });

  it('pages with perpage and page, filters with query in login, email or name (any case)', async () => {
    const all = (await rest(app, 'GET', '/api/users')).body as unknown as Hit[];
    const second = await rest(app, 'GET', '/api/users?perpage=2&page=2');
    expect((second.body as unknown as Hit[]).map((h) => h.login)).toEqual(all.slice(2, 4).map((h) => h.login));
    // Grafana reads a bad number as the default
    const lenient = await rest(app, 'GET', '/api/users?perpage=abc&page=-3');
    expect((lenient.body as unknown as Hit[]).length).toBe(all.length);
    const found = await rest(app, 'GET', '/api/users?query=ORG2');
    expect((found.body as unknown as Hit[]).map((h) => h.login)).toEqual(['org2-admin']);
  });

  it('401 without credentials, 403 for org Admin and Viewer, 200 with fixed:users:reader', async () => {
    expectOutcome(await rest(app, 'GET', '/api/users', { auth: null }), 401, 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.viewer]) {
      expect(expectOutcome(await rest(app, 'GET', '/api/users', { auth: actor.auth }), 403, 'ACCESS_DENIED')).toBe(NEEDS_SEARCH);
    }
    const reader = await createUserViaGraphql(app);
    await assignUserRole(app, reader.id, 'fixed:users:reader', 0);
    expectOutcome(await rest(app, 'GET', '/api/users', { auth: reader.auth }), 200);
  });
});

describe('GET /api/users/search and userSearch', () => {
  it('answers {totalCount, users, page, perPage}, the same on both doors', async () => {
    const out = await rest(app, 'GET', '/api/users/search?perpage=3&page=1');
    expectOutcome(out, 200);
    const body = out.body as unknown as SearchPage;
    const total = await app.database.prisma.user.count({ where: { isServiceAccount: false } });
    expect(body).toMatchObject({ totalCount: total, page: 1, perPage: 3 });
    expect(body.users).toHaveLength(3);
    const graphql = await gql(app, USER_SEARCH, { perPage: 3, page: 1 });
    expect(graphql.data?.userSearch).toEqual({
      totalCount: total,
      page: 1,
      perPage: 3,
      users: body.users.map((u) => ({ id: u.id, login: u.login })),
    });
  });

  it('defaults to page 1 of 1000; a page past the end is empty with the total; above 1000 rows is 400 on both doors', async () => {
    const body = (await rest(app, 'GET', '/api/users/search')).body as unknown as SearchPage;
    expect(body).toMatchObject({ page: 1, perPage: 1000 });
    expect(body.users.length).toBe(body.totalCount);
    const past = (await rest(app, 'GET', '/api/users/search?query=editor&page=99&perpage=1000')).body as unknown as SearchPage;
    expect(past).toEqual({ totalCount: 1, users: [], page: 99, perPage: 1000 });
    // The paging rule of every list (src/modules/shared/paging.ts): never silently shortened.
    const big = await rest(app, 'GET', '/api/users/search?perpage=1001');
    expect(expectOutcome(big, 400, 'VALIDATION_FAILED')).toBe('perPage: perPage must be at most 1000');
    expectOutcome(await rest(app, 'GET', '/api/users?perpage=2147483647'), 400, 'VALIDATION_FAILED');
    expectOutcome(await gql(app, USER_SEARCH, { perPage: 1001 }), 400, 'VALIDATION_FAILED');
  });

  it('shows when a user was last seen through a session', async () => {
    const user = await createUser(app, unique('seen'));
    await signIn(app, user.login, SUBJECT_PASSWORD);
    const body = (await rest(app, 'GET', `/api/users/search?query=${user.login}`)).body as unknown as SearchPage;
    expect(body.users[0]?.lastSeenAtAge).toBe('< 1 minute');
    expect(Math.abs(Date.parse(body.users[0]?.lastSeenAt as string) - Date.now())).toBeLessThan(60_000);
  });

  it('400 for a query longer than 190 characters; 401; 403 on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/users/search?query=${'q'.repeat(191)}`), 400, 'VALIDATION_FAILED');
    expectOutcome(await gql(app, USER_SEARCH, { query: 'q'.repeat(191) }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', '/api/users/search', { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'GET', '/api/users/search', { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, USER_SEARCH, {}, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
  });
});

describe('ageString (Grafana GetAgeString)', () => {
  const now = new Date(Date.UTC(2030, 0, 1));
  it.each([
    [0, '< 1 minute'],
    [59, '< 1 minute'],
    [60, '1m'],
    [3_600, '1h'],
    [86_400 * 2, '2d'],
    [86_400 * 31, '1M'],
    [86_400 * 366, '1y'],
    [-60, '< 1 minute'],
  ])('%i seconds ago is %s', (seconds, text) => {
    expect(ageString(new Date(now.getTime() - seconds * 1000), now)).toBe(text);
  });
});

describe('GET /api/users/lookup and userByLoginOrEmail', () => {
  it('finds a user by login or by email', async () => {
    for (const value of ['editor', fx.editor.email]) {
      const out = await rest(app, 'GET', `/api/users/lookup?loginOrEmail=${encodeURIComponent(value)}`);
      expectOutcome(out, 200);
      expect(out.body).toMatchObject({ id: fx.editor.id, login: 'editor', email: fx.editor.email, isGrafanaAdmin: false, orgId: 1 });
      const graphql = await gql(app, LOOKUP, { v: value });
      expect(graphql.data?.userByLoginOrEmail).toEqual({ id: fx.editor.id, login: 'editor', email: fx.editor.email });
    }
  });

  it('404 for nobody, a service account or no parameter; 401; 403 for org Admin', async () => {
    for (const path of [
      '/api/users/lookup?loginOrEmail=nobody',
      `/api/users/lookup?loginOrEmail=${fx.serviceAccount.login}`,
      '/api/users/lookup',
    ]) {
      expect(expectOutcome(await rest(app, 'GET', path), 404, 'USER_NOT_FOUND')).toBe('user not found');
    }
    expectOutcome(await gql(app, LOOKUP, { v: 'nobody' }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/users/lookup?loginOrEmail=admin', { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'GET', '/api/users/lookup?loginOrEmail=admin', { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await gql(app, LOOKUP, { v: 'admin' }, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
  });
});

describe('GET /api/users/:id and user(id, global: true)', () => {
  it("answers Grafana's profile shape", async () => {
    const out = await rest(app, 'GET', `/api/users/${fx.org2.admin.id}`);
    expectOutcome(out, 200);
    expect(out.body).toEqual({
      id: fx.org2.admin.id,
      email: fx.org2.admin.email,
      name: '',
      login: 'org2-admin',
      theme: '',
      orgId: fx.org2.id,
      isGrafanaAdmin: false,
      isDisabled: false,
      isExternal: false,
      isExternallySynced: false,
      isGrafanaAdminExternallySynced: false,
      authLabels: [],
      updatedAt: expect.any(String),
      createdAt: expect.any(String),
      avatarUrl: emailAvatar(fx.org2.admin.email),
    });
  });

  it('labels an LDAP user as external', async () => {
    const ldap = await createUser(app, unique('ldap'));
    await app.database.prisma.user.update({ where: { id: ldap.id }, data: { authModule: 'ldap', passwordHash: null } });
    const out = await rest(app, 'GET', `/api/users/${ldap.id}`);
    expect(out.body).toMatchObject({ isExternal: true, isExternallySynced: true, authLabels: ['LDAP'] });
  });

  it("needs users:read on global.users:id:<id>: org members of the caller's organization answer 403 here, 200 on user(id)", async () => {
    const msg = expectOutcome(await rest(app, 'GET', `/api/users/${fx.editor.id}`, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expect(msg).toBe(NEEDS_SEARCH);
    const gqlDenial = await gql(app, USER_GLOBAL, { id: fx.editor.id }, { auth: fx.orgAdmin.auth });
    expectOutcome(gqlDenial, 403, 'ACCESS_DENIED');
    expect(gqlDenial.body).toMatchObject({
      errors: [{ extensions: { details: { needed: `action: users:read scopes: global.users:id:${fx.editor.id}` } } }],
    });
    expectOutcome(await gql(app, USER, { id: fx.editor.id }, { auth: fx.orgAdmin.auth }), 200);
    const graphql = await gql(app, USER_GLOBAL, { id: fx.org2.admin.id });
    expect(graphql.data?.user).toMatchObject({ id: fx.org2.admin.id, login: 'org2-admin' });
  });

  it('404 for an unknown id or a service account, 400 for a bad id, 401 without credentials', async () => {
    // Grafana's text (pkg/services/user ErrUserNotFound, answered as is by pkg/api/user.go)
    expect(expectOutcome(await rest(app, 'GET', '/api/users/999999'), 404, 'USER_NOT_FOUND')).toBe('user not found');
    expectOutcome(await rest(app, 'GET', `/api/users/${fx.serviceAccount.id}`), 404, 'USER_NOT_FOUND');
    expectOutcome(await gql(app, USER_GLOBAL, { id: fx.serviceAccount.id }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/users/abc'), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', '/api/users/1', { auth: null }), 401, 'UNAUTHENTICATED');
  });
});

describe('PUT /api/users/:id and updateUser', () => {
  it('changes login, email and name: {"message":"User updated"}', async () => {
    const user = await createUserViaGraphql(app);
    const login = unique('put');
    const out = await rest(app, 'PUT', `/api/users/${user.id}`, {
      json: { login, email: `${login}@example.test`, name: 'Put Name', theme: 'light' },
    });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'User updated' });
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
      login,
      email: `${login}@example.test`,
      name: 'Put Name',
    });
    // the password did not change
    expectOutcome(await gql(app, '{ viewer { id } }', {}, { auth: { login, password: user.password } }), 200);
  });

  it('takes the email as login when the login is missing, keeps a missing name; 400 with neither', async () => {
    const user = await createUserViaGraphql(app, { input: { name: 'Kept' } });
    const email = `${unique('mail')}@example.test`;
    expectOutcome(await rest(app, 'PUT', `/api/users/${user.id}`, { json: { email } }), 200);
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
      login: email,
      email,
      name: 'Kept',
    });
    const msg = expectOutcome(await rest(app, 'PUT', `/api/users/${user.id}`, { json: { name: 'x' } }), 400, 'VALIDATION_FAILED');
    expect(msg).toMatch(/either username or email/);
    expectOutcome(
      await rest(app, 'PUT', `/api/users/${user.id}`, { json: { login: user.login, email: 'nope' } }),
      400,
      'VALIDATION_FAILED',
    );
    expectOutcome(await rest(app, 'PUT', `/api/users/${user.id}`, { json: [1] }), 400, 'VALIDATION_FAILED');
  });

  it('ignores password and isServiceAdmin: those have their own routes and permissions', async () => {
    const user = await createUserViaGraphql(app);
    const out = await rest(app, 'PUT', `/api/users/${user.id}`, {
      json: { login: user.login, email: user.email, password: 'sneaky-new', isServiceAdmin: true },
    });
    expectOutcome(out, 200);
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.isServiceAdmin).toBe(false);
    expectOutcome(await gql(app, '{ viewer { id } }', {}, { auth: user.auth }), 200);
  });

  it('409 for a login or email taken by someone else (crosswise), on both doors', async () => {
    const user = await createUserViaGraphql(app);
    for (const json of [{ login: 'editor' }, { login: user.login, email: fx.viewer.email }, { login: fx.viewer.email }]) {
      expectOutcome(await rest(app, 'PUT', `/api/users/${user.id}`, { json }), 409, 'ALREADY_EXISTS');
    }
    expectOutcome(await gql(app, UPDATE, { id: user.id, input: { login: 'editor' } }), 409, 'ALREADY_EXISTS');
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
      login: user.login,
      email: user.email,
    });
  });

  it('403 USER_MANAGED_EXTERNALLY for an LDAP or OAuth user, on both doors', async () => {
    for (const authModule of ['ldap', 'oauth_generic_oauth']) {
      const ext = await createUser(app, unique('ext'));
      await app.database.prisma.user.update({ where: { id: ext.id }, data: { authModule } });
      const msg = expectOutcome(
        await rest(app, 'PUT', `/api/users/${ext.id}`, { json: { login: unique('x') } }),
        403,
        'USER_MANAGED_EXTERNALLY',
      );
      expect(msg).toBe('User info cannot be updated for external Users');
      expectOutcome(await gql(app, UPDATE, { id: ext.id, input: { name: 'x' } }), 403, 'USER_MANAGED_EXTERNALLY');
      expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: ext.id } })).toMatchObject({
        login: ext.login,
        name: ext.login,
      });
    }
  });

  it('401, 403 (org Admin), 404 (unknown, service account), 400 (bad id)', async () => {
    const user = await createUserViaGraphql(app);
    const json = { login: user.login };
    expectOutcome(await rest(app, 'PUT', `/api/users/${user.id}`, { json, auth: null }), 401, 'UNAUTHENTICATED');
    const msg = expectOutcome(await rest(app, 'PUT', `/api/users/${user.id}`, { json, auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expect(msg).toBe(`You'll need additional permissions to perform this action. Permissions needed: users:write`);
    expectOutcome(await rest(app, 'PUT', '/api/users/999999', { json }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'PUT', `/api/users/${fx.serviceAccount.id}`, { json: { login: 'sa-x' } }), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'PUT', '/api/users/0', { json }), 400, 'VALIDATION_FAILED');
  });
});

describe('GET /api/users/:id/orgs', () => {
  it('answers every membership [{orgId, name, role}] by organization', async () => {
    const out = await rest(app, 'GET', '/api/users/1/orgs');
    expectOutcome(out, 200);
    expect(out.body).toEqual([
      { orgId: 1, name: 'Main Org.', role: 'Admin' },
      { orgId: fx.org2.id, name: 'Second Org.', role: 'Admin' },
    ]);
    expect((await rest(app, 'GET', `/api/users/${fx.org2.admin.id}/orgs`)).body).toEqual([
      { orgId: fx.org2.id, name: 'Second Org.', role: 'Admin' },
    ]);
  });

  it('401, 403 (org Admin, even for a member), 404, 400', async () => {
    expectOutcome(await rest(app, 'GET', `/api/users/${fx.editor.id}/orgs`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'GET', `/api/users/${fx.editor.id}/orgs`, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', '/api/users/999999/orgs'), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', `/api/users/${fx.serviceAccount.id}/orgs`), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/users/x/orgs'), 400, 'VALIDATION_FAILED');
  });
});

describe('GET /api/users/:id/teams and User.teams', () => {
  it("answers the user's teams of the organization acted in, in Grafana's team shape", async () => {
    const out = await rest(app, 'GET', `/api/users/${fx.editor.id}/teams`);
    expectOutcome(out, 200);
    expect(out.body).toEqual([
      {
        id: fx.team.id,
        orgId: 1,
        name: 'fixture-team',
        email: 'fixture-team@example.test',
        avatarUrl: emailAvatar('fixture-team@example.test'),
        memberCount: 2,
        permission: 0,
      },
    ]);
    const graphql = await gql(app, USER_TEAMS, { id: fx.editor.id }, { auth: fx.viewer.auth });
    expect(graphql.data?.user).toEqual({ teams: [{ id: fx.team.id, name: 'fixture-team', orgId: 1 }] });
  });

  it('the organization wall: a team of another organization shows only when acting in it', async () => {
    const other = await createTeam(app, unique('org2-team'), { orgId: fx.org2.id, members: [1] });
    const inOrg1 = (await rest(app, 'GET', '/api/users/1/teams')).body as unknown as { id: number }[];
    expect(inOrg1.map((t) => t.id)).not.toContain(other.id);
    const inOrg2 = (await rest(app, 'GET', '/api/users/1/teams', { orgId: fx.org2.id })).body as unknown as {
      id: number;
      avatarUrl: string;
    }[];
    expect(inOrg2.map((t) => t.id)).toContain(other.id);
    // a team without email gets an avatar from its name, as in Grafana
    const noEmail = inOrg2.find((t) => t.id === other.id);
    expect(noEmail?.avatarUrl).toBe(nameAvatar(other.name));
  });

  it('401, 403 (org Admin on REST), 404, 400', async () => {
    expectOutcome(await rest(app, 'GET', `/api/users/${fx.editor.id}/teams`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'GET', `/api/users/${fx.editor.id}/teams`, { auth: fx.orgAdmin.auth }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', '/api/users/999999/teams'), 404, 'USER_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/users/-1/teams'), 400, 'VALIDATION_FAILED');
  });
});
