/**
 * The audit log against the changes made: a scripted sequence of changes
 * through both doors (roles, user and team assignments, a basic role edit and the hard reset,
 * API keys, service-account tokens, product registration, provisioning), each expected to log
 * exactly its events with who (kind, id, login, auth method), where from (client address,
 * X-Request-Id), what (action, organization, resource) and the object before and after. Failing
 * attempts (400, 403, 404, 409, a failure inside the transaction, a broken provisioning file)
 * log nothing and change nothing. Directory changes (users, teams, memberships) are logged by
 * their own services; their events are checked for action, actor, origin and presence of
 * before/after. No secret ever reaches the table.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_ROLES, productRoleUid } from '../../src/kernel/builtin-roles.js';
import { hashApiKey } from '../../src/modules/api-keys/secrets.js';
import { ADMIN, type TestApp } from '../support/app.js';
import { failInserts } from '../support/faults.js';
import { expectInternalErrorsLogged, expectOutcome } from '../support/requests.js';
import { type Fixtures, seedFixtures } from '../support/subjects.js';
import {
  basicUser,
  createAuditApp,
  type ExpectedActor,
  eventsAfter,
  expected,
  expectLogged,
  gqlFrom,
  type LoggedEvent,
  lastEventId,
  newOrigin,
  type Origin,
  restFrom,
  roleSnapshot,
  wholeLog,
} from './audit-scene.js';

let app: TestApp;
let fx: Fixtures;
let provisioning: string;
let admin: ExpectedActor;
/** Secrets handed out during the scene; none may appear in the log. */
const secrets: string[] = [ADMIN.password];

beforeAll(async () => {
  provisioning = mkdtempSync(join(tmpdir(), 'portcullis-audit-provisioning-'));
  mkdirSync(join(provisioning, 'access-control'));
  app = await createAuditApp({ PROVISIONING_PATH: provisioning });
  fx = await seedFixtures(app);
  admin = basicUser(fx.admin);
});

afterAll(async () => {
  await app?.close();
  rmSync(provisioning, { recursive: true, force: true });
});

const A = [{ action: 'teams:read', scope: 'teams:*' }];
const A2 = [...A, { action: 'teams:write', scope: 'teams:*' }];
const B = [{ action: 'teams:read', scope: 'teams:id:1' }];
const roleA = (version: number, extra: object = {}) =>
  roleSnapshot({ uid: 'audit-a', orgId: 1, name: 'custom:audit-a', version, permissions: version === 0 ? A : A2, ...extra });
const roleB = roleSnapshot({ uid: 'audit-b', orgId: 1, name: 'custom:audit-b', permissions: B });
const assigned = (userId: number, orgId: number, roleUids: string[]) => ({ userId, orgId, roleUids });
const teamAssigned = (teamId: number, roleUids: string[]) => ({ teamId, orgId: 1, roleUids });

/** A basic role's definition as the log snapshots it. */
function basicSnapshot(uid: string, version: number, permissions?: { action: string; scope: string }[]) {
  const def = BASIC_ROLES.find((r) => r.uid === uid);
  if (!def) throw new Error(uid);
  return roleSnapshot({
    uid,
    orgId: 0,
    name: def.name,
    displayName: def.displayName,
    description: def.description,
    group: def.group,
    hidden: def.hidden,
    version,
    permissions: permissions ?? def.permissions,
    grants: [def.basicRole],
  });
}

/** Runs a request from a new origin and expects `events(origin)` logged by it, nothing else. */
async function step(
  send: (origin: Origin) => Promise<{ status: number; body: unknown }>,
  status: number,
  events: (origin: Origin) => object[],
): Promise<LoggedEvent[]> {
  const origin = newOrigin();
  return expectLogged(
    app,
    async () => {
      const out = await send(origin);
      expect(out.status, JSON.stringify(out.body)).toBe(status);
    },
    events(origin),
  );
}

describe('every change is logged with who, when, from where, and the object before and after', () => {
  it('role.create (REST) and role.update (GraphQL) with the role before and after', async () => {
    await step(
      (origin) =>
        restFrom(app, 'POST', '/api/access-control/roles', { origin, json: { uid: 'audit-a', name: 'custom:audit-a', permissions: A } }),
      200,
      (origin) => [
        expected(
          { action: 'role.create', orgId: 1, resourceKind: 'role', resourceId: 'audit-a', before: null, after: roleA(0) },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) =>
        gqlFrom(
          app,
          'mutation ($input: UpdateRoleInput!) { updateRole(uid: "audit-a", input: $input) { version } }',
          { input: { version: 1, name: 'custom:audit-a', description: 'edited', permissions: A2 } },
          { origin },
        ),
      200,
      (origin) => [
        expected(
          {
            action: 'role.update',
            orgId: 1,
            resourceKind: 'role',
            resourceId: 'audit-a',
            before: roleA(0),
            after: roleA(1, { description: 'edited' }),
          },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) =>
        gqlFrom(
          app,
          'mutation ($input: CreateRoleInput!) { createRole(input: $input) { uid } }',
          { input: { uid: 'audit-b', name: 'custom:audit-b', permissions: B } },
          { origin },
        ),
      200,
      (origin) => [
        expected(
          { action: 'role.create', orgId: 1, resourceKind: 'role', resourceId: 'audit-b', before: null, after: roleB },
          admin,
          origin,
        ),
      ],
    );
  });

  it('user_role.add / set / remove with the subject and its roles before and after; a no-op add logs nothing', async () => {
    const id = fx.editor.id;
    const path = `/api/access-control/users/${id}/roles`;
    const user = { resourceKind: 'user', resourceId: String(id), orgId: 1 };
    await step(
      (origin) => restFrom(app, 'POST', path, { origin, json: { roleUid: 'audit-a' } }),
      200,
      (origin) => [
        expected({ action: 'user_role.add', ...user, before: assigned(id, 1, []), after: assigned(id, 1, ['audit-a']) }, admin, origin),
      ],
    );
    await step(
      (origin) => gqlFrom(app, 'mutation ($u: Int!) { addUserRole(userId: $u, roleUid: "audit-a") { message } }', { u: id }, { origin }),
      200,
      () => [],
    );
    await step(
      (origin) =>
        gqlFrom(app, 'mutation ($u: Int!) { setUserRoles(userId: $u, roleUids: ["audit-b"]) { message } }', { u: id }, { origin }),
      200,
      (origin) => [
        expected(
          { action: 'user_role.set', ...user, before: assigned(id, 1, ['audit-a']), after: assigned(id, 1, ['audit-b']) },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) => restFrom(app, 'DELETE', `${path}/audit-b`, { origin }),
      200,
      (origin) => [
        expected({ action: 'user_role.remove', ...user, before: assigned(id, 1, ['audit-b']), after: assigned(id, 1, []) }, admin, origin),
      ],
    );
  });

  it('a global role and a global assignment are logged in organization 0', async () => {
    const global = roleSnapshot({ uid: 'audit-g', orgId: 0, name: 'custom:audit-g', permissions: A });
    await step(
      (origin) =>
        gqlFrom(
          app,
          'mutation ($input: CreateRoleInput!) { createRole(input: $input) { uid } }',
          { input: { uid: 'audit-g', name: 'custom:audit-g', global: true, permissions: A } },
          { origin },
        ),
      200,
      (origin) => [
        expected(
          { action: 'role.create', orgId: 0, resourceKind: 'role', resourceId: 'audit-g', before: null, after: global },
          admin,
          origin,
        ),
      ],
    );
    const id = fx.viewer.id;
    await step(
      (origin) => restFrom(app, 'POST', `/api/access-control/users/${id}/roles`, { origin, json: { roleUid: 'audit-g', global: true } }),
      200,
      (origin) => [
        expected(
          {
            action: 'user_role.add',
            orgId: 0,
            resourceKind: 'user',
            resourceId: String(id),
            before: assigned(id, 0, []),
            after: assigned(id, 0, ['audit-g']),
          },
          admin,
          origin,
        ),
      ],
    );
  });

  it('team_role.add / set / remove', async () => {
    const teamId = fx.team.id;
    const team = { resourceKind: 'team', resourceId: String(teamId), orgId: 1 };
    await step(
      (origin) => restFrom(app, 'POST', `/api/access-control/teams/${teamId}/roles`, { origin, json: { roleUid: 'audit-a' } }),
      200,
      (origin) => [
        expected(
          { action: 'team_role.add', ...team, before: teamAssigned(teamId, []), after: teamAssigned(teamId, ['audit-a']) },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) =>
        gqlFrom(
          app,
          'mutation ($t: Int!) { setTeamRoles(teamId: $t, roleUids: ["audit-a", "audit-b"]) { message } }',
          { t: teamId },
          { origin },
        ),
      200,
      (origin) => [
        expected(
          {
            action: 'team_role.set',
            ...team,
            before: teamAssigned(teamId, ['audit-a']),
            after: teamAssigned(teamId, ['audit-a', 'audit-b']),
          },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) =>
        gqlFrom(app, 'mutation ($t: Int!) { removeTeamRole(teamId: $t, roleUid: "audit-b") { message } }', { t: teamId }, { origin }),
      200,
      (origin) => [
        expected(
          {
            action: 'team_role.remove',
            ...team,
            before: teamAssigned(teamId, ['audit-a', 'audit-b']),
            after: teamAssigned(teamId, ['audit-a']),
          },
          admin,
          origin,
        ),
      ],
    );
  });

  it('a basic role edit, then basic_role.reset for every basic role with its state before and after', async () => {
    const viewer = BASIC_ROLES.find((r) => r.uid === 'basic_viewer')?.permissions ?? [];
    const edited = [...viewer, { action: 'dashboards:read', scope: 'dashboards:*' }];
    await step(
      (origin) =>
        gqlFrom(
          app,
          'mutation ($input: UpdateRoleInput!) { updateRole(uid: "basic_viewer", input: $input) { version } }',
          { input: { version: 1, name: 'basic:viewer', permissions: edited } },
          { origin },
        ),
      200,
      (origin) => [
        expected(
          {
            action: 'role.update',
            orgId: 0,
            resourceKind: 'role',
            resourceId: 'basic_viewer',
            before: basicSnapshot('basic_viewer', 0),
            after: basicSnapshot('basic_viewer', 1, edited),
          },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) => restFrom(app, 'POST', '/api/access-control/roles/hard-reset', { origin, json: { BasicRoles: true } }),
      200,
      (origin) =>
        BASIC_ROLES.map((def) => {
          const before = def.uid === 'basic_viewer' ? basicSnapshot(def.uid, 1, edited) : basicSnapshot(def.uid, 0);
          const after = basicSnapshot(def.uid, before.version + 1);
          return expected(
            { action: 'basic_role.reset', orgId: 0, resourceKind: 'role', resourceId: def.uid, before, after },
            admin,
            origin,
          );
        }),
    );
  });

  it('api_key.create (REST, by an org Admin) and api_key.delete (GraphQL), without the key', async () => {
    const orgAdmin = basicUser({ id: fx.orgAdmin.id, login: fx.orgAdmin.login });
    let key = { id: 0, key: '' };
    const row = () => ({ id: key.id, orgId: 1, name: 'audit-key', role: 'Viewer', expires: null, serviceAccountId: null });
    const origin = newOrigin();
    const [created] = await expectLogged(app, async () => {
      const out = await restFrom(app, 'POST', '/api/auth/keys', {
        origin,
        auth: fx.orgAdmin.auth,
        json: { name: 'audit-key', role: 'Viewer' },
      });
      expectOutcome(out, 200);
      key = out.body as typeof key;
      secrets.push(key.key, hashApiKey(key.key));
    }, [expect.objectContaining({ action: 'api_key.create', resourceKind: 'api_key', ...orgAdmin })]);
    expect(created).toMatchObject(
      expected(
        { action: 'api_key.create', orgId: 1, resourceKind: 'api_key', resourceId: String(key.id), before: null, after: row() },
        orgAdmin,
        origin,
      ),
    );
    await step(
      (o) => gqlFrom(app, 'mutation ($id: Int!) { deleteApiKey(id: $id) { message } }', { id: key.id }, { origin: o }),
      200,
      (o) => [
        expected(
          { action: 'api_key.delete', orgId: 1, resourceKind: 'api_key', resourceId: String(key.id), before: row(), after: null },
          admin,
          o,
        ),
      ],
    );
  });

  it('a change made with an API key names the key as actor', async () => {
    const out = await restFrom(app, 'POST', '/api/auth/keys', { json: { name: 'audit-admin-key', role: 'Admin' } });
    expectOutcome(out, 200);
    const key = out.body as { id: number; key: string };
    secrets.push(key.key, hashApiKey(key.key));
    const actor = { actorKind: 'apiKey', actorId: key.id, actorLogin: 'audit-admin-key', authMethod: 'api_key' };
    const after = roleSnapshot({ uid: 'audit-k', orgId: 1, name: 'custom:audit-k', permissions: A });
    await step(
      (origin) =>
        restFrom(app, 'POST', '/api/access-control/roles', {
          origin,
          auth: { token: key.key },
          json: { uid: 'audit-k', name: 'custom:audit-k', permissions: A },
        }),
      200,
      (origin) => [
        expected({ action: 'role.create', orgId: 1, resourceKind: 'role', resourceId: 'audit-k', before: null, after }, actor, origin),
      ],
    );
  });

  it('service_account_token.create (REST) and .delete (GraphQL), without the token', async () => {
    const sa = fx.serviceAccount;
    let token = { id: 0, key: '' };
    const row = () => ({ id: token.id, orgId: 1, name: 'audit-token', role: 'Viewer', expires: null, serviceAccountId: sa.id });
    const origin = newOrigin();
    const [created] = await expectLogged(app, async () => {
      const out = await restFrom(app, 'POST', `/api/serviceaccounts/${sa.id}/tokens`, { origin, json: { name: 'audit-token' } });
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      token = out.body as typeof token;
      secrets.push(token.key, hashApiKey(token.key));
    }, [expect.objectContaining({ action: 'service_account_token.create' })]);
    expect(created).toMatchObject(
      expected(
        {
          action: 'service_account_token.create',
          orgId: 1,
          resourceKind: 'service_account_token',
          resourceId: String(token.id),
          before: null,
          after: row(),
        },
        admin,
        origin,
      ),
    );
    await step(
      (o) =>
        gqlFrom(
          app,
          'mutation ($sa: Int!, $t: Int!) { deleteServiceAccountToken(serviceAccountId: $sa, tokenId: $t) { message } }',
          {
            sa: sa.id,
            t: token.id,
          },
          { origin: o },
        ),
      200,
      (o) => [
        expected(
          {
            action: 'service_account_token.delete',
            orgId: 1,
            resourceKind: 'service_account_token',
            resourceId: String(token.id),
            before: row(),
            after: null,
          },
          admin,
          o,
        ),
      ],
    );
  });

  it('product_role.create / update / delete with permissions and grants', async () => {
    const name = 'plugins:auditnotes:reader';
    const uid = productRoleUid(name);
    const permissions = [{ action: 'auditnotes:read', scope: 'auditnotes:*' }];
    const snapshot = (version: number, grants: string[]) =>
      roleSnapshot({ uid, orgId: 0, name, displayName: 'Reader', group: 'auditnotes', version, permissions, grants });
    const resource = { orgId: 0, resourceKind: 'role', resourceId: uid };
    await step(
      (origin) =>
        restFrom(app, 'PUT', '/api/access-control/plugins/auditnotes/roles', {
          origin,
          json: [{ role: { name, displayName: 'Reader', permissions }, grants: ['Viewer'] }],
        }),
      200,
      (origin) => [
        expected(
          { action: 'product_role.create', ...resource, before: null, after: snapshot(1, ['Admin', 'Editor', 'Viewer']) },
          admin,
          origin,
        ),
      ],
    );
    const register =
      'mutation ($roles: [ProductRoleRegistrationInput!]!) { registerProductRoles(productId: "auditnotes", roles: $roles) { uid } }';
    await step(
      (origin) =>
        gqlFrom(app, register, { roles: [{ role: { name, displayName: 'Reader', permissions }, grants: ['Editor'] }] }, { origin }),
      200,
      (origin) => [
        expected(
          {
            action: 'product_role.update',
            ...resource,
            before: snapshot(1, ['Admin', 'Editor', 'Viewer']),
            after: snapshot(2, ['Admin', 'Editor']),
          },
          admin,
          origin,
        ),
      ],
    );
    await step(
      (origin) => gqlFrom(app, register, { roles: [] }, { origin }),
      200,
      (origin) => [
        expected({ action: 'product_role.delete', ...resource, before: snapshot(2, ['Admin', 'Editor']), after: null }, admin, origin),
      ],
    );
  });

  it('role.delete with force keeps the assignments it took with it', async () => {
    await step(
      (origin) => gqlFrom(app, 'mutation { deleteRole(uid: "audit-a", force: true) { message } }', {}, { origin }),
      200,
      (origin) => [
        expected(
          {
            action: 'role.delete',
            orgId: 1,
            resourceKind: 'role',
            resourceId: 'audit-a',
            before: { ...roleA(1, { description: 'edited' }), assignments: { users: [], teams: [{ teamId: fx.team.id, orgId: 1 }] } },
            after: null,
          },
          admin,
          origin,
        ),
      ],
    );
  });

  it('provisioning changes name the local operator, with the reload request as origin', async () => {
    writeFileSync(
      join(provisioning, 'access-control', 'a.yaml'),
      'apiVersion: 2\nroles:\n  - name: custom:prov-audit\n    uid: prov-audit\n    version: 1\n    permissions:\n      - action: teams:read\n        scope: teams:*\n',
    );
    const operator = { actorKind: 'local', actorId: 0, actorLogin: 'local-operator', authMethod: 'local' };
    const after = roleSnapshot({ uid: 'prov-audit', orgId: 1, name: 'custom:prov-audit', version: 1, permissions: A });
    await step(
      (origin) => restFrom(app, 'POST', '/api/admin/provisioning/access-control/reload', { origin }),
      200,
      (origin) => [
        expected(
          { action: 'role.create', orgId: 1, resourceKind: 'role', resourceId: 'prov-audit', before: null, after },
          operator,
          origin,
        ),
      ],
    );
    // Applying the same files again changes nothing, so logs nothing.
    await step(
      (origin) => restFrom(app, 'POST', '/api/admin/provisioning/access-control/reload', { origin }),
      200,
      () => [],
    );
  });

  it('migrating API keys: service_account.create and api_key.migrate for each key', async () => {
    const key = await app.database.prisma.apiKey.findFirstOrThrow({ where: { name: 'audit-admin-key' } });
    const row = { id: key.id, orgId: 1, name: 'audit-admin-key', role: 'Admin', expires: null };
    const logged = await step(
      (origin) => restFrom(app, 'POST', '/api/serviceaccounts/migrate', { origin }),
      200,
      (origin) => [
        expected(
          {
            action: 'service_account.create',
            orgId: 1,
            resourceKind: 'service_account',
            resourceId: expect.any(String),
            before: null,
            after: {
              id: expect.any(Number),
              login: expect.any(String),
              name: 'sa-autogen-audit-admin-key',
              orgId: 1,
              role: 'Admin',
              isServiceAccount: true,
            },
          },
          admin,
          origin,
        ),
        expected(
          {
            action: 'api_key.migrate',
            orgId: 1,
            resourceKind: 'api_key',
            resourceId: String(key.id),
            before: { ...row, serviceAccountId: null },
            after: { ...row, serviceAccountId: expect.any(Number) },
          },
          admin,
          origin,
        ),
      ],
    );
    const [account, migrated] = logged;
    expect(migrated?.after).toMatchObject({ serviceAccountId: Number(account?.resourceId) });
  });
});

describe('a failing change logs nothing and changes nothing', () => {
  const roleCount = () => app.database.prisma.role.count();
  const fails: [string, (origin: Origin) => Promise<{ status: number; body: unknown }>, number][] = [
    [
      'REST role with a malformed action (400)',
      (origin) =>
        restFrom(app, 'POST', '/api/access-control/roles', { origin, json: { name: 'custom:bad', permissions: [{ action: 'bad' }] } }),
      400,
    ],
    [
      'GraphQL update with a stale version (400)',
      (origin) =>
        gqlFrom(
          app,
          'mutation ($i: UpdateRoleInput!) { updateRole(uid: "audit-b", input: $i) { uid } }',
          { i: { version: 0, name: 'x' } },
          { origin },
        ),
      400,
    ],
    [
      'REST set with an unknown role among known ones (404)',
      (origin) =>
        restFrom(app, 'PUT', `/api/access-control/users/${fx.editor.id}/roles`, {
          origin,
          json: { roleUids: ['audit-b', 'no-such-role'] },
        }),
      404,
    ],
    [
      'REST role beyond what an org Admin may delegate (403)',
      (origin) =>
        restFrom(app, 'POST', '/api/access-control/roles', {
          origin,
          auth: fx.orgAdmin.auth,
          json: { name: 'custom:too-much', permissions: [{ action: 'users:delete', scope: 'global.users:*' }] },
        }),
      403,
    ],
    [
      'REST API key with a taken name (409)',
      (origin) => restFrom(app, 'POST', '/api/auth/keys', { origin, json: { name: 'audit-admin-key', role: 'Viewer' } }),
      409,
    ],
    [
      'REST API key by a Viewer (403)',
      (origin) => restFrom(app, 'POST', '/api/auth/keys', { origin, auth: fx.viewer.auth, json: { name: 'v', role: 'Viewer' } }),
      403,
    ],
    [
      'GraphQL global assignment by an org Admin (403)',
      (origin) =>
        gqlFrom(
          app,
          'mutation ($u: Int!) { addUserRole(userId: $u, roleUid: "audit-g", global: true) { message } }',
          { u: fx.viewer.id },
          {
            origin,
            auth: fx.orgAdmin.auth,
          },
        ),
      403,
    ],
  ];

  it.each(fails)('%s', async (_name, send, status) => {
    const roles = await roleCount();
    const assignments = await app.database.prisma.userRole.count();
    await step(send, status, () => []);
    expect(await roleCount()).toBe(roles);
    expect(await app.database.prisma.userRole.count()).toBe(assignments);
  });

  it('a failure writing the event rolls the change back (one transaction)', async () => {
    const db = app.database.prisma;
    const restore = await failInserts(app, 'audit_down', 'AuditEvent', 'audit down');
    try {
      const { lines } = await app.expectLogged(async () => {
        const out = await restFrom(app, 'POST', '/api/access-control/roles', { json: { uid: 'audit-x', name: 'custom:audit-x' } });
        expectOutcome(out, 500, 'INTERNAL');
        const add = await restFrom(app, 'POST', `/api/access-control/users/${fx.editor.id}/roles`, { json: { roleUid: 'audit-b' } });
        expectOutcome(add, 500, 'INTERNAL');
      });
      expectInternalErrorsLogged(lines, 'audit down', ['/api/access-control/roles', '/api/access-control/users/:userId/roles']);
    } finally {
      await restore();
    }
    expect(await db.role.count({ where: { uid: 'audit-x' } })).toBe(0);
    expect(await db.userRole.count({ where: { userId: fx.editor.id } })).toBe(0);
  });

  it('a broken provisioning file after a good one: 400, nothing applied, nothing logged', async () => {
    writeFileSync(
      join(provisioning, 'access-control', 'b.yaml'),
      'apiVersion: 2\nroles:\n  - name: custom:prov-audit-2\n    uid: prov-audit-2\n    version: 1\n    from:\n      - uid: no-such-role\n',
    );
    writeFileSync(
      join(provisioning, 'access-control', 'a.yaml'),
      'apiVersion: 2\nroles:\n  - name: custom:prov-audit-1\n    uid: prov-audit-1\n    version: 1\n',
    );
    try {
      await step(
        (origin) => restFrom(app, 'POST', '/api/admin/provisioning/access-control/reload', { origin }),
        400,
        () => [],
      );
      expect(await app.database.prisma.role.count({ where: { uid: { in: ['prov-audit-1', 'prov-audit-2'] } } })).toBe(0);
    } finally {
      rmSync(join(provisioning, 'access-control', 'b.yaml'));
    }
  });
});

describe('directory changes (users, org membership, teams) through the existing GraphQL mutations', () => {
  /** Runs one mutation from a new origin; every event it logs carries the admin and that origin; answers them. */
  async function mutate(
    query: string,
    variables: Record<string, unknown>,
  ): Promise<{ data: Record<string, unknown>; events: LoggedEvent[] }> {
    const origin = newOrigin();
    const mark = await lastEventId(app);
    const out = await gqlFrom(app, query, variables, { origin });
    expectOutcome(out, 200);
    const events = await eventsAfter(app, mark);
    for (const e of events) expect(e).toMatchObject({ ...admin, clientAddress: origin.clientAddress, requestId: origin.requestId });
    return { data: out.data ?? {}, events };
  }
  const one = (events: LoggedEvent[], action: string) => {
    const found = events.filter((e) => e.action === action);
    expect(found, `${action} in ${JSON.stringify(events.map((e) => e.action))}`).toHaveLength(1);
    return found[0] as LoggedEvent;
  };
  let userId = 0;
  let teamId = 0;

  it('user.create and user.update, never the password', async () => {
    secrets.push('dir-user-secret-pw', 'dir-user-new-secret');
    const created = await mutate('mutation ($i: CreateUserInput!) { createUser(input: $i) { id } }', {
      i: { login: 'audit-dir', email: 'audit-dir@example.test', password: 'dir-user-secret-pw' },
    });
    userId = (created.data.createUser as { id: number }).id;
    expect(one(created.events, 'user.create')).toMatchObject({ resourceKind: 'user', resourceId: String(userId), orgId: 0, before: null });
    expect(one(created.events, 'user.create').after).toMatchObject({ login: 'audit-dir', email: 'audit-dir@example.test' });
    const updated = await mutate(
      'mutation ($id: Int!) { updateUser(id: $id, input: { name: "Renamed", password: "dir-user-new-secret" }) { id } }',
      {
        id: userId,
      },
    );
    const update = one(updated.events, 'user.update');
    expect(update).toMatchObject({ resourceKind: 'user', resourceId: String(userId), orgId: 0 });
    expect(JSON.stringify(update.after)).toContain('Renamed');
    expect(update.before).not.toBeNull();
    expect(update.before).toMatchObject({ login: 'audit-dir', name: '' });
    expect(update.after).toMatchObject({ login: 'audit-dir', name: 'Renamed' });
  });

  it('org_user.add and org_user.remove in the organization concerned', async () => {
    const org2 = fx.org2.id;
    const added = await mutate('mutation ($o: Int!, $u: Int!) { addOrgUser(orgId: $o, userId: $u, role: Viewer) { role } }', {
      o: org2,
      u: userId,
    });
    expect(one(added.events, 'org_user.add')).toMatchObject({ orgId: org2, before: null, after: { orgId: org2, userId, role: 'Viewer' } });
    const removed = await mutate('mutation ($o: Int!, $u: Int!) { removeOrgUser(orgId: $o, userId: $u) { message } }', {
      o: org2,
      u: userId,
    });
    expect(one(removed.events, 'org_user.remove')).toMatchObject({
      orgId: org2,
      before: { orgId: org2, userId, role: 'Viewer' },
      after: null,
    });
  });

  it('team.create, team_member.add / remove and team.delete', async () => {
    const created = await mutate('mutation { createTeam(input: { name: "audit-team" }) { id } }', {});
    teamId = (created.data.createTeam as { id: number }).id;
    expect(one(created.events, 'team.create')).toMatchObject({
      orgId: 1,
      resourceKind: 'team',
      resourceId: String(teamId),
      before: null,
      after: { id: teamId, name: 'audit-team' },
    });
    const added = await mutate('mutation ($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }', { t: teamId, u: userId });
    expect(one(added.events, 'team_member.add')).toMatchObject({ orgId: 1, before: null, after: { teamId, userId } });
    const removed = await mutate('mutation ($t: Int!, $u: Int!) { removeTeamMember(teamId: $t, userId: $u) { id } }', {
      t: teamId,
      u: userId,
    });
    expect(one(removed.events, 'team_member.remove')).toMatchObject({ orgId: 1, before: { teamId, userId }, after: null });
    const deleted = await mutate('mutation ($t: Int!) { deleteTeam(id: $t) { message } }', { t: teamId });
    expect(one(deleted.events, 'team.delete')).toMatchObject({
      orgId: 1,
      resourceKind: 'team',
      resourceId: String(teamId),
      before: { id: teamId, name: 'audit-team', memberIds: [] },
      after: null,
    });
  });
});

describe('secrets', () => {
  it('no key, token, password or hash appears anywhere in the AuditEvent table', async () => {
    const log = await wholeLog(app);
    expect(secrets.length).toBeGreaterThan(6);
    for (const secret of secrets) expect(log.includes(secret), `secret ${secret.slice(0, 6)}... in the log`).toBe(false);
    expect(log).not.toMatch(/\$argon2/);
    expect(log).not.toMatch(/passwordHash|\\"hash\\"|\\"key\\"|tokenHash/);
  });
});
