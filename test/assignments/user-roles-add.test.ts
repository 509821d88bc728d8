/**
 * Adding a role to a user or service account through both doors:
 * POST /api/access-control/users/:userId/roles and addUserRole. Every status code (200, 400, 401,
 * 403, 404), global assignments, delegation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, BAD_PASSWORD, type Credentials, type TestApp } from '../support/app.js';
import { expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import type { Actor } from '../support/subjects.js';
import { addMutation, listed, resetAssignments, rows, userRolesScene } from './user-roles-scene.js';

let app: TestApp;
let orgAdmin: Actor;
let viewer: Actor;
let target: Actor;
let outsider: Actor;
let sa: { id: number };

beforeAll(async () => {
  ({ app, orgAdmin, viewer, target, outsider, sa } = await userRolesScene());
});

afterAll(() => app.close());

/** One add attempt through each door; both must agree. */
async function addBoth(
  userId: number,
  json: Record<string, unknown>,
  auth: Credentials | null = ADMIN,
): Promise<[Outcome, Awaited<ReturnType<typeof gql>>]> {
  const viaRest = await rest(app, 'POST', `/api/access-control/users/${userId}/roles`, { json, auth });
  const viaGql = await gql(app, addMutation, { userId, ...json }, { auth });
  return [viaRest, viaGql];
}

describe('POST /api/access-control/users/:userId/roles and addUserRole', () => {
  beforeEach(() => resetAssignments(app, target.id));

  it("200: adds an org-local assignment; adding it again is idempotent; the message is Grafana's", async () => {
    const [r, g] = await addBoth(target.id, { roleUid: 'r-a' });
    expect(r).toMatchObject({ status: 200, body: { message: 'Role added to the user.' } });
    expect(g.data).toEqual({ addUserRole: { message: 'Role added to the user.' } });
    expect(await rows(app, target.id)).toEqual(['1:r-a']);
    expect(await listed(app, target.id)).toEqual(['r-a']);
  });

  it('200: global true (Service Admin) writes a global assignment, global false an org-local one', async () => {
    expectOutcome((await addBoth(target.id, { roleUid: 'r-global', global: true }))[0], 200);
    expectOutcome((await addBoth(target.id, { roleUid: 'r-global', global: false }))[0], 200);
    expect(await rows(app, target.id)).toEqual(['0:r-global', '1:r-global']);
  });

  it('200 for a service account; an org Admin may delegate roles it holds', async () => {
    const [r, g] = await addBoth(sa.id, { roleUid: 'r-b' }, orgAdmin.auth);
    expectOutcome(r, 200);
    expectOutcome(g, 200);
    expect(await listed(app, sa.id)).toContain('r-b');
  });

  const cases: {
    name: string;
    json: () => Record<string, unknown>;
    userId?: () => number;
    auth?: () => Credentials | null;
    status: number;
    code: string;
  }[] = [
    { name: 'unknown role', json: () => ({ roleUid: 'no-such-role' }), status: 404, code: 'ROLE_NOT_FOUND' },
    { name: 'role of another organization', json: () => ({ roleUid: 'r-org2' }), status: 404, code: 'ROLE_NOT_FOUND' },
    {
      name: 'user of another organization',
      json: () => ({ roleUid: 'r-a' }),
      userId: () => outsider.id,
      status: 404,
      code: 'USER_NOT_FOUND',
    },
    { name: 'no such user', json: () => ({ roleUid: 'r-a' }), userId: () => 999_999, status: 404, code: 'USER_NOT_FOUND' },
    { name: 'user id 0', json: () => ({ roleUid: 'r-a' }), userId: () => 0, status: 400, code: 'VALIDATION_FAILED' },
    { name: 'basic role', json: () => ({ roleUid: 'basic_viewer' }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'org role assigned globally', json: () => ({ roleUid: 'r-a', global: true }), status: 400, code: 'ROLE_NOT_ASSIGNABLE' },
    { name: 'empty roleUid', json: () => ({ roleUid: '' }), status: 400, code: 'VALIDATION_FAILED' },
    { name: 'anonymous', json: () => ({ roleUid: 'r-a' }), auth: () => null, status: 401, code: 'UNAUTHENTICATED' },
    { name: 'no users.roles:add', json: () => ({ roleUid: 'r-a' }), auth: () => viewer.auth, status: 403, code: 'ACCESS_DENIED' },
    {
      name: 'global by an org Admin',
      json: () => ({ roleUid: 'r-global', global: true }),
      auth: () => orgAdmin.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
    {
      name: 'delegation: role above the caller',
      json: () => ({ roleUid: 'r-escalate' }),
      auth: () => orgAdmin.auth,
      status: 403,
      code: 'ACCESS_DENIED',
    },
  ];
  for (const c of cases) {
    it(`${c.status} ${c.code}: ${c.name}, on both doors, nothing written`, async () => {
      const auth = c.auth ? c.auth() : ADMIN;
      const [r, g] = await addBoth(c.userId ? c.userId() : target.id, c.json(), auth);
      expectOutcome(r, c.status, c.code);
      expectOutcome(g, c.status, c.code);
      expect(await rows(app, target.id)).toEqual([]);
    });
  }

  it('400 on REST for bodies GraphQL types rule out: missing, not JSON, wrong types, wrong content type, bad id', async () => {
    const path = `/api/access-control/users/${target.id}/roles`;
    expectOutcome(await rest(app, 'POST', path), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: {} }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: { roleUid: 7 } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: { roleUid: 'r-a', global: 'yes' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', path, { json: ['r-a'] }), 400, 'VALIDATION_FAILED');
    expectOutcome(
      await rest(app, 'POST', path, { body: '{"roleUid":', headers: { 'content-type': 'application/json' } }),
      400,
      'INVALID_JSON',
    );
    expectOutcome(
      await rest(app, 'POST', path, { body: '{"roleUid":"r-a"}', headers: { 'content-type': 'text/plain' } }),
      400,
      'UNSUPPORTED_CONTENT_TYPE',
    );
    expectOutcome(await rest(app, 'POST', '/api/access-control/users/x1/roles', { json: { roleUid: 'r-a' } }), 400, 'VALIDATION_FAILED');
    expect(await rows(app, target.id)).toEqual([]);
  });

  it('401 with wrong credentials', async () => {
    const [r] = await addBoth(target.id, { roleUid: 'r-a' }, BAD_PASSWORD);
    expectOutcome(r, 401, 'INVALID_CREDENTIALS');
  });
});
