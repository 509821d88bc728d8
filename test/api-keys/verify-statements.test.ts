/**
 * The cost of authenticating with a key, on the hot path: a plain API key is one SQL statement
 * (its row by hash), a service-account token adds only its account, and neither reads more
 * than that (Prisma loads a relation with statements of its own, so the account is read only
 * when the key has one). A key verified again under the same access generation is served from
 * the verified-key cache (api-keys/verifier.ts) with no statement but the throttled lastUsedAt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createKey, createServiceAccountViaGraphql } from '../support/subjects.js';

let app: TestApp;
let apiKey: string;
let token: string;
let accountId: number;

beforeAll(async () => {
  app = await createTestApp();
  apiKey = (await createKey(app, { name: 'statements-key', role: 'Editor' })).key;
  const account = await createServiceAccountViaGraphql(app, { input: { name: 'statements-bot', role: 'Editor' } });
  accountId = account.id;
  const res = await app.request(`/api/serviceaccounts/${account.id}/tokens`, { method: 'POST', json: { name: 'statements-token' } });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { key: string }).key;
  // First uses write lastUsedAt; the verifications below fall within its throttle.
  await app.services.apiKeys.verify(apiKey);
  await app.services.apiKeys.verify(token);
});
afterAll(() => app.close());

describe('ApiKeyService.verify', () => {
  it('reads a plain API key in one SQL statement and acts with its role', async () => {
    app.services.access.invalidate(); // a new generation: the cached verification is not served
    app.resetQueries();
    const principal = await app.services.apiKeys.verify(apiKey);
    expect(principal).toMatchObject({ kind: 'apiKey', orgId: 1, orgRole: 'Editor' });
    expect(app.queries).toHaveLength(1);
    expect(app.queries[0]).toMatch(/FROM (`main`\.`ApiKey`|"public"\."ApiKey")/); // SQLite | PostgreSQL
  });

  it('reads a service-account token, then its account and its membership in the key organization only', async () => {
    app.services.access.invalidate();
    app.resetQueries();
    const principal = await app.services.apiKeys.verify(token);
    expect(principal).toMatchObject({ kind: 'serviceAccount', id: accountId, orgId: 1, orgRole: 'Editor' });
    expect(app.queries.length).toBeLessThanOrEqual(3);
    expect(app.queries.every((sql) => /^SELECT/.test(sql))).toBe(true);
  });

  it('serves a key or token verified under the same generation with no SQL statement', async () => {
    await app.services.apiKeys.verify(apiKey);
    await app.services.apiKeys.verify(token);
    app.resetQueries();
    expect(await app.services.apiKeys.verify(apiKey)).toMatchObject({ kind: 'apiKey', orgRole: 'Editor' });
    expect(await app.services.apiKeys.verify(token)).toMatchObject({ kind: 'serviceAccount', id: accountId, orgRole: 'Editor' });
    expect(app.queries).toEqual([]);
  });
});
