/**
 * Large listings page or stream instead of failing: roles listed with their
 * permissions past 1,000 roles answered 500 (Prisma bound every role id of the page in one
 * `IN (...)` when loading the ordered permissions, past SQLite's 999 bound values: P2029).
 * Listings now load their roles in slices, so 1,500 roles answer on both doors, in name order,
 * the same as a small listing. Also the "nesting depth 34" of the attack run: deep GraphQL
 * selections stop at the depth limit, deeply nested JSON bodies are 400, never 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { createUser } from '../support/subjects.js';

const ROLES = 1500;
let app: TestApp;
let userId: number;

type RoleRow = { uid: string; name: string; permissions?: { action: string; scope: string }[] };

beforeAll(async () => {
  app = await createTestApp();
  userId = (await createUser(app, 'many-roles', { orgRole: 'Viewer' })).id;
  const db = app.database.prisma;
  const uid = (i: number) => `bulk-${String(i).padStart(4, '0')}`;
  await db.role.createMany({ data: Array.from({ length: ROLES }, (_, i) => ({ uid: uid(i), orgId: 1, name: `custom:${uid(i)}` })) });
  const roles = await db.role.findMany({ where: { uid: { startsWith: 'bulk-' } }, select: { id: true } });
  await db.permission.createMany({
    data: roles.flatMap((r) => ['2', '1', '0'].map((k) => ({ roleId: r.id, action: 'teams:read', scope: `teams:id:${k}` }))),
  });
  await db.userRole.createMany({ data: roles.map((r) => ({ orgId: 1, userId, roleId: r.id })) });
}, 60_000);
afterAll(() => app.close());

/** The bulk roles of a listing: all of them, in name order, each with its sorted permissions when asked. */
function expectBulk(roles: RoleRow[], withPermissions: boolean): void {
  const bulk = roles.filter((r) => r.uid.startsWith('bulk-'));
  expect(bulk).toHaveLength(ROLES);
  expect(bulk.map((r) => r.uid)).toEqual(bulk.map((r) => r.uid).sort());
  const names = roles.map((r) => r.name);
  expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  if (withPermissions) {
    for (const role of bulk) expect(role.permissions?.map((p) => p.scope)).toEqual(['teams:id:0', 'teams:id:1', 'teams:id:2']);
  }
}

describe(`listing ${ROLES} roles answers on both doors`, () => {
  it('REST GET /api/access-control/roles (and ?delegatable=true, ?includeHidden=true)', async () => {
    for (const query of ['', '?delegatable=true', '?includeHidden=true&delegatable=true']) {
      const outcome = await rest(app, 'GET', `/api/access-control/roles${query}`);
      expectOutcome(outcome, 200);
      expectBulk(outcome.body as RoleRow[], false);
    }
  });

  it('GraphQL roles { uid permissions { action scope } } (and delegatable: true)', async () => {
    for (const args of ['', '(delegatable: true)', '(includeHidden: true)']) {
      const outcome = await gql(app, `{ roles${args} { uid name permissions { action scope } } }`, {});
      expectOutcome(outcome, 200);
      expectBulk((outcome.data as { roles: RoleRow[] }).roles, true);
    }
  });

  it('a user assigned all of them: REST GET /users/:id/roles and GraphQL user { roles { permissions } }', async () => {
    const listed = await rest(app, 'GET', `/api/access-control/users/${userId}/roles`);
    expectOutcome(listed, 200);
    expectBulk(listed.body as RoleRow[], false);
    const outcome = await gql(app, 'query($id: Int!) { user(id: $id) { roles { uid name permissions { action scope } } } }', {
      id: userId,
    });
    expectOutcome(outcome, 200);
    expectBulk((outcome.data as { user: { roles: RoleRow[] } }).user.roles, true);
  });
});

describe('nesting depth 34 is refused with 400 on both doors', () => {
  it('GraphQL: a selection 34 levels deep stops at the depth limit (GRAPHQL_VALIDATION_FAILED)', async () => {
    let selection = 'login';
    for (let i = 0; i < 17; i++) selection = `teams { members { ${selection} } }`;
    expectOutcome(await gql(app, `{ viewer { ${selection} } }`, {}), 400, 'GRAPHQL_VALIDATION_FAILED');
  });

  it('GraphQL: variables (VALIDATION_FAILED, as REST) and argument values nested 34 levels are 400', async () => {
    let object: unknown = 'x';
    let list = '1';
    for (let i = 0; i < 34; i++) {
      object = { a: object };
      list = `[${list}]`;
    }
    const mutation = 'mutation($i: CreateRoleInput!) { createRole(input: $i) { uid } }';
    for (const variables of [{ i: object }, { i: { name: 'custom:deep', permissions: [[[object]]] } }]) {
      expectOutcome(await gql(app, mutation, variables), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await gql(app, `{ roles(includeHidden: ${list}) { uid } }`, {}), 400, 'GRAPHQL_VALIDATION_FAILED');
  });

  it('REST: a JSON body nested 34 levels (and 100,000 levels) is 400', async () => {
    let object: unknown = 'x';
    for (let i = 0; i < 34; i++) object = { a: object };
    for (const json of [object, { name: object, permissions: [object] }]) {
      expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json }), 400, 'VALIDATION_FAILED');
      expectOutcome(await rest(app, 'PUT', `/api/access-control/users/${userId}/roles`, { json }), 400, 'VALIDATION_FAILED');
    }
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const outcome = await rest(app, 'POST', '/api/access-control/roles', { body: deep, headers: { 'content-type': 'application/json' } });
    expectOutcome(outcome, 400, 'INVALID_JSON');
  });
});
