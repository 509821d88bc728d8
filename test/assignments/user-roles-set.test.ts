/**
 * Replacing the role set of a user or service account through both doors:
 * PUT /api/access-control/users/:userId/roles and setUserRoles. Every status code (200, 400, 401,
 * 403, 404), set semantics with and without includeHidden, global sets, delegation both ways.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, BAD_PASSWORD, type Credentials, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignUserRole } from '../support/subjects.js';
import { listed, resetAssignments, rows, seedTargetAssignments, setMutation, userRolesScene } from './user-roles-scene.js';

let app: TestApp;
let orgAdmin: Actor;
let viewer: Actor;
let target: Actor;
let adderOnly: Actor;
let outsider: Actor;
let sa: { id: number };

beforeAll(async () => {
  ({ app, orgAdmin, viewer, target, adderOnly, outsider, sa } = await userRolesScene());
});

afterAll(() => app.close());

describe('PUT /api/access-control/users/:userId/roles and setUserRoles', () => {
  beforeEach(async () => {
    await seedTargetAssignments(app, target.id);
  });

  it('200: replaces the org-local set; hidden assignments and global ones stay without includeHidden', async () => {
    const out = await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: ['r-b', 'r-b'] } });
    expect(out).toMatchObject({ status: 200, body: { message: 'User roles have been updated.' } });
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-b', '1:r-hidden']);
  });

  it('200: with includeHidden the hidden assignment goes too (GraphQL)', async () => {
    const g = await gql(app, setMutation, { userId: target.id, roleUids: ['r-b'], includeHidden: true });
    expect(g.data).toEqual({ setUserRoles: { message: 'User roles have been updated.' } });
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-b']);
  });

  it('200: an empty set clears the visible org-local roles; global=true replaces only global assignments', async () => {
    expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: [] } }), 200);
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-hidden']);
    expectOutcome(await gql(app, setMutation, { userId: target.id, roleUids: ['fixed_' + 'x'], global: true }), 404, 'ROLE_NOT_FOUND');
    const reader = await app.database.prisma.role.findFirstOrThrow({ where: { name: 'fixed:teams:reader' } });
    expectOutcome(await gql(app, setMutation, { userId: target.id, roleUids: [reader.uid], global: true }), 200);
    expect(await rows(app, target.id)).toEqual([`0:${reader.uid}`, '1:r-hidden']);
  });

  it('200: a hidden role named in the request is added without includeHidden; a set equal to the current one changes nothing', async () => {
    await resetAssignments(app, target.id);
    expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: ['r-hidden', 'r-a'] } }), 200);
    expect(await rows(app, target.id)).toEqual(['1:r-a', '1:r-hidden']);
    const before = await app.database.prisma.userRole.findMany({ where: { userId: target.id }, orderBy: { id: 'asc' } });
    expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, { json: { roleUids: ['r-a', 'r-hidden'] } }), 200);
    expect(await app.database.prisma.userRole.findMany({ where: { userId: target.id }, orderBy: { id: 'asc' } })).toEqual(before);
  });

  it('200 for a service account', async () => {
    expectOutcome(await gql(app, setMutation, { userId: sa.id, roleUids: ['r-a', 'r-b'] }), 200);
    expect(await listed(app, sa.id)).toEqual(['r-a', 'r-b']);
  });

  const cases: {
    name: string;
    json: () => Record<string, unknown>;
    userId?: () => number;
    auth?: () => Credentials | null;
    status: number;
    code: string;
  }[] = [
    { name: 'one unknown role among known ones', json: () => ({ roleUids: ['r-b', 'no-such-role'] }), status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'role of another organization', json: () => ({ roleUids: ['r-org2'] }), status: 404, code: 'ROLE_NOT_FOUND' },
    {
      name: 'user of another organization',
      json: () => ({ roleUids: [] }),
      userId: () => outsider.id,
      status: 404,
      code: 'USER_NOT_FOUND',
    },
    { name: 'basic role', json: () => ({ roleUids: ['r-b', 'basic_admin'] }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'org role in a global set', json: () => ({ roleUids: ['r-b'], global: true }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'anonymous', json: () => ({ roleUids: [] }), auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'viewer', json: () => ({ roleUids: [] }), auth: () => viewer.auth, status: 403, code: 'ACCESS_DENIED' },
    {
      name: 'add without delete',
      json: () => ({ roleUids: ['r-a', 'r-hidden'] }),
      auth: () => adderOnly.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
    {
      name: 'global by an org Admin',
      json: () => ({ roleUids: [], global: true }),
      auth: () => orgAdmin.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
    {
      name: 'delegation: adding a role above the caller',
      json: () => ({ roleUids: ['r-a', 'r-escalate'] }),
      auth: () => orgAdmin.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing changed`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const userId = c.userId ? c.userId() : target.id;
      const r = await rest(app, 'PUT', `/api/access-control/users/${userId}/roles`, { json: c.json(), auth });
      const g = await gql(app, setMutation, { userId, ...c.json() }, { auth });
      expectOutcome(r, c.status, c.code);
      expectOutcome(g, c.status, c.code);
      expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-a', '1:r-hidden']);
    });
  }

  it('403: removing a role above the caller is refused too, and nothing changes', async () => {
    await assignUserRole(app, target.id, 'r-escalate');
    const out = await rest(app, 'PUT', `/api/access-control/users/${target.id}/roles`, {
      json: { roleUids: ['r-b'] },
      auth: orgAdmin.auth,
    });
    expectOutcome(out, 403, 'ACCESS_DENIED');
    expect((out.body as { message: string }).message).toContain('users:delete on global.users:*');
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-a', '1:r-escalate', '1:r-hidden']);
  });

  it('400 on REST for a missing or malformed body and a bad id; 401 with wrong credentials', async () => {
    const path = `/api/access-control/users/${target.id}/roles`;
    for (const json of [undefined, {}, { roleUids: 'r-a' }, { roleUids: [1] }, { roleUids: [], includeHidden: 'no' }]) {
      expectOutcome(await rest(app, 'PUT', path, { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await rest(app, 'PUT', '/api/access-control/users/abc/roles', { json: { roleUids: [] } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await gql(app, setMutation, { userId: -1, roleUids: [] }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', path, { json: { roleUids: [] }, auth: BAD_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-a', '1:r-hidden']);
  });
});
