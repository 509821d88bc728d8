/**
 * The GraphQL door: every roles operation, and the same status and code as the REST twin for the
 * same request (both doors call one core service).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { type Actor, createUser } from '../support/subjects.js';

let app: TestApp;
let viewer: Actor;

beforeAll(async () => {
  app = await createTestApp();
  viewer = await createUser(app, 'viewer', { orgRole: 'Viewer' });
  await app.request('/api/access-control/roles', {
    method: 'POST',
    json: { uid: 'seeded', name: 'custom:seeded', permissions: [{ action: 'teams:read', scope: 'teams:*' }] },
  });
});
afterAll(() => app.close());

interface Twin {
  name: string;
  auth?: Credentials | null;
  rest: { path: string; method?: string; json?: unknown };
  graphql: { query: string; variables?: Record<string, unknown> };
  status: number;
  code?: string;
}

const twins = (): Twin[] => [
  {
    name: 'status ok',
    rest: { path: '/api/access-control/status' },
    graphql: { query: '{ accessControlStatus { enabled } }' },
    status: 200,
  },
  {
    name: 'status anonymous',
    auth: null,
    rest: { path: '/api/access-control/status' },
    graphql: { query: '{ accessControlStatus { enabled } }' },
    status: 401,
    code: 'UNAUTHENTICATED',
  },
  {
    name: 'list as viewer',
    auth: viewer,
    rest: { path: '/api/access-control/roles' },
    graphql: { query: '{ roles { uid } }' },
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'get unknown',
    rest: { path: '/api/access-control/roles/none' },
    graphql: { query: '{ role(uid: "none") { uid } }' },
    status: 404,
    code: 'ROLE_NOT_FOUND',
  },
  {
    name: 'create with fixed prefix',
    rest: { path: '/api/access-control/roles', method: 'POST', json: { name: 'fixed:x' } },
    graphql: { query: 'mutation { createRole(input: {name: "fixed:x"}) { uid } }' },
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    name: 'create with a bad scope',
    rest: { path: '/api/access-control/roles', method: 'POST', json: { name: 'x', permissions: [{ action: 'a:b', scope: 'a*' }] } },
    graphql: { query: 'mutation { createRole(input: {name: "x", permissions: [{action: "a:b", scope: "a*"}]}) { uid } }' },
    status: 400,
    code: 'VALIDATION_FAILED',
  },
  {
    name: 'create as viewer',
    auth: viewer,
    rest: { path: '/api/access-control/roles', method: 'POST', json: { name: 'x' } },
    graphql: { query: 'mutation { createRole(input: {name: "x"}) { uid } }' },
    status: 403,
    code: 'ACCESS_DENIED',
  },
  {
    name: 'update with a stale version',
    rest: { path: '/api/access-control/roles/seeded', method: 'PUT', json: { version: 0, name: 'custom:seeded' } },
    graphql: { query: 'mutation { updateRole(uid: "seeded", input: {version: 0, name: "custom:seeded"}) { uid } }' },
    status: 400,
    code: 'ROLE_VERSION_CONFLICT',
  },
  {
    name: 'update unknown',
    rest: { path: '/api/access-control/roles/none', method: 'PUT', json: { version: 1, name: 'x' } },
    graphql: { query: 'mutation { updateRole(uid: "none", input: {version: 1, name: "x"}) { uid } }' },
    status: 404,
    code: 'ROLE_NOT_FOUND',
  },
  {
    name: 'delete a basic role',
    rest: { path: '/api/access-control/roles/basic_viewer?global=true', method: 'DELETE' },
    graphql: { query: 'mutation { deleteRole(uid: "basic_viewer", global: true) { message } }' },
    status: 400,
    code: 'ROLE_IS_FIXED',
  },
  {
    name: 'delete as viewer',
    auth: viewer,
    rest: { path: '/api/access-control/roles/seeded', method: 'DELETE' },
    graphql: { query: 'mutation { deleteRole(uid: "seeded") { message } }' },
    status: 403,
    code: 'ACCESS_DENIED',
  },
];

describe('REST and GraphQL agree', () => {
  it.each(twins().map((t) => [t.name, t] as const))('%s', async (_name, twin) => {
    const t = twins().find((x) => x.name === twin.name) as Twin; // re-read: `viewer` is set by now
    const auth = t.auth === undefined ? undefined : t.auth;
    const rest = await app.request(t.rest.path, {
      method: t.rest.method ?? 'GET',
      ...(t.rest.json !== undefined && { json: t.rest.json }),
      ...(auth !== undefined && { auth }),
    });
    const gql = await app.graphql(t.graphql.query, t.graphql.variables, auth !== undefined ? { auth } : {});
    expect(rest.status).toBe(t.status);
    expect(gql.status).toBe(t.status);
    if (t.code) {
      const restBody = (await rest.json()) as { code: string; message: string };
      expect(restBody.code).toBe(t.code);
      expect(gql.body.errors?.[0]?.extensions?.code).toBe(t.code);
      expect(gql.body.errors?.[0]?.message).toBe(restBody.message);
    } else {
      expect(gql.body.errors).toBeUndefined();
    }
  });
});

describe('GraphQL roles operations', () => {
  it('create, read, update and delete a role', async () => {
    const created = await app.graphql<{
      createRole: { uid: string; version: number; global: boolean; permissions: { action: string; scope: string }[] };
    }>(`mutation($input: CreateRoleInput!) { createRole(input: $input) { uid version global permissions { action scope } } }`, {
      input: { name: 'custom:gql', permissions: [{ action: 'teams:read', scope: 'teams:id:1' }, { action: 'users:create' }] },
    });
    expect(created.status).toBe(200);
    const role = created.body.data?.createRole;
    expect(role).toMatchObject({ version: 0, global: false });
    expect(role?.permissions).toEqual([
      { action: 'teams:read', scope: 'teams:id:1' },
      { action: 'users:create', scope: '' },
    ]);
    const updated = await app.graphql<{ updateRole: { name: string; version: number; permissions: unknown[] } }>(
      `mutation($uid: String!) { updateRole(uid: $uid, input: {version: 2, name: "custom:gql2", permissions: []}) { name version permissions { action } } }`,
      { uid: role?.uid },
    );
    expect(updated.body.data?.updateRole).toEqual({ name: 'custom:gql2', version: 2, permissions: [] });
    const listed = await app.graphql<{ roles: { uid: string }[] }>('{ roles { uid } }');
    expect(listed.body.data?.roles.map((r) => r.uid)).toContain(role?.uid);
    const deleted = await app.graphql<{ deleteRole: { message: string } }>(
      'mutation($uid: String!) { deleteRole(uid: $uid) { message } }',
      { uid: role?.uid },
    );
    expect(deleted.body.data?.deleteRole.message).toBe('Role deleted');
    const gone = await app.graphql('query($uid: String!) { role(uid: $uid) { uid } }', { uid: role?.uid });
    expect(gone.status).toBe(404);
  });

  it('hidden roles only with includeHidden', async () => {
    const plain = await app.graphql<{ roles: { name: string }[] }>('{ roles { name } }');
    const hidden = await app.graphql<{ roles: { name: string }[] }>('{ roles(includeHidden: true) { name } }');
    expect(plain.body.data?.roles.map((r) => r.name)).not.toContain('basic:admin');
    expect(hidden.body.data?.roles.map((r) => r.name)).toContain('basic:admin');
  });

  it('viewer: caller, roles and permissions in one round-trip', async () => {
    const res = await app.graphql<{
      viewer: {
        login: string;
        orgId: number;
        orgRole: string;
        kind: string;
        roles: { name: string }[];
        permissions: { action: string; scope: string }[];
      };
    }>('{ viewer { login orgId orgRole kind roles { name } permissions { action scope } } }', {}, { auth: viewer });
    expect(res.status).toBe(200);
    const v = res.body.data?.viewer;
    expect(v).toMatchObject({ login: 'viewer', orgId: 1, orgRole: 'Viewer', kind: 'user' });
    expect(v?.roles.map((r) => r.name)).toEqual(['basic:viewer']);
    const index = await app.services.access.permissionsOf({
      kind: 'user',
      id: viewer.id,
      login: 'viewer',
      orgId: 1,
      orgRole: 'Viewer',
      isServiceAdmin: false,
      authMethod: 'basic',
    });
    expect(v?.permissions).toEqual(index.list());
  });

  it('loads roles with their permissions in a constant number of SQL statements', async () => {
    const count = async () => {
      app.resetQueries();
      const res = await app.graphql('{ roles(includeHidden: true) { uid permissions { action } } }');
      expect(res.status).toBe(200);
      return app.queries.length;
    };
    const create = (i: number) =>
      app.request('/api/access-control/roles', {
        method: 'POST',
        json: { name: `custom:many${i}`, permissions: [{ action: 'teams:read', scope: `teams:id:${i}` }, { action: 'users:create' }] },
      });
    // Each count follows a role write, so both read the role listing afresh (listing-cache.ts).
    await create(0);
    const before = await count();
    for (let i = 1; i < 16; i++) await create(i);
    expect(await count()).toBe(before);
    // Warm: the listing comes from the cache, one statement fewer, whatever the number of roles.
    expect(await count()).toBe(before - 1);
  });
});

describe('oss edition', () => {
  it('answers 404 on every /api/access-control path and on the GraphQL RBAC fields', async () => {
    const oss = await createTestApp({ env: { EDITION: 'oss' } });
    try {
      for (const [method, path] of [
        ['GET', '/api/access-control/status'],
        ['GET', '/api/access-control/roles'],
        ['POST', '/api/access-control/roles'],
        ['GET', '/api/access-control/roles/basic_viewer'],
        ['PUT', '/api/access-control/roles/basic_viewer'],
        ['DELETE', '/api/access-control/roles/basic_viewer'],
        ['GET', '/api/access-control/anything/else'],
      ] as const) {
        const res = await oss.request(path, {
          method,
          ...(method === 'POST' || method === 'PUT' ? { json: { name: 'x', version: 1 } } : {}),
        });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      for (const query of [
        '{ accessControlStatus { enabled } }',
        '{ roles { uid } }',
        '{ role(uid: "basic_viewer") { uid } }',
        'mutation { createRole(input: {name: "x"}) { uid } }',
      ]) {
        const res = await oss.graphql(query);
        expect(res.status, query).toBe(404);
        expect(res.body.errors?.[0]?.extensions?.code).toBe('ACCESS_CONTROL_UNAVAILABLE');
      }
      expect(await oss.database.prisma.role.count({ where: { name: 'x' } })).toBe(0);
      // The caller itself stays readable; its roles and permissions are RBAC data.
      const who = await oss.graphql<{ viewer: { login: string } }>('{ viewer { login orgRole } }');
      expect(who.body.data?.viewer.login).toBe('admin');
      for (const query of ['{ viewer { permissions { action } } }', '{ viewer { roles { uid } } }']) {
        const res = await oss.graphql(query);
        expect(res.body.errors?.[0]?.extensions?.code, query).toBe('ACCESS_CONTROL_UNAVAILABLE');
      }
    } finally {
      await oss.close();
    }
  });
});
