/**
 * Service-account tokens: create (shown once, hashed, `pcsa_` prefix), list,
 * delete; a token acts as its account with exactly its permissions; disabled or deleted accounts'
 * tokens stop; API keys migrated to service accounts keep authenticating.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TestClock } from '../support/app.js';
import { mustGraphql } from '../support/requests.js';
import { createUser } from '../support/subjects.js';

let app: TestApp;
const clock = new TestClock();

async function json<T = Record<string, unknown>>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

async function newAccount(name: string, role = 'Viewer'): Promise<number> {
  const data = await mustGraphql<{ createServiceAccount: { id: number } }>(
    app,
    'mutation($input: CreateServiceAccountInput!) { createServiceAccount(input: $input) { id } }',
    { input: { name, role } },
  );
  return data.createServiceAccount.id;
}

beforeAll(async () => {
  app = await createTestApp({ clock });
});
afterAll(() => app.close());

describe('tokens', () => {
  it('creates, lists and deletes a token; the key is shown once and stored hashed', async () => {
    const id = await newAccount('ci-bot');
    const created = await app.request(`/api/serviceaccounts/${id}/tokens`, { method: 'POST', json: { name: 'ci', secondsToLive: 3600 } });
    expect(created.status).toBe(200);
    const token = await json<{ id: number; name: string; key: string }>(created);
    expect(token).toMatchObject({ name: 'ci' });
    expect(token.key).toMatch(/^pcsa_[0-9A-Za-z]{38}$/);
    const rows = await app.database.prisma.apiKey.findMany({ where: { serviceAccountId: id } });
    expect(rows.map((r) => r.hash)).not.toContain(token.key);
    const list = await json<unknown[]>(app.request(`/api/serviceaccounts/${id}/tokens`));
    expect(list).toEqual([expect.objectContaining({ id: token.id, name: 'ci', hasExpired: false, expiration: expect.any(String) })]);
    expect(list[0]).not.toHaveProperty('lastUsedAt'); // never used: left out, as Grafana's schema has no null
    // Tokens are not API keys.
    expect((await json<{ name: string }[]>(app.request('/api/auth/keys'))).map((k) => k.name)).not.toContain('ci');
    expect((await app.request(`/api/serviceaccounts/${id}/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await app.request('/api/user/orgs', { auth: { token: token.key } })).status).toBe(401);
    expect((await app.request(`/api/serviceaccounts/${id}/tokens/${token.id}`, { method: 'DELETE' })).status).toBe(404);
  });
  it('acts as its account with exactly its org role, on both doors', async () => {
    const id = await newAccount('reader-bot', 'Viewer');
    const { key } = await json<{ key: string }>(
      app.request(`/api/serviceaccounts/${id}/tokens`, { method: 'POST', json: { name: 'reader' } }),
    );
    const viewer = await app.graphql<{ viewer: { id: number; kind: string; orgRole: string } }>(
      '{ viewer { id kind orgRole } }',
      {},
      { auth: { token: key } },
    );
    expect(viewer.body.data?.viewer).toEqual({ id, kind: 'serviceAccount', orgRole: 'Viewer' });
    const basic = await app.request('/api/access-control/roles', { auth: { login: 'api_key', password: key } });
    expect(basic.status).toBe(403); // a Viewer may not list roles
    const asCreate = await app.request('/api/auth/keys', { method: 'POST', auth: { token: key }, json: { name: 'x', role: 'Viewer' } });
    expect(asCreate.status).toBe(403);
    expect((await app.request('/api/auth/keys', { auth: { token: key }, orgId: 2 })).status).toBe(401);
  });
  it('stops working when the account is disabled or deleted, and when it expires', async () => {
    const id = await newAccount('short-lived');
    const { key } = await json<{ key: string }>(
      app.request(`/api/serviceaccounts/${id}/tokens`, { method: 'POST', json: { name: 'sl', secondsToLive: 60 } }),
    );
    const probe = () => app.graphql('{ viewer { id } }', {}, { auth: { token: key } });
    expect((await probe()).status).toBe(200);
    await app.graphql(`mutation { updateServiceAccount(id: ${id}, input: { isDisabled: true }) { id } }`);
    expect((await probe()).status).toBe(401);
    await app.graphql(`mutation { updateServiceAccount(id: ${id}, input: { isDisabled: false }) { id } }`);
    expect((await probe()).status).toBe(200);
    clock.advance(61);
    expect((await probe()).status).toBe(401);
    const id2 = await newAccount('deleted-bot');
    const t2 = await json<{ key: string }>(app.request(`/api/serviceaccounts/${id2}/tokens`, { method: 'POST', json: { name: 'del' } }));
    await app.graphql(`mutation { deleteServiceAccount(id: ${id2}) { message } }`);
    expect((await app.graphql('{ viewer { id } }', {}, { auth: { token: t2.key } })).status).toBe(401);
  });
  it('needs serviceaccounts:write / :read on the account', async () => {
    const id = await newAccount('guarded');
    const viewer = await createUser(app, 'token-viewer', { orgRole: 'Viewer' });
    expect(
      (await app.request(`/api/serviceaccounts/${id}/tokens`, { method: 'POST', auth: viewer.auth, json: { name: 'n' } })).status,
    ).toBe(403);
    expect((await app.request(`/api/serviceaccounts/${id}/tokens`, { auth: viewer.auth })).status).toBe(403);
    expect((await app.request('/api/serviceaccounts/999999/tokens')).status).toBe(404);
    expect(await app.database.prisma.apiKey.count({ where: { serviceAccountId: id } })).toBe(0);
  });
  it('a token mutation must stand alone in its document, so no other field can lose its secret', async () => {
    const id = await newAccount('two-in-one');
    const mixed = await app.graphql(
      `mutation {
        first: createServiceAccountToken(serviceAccountId: ${id}, name: "kept") { key }
        second: createServiceAccountToken(serviceAccountId: ${id}, name: "kept") { key }
      }`,
    );
    expect(mixed.status).toBe(400);
    expect(mixed.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(await app.database.prisma.apiKey.count({ where: { serviceAccountId: id } })).toBe(0);
    const res = await app.graphql<{ createServiceAccountToken: { key: string } | null }>(
      `mutation { createServiceAccountToken(serviceAccountId: ${id}, name: "kept") { key } }`,
    );
    const key = res.body.data?.createServiceAccountToken?.key as string;
    expect(key).toMatch(/^pcsa_/);
    const viewer = await app.graphql<{ viewer: { id: number } }>('{ viewer { id } }', {}, { auth: { token: key } });
    expect(viewer.body.data?.viewer.id).toBe(id);
  });
});

describe('POST /api/serviceaccounts/migrate', () => {
  it('turns every API key into a service account whose token is the same secret', async () => {
    const a = await json<{ key: string }>(app.request('/api/auth/keys', { method: 'POST', json: { name: 'legacy-a', role: 'Editor' } }));
    const b = await json<{ key: string }>(app.request('/api/auth/keys', { method: 'POST', json: { name: 'legacy-b', role: 'Viewer' } }));
    const before = await app.graphql<{ viewer: { kind: string } }>('{ viewer { kind } }', {}, { auth: { token: a.key } });
    expect(before.body.data?.viewer.kind).toBe('apiKey');
    const res = await app.request('/api/serviceaccounts/migrate', { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ total: 2, migrated: 2, failed: 0 });
    expect(await json<unknown[]>(app.request('/api/auth/keys'))).toEqual([]);
    for (const [key, role] of [
      [a.key, 'Editor'],
      [b.key, 'Viewer'],
    ] as const) {
      const after = await app.graphql<{ viewer: { kind: string; orgRole: string } }>(
        '{ viewer { kind orgRole } }',
        {},
        { auth: { token: key } },
      );
      expect(after.body.data?.viewer).toEqual({ kind: 'serviceAccount', orgRole: role });
    }
  });
});
