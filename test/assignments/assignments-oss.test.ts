/**
 * In the oss edition role-based access control does not exist: every assignment, permission
 * listing and reset path answers 404 on both doors (service-interface.md: the role-based access
 * control endpoints exist only in the enterprise edition), even for the Service Admin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { gql, rest } from '../support/requests.js';
import { createRole, type Fixtures, seedFixtures } from '../support/subjects.js';

let app: TestApp;
let fx: Fixtures;
let user: { id: number };
let sa: { id: number };
let team: { id: number };

beforeAll(async () => {
  app = await createTestApp({ env: { EDITION: 'oss' } });
  // The directory (users, teams, service accounts) exists in oss too; only role-based access control does not.
  fx = await seedFixtures(app);
  user = fx.viewer;
  sa = fx.serviceAccount;
  team = fx.team;
  await createRole(app, 'r1', []);
});

afterAll(() => app.close());

describe('EDITION=oss', () => {
  it('REST: 404 ACCESS_CONTROL_UNAVAILABLE on every path', async () => {
    const cases: [string, string, unknown?][] = [
      ['GET', `/users/${user.id}/roles`],
      ['POST', `/users/${user.id}/roles`, { roleUid: 'r1' }],
      ['PUT', `/users/${user.id}/roles`, { roleUids: ['r1'] }],
      ['DELETE', `/users/${user.id}/roles/r1`],
      ['GET', `/teams/${team.id}/roles`],
      ['POST', `/teams/${team.id}/roles`, { roleUid: 'r1' }],
      ['PUT', `/teams/${team.id}/roles`, { roleUids: ['r1'] }],
      ['DELETE', `/teams/${team.id}/roles/r1`],
      ['GET', '/user/permissions'],
      ['GET', `/users/${user.id}/permissions`],
      ['POST', '/roles/hard-reset', { BasicRoles: true }],
    ];
    for (const [method, path, json] of cases) {
      const out = await rest(app, method, `/api/access-control${path}`, json === undefined ? {} : { json });
      expect({ path, status: out.status, code: out.code }).toEqual({ path, status: 404, code: 'ACCESS_CONTROL_UNAVAILABLE' });
    }
    expect(await app.database.prisma.userRole.count({ where: { userId: user.id } })).toBe(0);
  });

  it('GraphQL: 404 ACCESS_CONTROL_UNAVAILABLE on every field and mutation', async () => {
    const queries = [
      `{ user(id: ${user.id}) { roles { uid } } }`,
      `{ user(id: ${user.id}) { permissions { action } } }`,
      `{ serviceAccount(id: ${sa.id}) { roles { uid } } }`,
      `{ serviceAccount(id: ${sa.id}) { permissions { action } } }`,
      `{ team(id: ${team.id}) { roles { uid } } }`,
      `{ userPermissions(userId: ${user.id}) { action } }`,
      `mutation { addUserRole(userId: ${user.id}, roleUid: "r1") { message } }`,
      `mutation { removeUserRole(userId: ${user.id}, roleUid: "r1") { message } }`,
      `mutation { setUserRoles(userId: ${user.id}, roleUids: ["r1"]) { message } }`,
      `mutation { addTeamRole(teamId: ${team.id}, roleUid: "r1") { message } }`,
      `mutation { removeTeamRole(teamId: ${team.id}, roleUid: "r1") { message } }`,
      `mutation { setTeamRoles(teamId: ${team.id}, roleUids: ["r1"]) { message } }`,
      'mutation { resetBasicRoles(basicRoles: true) { message } }',
    ];
    for (const query of queries) {
      const out = await gql(app, query, {});
      // A user, service account or team is there in oss too: only its RBAC field is null (a partial answer, 200).
      const status = query.startsWith('{ userPermissions') || query.startsWith('mutation') ? 404 : 200;
      expect({ query, status: out.status, code: out.code }).toEqual({ query, status, code: 'ACCESS_CONTROL_UNAVAILABLE' });
      if (status === 200) expect(Object.values(out.data ?? {}).map((parent) => Object.values(parent as object))).toEqual([[null]]);
    }
  });
});
