/**
 * The hot path reads no SQL once warm: a key or a Basic credential verified at the current access
 * revision, then the caller's permissions and held roles from the permission cache entry
 * (kernel/access.ts): its index and role ids loaded together, the roles' rows with their
 * permissions at the first request that shows them, cached for every principal
 * (kernel/role-rows.ts). A write through the one write path applies a change, so the very next
 * request reads again and sees it: fewer statements, never a stale answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Credentials } from '../support/app.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { createKey, createRole, createUser, p } from '../support/subjects.js';

const VIEWER = '{ viewer { login roles { name } permissions { action scope } } }';
/** The frontend's one round-trip: the caller's permissions and its roles with theirs. */
const FRONTEND = '{ viewer { login permissions { action scope } roles { name permissions { action scope } } } }';

let app: TestApp;
let key: Credentials;
let basic: Credentials;
let userId: number;

/** Runs `request` once to warm every cache, lets the last-seen writes land, then counts the statements of a second run. */
async function warmStatements(request: () => Promise<unknown>): Promise<string[]> {
  await request();
  await app.services.sessions.seenWritesSettled();
  app.resetQueries();
  await request();
  await app.services.sessions.seenWritesSettled();
  return [...app.queries];
}

beforeAll(async () => {
  app = await createTestApp();
  key = { token: (await createKey(app, { name: 'hot-key', role: 'Viewer' })).key };
  const user = await createUser(app, 'hot-user', { orgRole: 'Viewer' });
  basic = user.auth;
  userId = user.id;
});
afterAll(() => app.close());

describe('a warm request reads no SQL statement', () => {
  it.each([
    ['API key', () => key],
    ['Basic', () => basic],
  ])('REST user/permissions and the GraphQL viewer with its roles, %s', async (_name, auth) => {
    const restStatements = await warmStatements(async () =>
      expectOutcome(await rest(app, 'GET', '/api/access-control/user/permissions', { auth: auth() }), 200),
    );
    expect(restStatements).toEqual([]);
    const graphqlStatements = await warmStatements(async () => {
      const out = await gql(app, VIEWER, {}, { auth: auth() });
      expectOutcome(out, 200);
      expect((out.data as { viewer: { roles: { name: string }[] } }).viewer.roles.map((r) => r.name)).toContain('basic:viewer');
    });
    expect(graphqlStatements).toEqual([]);
    const frontendStatements = await warmStatements(async () => expectOutcome(await gql(app, FRONTEND, {}, { auth: auth() }), 200));
    expect(frontendStatements).toEqual([]);
  });

  it("a role's permissions changed are shown at the next request, by every holder", async () => {
    await createRole(app, 'hot-perms', [p('hot:one')]);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${userId}/roles`, { json: { roleUid: 'hot-perms' } }), 200);
    const shown = async () => {
      const out = await gql(app, FRONTEND, {}, { auth: basic });
      expectOutcome(out, 200);
      const roles = (out.data as { viewer: { roles: { name: string; permissions: { action: string }[] }[] } }).viewer.roles;
      return roles.find((r) => r.name === 'custom:hot-perms')?.permissions.map((x) => x.action);
    };
    expect(await shown()).toEqual(['hot:one']);
    const update = { version: 2, name: 'custom:hot-perms', permissions: [p('hot:one'), p('hot:two')] };
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/hot-perms', { json: update }), 200);
    expect(await shown()).toEqual(['hot:one', 'hot:two']);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${userId}/roles/hot-perms`), 200);
    expect(await shown()).toBeUndefined();
  });
});

describe("the held roles' rows are read when shown, once for every principal", () => {
  /** A read of Role rows as Prisma writes it on SQLite (`main`.`Role`) and PostgreSQL ("public"."Role"). */
  const isRoleRead = (sql: string) => /^\s*SELECT/i.test(sql) && /(`main`|"public")\.[`"]Role[`"]/.test(sql);

  it('a cold permission listing reads none; the first viewer { roles } reads them, the next none', async () => {
    app.services.access.invalidate();
    app.resetQueries();
    expectOutcome(await rest(app, 'GET', '/api/access-control/user/permissions', { auth: basic }), 200);
    expect(app.queries.filter(isRoleRead)).toEqual([]);
    expect(app.queries.length).toBeGreaterThan(0); // the permissions were read
    app.resetQueries();
    expectOutcome(await gql(app, '{ viewer { roles { name } } }', {}, { auth: basic }), 200);
    expect(app.queries.filter(isRoleRead)).toHaveLength(1);
    app.resetQueries();
    expectOutcome(await gql(app, '{ viewer { roles { name } } }', {}, { auth: basic }), 200);
    expect(app.queries).toEqual([]);
  });

  it('a role renamed is shown renamed at the next request', async () => {
    await createRole(app, 'hot-renamed', [p('hot:renamed')]);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${userId}/roles`, { json: { roleUid: 'hot-renamed' } }), 200);
    const names = async () => {
      const out = await gql(app, '{ viewer { roles { name } } }', {}, { auth: basic });
      expectOutcome(out, 200);
      return (out.data as { viewer: { roles: { name: string }[] } }).viewer.roles.map((r) => r.name);
    };
    expect(await names()).toContain('custom:hot-renamed');
    const update = { version: 2, name: 'custom:hot-renamed-2', permissions: [p('hot:renamed')] };
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/hot-renamed', { json: update }), 200);
    const after = await names();
    expect([after.includes('custom:hot-renamed'), after.includes('custom:hot-renamed-2')]).toEqual([false, true]);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${userId}/roles/hot-renamed`), 200);
  });
});

describe('the cached held roles are never stale', () => {
  it('a role assigned, then removed, is listed by viewer { roles } at the next request', async () => {
    const roleNames = async () => {
      const out = await gql(app, '{ viewer { roles { name } permissions { action } } }', {}, { auth: basic });
      expectOutcome(out, 200);
      const viewer = out.data?.viewer as { roles: { name: string }[]; permissions: { action: string }[] };
      return { roles: viewer.roles.map((r) => r.name), actions: viewer.permissions.map((x) => x.action) };
    };
    await createRole(app, 'hot-role', [p('hot:act')]);
    expect((await roleNames()).roles).not.toContain('custom:hot-role'); // warm
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${userId}/roles`, { json: { roleUid: 'hot-role' } }), 200);
    expect(await roleNames()).toMatchObject({
      roles: expect.arrayContaining(['custom:hot-role']),
      actions: expect.arrayContaining(['hot:act']),
    });
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${userId}/roles/hot-role`), 200);
    const after = await roleNames();
    expect([after.roles.includes('custom:hot-role'), after.actions.includes('hot:act')]).toEqual([false, false]);
  });

  it('a selection of role relations reads them from the database, in the order of the cached list', async () => {
    const out = await gql(app, '{ viewer { roles { name } } }', {}, { auth: basic });
    const withPermissions = await gql(app, '{ viewer { roles { name permissions { action } } } }', {}, { auth: basic });
    expectOutcome(withPermissions, 200);
    const names = (data: typeof out.data) => (data as { viewer: { roles: { name: string }[] } }).viewer.roles.map((r) => r.name);
    expect(names(withPermissions.data)).toEqual(names(out.data));
    const basicViewer = (
      withPermissions.data as { viewer: { roles: { name: string; permissions: { action: string }[] }[] } }
    ).viewer.roles.find((r) => r.name === 'basic:viewer');
    expect(basicViewer?.permissions.length).toBeGreaterThan(0);
  });
});
