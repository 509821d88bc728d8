/**
 * The verified-key cache (src/modules/api-keys/verifier.ts): a key verified under the
 * current access generation is served without SQL, and yet a deleted or expired key, a disabled
 * or re-roled service account, or a row deleted by another connection fails or changes at the
 * very next request, on both doors. A write by another connection applies at the next request
 * once the app knows of it (at once on SQLite, at the NOTIFY on PostgreSQL: support/changes.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/platform/database.js';
import { type Credentials, createTestApp, type TestApp, TestClock } from '../support/app.js';
import { watchForeignCommits } from '../support/changes.js';
import { expectOutcome, graphqlOutcome, restOutcome } from '../support/requests.js';
import { createKey, createServiceAccountViaGraphql } from '../support/subjects.js';

const VIEWER = '{ viewer { kind orgRole } }';
const clock = new TestClock();
let app: TestApp;
let other: Database;

beforeAll(async () => {
  app = await createTestApp({ clock });
  // A second connection to the same file: its commits are another process's to this app.
  other = await openDatabase({ databaseUrl: app.config.databaseUrl, migrate: false });
});
afterAll(async () => {
  await other.close();
  await app.close();
});

const keySelects = () => app.queries.filter((sql) => /FROM (`main`\.`ApiKey`|"public"\."ApiKey")/.test(sql)).length; // SQLite | PostgreSQL

/** Uses the key twice on each door and checks that the second use read no key row (a cache hit). */
async function warm(auth: Credentials): Promise<void> {
  expect((await app.request('/api/access-control/user/permissions', { auth })).status).toBe(200);
  app.resetQueries();
  expect((await app.request('/api/access-control/user/permissions', { auth })).status).toBe(200);
  expect(graphqlOutcome(await app.graphql(VIEWER, {}, { auth })).status).toBe(200);
  expect(keySelects()).toBe(0);
}

async function refusedOnBothDoors(auth: Credentials, code: string): Promise<void> {
  expectOutcome(await restOutcome(await app.request('/api/access-control/user/permissions', { auth })), 401, code);
  expect(graphqlOutcome(await app.graphql(VIEWER, {}, { auth }))).toMatchObject({ status: 401, code });
}

async function serviceAccountToken(name: string, role = 'Editor'): Promise<{ accountId: number; auth: Credentials }> {
  const account = await createServiceAccountViaGraphql(app, { input: { name, role } });
  const res = await app.request(`/api/serviceaccounts/${account.id}/tokens`, { method: 'POST', json: { name: `${name}-token` } });
  expect(res.status).toBe(200);
  return { accountId: account.id, auth: { token: ((await res.json()) as { key: string }).key } };
}

describe('verified API keys', () => {
  it('a cached key deleted over REST is refused at the very next request', async () => {
    const key = await createKey(app, { name: 'cached-rest-delete', role: 'Viewer' });
    await warm({ token: key.key });
    expect((await app.request(`/api/auth/keys/${key.id}`, { method: 'DELETE' })).status).toBe(200);
    await refusedOnBothDoors({ token: key.key }, 'INVALID_API_KEY');
  });

  it('a cached key deleted over GraphQL is refused at the very next request', async () => {
    const key = await createKey(app, { name: 'cached-graphql-delete', role: 'Viewer' });
    await warm({ login: 'api_key', password: key.key });
    const res = await app.graphql('mutation ($id: Int!) { deleteApiKey(id: $id) { message } }', { id: key.id });
    expect(res.body.errors).toBeUndefined();
    await refusedOnBothDoors({ login: 'api_key', password: key.key }, 'INVALID_API_KEY');
  });

  it('a cached key expires on time: the expiry is checked on every hit', async () => {
    const key = await createKey(app, { name: 'cached-expiring', role: 'Viewer', secondsToLive: 60 });
    await warm({ token: key.key });
    clock.advance(59);
    expect((await app.request('/api/access-control/user/permissions', { auth: { token: key.key } })).status).toBe(200);
    clock.advance(1);
    await refusedOnBothDoors({ token: key.key }, 'EXPIRED_API_KEY');
  });

  it('a cached key deleted by another connection is refused at the very next request', async () => {
    const key = await createKey(app, { name: 'cached-foreign-delete', role: 'Viewer' });
    await warm({ token: key.key });
    const commits = watchForeignCommits(app.database.prisma);
    await other.prisma.apiKey.deleteMany({ where: { id: key.id } });
    await commits.seen();
    await refusedOnBothDoors({ token: key.key }, 'INVALID_API_KEY');
  });

  it("a cached key's role changed by another connection applies at the very next request", async () => {
    const key = await createKey(app, { name: 'cached-foreign-role', role: 'Admin' });
    await warm({ token: key.key });
    const commits = watchForeignCommits(app.database.prisma);
    await other.prisma.apiKey.updateMany({ where: { id: key.id }, data: { role: 'Viewer' } });
    await commits.seen();
    const res = await app.graphql<{ viewer: { orgRole: string } }>(VIEWER, {}, { auth: { token: key.key } });
    expect(res.body.data?.viewer.orgRole).toBe('Viewer');
  });
});

describe('verified service-account tokens', () => {
  it('a cached token deleted over REST is refused at the very next request', async () => {
    const { accountId, auth } = await serviceAccountToken('cached-token-delete');
    await warm(auth);
    const tokens = (await (await app.request(`/api/serviceaccounts/${accountId}/tokens`)).json()) as { id: number }[];
    expect((await app.request(`/api/serviceaccounts/${accountId}/tokens/${tokens[0]?.id}`, { method: 'DELETE' })).status).toBe(200);
    await refusedOnBothDoors(auth, 'INVALID_API_KEY');
  });

  it('the tokens of a cached account disabled over REST stop at the very next request', async () => {
    const { accountId, auth } = await serviceAccountToken('cached-disable-rest');
    await warm(auth);
    expect((await app.request(`/api/serviceaccounts/${accountId}`, { method: 'PATCH', json: { isDisabled: true } })).status).toBe(200);
    await refusedOnBothDoors(auth, 'INVALID_API_KEY');
  });

  it('the tokens of a cached account disabled over GraphQL stop at the very next request', async () => {
    const { accountId, auth } = await serviceAccountToken('cached-disable-graphql');
    await warm(auth);
    const res = await app.graphql('mutation ($id: Int!) { updateServiceAccount(id: $id, input: { isDisabled: true }) { id } }', {
      id: accountId,
    });
    expect(res.body.errors).toBeUndefined();
    await refusedOnBothDoors(auth, 'INVALID_API_KEY');
  });

  it('the tokens of a cached account deleted by another connection stop at the very next request', async () => {
    const { accountId, auth } = await serviceAccountToken('cached-foreign-account');
    await warm(auth);
    const commits = watchForeignCommits(app.database.prisma);
    await other.prisma.user.delete({ where: { id: accountId } });
    await commits.seen();
    await refusedOnBothDoors(auth, 'INVALID_API_KEY');
  });
});
