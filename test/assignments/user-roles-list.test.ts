/**
 * Listing role assignments of users and service accounts through both doors:
 * GET /api/access-control/users/:userId/roles, User.roles and ServiceAccount.roles. Every status
 * code (200, 400, 401, 403, 404); hidden roles only on request, global assignments listed, basic
 * roles and team roles never. Adding, removing and setting: user-roles-{add,remove,set}.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_PASSWORD, type TestApp } from '../support/app.js';
import { expectFieldError, expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignUserRole } from '../support/subjects.js';
import { listed, seedTargetAssignments, userRolesScene } from './user-roles-scene.js';

let app: TestApp;
let viewer: Actor;
let target: Actor;
let outsider: Actor;
let sa: { id: number };

beforeAll(async () => {
  ({ app, viewer, target, outsider, sa } = await userRolesScene());
});

afterAll(() => app.close());

describe('GET /api/access-control/users/:userId/roles and User.roles', () => {
  beforeAll(async () => {
    await seedTargetAssignments(app, target.id);
  });

  it('200: org-local and global direct roles; hidden only with includeHidden; never basic or team roles', async () => {
    // A basic role can't be assigned through the service; a stray row for one is still never listed.
    await assignUserRole(app, target.id, 'basic_editor');
    expect(await listed(app, target.id)).toEqual(['r-a', 'r-global']);
    expect(await listed(app, target.id, '?includeHidden=true')).toEqual(['r-a', 'r-global', 'r-hidden']);
    // The target holds basic:viewer through its org role and r-team through its team: both effective, neither listed.
    const perms = await rest(app, 'GET', `/api/access-control/users/${target.id}/permissions`);
    expect(perms.body).toEqual(expect.arrayContaining([{ action: 'apikey:read', scope: 'apikey:*' }]));
  });

  it('200: the role JSON has no permissions in lists; GraphQL answers the same uids and can nest permissions', async () => {
    const out = await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`);
    expect((out.body as Record<string, unknown>[])[0]).toMatchObject({ uid: 'r-a', global: false, hidden: false });
    expect((out.body as Record<string, unknown>[])[0]).not.toHaveProperty('permissions');
    const q = await gql(
      app,
      'query ($id: Int!) { user(id: $id) { a: roles { uid } b: roles(includeHidden: true) { uid permissions { action scope } } } }',
      {
        id: target.id,
      },
    );
    expectOutcome(q, 200);
    const user = q.data?.user as { a: { uid: string }[]; b: { uid: string; permissions: unknown[] }[] };
    expect(user.a.map((r) => r.uid)).toEqual(['r-a', 'r-global']);
    expect(user.b.map((r) => r.uid)).toEqual(['r-a', 'r-global', 'r-hidden']);
    expect(user.b[2]?.permissions).toEqual([{ action: 'org.users:read', scope: 'users:*' }]);
  });

  it('200 for a service account through the same path and ServiceAccount.roles', async () => {
    await assignUserRole(app, sa.id, 'r-b');
    expect(await listed(app, sa.id)).toEqual(['r-b']);
    const q = await gql(app, 'query ($id: Int!) { serviceAccount(id: $id) { roles { uid } } }', { id: sa.id });
    expect(q.data?.serviceAccount).toEqual({ roles: [{ uid: 'r-b' }] });
  });

  it('400 for a non-numeric or non-positive id and a bad includeHidden', async () => {
    for (const path of [
      '/users/abc/roles',
      '/users/0/roles',
      '/users/1.5/roles',
      '/users/-3/roles',
      `/users/${target.id}/roles?includeHidden=maybe`,
    ]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control${path}`), 400, 'VALIDATION_FAILED');
    }
  });

  it('401 without or with wrong credentials, on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`, { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(
      await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`, { auth: BAD_PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    );
    const q = await gql(app, 'query ($id: Int!) { user(id: $id) { roles { uid } } }', { id: target.id }, { auth: null });
    expectOutcome(q, 401, 'UNAUTHENTICATED');
  });

  it('403 without users.roles:read on users:id:<id>, on both doors', async () => {
    expectOutcome(await rest(app, 'GET', `/api/access-control/users/${target.id}/roles`, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
    const q = await gql(app, 'query ($id: Int!) { user(id: $id) { roles { uid } } }', { id: target.id }, { auth: viewer.auth });
    expectFieldError(q, ['user', 'roles'], 'ACCESS_DENIED'); // the user is readable: only its roles are refused
  });

  it('404 for a user of another organization or no user at all, on both doors', async () => {
    for (const id of [outsider.id, 999_999]) {
      expectOutcome(await rest(app, 'GET', `/api/access-control/users/${id}/roles`), 404, 'USER_NOT_FOUND');
    }
    // The Service Admin finds the user itself; its roles in this organization stay behind the wall.
    const q = await gql(app, 'query ($id: Int!) { user(id: $id) { roles { uid } } }', { id: outsider.id });
    expectFieldError(q, ['user', 'roles'], 'USER_NOT_FOUND');
  });
});
