/**
 * Authenticating with API keys: both header forms, each role against the roles endpoints,
 * unknown / malformed / deleted keys, the organization wall, and the lastUsedAt throttle.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/modules/api-keys/secrets.js';
import { createTestApp, type TestApp, TestClock } from '../support/app.js';
import { expectOutcome, graphqlOutcome, restOutcome } from '../support/requests.js';
import { addOrgMember, createKey, createOrg, keyForms } from '../support/subjects.js';

const VIEWER_QUERY = '{ viewer { id kind login orgId orgRole isServiceAdmin } }';

const clock = new TestClock();
let app: TestApp;
const keys: Record<'Viewer' | 'Editor' | 'Admin', { id: number; key: string }> = {} as never;

beforeAll(async () => {
  app = await createTestApp({ clock });
  for (const role of ['Viewer', 'Editor', 'Admin'] as const) keys[role] = await createKey(app, { name: `auth-${role}`, role });
});
afterAll(() => app.close());

describe.each(keyForms)('a key sent as $form', ({ form, auth }) => {
  it('acts as the key in its own organization with its role', async () => {
    for (const role of ['Viewer', 'Editor', 'Admin'] as const) {
      const result = await app.graphql<{ viewer: Record<string, unknown> }>(VIEWER_QUERY, {}, { auth: auth(keys[role].key) });
      expect(result.body.data?.viewer).toEqual({
        id: keys[role].id,
        kind: 'apiKey',
        login: `auth-${role}`,
        orgId: 1,
        orgRole: role,
        isServiceAdmin: false,
      });
    }
  });

  it('an Admin key may use the roles endpoints its basic role allows (200)', async () => {
    const admin = auth(keys.Admin.key);
    expect((await app.request('/api/access-control/roles', { auth: admin })).status).toBe(200);
    expect((await app.request('/api/access-control/status', { auth: admin })).status).toBe(200);
    const created = await app.request('/api/access-control/roles', {
      method: 'POST',
      auth: admin,
      json: { name: `made by key (${form})`, permissions: [{ action: 'teams:read', scope: 'teams:*' }] },
    });
    expect(created.status).toBe(200);
    expect((await app.graphql('{ roles { uid } }', {}, { auth: admin })).status).toBe(200);
  });

  it.each(['Viewer', 'Editor'] as const)('a %s key is refused (403) on the roles endpoints', async (role) => {
    const key = auth(keys[role].key);
    expectOutcome(await restOutcome(await app.request('/api/access-control/roles', { auth: key })), 403, 'ACCESS_DENIED');
    const post = await app.request('/api/access-control/roles', { method: 'POST', auth: key, json: { name: `by ${role} key ${form}` } });
    expectOutcome(await restOutcome(post), 403, 'ACCESS_DENIED');
    expect(graphqlOutcome(await app.graphql('{ roles { uid } }', {}, { auth: key }))).toMatchObject({ status: 403, code: 'ACCESS_DENIED' });
  });

  it('an Admin key manages keys; a Viewer key may not (403)', async () => {
    const made = await createKey(app, { name: `key-made-by-key ${form}`, role: 'Editor' }, { auth: auth(keys.Admin.key) });
    expect((await app.request(`/api/auth/keys/${made.id}`, { method: 'DELETE', auth: auth(keys.Admin.key) })).status).toBe(200);
    expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: auth(keys.Viewer.key) })), 403, 'ACCESS_DENIED');
  });

  it('an unknown key answers 401 "Invalid API key" on REST and GraphQL', async () => {
    const unknown = generateApiKey();
    expect(expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: auth(unknown) })), 401, 'INVALID_API_KEY')).toBe(
      'Invalid API key',
    );
    expect(graphqlOutcome(await app.graphql(VIEWER_QUERY, {}, { auth: auth(unknown) }))).toMatchObject({
      status: 401,
      code: 'INVALID_API_KEY',
      message: 'Invalid API key',
    });
  });

  it('a malformed key answers 401 "Invalid API key" without a single SQL statement', async () => {
    const good = keys.Admin.key;
    const flipped = `${good.slice(0, 10)}${good[10] === 'a' ? 'b' : 'a'}${good.slice(11)}`;
    const malformed = [
      flipped, // checksum no longer matches
      good.slice(0, -1), // truncated
      `${good}x`, // too long
      `xyz_${good.slice(4)}`, // wrong prefix
      'pcs_short',
      'not a key at all',
      good.replace(/.$/, '!'),
    ];
    for (const key of malformed) {
      app.resetQueries();
      const res = await app.request('/api/auth/keys', { auth: auth(key) });
      expect(expectOutcome(await restOutcome(res), 401, 'INVALID_API_KEY')).toBe('Invalid API key');
      expect(app.queries, key).toEqual([]);
    }
  });

  it('a deleted key is refused on the very next request', async () => {
    const doomed = await createKey(app, { name: `doomed ${form}`, role: 'Admin' });
    expect((await app.request('/api/access-control/roles', { auth: auth(doomed.key) })).status).toBe(200);
    expect((await app.request(`/api/auth/keys/${doomed.id}`, { method: 'DELETE' })).status).toBe(200);
    expectOutcome(await restOutcome(await app.request('/api/access-control/roles', { auth: auth(doomed.key) })), 401, 'INVALID_API_KEY');
    expect(graphqlOutcome(await app.graphql(VIEWER_QUERY, {}, { auth: auth(doomed.key) }))).toMatchObject({
      status: 401,
      code: 'INVALID_API_KEY',
    });
  });
});

describe('organizations', () => {
  it("a key acts only in its own organization: another org's header is 401", async () => {
    const other = (await createOrg(app, 'Elsewhere')).id;
    const admin = await app.database.prisma.user.findUniqueOrThrow({ where: { login: 'admin' } });
    await addOrgMember(app, other, admin.id, 'Admin');
    for (const { auth } of keyForms) {
      const key = auth(keys.Admin.key);
      expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: key, orgId: other })), 401, 'ORG_NOT_ACCESSIBLE');
      expect(graphqlOutcome(await app.graphql(VIEWER_QUERY, {}, { auth: key, orgId: other }))).toMatchObject({
        status: 401,
        code: 'ORG_NOT_ACCESSIBLE',
      });
      expect((await app.request('/api/auth/keys', { auth: key, orgId: 1 })).status).toBe(200);
    }

    // A key of the other organization lists that organization's keys only.
    const foreign = await createKey(app, { name: 'foreign admin', role: 'Admin' }, { orgId: other });
    const listed = (await (await app.request('/api/auth/keys', { auth: { token: foreign.key } })).json()) as { id: number }[];
    expect(listed.map((k) => k.id)).toEqual([foreign.id]);
    expectOutcome(
      await restOutcome(await app.request('/api/auth/keys', { auth: { token: foreign.key }, orgId: 1 })),
      401,
      'ORG_NOT_ACCESSIBLE',
    );
  });
});

describe('lastUsedAt', () => {
  const updates = () => app.queries.filter((sql) => /^UPDATE\s.*\bApiKey\b/is.test(sql.trim())).length;

  it('is written at most once per key per minute, not once per request', async () => {
    const used = await createKey(app, { name: 'throttled', role: 'Viewer' });
    const start = clock.now().getTime();
    app.resetQueries();
    for (let i = 0; i < 5; i++) expect((await app.request('/api/auth/keys', { auth: { token: used.key } })).status).toBe(403);
    expect(updates()).toBe(1);
    const row = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: used.id } });
    expect(row.lastUsedAt?.getTime()).toBe(start);

    clock.advance(59);
    for (let i = 0; i < 5; i++) await app.request('/api/auth/keys', { auth: { login: 'api_key', password: used.key } });
    expect(updates()).toBe(1);

    clock.advance(1);
    for (let i = 0; i < 5; i++) await app.request('/api/auth/keys', { auth: { token: used.key } });
    expect(updates()).toBe(2);
    const later = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: used.id } });
    expect(later.lastUsedAt?.getTime()).toBe(start + 60_000);

    const listed = (await (await app.request('/api/auth/keys')).json()) as { id: number; lastUsedAt?: string }[];
    expect(listed.find((k) => k.id === used.id)?.lastUsedAt).toBe(new Date(start + 60_000).toISOString());
  });
});
