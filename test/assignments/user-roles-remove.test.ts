/**
 * Removing a role from a user or service account through both doors:
 * DELETE /api/access-control/users/:userId/roles/:roleUID and removeUserRole. Every status code
 * (200, 400, 401, 403, 404), global assignments, delegation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, BAD_PASSWORD, type Credentials, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignUserRole } from '../support/subjects.js';
import { removeMutation, resetAssignments, rows, userRolesScene } from './user-roles-scene.js';

let app: TestApp;
let orgAdmin: Actor;
let target: Actor;
let adderOnly: Actor;
let outsider: Actor;

beforeAll(async () => {
  ({ app, orgAdmin, target, adderOnly, outsider } = await userRolesScene());
});

afterAll(() => app.close());

describe('DELETE /api/access-control/users/:userId/roles/:roleUID and removeUserRole', () => {
  beforeEach(async () => {
    await resetAssignments(app, target.id);
    await assignUserRole(app, target.id, 'r-a');
    await assignUserRole(app, target.id, 'r-global', 0);
    await assignUserRole(app, target.id, 'r-escalate');
  });

  it("200: removes the org-local assignment over REST, Grafana's message; the global one stays", async () => {
    const out = await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-a`);
    expect(out).toMatchObject({ status: 200, body: { message: 'Role removed from user.' } });
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-escalate']);
  });

  it('200 over GraphQL; global=true removes the global assignment only; removing a role not assigned is 200', async () => {
    const g = await gql(app, removeMutation, { userId: target.id, roleUid: 'r-global', global: true });
    expect(g.data).toEqual({ removeUserRole: { message: 'Role removed from user.' } });
    expect(await rows(app, target.id)).toEqual(['1:r-a', '1:r-escalate']);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-global?global=true`), 200);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-b`), 200);
    expect(await rows(app, target.id)).toEqual(['1:r-a', '1:r-escalate']);
  });

  const cases: {
    name: string;
    uid: string;
    global?: boolean;
    userId?: () => number;
    auth?: () => Credentials | null;
    status: number;
    code: string;
  }[] = [
    { name: 'unknown role', uid: 'no-such-role', status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'role of another organization', uid: 'r-org2', status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'user of another organization', uid: 'r-a', userId: () => outsider.id, status: 404, code: 'USER_NOT_FOUND' },
    { name: 'basic role', uid: 'basic_viewer', status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'user id 0', uid: 'r-a', userId: () => 0, status: 400, code: 'VALIDATION_FAILED' },
    { name: 'anonymous', uid: 'r-a', auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'no users.roles:delete', uid: 'r-a', auth: () => adderOnly.auth, status: 403, code: 'ACCESS_DENIED' },
    {
      name: 'global by an org Admin',
      uid: 'r-global',
      global: true,
      auth: () => orgAdmin.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
    { name: 'delegation: role above the caller', uid: 'r-escalate', auth: () => orgAdmin.auth, status: 403, code: 'ACCESS_DENIED' },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing removed`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const userId = c.userId ? c.userId() : target.id;
      const r = await rest(app, 'DELETE', `/api/access-control/users/${userId}/roles/${c.uid}${c.global ? '?global=true' : ''}`, { auth });
      const g = await gql(app, removeMutation, { userId, roleUid: c.uid, global: c.global ?? null }, { auth });
      expectOutcome(r, c.status, c.code);
      expectOutcome(g, c.status, c.code);
      expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-a', '1:r-escalate']);
    });
  }

  it('400 for a bad id or global on REST; 401 with wrong credentials', async () => {
    expectOutcome(await rest(app, 'DELETE', '/api/access-control/users/abc/roles/r-a'), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-a?global=perhaps`), 400, 'VALIDATION_FAILED');
    expectOutcome(
      await rest(app, 'DELETE', `/api/access-control/users/${target.id}/roles/r-a`, { auth: BAD_PASSWORD }),
      401,
      'INVALID_CREDENTIALS',
    );
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-a', '1:r-escalate']);
  });
});
