/**
 * A field refused below a readable parent answers null with an error for that
 * field (its path and code), while the rest of the answer arrives, with HTTP 200: the fields a
 * caller may be refused there are nullable. A refused root field still refuses the document with
 * its status (no data at all, as on the REST door).
 *
 * No secret is ever lost to another field's failure. A secret-returning
 * mutation field (createApiKey, createServiceAccountToken) must be the only root field of its
 * mutation: mixed documents are refused before anything runs, so nothing is created without its
 * secret reaching the caller; alone, the field answers with its secret. Root fields are counted
 * with fragments flattened: a key created inside `... on Mutation { }` or `...F` beside a failing
 * field was lost the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createTeam, createUser } from '../support/subjects.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const keysNamed = (name: string) => app.database.prisma.apiKey.count({ where: { name } });

describe('secret-returning mutations stand alone', () => {
  it.each([
    [
      'two keys, the second failing',
      'first: createApiKey(input: {name: "mixed-1", role: Viewer}) { key } second: createApiKey(input: {name: "mixed-1", role: Viewer}) { key }',
    ],
    [
      'a key then a non-null mutation that fails',
      'a: createApiKey(input: {name: "mixed-1", role: Viewer}) { key } b: createTeam(input: {name: ""}) { id }',
    ],
    [
      'a non-null mutation then a key',
      'b: createTeam(input: {name: "t-mixed"}) { id } a: createApiKey(input: {name: "mixed-1", role: Viewer}) { key }',
    ],
    [
      'a key inside an inline fragment, then a non-null mutation that fails',
      '... on Mutation { createApiKey(input: {name: "mixed-1", role: Viewer}) { id key } } deleteRole(uid: "nope") { message }',
    ],
    [
      'a key inside a named fragment, then a non-null mutation that fails',
      '...K deleteRole(uid: "nope") { message } } fragment K on Mutation { createApiKey(input: {name: "mixed-1", role: Viewer}) { id key }',
    ],
    [
      'a key nested two fragments deep beside another field',
      '... on Mutation { ...K } b: createTeam(input: {name: "t-mixed"}) { id } } fragment K on Mutation { ... { createApiKey(input: {name: "mixed-1", role: Viewer}) { key } }',
    ],
  ])('%s: 400, nothing created', async (_name, fields) => {
    const res = await app.graphql(`mutation { ${fields} }`);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(res.body.errors?.[0]?.message).toMatch(/returns a secret that is shown only once/);
    expect(await keysNamed('mixed-1')).toBe(0);
    expect(await app.database.prisma.team.count({ where: { name: 't-mixed' } })).toBe(0);
  });

  it('alone through fragments (the same field spread twice runs once), the key is created and its secret answered', async () => {
    const res = await app.graphql<{ createApiKey: { id: number; key: string } | null }>(
      'mutation { ...K ... on Mutation { createApiKey(input: {name: "in-fragments", role: Viewer}) { id } } } fragment K on Mutation { createApiKey(input: {name: "in-fragments", role: Viewer}) { key } }',
    );
    expect(res.status).toBe(200);
    expect(res.body.data?.createApiKey?.key).toMatch(/^pcs_\S{20,}/);
    expect(await keysNamed('in-fragments')).toBe(1);
  });

  it('alone, the key is created and its secret answered', async () => {
    const res = await app.graphql<{ createApiKey: { id: number; key: string } | null }>(
      'mutation { createApiKey(input: {name: "alone", role: Viewer}) { id key } }',
    );
    expect(res.body.data?.createApiKey?.key).toMatch(/^pcs_\S{20,}/);
    expect(await keysNamed('alone')).toBe(1);
  });
});

describe('a denied nested field is null with its error; the rest arrives', () => {
  it('a Viewer reading a team, a user and its own data: 200, each refused field null with its path and code', async () => {
    const viewer = await createUser(app, 'partial-viewer', { orgRole: 'Viewer' });
    const team = await createTeam(app, 'partial-team');
    const res = await app.graphql(
      `query ($team: Int!, $user: Int!) {
        viewer { login }
        team(id: $team) { name roles { uid } }
        user(id: $user) { login roles { uid } permissions { action } }
      }`,
      { team: team.id, user: 1 },
      { auth: viewer.auth },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      viewer: { login: 'partial-viewer' },
      team: { name: 'partial-team', roles: null },
      user: { login: 'admin', roles: null, permissions: null },
    });
    const errors = (res.body.errors ?? []) as { path?: unknown[]; extensions?: { code?: string }; message: string }[];
    // In the order the fields failed, which is the database's: compared as a set.
    const byPath = (a: { path?: unknown[] }, b: { path?: unknown[] }) => String(a.path).localeCompare(String(b.path));
    expect(errors.map((e) => ({ path: e.path, code: e.extensions?.code })).sort(byPath)).toEqual([
      { path: ['team', 'roles'], code: 'ACCESS_DENIED' },
      { path: ['user', 'permissions'], code: 'ACCESS_DENIED' },
      { path: ['user', 'roles'], code: 'ACCESS_DENIED' },
    ]);
    for (const error of errors) expect(error.message).toMatch(/^You'll need additional permissions/);
  });

  it('a refused root field still refuses the whole document with its status', async () => {
    const nobody = await createUser(app, 'partial-nobody', { orgRole: 'None' });
    const res = await app.graphql('{ teams { name } }', {}, { auth: nobody.auth });
    expect(res.status).toBe(403);
    expect(res.body.data ?? null).toBeNull();
  });
});
