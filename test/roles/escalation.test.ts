/**
 * Escalation rights: a role-management action held on a scope covering
 * permissions:type:escalate exempts from delegation for that action, and escalate implies
 * delegate. basic:service_admin holds the six actions on permissions:type:* (also in databases
 * seeded before, through the migration), so the seeded Service Admin creates, updates, assigns
 * and resets roles carrying other products' actions; an Admin with delegate only cannot.
 * A property over random callers (held roles:write scopes x other permissions) and random role
 * permissions checks role creation against an oracle written here.
 */
import { readFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_ROLES } from '../../src/kernel/builtin-roles.js';
import type { PermissionPair } from '../../src/kernel/catalogue.js';
import { isDomainError } from '../../src/kernel/errors.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, createUser, p, unique, userPrincipal } from '../support/subjects.js';

let app: TestApp;
let orgAdmin: Actor;
let viewer: Actor;

beforeAll(async () => {
  app = await createTestApp();
  orgAdmin = await createUser(app, 'esc-org-admin', { orgRole: 'Admin' });
  viewer = await createUser(app, 'esc-viewer', { orgRole: 'Viewer' });
});
afterAll(() => app.close());

const PRODUCT_PERMISSIONS = [p('dashboards:read', 'dashboards:*'), p('myapp.reports:export')];

describe('the Service Admin guards other products', () => {
  it('creates, updates, assigns, adds to basic:viewer and hard-resets roles with product actions', async () => {
    const created = await rest(app, 'POST', '/api/access-control/roles', {
      json: { name: 'custom:dash', uid: 'dash', permissions: PRODUCT_PERMISSIONS },
    });
    expectOutcome(created, 200);
    const updated = await rest(app, 'PUT', '/api/access-control/roles/dash', {
      json: { name: 'custom:dash', version: 1, permissions: [...PRODUCT_PERMISSIONS, p('dashboards:write', 'dashboards:*')] },
    });
    expectOutcome(updated, 200);
    expectOutcome(await rest(app, 'POST', `/api/access-control/users/${viewer.id}/roles`, { json: { roleUid: 'dash' } }), 200);
    const perms = await rest(app, 'GET', `/api/access-control/users/${viewer.id}/permissions`);
    expect(perms.body).toEqual(expect.arrayContaining([{ action: 'dashboards:write', scope: 'dashboards:*' }]));

    const basic = await rest(app, 'GET', '/api/access-control/roles/basic_viewer');
    const { version, permissions } = basic.body as { version: number; permissions: PermissionPair[] };
    const withProduct = [...permissions.map(({ action, scope }) => ({ action, scope })), p('myapp.reports:read', 'reports:*')];
    const edit = await rest(app, 'PUT', '/api/access-control/roles/basic_viewer', {
      json: { name: 'basic:viewer', version: version + 1, permissions: withProduct },
    });
    expectOutcome(edit, 200);
    const own = await rest(app, 'GET', '/api/access-control/user/permissions', { auth: viewer.auth });
    expect(own.body).toMatchObject({ 'myapp.reports:read': ['reports:*'] });

    expectOutcome(await rest(app, 'POST', '/api/access-control/roles/hard-reset', { json: { BasicRoles: true } }), 200);
    const after = await rest(app, 'GET', '/api/access-control/user/permissions?reloadcache=true', { auth: viewer.auth });
    expect(after.body).not.toHaveProperty('myapp.reports:read');
    expect(after.body).toHaveProperty('dashboards:write'); // the assigned custom role is no basic role: kept
  });

  it('an Admin with delegate only cannot exceed its own permissions, through either door', async () => {
    const refused = await rest(app, 'POST', '/api/access-control/roles', {
      auth: orgAdmin.auth,
      json: { name: 'custom:too-much', permissions: PRODUCT_PERMISSIONS },
    });
    expect(expectOutcome(refused, 403, 'ACCESS_DENIED')).toContain('delegation of dashboards:read on dashboards:*');
    const gqlRefused = await gql(
      app,
      'mutation($i: CreateRoleInput!) { createRole(input: $i) { uid } }',
      {
        i: { name: 'custom:too-much', permissions: PRODUCT_PERMISSIONS },
      },
      { auth: orgAdmin.auth },
    );
    expectOutcome(gqlRefused, 403, 'ACCESS_DENIED');
    const own = await rest(app, 'POST', '/api/access-control/roles', {
      auth: orgAdmin.auth,
      json: { name: 'custom:teams', permissions: [p('teams:read', 'teams:*')] },
    });
    expectOutcome(own, 200);
    expectOutcome(
      await rest(app, 'POST', '/api/access-control/roles/hard-reset', { auth: orgAdmin.auth, json: { BasicRoles: true } }),
      403,
      'ACCESS_DENIED',
    );
  });

  it('escalate implies delegate, and exempts only the action it is held for', async () => {
    const writer = await createUser(app, unique('esc-writer'), {
      orgRole: 'None',
      permissions: [p('roles:write', 'permissions:*'), p('roles:delete', 'permissions:type:delegate')],
    });
    const made = await rest(app, 'POST', '/api/access-control/roles', {
      auth: writer.auth,
      json: { name: 'custom:by-writer', uid: 'by-writer', permissions: PRODUCT_PERMISSIONS },
    });
    expectOutcome(made, 200);
    const deleted = await rest(app, 'DELETE', '/api/access-control/roles/by-writer', { auth: writer.auth });
    expectOutcome(deleted, 403, 'ACCESS_DENIED');
  });

  it('the 403 and the GraphQL description name both scopes', async () => {
    const denied = await rest(app, 'POST', '/api/access-control/roles', { auth: viewer.auth, json: { name: 'custom:x' } });
    // Grafana's message names the action; the scopes are in the denial's details (GraphQL extensions).
    expect(expectOutcome(denied, 403, 'ACCESS_DENIED')).toBe(
      "You'll need additional permissions to perform this action. Permissions needed: roles:write",
    );
    const gqlDenied = await gql(
      app,
      'mutation($i: CreateRoleInput!) { createRole(input: $i) { uid } }',
      { i: { name: 'custom:x' } },
      {
        auth: viewer.auth,
      },
    );
    expect(gqlDenied.body).toMatchObject({
      errors: [{ extensions: { details: { needed: expect.stringContaining('permissions:type:delegate, permissions:type:escalate') } } }],
    });
    const res = await gql(app, '{ __type(name: "Mutation") { fields { name description } } }', {});
    const fields = (res.data?.__type as { fields: { name: string; description: string }[] } | undefined)?.fields;
    expect(fields?.find((f) => f.name === 'createRole')?.description).toContain(
      'roles:write on permissions:type:delegate or permissions:type:escalate',
    );
  });
});

describe('basic:service_admin defaults', () => {
  it('holds the six role-management actions on permissions:type:* and provisioning:reload', () => {
    const def = BASIC_ROLES.find((r) => r.uid === 'basic_service_admin');
    const held = new Set(def?.permissions.map((x) => `${x.action} ${x.scope}`));
    for (const action of [
      'roles:write',
      'roles:delete',
      'users.roles:add',
      'users.roles:delete',
      'teams.roles:add',
      'teams.roles:delete',
    ]) {
      expect(held.has(`${action} permissions:type:*`)).toBe(true);
    }
    expect(held.has('provisioning:reload provisioners:accesscontrol')).toBe(true);
    for (const role of BASIC_ROLES.filter((r) => r.uid !== 'basic_service_admin')) {
      expect(role.permissions.filter((x) => x.scope.startsWith('permissions:')).every((x) => x.scope === 'permissions:type:delegate')).toBe(
        true,
      );
    }
  });

  // SQLite-specific: replays a SQLite data migration; PostgreSQL databases start from the current schema and seed.
  it.skipIf(onPostgres)('a database seeded before gets them once through the migration, without duplicates or clobbering', async () => {
    const sql = readFileSync(
      new URL('../../prisma/migrations/20261123110600_service_admin_escalate/migration.sql', import.meta.url),
      'utf8',
    );
    const raw = new BetterSqlite3(app.database.path, { timeout: 5000 });
    try {
      const role = raw.prepare<[], { id: number }>("SELECT id FROM Role WHERE uid = 'basic_service_admin'").get();
      const count = () =>
        raw.prepare<[number], { n: number }>('SELECT count(*) AS n FROM Permission WHERE roleId = ?').get(role?.id ?? 0)?.n;
      raw
        .prepare("DELETE FROM Permission WHERE roleId = ? AND (scope = 'permissions:type:*' OR action = 'provisioning:reload')")
        .run(role?.id ?? 0);
      raw
        .prepare("INSERT INTO Permission (roleId, action, scope, updated) VALUES (?, 'custom:kept', '', '2030-01-01T00:00:00.000+00:00')")
        .run(role?.id ?? 0);
      const before = count() ?? 0;
      raw.exec(sql);
      expect(count()).toBe(before + 7);
      raw.exec(sql);
      expect(count()).toBe(before + 7);
    } finally {
      raw.close();
    }
    app.services.access.invalidate();
    const own = await rest(app, 'GET', '/api/access-control/user/permissions');
    expect(own.body).toMatchObject({ 'custom:kept': [''], 'teams.roles:add': expect.arrayContaining(['permissions:type:*']) });
  });
});

describe('property: role creation with escalation, both ways', () => {
  const WRITE_SCOPES = [
    '',
    'permissions:type:delegate',
    'permissions:type:escalate',
    'permissions:type:*',
    'permissions:*',
    '*',
    'roles:*',
  ];
  const OTHER = fc.record({ action: fc.constantFrom('a:read', 'b:write'), scope: fc.constantFrom('', '*', 'a:*', 'a:id:1', 'b:*') });
  const matches = (held: string, wanted: string) =>
    held !== '' && (held.endsWith('*') ? wanted.startsWith(held.slice(0, -1)) : held === wanted);
  const holdsWrite = (held: PermissionPair[], scope: string) => held.some((h) => h.action === 'roles:write' && matches(h.scope, scope));
  const covered = (held: PermissionPair[], role: PermissionPair[]) =>
    role.every((w) => held.some((h) => h.action === w.action && (w.scope === '' || matches(h.scope, w.scope))));

  it('100 random callers and roles: exempt callers always pass, delegate-only callers exactly when covered', async () => {
    const tally = { exempt: 0, delegateOnly: 0, accepted: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...WRITE_SCOPES), { minLength: 1, maxLength: 2 }),
        fc.array(OTHER, { maxLength: 3 }),
        fc.array(OTHER, { maxLength: 3 }),
        async (writeScopes, others, role) => {
          const held = [...writeScopes.map((s) => p('roles:write', s)), ...others];
          const caller = await createUser(app, unique('prop-writer'), { orgRole: 'None', permissions: held });
          const exempt = holdsWrite(held, 'permissions:type:escalate');
          const base = exempt || holdsWrite(held, 'permissions:type:delegate');
          const want = base && (exempt || covered(held, role));
          if (exempt) tally.exempt++;
          else if (base) tally.delegateOnly++;
          let got: boolean;
          try {
            await app.services.roles.create(userPrincipal(caller, 'None'), { name: unique('custom:prop'), permissions: role });
            got = true;
          } catch (error) {
            if (!isDomainError(error) || error.code !== 'ACCESS_DENIED') throw error;
            got = false;
          }
          if (got) tally.accepted++;
          expect({ held, role, got }).toEqual({ held, role, got: want });
        },
      ),
      { numRuns: 100, seed: 0x5eed },
    );
    expect(tally.exempt).toBeGreaterThan(20);
    expect(tally.delegateOnly).toBeGreaterThan(5);
  });
});
