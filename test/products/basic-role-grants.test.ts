/**
 * Product grants shown on basic roles: GraphQL
 * `Role.grantedRoles` lists the registered fixed roles a basic role grants, inheritance
 * Viewer -> Editor -> Admin included and Service Admin only when named, in a constant number of
 * SQL statements for a listing. The basic role's own `permissions` (and REST, which keeps
 * Grafana's shape) stay without them, so GET -> edit -> PUT of a basic role copies nothing and a
 * re-registration that withdraws a grant leaves no product permission behind.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productRoleUid } from '../../src/kernel/builtin-roles.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, mustGraphql, rest } from '../support/requests.js';
import { type Actor, createUser } from '../support/subjects.js';

let app: TestApp;
let viewer: Actor;

const register = (productId: string, roles: unknown[]) =>
  rest(app, 'PUT', `/api/access-control/plugins/${productId}/roles`, { json: roles });
const reader = { role: { name: 'plugins:myapp:reader', permissions: [{ action: 'myapp:read', scope: 'myapp:*' }] }, grants: ['Viewer'] };
const operator = { role: { name: 'plugins:myapp:operator', permissions: [{ action: 'myapp:restart' }] }, grants: ['Service Admin'] };

type GrantedRow = { name: string; permissions: { action: string }[]; grantedRoles: { name: string; permissions: { action: string }[] }[] };
const LISTING = '{ roles(includeHidden: true) { name permissions { action } grantedRoles { name permissions { action } } } }';

async function listing(): Promise<Map<string, GrantedRow>> {
  const data = await mustGraphql<{ roles: GrantedRow[] }>(app, LISTING);
  return new Map(data.roles.map((r) => [r.name, r]));
}
const grantedNames = (row: GrantedRow | undefined) => row?.grantedRoles.map((g) => g.name);
const own = async (who: Actor) =>
  (await rest(app, 'GET', '/api/access-control/user/permissions', { auth: who.auth })).body as Record<string, string[]>;

beforeAll(async () => {
  app = await createTestApp();
  viewer = await createUser(app, 'grants-viewer', { orgRole: 'Viewer' });
  expectOutcome(await register('myapp', [reader, operator]), 200);
});
afterAll(() => app.close());

describe('Role.grantedRoles', () => {
  it('lists on each basic role the product roles it grants, inheritance included, beside its own permissions', async () => {
    const roles = await listing();
    for (const basic of ['basic:viewer', 'basic:editor', 'basic:admin']) {
      expect(grantedNames(roles.get(basic))).toEqual(['plugins:myapp:reader']);
      expect(roles.get(basic)?.grantedRoles[0]?.permissions).toEqual([{ action: 'myapp:read' }]);
      expect(roles.get(basic)?.permissions.map((x) => x.action)).not.toContain('myapp:read');
    }
    expect(grantedNames(roles.get('basic:service_admin'))).toEqual(['plugins:myapp:operator']);
    expect(grantedNames(roles.get('plugins:myapp:reader'))).toEqual([]);
    expect(grantedNames(roles.get('fixed:teams:reader'))).toEqual([]);
    // What the field shows is what holders get.
    expect(await own(viewer)).toMatchObject({ 'myapp:read': ['myapp:*'] });

    const one = await mustGraphql<{ role: { grantedRoles: { uid: string }[] } }>(
      app,
      '{ role(uid: "basic_editor") { grantedRoles { uid } } }',
    );
    expect(one.role.grantedRoles).toEqual([{ uid: productRoleUid('plugins:myapp:reader') }]);
  });

  it('a holder of the basic role sees the same through viewer { roles }', async () => {
    const data = await mustGraphql<{ viewer: { roles: { name: string; grantedRoles: { name: string }[] }[] } }>(
      app,
      '{ viewer { roles { name grantedRoles { name } } } }',
      {},
      { auth: viewer.auth },
    );
    expect(data.viewer.roles.find((r) => r.name === 'basic:viewer')?.grantedRoles).toEqual([{ name: 'plugins:myapp:reader' }]);
  });

  it('reads the grants once per listing: the statement count does not grow with the granted roles', async () => {
    const count = async (query: string) => {
      app.resetQueries();
      await mustGraphql(app, query);
      return app.queries.length;
    };
    const without = await count('{ roles(includeHidden: true) { name permissions { action } } }');
    const before = await count(LISTING);
    expect(before - without).toBeLessThanOrEqual(3);
    const many = Array.from({ length: 25 }, (_, i) => ({
      role: { name: `plugins:bulk:r${i}`, permissions: [{ action: `bulk:a${i}` }, { action: 'bulk:common', scope: `bulk:id:${i}` }] },
      grants: [i % 2 ? 'Viewer' : 'Editor'],
    }));
    expectOutcome(await register('bulk', many), 200);
    await count(LISTING); // the registration emptied the caller's cached permissions: reload them first
    expect(await count(LISTING)).toBe(before);
    const roles = await listing();
    expect(roles.get('basic:admin')?.grantedRoles).toHaveLength(26);
    expect(roles.get('basic:viewer')?.grantedRoles).toHaveLength(13);
    expectOutcome(await register('bulk', []), 200);
  });
});

describe('the basic role itself stays without product permissions', () => {
  it("REST answers Grafana's shape: the basic role's own permissions, no granted roles", async () => {
    const res = await rest(app, 'GET', '/api/access-control/roles/basic_viewer');
    expectOutcome(res, 200);
    const body = res.body as { permissions: { action: string }[] };
    expect(body.permissions.map((x) => x.action)).not.toContain('myapp:read');
    expect(body).not.toHaveProperty('grantedRoles');
  });

  it('GET -> edit -> PUT copies no product permission, so withdrawing the grant removes it from holders', async () => {
    const got = (await rest(app, 'GET', '/api/access-control/roles/basic_viewer')).body as {
      name: string;
      version: number;
      permissions: { action: string; scope: string }[];
    };
    const permissions = [
      ...got.permissions.map(({ action, scope }) => ({ action, scope })),
      { action: 'reports:read', scope: 'reports:*' },
    ];
    const put = await rest(app, 'PUT', '/api/access-control/roles/basic_viewer', {
      json: { name: got.name, version: got.version + 1, permissions },
    });
    expectOutcome(put, 200);
    expect(await own(viewer)).toMatchObject({ 'myapp:read': ['myapp:*'], 'reports:read': ['reports:*'] });

    expectOutcome(await register('myapp', [{ ...reader, grants: [] }, operator]), 200);
    expect(await own(viewer)).not.toHaveProperty('myapp:read');
    expect(await own(viewer)).toHaveProperty('reports:read');
    const roles = await listing();
    expect(grantedNames(roles.get('basic:viewer'))).toEqual([]);
    expect(grantedNames(roles.get('basic:admin'))).toEqual([]);
    expect(grantedNames(roles.get('basic:service_admin'))).toEqual(['plugins:myapp:operator']);
  });
});
