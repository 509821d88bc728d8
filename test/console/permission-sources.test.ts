/**
 * `userPermissionSources`, the field the console's Assignments page lists effective permissions
 * with: every permission of a user or service account with the role granting it and
 * how the role reaches it, the same set `userPermissions` answers; its requirement and its wall.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectData, expectGraphqlError } from '../support/requests.js';
import { type Actor, assignTeamRole, assignUserRole, createOrg, createRole, createTeam, createUser, p } from '../support/subjects.js';

const SOURCES = `query ($userId: Int!) {
  userPermissionSources(userId: $userId) { source role { uid name } permission { action scope } }
  userPermissions(userId: $userId) { action scope }
}`;

interface Answer {
  userPermissionSources: { source: string; role: { uid: string; name: string }; permission: { action: string; scope: string } }[];
  userPermissions: { action: string; scope: string }[];
}

let app: TestApp;
let ann: Actor;
let outsider: Actor;

beforeAll(async () => {
  app = await createTestApp();
  ann = await createUser(app, 'ann', { orgRole: 'Viewer' });
  await createRole(app, 'direct-reader', [p('serviceaccounts:read', 'serviceaccounts:*')]);
  await assignUserRole(app, ann.id, 'direct-reader');
  await createRole(app, 'team-reader', [p('serviceaccounts:read', 'serviceaccounts:*'), p('dashboards:read', 'dashboards:*')]);
  const team = await createTeam(app, 'ops', { members: [ann.id] });
  await assignTeamRole(app, team.id, 'team-reader');
  const other = await createOrg(app, 'Elsewhere');
  outsider = await createUser(app, 'outsider', { orgId: other.id, orgRole: 'Admin' });
});

afterAll(async () => {
  await app?.close();
});

describe('userPermissionSources', () => {
  it('lists every permission once per way it is granted: directly, through a team, by the basic role', async () => {
    const data = expectData(await app.graphql<Answer>(SOURCES, { userId: ann.id }));
    const rows = data.userPermissionSources.map((g) => `${g.permission.action} ${g.permission.scope} <- ${g.role.name} (${g.source})`);
    expect(rows).toEqual(
      expect.arrayContaining([
        'serviceaccounts:read serviceaccounts:* <- custom:direct-reader (direct)',
        'serviceaccounts:read serviceaccounts:* <- custom:team-reader (team:ops)',
        'dashboards:read dashboards:* <- custom:team-reader (team:ops)',
        'teams:read teams:* <- basic:viewer (basic:viewer)',
      ]),
    );
    // Sorted by permission, and the same permissions userPermissions answers.
    const pairs = data.userPermissionSources.map((g) => `${g.permission.action} ${g.permission.scope}`);
    expect(pairs).toEqual([...pairs].sort());
    expect([...new Set(pairs)]).toEqual(data.userPermissions.map((q) => `${q.action} ${q.scope}`));
  });

  it('needs users.permissions:read on the user, and stops at the organization wall', async () => {
    const admin = await createUser(app, 'ann-admin', { orgRole: 'Admin' });
    expectGraphqlError(await app.graphql(SOURCES, { userId: admin.id }, { auth: ann.auth }), 'ACCESS_DENIED');
    expectGraphqlError(await app.graphql(SOURCES, { userId: outsider.id }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(SOURCES, { userId: ann.id }, { auth: null }), 'UNAUTHENTICATED');
  });
});
