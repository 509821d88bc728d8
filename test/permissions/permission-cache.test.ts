/**
 * The permission cache (one index per organization and principal, src/kernel/access.ts) never
 * answers stale: after each kind of change that can affect a principal's permissions, the very
 * next request of that principal sees it. Each step first warms the subject's cache entry with a
 * request, then changes something, then asks again.
 *
 * Team membership and org role changes belong to the directory service; here they are written
 * with Prisma followed by the hook that service must call (`access.invalidate()`), and the test
 * first shows that without the hook the cache would indeed answer stale, so the hook is needed.
 * Those writes run in a transaction: on PostgreSQL the process then knows the commit as its own
 * before the next request's catch-up, which may otherwise read it as another replica's commit
 * and drop the cache (conservative, but it would hide what the test shows).
 * (The directory's own tests, test/users, test/orgs and test/teams, show that its mutations call it.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createRole, p, seedFixtures, userPrincipal } from '../support/subjects.js';

let app: TestApp;
let subject: Actor;
let team: { id: number };

/** The subject's own permission map (a cached path), warmed or re-read. */
async function own(): Promise<Record<string, string[]>> {
  const out = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: subject.auth });
  expectOutcome(out, 200);
  return out.body as Record<string, string[]>;
}

/** Does the subject hold `action` (any scope)? Warms the cache as a side effect. */
async function holds(action: string): Promise<boolean> {
  return action in (await own());
}

beforeAll(async () => {
  app = await createTestApp();
  const fx = await seedFixtures(app);
  subject = fx.viewer;
  team = fx.team; // subject is a member
});

afterAll(() => app.close());

beforeEach(async () => {
  await app.database.prisma.userRole.deleteMany({ where: { userId: subject.id } });
  await app.database.prisma.teamRole.deleteMany({ where: { teamId: team.id } });
  app.services.access.invalidate();
});

describe('no stale answer on the next request after', () => {
  it('a role update (permissions changed) and a forced role delete', async () => {
    const created = await rest(app, 'POST', '/api/access-control/roles', { json: { uid: 'cache-r1', name: 'cache r1', permissions: [] } });
    expectOutcome(created, 200);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'cache-r1' } }), 200);
    expect(await holds('apikey:read')).toBe(false);
    const update = { version: 1, name: 'cache r1', permissions: [{ action: 'apikey:read', scope: 'apikey:*' }] };
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/cache-r1', { json: update }), 200);
    expect((await own())['apikey:read']).toEqual(['apikey:*']);
    expectOutcome(await rest(app, 'DELETE', '/api/access-control/roles/cache-r1?force=true'), 200);
    expect(await holds('apikey:read')).toBe(false);
  });

  it('a basic role update and a basic role reset', async () => {
    const viewerRole = await rest(app, 'GET', '/api/access-control/roles/basic_viewer');
    const { version, name, permissions } = viewerRole.body as {
      version: number;
      name: string;
      permissions: { action: string; scope: string }[];
    };
    expect(await holds('apikey:read')).toBe(false);
    const json = {
      version: version + 1,
      name,
      permissions: [...permissions.map(({ action, scope }) => ({ action, scope })), p('apikey:read', 'apikey:*')],
    };
    expectOutcome(await rest(app, 'PUT', '/api/access-control/roles/basic_viewer', { json }), 200);
    expect(await holds('apikey:read')).toBe(true);
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: true } }), 200);
    expect(await holds('apikey:read')).toBe(false);
  });

  it('a user role add, remove and set (REST and GraphQL)', async () => {
    // Permissions the admin holds (org.users:write on users:*), so it may delegate them.
    await createRole(app, 'cache-u1', [p('org.users:write', 'users:id:1')]);
    await createRole(app, 'cache-u2', [p('org.users:write', 'users:id:2')]);
    expect(await holds('org.users:write')).toBe(false);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'cache-u1' } }), 200);
    expect((await own())['org.users:write']).toEqual(['users:id:1']);
    const set = 'mutation ($id: Int!) { setUserRoles(userId: $id, roleUids: ["cache-u2"]) { message } }';
    expectOutcome(await gql(app, set, { id: subject.id }), 200);
    expect((await own())['org.users:write']).toEqual(['users:id:2']);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/users/${subject.id}/roles/cache-u2`), 200);
    expect(await holds('org.users:write')).toBe(false);
  });

  it('a team role add, remove and set (REST and GraphQL)', async () => {
    await createRole(app, 'cache-t1', [p('apikey:read', 'apikey:*')]);
    await createRole(app, 'cache-t2', [p('serviceaccounts:read', 'serviceaccounts:*')]);
    expect(await holds('apikey:read')).toBe(false);
    const add = 'mutation ($id: Int!) { addTeamRole(teamId: $id, roleUid: "cache-t1") { message } }';
    expectOutcome(await gql(app, add, { id: team.id }), 200);
    expect(await holds('apikey:read')).toBe(true);
    expectOutcome(await rest(app, 'PUT', `/api/access-control/teams/${team.id}/roles`, { json: { roleUids: ['cache-t2'] } }), 200);
    const afterSet = await own();
    expect(['apikey:read' in afterSet, 'serviceaccounts:read' in afterSet]).toEqual([false, true]);
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/teams/${team.id}/roles/cache-t2`), 200);
    expect(await holds('serviceaccounts:read')).toBe(false);
  });

  it('a team membership change, once the directory write calls access.invalidate()', async () => {
    await createRole(app, 'cache-m1', [p('apikey:read', 'apikey:*')]);
    expectOutcome(await rest(app, 'POST', `/api/access-control/teams/${team.id}/roles`, { json: { roleUid: 'cache-m1' } }), 200);
    expect(await holds('apikey:read')).toBe(true);
    await app.database.prisma.$transaction((tx) =>
      tx.teamMember.delete({ where: { teamId_userId: { teamId: team.id, userId: subject.id } } }),
    );
    expect(await holds('apikey:read')).toBe(true); // the cache hides a write that skips the hook
    app.services.access.invalidate();
    expect(await holds('apikey:read')).toBe(false);
    await app.database.prisma.teamMember.create({ data: { teamId: team.id, userId: subject.id, orgId: 1 } });
    app.services.access.invalidate();
    expect(await holds('apikey:read')).toBe(true);
  });

  it('an org role change: the cache key holds the org role; a remembered Basic credential keeps its row while the generation holds', async () => {
    expect(await holds('serviceaccounts:read')).toBe(false); // Viewer: not an Editor's permission
    const where = { orgId_userId: { orgId: 1, userId: subject.id } };
    await app.database.prisma.$transaction((tx) => tx.orgUser.update({ where, data: { role: 'Editor' } }));
    // Written past the write path: the verified credential (sign-in/verified-passwords.ts) serves
    // the row it read under this generation, as a cached API key does, so the hook is needed.
    expect(await holds('serviceaccounts:read')).toBe(false);
    // The Viewer's entry is still cached, yet the subject as an Editor meets another entry.
    const asEditor = await app.services.access.permissionsOf(userPrincipal(subject, 'Editor'));
    expect(asEditor.list().some((pair) => pair.action === 'serviceaccounts:read')).toBe(true);
    app.services.access.invalidate();
    expect(await holds('serviceaccounts:read')).toBe(true);
    await app.database.prisma.orgUser.update({ where, data: { role: 'Viewer' } });
    app.services.access.invalidate();
    expect(await holds('serviceaccounts:read')).toBe(false);
  });

  it("a change seen through another principal's listing too (users/:id/permissions shares the entry)", async () => {
    await createRole(app, 'cache-x1', [p('apikey:read', 'apikey:*')]);
    const list = async () =>
      ((await rest(app, 'GET', `/api/access-control/users/${subject.id}/permissions`)).body as { action: string }[]).some(
        (e) => e.action === 'apikey:read',
      );
    expect(await list()).toBe(false);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${subject.id}/roles`, { json: { roleUid: 'cache-x1' } }), 200);
    expect(await list()).toBe(true);
    expect(await holds('apikey:read')).toBe(true);
  });
});
