/**
 * Product namespaces, as an attacker tries it: a caller holding only roles:write on
 * permissions:type:escalate (the resetter's right) registers a "product" named after a namespace
 * of this service (`users`, `teams`, `org`, ... in any case or spelling) whose role carries this
 * service's actions, granted to Viewer, then assigns itself fixed:users:writer. Each attempt on
 * REST and GraphQL answers 400 VALIDATION_FAILED and changes nothing: no role, permission, grant
 * or assignment, and the Viewer's permissions stay as they were. A real product (`notes` with
 * `notes:read`) still registers, and its grant reaches Viewers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, type Outcome, rest } from '../support/requests.js';
import { type Actor, assignUserRole, createUser } from '../support/subjects.js';

let app: TestApp;
let resetter: Actor;
let viewer: Actor;

beforeAll(async () => {
  app = await createTestApp();
  resetter = await createUser(app, 'ns-resetter', { orgRole: 'Viewer' });
  await assignUserRole(app, resetter.id, 'fixed:roles:resetter');
  viewer = await createUser(app, 'ns-viewer', { orgRole: 'Viewer' });
});
afterAll(() => app.close());

const REGISTER = `mutation($productId: String!, $roles: [ProductRoleRegistrationInput!]!) {
  registerProductRoles(productId: $productId, roles: $roles) { uid name }
}`;

/** Registers `roles` for `productId` as the resetter through `door`. */
function register(door: 'rest' | 'graphql', productId: string, roles: unknown[]): Promise<Outcome> {
  return door === 'rest'
    ? rest(app, 'PUT', `/api/access-control/plugins/${encodeURIComponent(productId)}/roles`, { auth: resetter.auth, json: roles })
    : gql(app, REGISTER, { productId, roles }, { auth: resetter.auth });
}

/** Everything a registration could write. */
async function state() {
  const db = app.database.prisma;
  return {
    roles: await db.role.findMany({ orderBy: { id: 'asc' }, include: { permissions: { orderBy: { id: 'asc' } } } }),
    grants: await db.basicRoleGrant.findMany({ orderBy: { id: 'asc' } }),
    userRoles: await db.userRole.findMany({ orderBy: { id: 'asc' } }),
  };
}

const permissionsOf = async (who: Actor) =>
  (await rest(app, 'GET', '/api/access-control/user/permissions', { auth: who.auth })).body as Record<string, string[]>;

/** The role: this service's own actions, granted to Viewer. */
const takeover = (productId: string, area = productId) => [
  {
    role: {
      name: `plugins:${productId}:admin`,
      permissions: [
        { action: `${area}:write`, scope: 'global.users:*' },
        { action: `${area}.roles:add`, scope: 'permissions:type:escalate' },
      ],
    },
    grants: ['Viewer'],
  },
];

const SERVICE_NAMESPACES = [
  'users',
  'teams',
  'org',
  'orgs',
  'roles',
  'serviceaccounts',
  'apikeys',
  'apikey',
  'permissions',
  'provisioning',
  'provisioners',
  'status',
  'audit',
  'global',
  'services',
];
const SPELLINGS = [
  'Users',
  'USERS',
  'user',
  'team',
  'Org',
  'service-accounts',
  'service_accounts',
  'api-keys',
  'API_KEY',
  'plugins',
  'fixed',
  'basic',
  'managed',
];

describe.each(['rest', 'graphql'] as const)('product registration outside its namespace through %s', (door) => {
  it.each([...SERVICE_NAMESPACES, ...SPELLINGS])('product id "%s" is refused with 400 and nothing changes', async (productId) => {
    const before = await state();
    const viewerBefore = await permissionsOf(viewer);
    const message = expectOutcome(await register(door, productId, takeover(productId)), 400, 'VALIDATION_FAILED');
    expect(message).toContain(`productId "${productId}" is a namespace of this service`);
    expect(await state()).toEqual(before);
    expect(await permissionsOf(viewer)).toEqual(viewerBefore);
  });

  it("actions of this service under a product's own id are refused, whatever the product", async () => {
    const before = await state();
    for (const action of ['users:write', 'users.roles:add', 'teams:write', 'roles:write', 'org.users:add', 'evilusers:write']) {
      const roles = [{ role: { name: 'plugins:evil:x', permissions: [{ action, scope: '*' }] }, grants: ['Viewer'] }];
      expect(expectOutcome(await register(door, 'evil', roles), 400, 'VALIDATION_FAILED')).toContain('must start with "evil." or "evil:"');
    }
    expect(await state()).toEqual(before);
  });

  it('after a refused attempt the caller still cannot assign itself fixed:users:writer', async () => {
    await register(door, 'users', takeover('users'));
    const assign = await rest(app, 'POST', `/api/access-control/users/${resetter.id}/roles`, {
      auth: resetter.auth,
      json: { roleUid: (await app.database.prisma.role.findFirstOrThrow({ where: { name: 'fixed:users:writer' } })).uid },
    });
    expectOutcome(assign, 403, 'ACCESS_DENIED');
    expect(await app.database.prisma.userRole.count({ where: { userId: resetter.id } })).toBe(1);
  });
});

describe('the legitimate use keeps working', () => {
  it.each(['rest', 'graphql'] as const)(
    '%s: the resetter registers product notes with notes:read for Viewers; re-registering changes nothing',
    async (door) => {
      const roles = [
        { role: { name: 'plugins:notes:reader', permissions: [{ action: 'notes:read', scope: 'notes:*' }] }, grants: ['Viewer'] },
      ];
      expectOutcome(await register(door, 'notes', roles), 200);
      expect((await permissionsOf(viewer))['notes:read']).toEqual(['notes:*']);
      const before = await state();
      expectOutcome(await register(door, 'notes', roles), 200);
      expect(await state()).toEqual(before);
    },
  );

  it('product ids that merely contain a namespace are products like any other', async () => {
    for (const productId of ['users-analytics', 'teamspace', 'orgchart']) {
      const roles = [{ role: { name: `plugins:${productId}:reader`, permissions: [{ action: `${productId}:read` }] } }];
      expectOutcome(await register('rest', productId, roles), 200);
    }
  });
});
