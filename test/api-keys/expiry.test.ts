/**
 * secondsToLive, API_KEY_MAX_SECONDS_TO_LIVE and expiry, on an injected clock (no sleeping):
 * the expiry is set from the clock, checked on every use, and expired keys are listed only with
 * includeExpired.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TestClock } from '../support/app.js';
import { expectOutcome, graphqlOutcome, restOutcome } from '../support/requests.js';
import { createKey, keyForms } from '../support/subjects.js';

const CREATE = 'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { id key } }';

describe('secondsToLive without a configured limit', () => {
  const clock = new TestClock();
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ clock });
  });
  afterAll(() => app.close());

  it('sets the expiry to now + secondsToLive, and none for zero, negative or absent', async () => {
    const now = clock.now().getTime();
    const cases = [
      { name: 'ttl-positive', secondsToLive: 90, expires: new Date(now + 90_000).toISOString() },
      { name: 'ttl-zero', secondsToLive: 0, expires: null },
      { name: 'ttl-negative', secondsToLive: -5, expires: null },
      { name: 'ttl-absent', expires: null },
    ];
    for (const { expires, ...body } of cases) {
      const created = await createKey(app, { role: 'Viewer', ...body });
      const row = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
      expect([body.name, row.expires?.toISOString() ?? null]).toEqual([body.name, expires]);
    }
    const gql = await app.graphql<{ createApiKey: { id: number } }>(CREATE, {
      input: { name: 'ttl-gql', role: 'Viewer', secondsToLive: 30 },
    });
    const row = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: gql.body.data?.createApiKey.id as number } });
    expect(row.expires?.toISOString()).toBe(new Date(now + 30_000).toISOString());
  });

  it.each(keyForms)('an expiring key works until its expiry and then answers 401 "Expired API key" ($form)', async ({ form, auth }) => {
    const created = await createKey(app, { name: `expiring-${form}`, role: 'Admin', secondsToLive: 60 });
    clock.advance(59);
    expect((await app.request('/api/auth/keys', { auth: auth(created.key) })).status).toBe(200);
    clock.advance(1);
    const message = expectOutcome(
      await restOutcome(await app.request('/api/auth/keys', { auth: auth(created.key) })),
      401,
      'EXPIRED_API_KEY',
    );
    expect(message).toBe('Expired API key');
    const gql = await app.graphql('{ viewer { id } }', {}, { auth: auth(created.key) });
    expect(graphqlOutcome(gql)).toMatchObject({ status: 401, code: 'EXPIRED_API_KEY', message: 'Expired API key' });
  });

  it('lists expired keys only with includeExpired=true, on both doors', async () => {
    const created = await createKey(app, { name: 'listed-expired', role: 'Viewer', secondsToLive: 10 });
    const names = async (query: string) =>
      ((await (await app.request(`/api/auth/keys${query}`)).json()) as { id: number; expiration?: string }[]).filter(
        (k) => k.id === created.id,
      );
    expect(await names('')).toHaveLength(1);
    clock.advance(10);
    expect(await names('')).toHaveLength(0);
    expect(await names('?includeExpired=false')).toHaveLength(0);
    const withExpired = await names('?includeExpired=true');
    expect(withExpired).toHaveLength(1);
    expect(Date.parse(withExpired[0]?.expiration ?? '')).toBeLessThanOrEqual(clock.now().getTime());

    const gqlIds = async (includeExpired: boolean | null) =>
      (
        await app.graphql<{ apiKeys: { id: number }[] }>('query ($e: Boolean) { apiKeys(includeExpired: $e) { id } }', {
          e: includeExpired,
        })
      ).body.data?.apiKeys.map((k) => k.id);
    expect(await gqlIds(null)).not.toContain(created.id);
    expect(await gqlIds(true)).toContain(created.id);
  });
});

describe('with API_KEY_MAX_SECONDS_TO_LIVE=3600', () => {
  const clock = new TestClock();
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ clock, env: { API_KEY_MAX_SECONDS_TO_LIVE: '3600' } });
  });
  afterAll(() => app.close());

  const required = 'Number of seconds before expiration should be set';
  const tooLong = 'Number of seconds before expiration is greater than the global limit';

  it.each([
    ['absent', undefined, 'API_KEY_TTL_REQUIRED', required],
    ['zero', 0, 'API_KEY_TTL_REQUIRED', required],
    ['negative', -1, 'API_KEY_TTL_REQUIRED', required],
    ['above the limit', 3601, 'API_KEY_TTL_TOO_LONG', tooLong],
  ])('refuses secondsToLive %s with 400 on REST and GraphQL', async (label, secondsToLive, code, message) => {
    const name = `limited-${label}`;
    const res = await app.request('/api/auth/keys', { method: 'POST', json: { name, role: 'Viewer', secondsToLive } });
    expect(expectOutcome(await restOutcome(res), 400, code)).toBe(message);
    const gql = await app.graphql(CREATE, { input: { name, role: 'Viewer', secondsToLive } });
    expect(graphqlOutcome(gql)).toMatchObject({ status: 400, code, message });
    expect(await app.database.prisma.apiKey.count({ where: { name } })).toBe(0);
  });

  it('accepts secondsToLive up to the limit', async () => {
    const created = await createKey(app, { name: 'limited-ok', role: 'Viewer', secondsToLive: 3600 });
    const row = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.expires?.toISOString()).toBe(new Date(clock.now().getTime() + 3_600_000).toISOString());
    const gql = await app.graphql<{ createApiKey: { id: number } }>(CREATE, {
      input: { name: 'limited-gql', role: 'Viewer', secondsToLive: 1 },
    });
    expect(gql.body.data?.createApiKey.id).toBeGreaterThan(created.id);
  });
});
