/**
 * Product role registration: PUT /api/access-control/plugins/:productId/roles
 * and `registerProductRoles`. Names and action prefixes are enforced (400), registration needs
 * escalate (403 for an org Admin), registered roles are fixed (read-only, group = product), grants
 * reach the basic roles above (Service Admin only when named), survive a hard reset, and
 * registering again replaces: fewer roles, fewer permissions, fewer grants, everywhere at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productRoleUid } from '../../src/kernel/builtin-roles.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createTeam, createUser } from '../support/subjects.js';

let app: TestApp;
let viewer: Actor;
let editor: Actor;
let orgAdmin: Actor;

const PATH = '/api/access-control/plugins/notes/roles';
const reader = {
  role: {
    name: 'plugins:notes:reader',
    displayName: 'Notes reader',
    description: 'Read notes.',
    permissions: [{ action: 'notes:read', scope: 'notes:*' }],
  },
  grants: ['Viewer'],
};
const writer = {
  role: {
    name: 'plugins:notes:writer',
    displayName: 'Notes writer',
    permissions: [{ action: 'notes:write', scope: 'notes:*' }, { action: 'notes.comments:write' }],
  },
  grants: ['Editor'],
};
const auditor = { role: { name: 'plugins:notes:auditor', permissions: [{ action: 'notes:audit' }] }, grants: ['Service Admin'] };

const permissionsOf = async (who: Actor | null) =>
  (await rest(app, 'GET', '/api/access-control/user/permissions', who ? { auth: who.auth } : {})).body as Record<string, string[]>;

beforeAll(async () => {
  app = await createTestApp();
  viewer = await createUser(app, 'reg-viewer', { orgRole: 'Viewer' });
  editor = await createUser(app, 'reg-editor', { orgRole: 'Editor' });
  orgAdmin = await createUser(app, 'reg-admin', { orgRole: 'Admin' });
});
afterAll(() => app.close());

describe('PUT /api/access-control/plugins/:productId/roles', () => {
  it('400 for a name without plugins:<productId>: or an action of another product or of this service', async () => {
    const badName = await rest(app, 'PUT', PATH, { json: [{ role: { name: 'notes:reader', permissions: [] } }] });
    expect(expectOutcome(badName, 400, 'VALIDATION_FAILED')).toContain('plugins:notes:');
    for (const action of ['roles:write', 'billing:read', 'notesx:read']) {
      const bad = await rest(app, 'PUT', PATH, { json: [{ role: { name: 'plugins:notes:x', permissions: [{ action }] }, grants: [] }] });
      expect(expectOutcome(bad, 400, 'VALIDATION_FAILED')).toContain('must start with "notes." or "notes:"');
    }
    expectOutcome(await rest(app, 'PUT', PATH, { json: [{ role: reader.role, grants: ['Owner'] }] }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', '/api/access-control/plugins/no%20pe/roles', { json: [] }), 400, 'VALIDATION_FAILED');
    expect(await app.database.prisma.role.count({ where: { name: { startsWith: 'plugins:' } } })).toBe(0);
  });

  it('403 without roles:write on permissions:type:escalate', async () => {
    expectOutcome(await rest(app, 'PUT', PATH, { auth: orgAdmin.auth, json: [reader] }), 403, 'ACCESS_DENIED');
  });

  it('registers fixed roles whose grants reach the basic roles above; Service Admin only when named', async () => {
    const res = await rest(app, 'PUT', PATH, { json: [reader, writer, auditor] });
    expectOutcome(res, 200);
    const roles = (res.body as { roles: { uid: string; name: string; group: string; global: boolean }[] }).roles;
    expect(roles.map((r) => r.name)).toEqual(['plugins:notes:auditor', 'plugins:notes:reader', 'plugins:notes:writer']);
    expect(roles.every((r) => r.group === 'notes' && r.global && r.uid === productRoleUid(r.name))).toBe(true);

    expect(await permissionsOf(viewer)).toMatchObject({ 'notes:read': ['notes:*'] });
    expect(await permissionsOf(viewer)).not.toHaveProperty('notes:write');
    expect(await permissionsOf(editor)).toMatchObject({ 'notes:read': ['notes:*'], 'notes:write': ['notes:*'] });
    const admin = await permissionsOf(orgAdmin);
    expect(admin).toMatchObject({ 'notes:read': ['notes:*'], 'notes:write': ['notes:*'] });
    expect(admin).not.toHaveProperty('notes:audit');
    expect(await permissionsOf(null)).toMatchObject({ 'notes:audit': [''] }); // the seeded Service Admin
  });

  it('registered roles are read-only through the role API and listed with the product as group', async () => {
    const uid = productRoleUid('plugins:notes:reader');
    const update = await rest(app, 'PUT', `/api/access-control/roles/${uid}`, { json: { name: 'plugins:notes:reader', version: 9 } });
    expectOutcome(update, 400, 'ROLE_IS_FIXED');
    expectOutcome(await rest(app, 'DELETE', `/api/access-control/roles/${uid}?global=true`), 400, 'ROLE_IS_FIXED');
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles', { json: { name: 'plugins:notes:fake' } }), 400, 'VALIDATION_FAILED');
    const list = (await rest(app, 'GET', '/api/access-control/roles')).body as unknown as { name: string; group: string }[];
    expect(list.filter((r) => r.group === 'notes').map((r) => r.name)).toHaveLength(3);
  });

  it('grants survive a hard reset', async () => {
    expectOutcome(await rest(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: true } }), 200);
    expect(await permissionsOf(viewer)).toMatchObject({ 'notes:read': ['notes:*'] });
    expect(await permissionsOf(editor)).toMatchObject({ 'notes:write': ['notes:*'] });
  });

  it('registering the same roles again changes nothing', async () => {
    const before = await app.database.prisma.role.findMany({
      where: { group: 'notes' },
      include: { permissions: true, basicGrants: true },
    });
    expectOutcome(await rest(app, 'PUT', PATH, { json: [reader, writer, auditor] }), 200);
    const after = await app.database.prisma.role.findMany({ where: { group: 'notes' }, include: { permissions: true, basicGrants: true } });
    expect(after).toEqual(before);
  });

  it('registering fewer withdraws roles (with their assignments), permissions and grants everywhere', async () => {
    const team = await createTeam(app, 'reg-team', { members: [viewer.id] });
    const auditorUid = productRoleUid('plugins:notes:auditor');
    expectOutcome(await rest(app, 'POST', `/api/access-control/teams/${team.id}/roles`, { json: { roleUid: auditorUid } }), 200);
    expect(await permissionsOf(viewer)).toHaveProperty('notes:audit');

    const fewer = { role: { ...writer.role, permissions: [{ action: 'notes:write', scope: 'notes:*' }] }, grants: ['Admin'] };
    expectOutcome(await rest(app, 'PUT', PATH, { json: [reader, fewer] }), 200);
    expect(await app.database.prisma.role.count({ where: { uid: auditorUid } })).toBe(0);
    expect(await app.database.prisma.teamRole.count({ where: { teamId: team.id } })).toBe(0);
    expect(await permissionsOf(viewer)).not.toHaveProperty('notes:audit');
    expect(await permissionsOf(editor)).not.toHaveProperty('notes:write');
    const admin = await permissionsOf(orgAdmin);
    expect(admin).toMatchObject({ 'notes:write': ['notes:*'] });
    expect(admin).not.toHaveProperty('notes.comments:write');
  });
});

describe('registerProductRoles', () => {
  it('takes the enum form of grants and answers the product roles', async () => {
    const res = await gql(
      app,
      `mutation($roles: [ProductRoleRegistrationInput!]!) {
        registerProductRoles(productId: "billing", roles: $roles) { uid name group permissions { action scope } }
      }`,
      {
        roles: [
          {
            role: { name: 'plugins:billing:admin', permissions: [{ action: 'billing.invoices:write', scope: 'invoices:*' }] },
            grants: ['ServiceAdmin'],
          },
        ],
      },
    );
    expectOutcome(res, 200);
    expect(res.data?.registerProductRoles).toEqual([
      {
        uid: productRoleUid('plugins:billing:admin'),
        name: 'plugins:billing:admin',
        group: 'billing',
        permissions: [{ action: 'billing.invoices:write', scope: 'invoices:*' }],
      },
    ]);
    expect(await permissionsOf(null)).toMatchObject({ 'billing.invoices:write': ['invoices:*'] });
    expect(await permissionsOf(orgAdmin)).not.toHaveProperty('billing.invoices:write');
    const denied = await gql(
      app,
      'mutation { registerProductRoles(productId: "billing", roles: []) { uid } }',
      {},
      { auth: orgAdmin.auth },
    );
    expectOutcome(denied, 403, 'ACCESS_DENIED');
  });
});
