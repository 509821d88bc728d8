/**
 * EDITION=oss: the API key endpoints exist (unlike /api/access-control/) and need the org role
 * Admin instead of permissions; keys still authenticate.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, graphqlOutcome, restOutcome } from '../support/requests.js';
import { assignUserRole, createKey, createUser, keyForms } from '../support/subjects.js';

const CREATE = 'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { id name key } }';
const LIST = '{ apiKeys { id name role } }';
const DELETE = 'mutation ($id: Int!) { deleteApiKey(id: $id) { message } }';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ env: { EDITION: 'oss' } });
});
afterAll(() => app.close());

describe('API keys in the oss edition', () => {
  it('an org Admin creates, lists and deletes keys over REST', async () => {
    const created = await createKey(app, { name: 'oss-rest', role: 'Editor' });
    const listed = (await (await app.request('/api/auth/keys')).json()) as { id: number; name: string; role: string }[];
    expect(listed).toContainEqual({ id: created.id, name: 'oss-rest', role: 'Editor' });
    const res = await app.request(`/api/auth/keys/${created.id}`, { method: 'DELETE' });
    expect([res.status, await res.json()]).toEqual([200, { message: 'API key deleted' }]);
    expectOutcome(await restOutcome(await app.request(`/api/auth/keys/${created.id}`, { method: 'DELETE' })), 404, 'API_KEY_NOT_FOUND');
    expectOutcome(await restOutcome(await app.request('/api/auth/keys/abc', { method: 'DELETE' })), 400, 'VALIDATION_FAILED');
  });

  it('an org Admin creates, lists and deletes keys over GraphQL', async () => {
    const created = await app.graphql<{ createApiKey: { id: number; key: string } }>(CREATE, {
      input: { name: 'oss-gql', role: 'Viewer' },
    });
    const id = created.body.data?.createApiKey.id as number;
    expect((await app.graphql<{ apiKeys: { id: number }[] }>(LIST)).body.data?.apiKeys.map((k) => k.id)).toContain(id);
    expect((await app.graphql<{ deleteApiKey: { message: string } }>(DELETE, { id })).body.data?.deleteApiKey.message).toBe(
      'API key deleted',
    );
    expect(graphqlOutcome(await app.graphql(DELETE, { id }))).toMatchObject({ status: 404, code: 'API_KEY_NOT_FOUND' });
  });

  it('the same create rules hold: 400 role, 409 name', async () => {
    expectOutcome(
      await restOutcome(await app.request('/api/auth/keys', { method: 'POST', json: { name: 'oss-bad', role: 'Owner' } })),
      400,
      'VALIDATION_FAILED',
    );
    await createKey(app, { name: 'oss-twice', role: 'Viewer' });
    expectOutcome(
      await restOutcome(await app.request('/api/auth/keys', { method: 'POST', json: { name: 'oss-twice', role: 'Viewer' } })),
      409,
      'API_KEY_ALREADY_EXISTS',
    );
    expect(graphqlOutcome(await app.graphql(CREATE, { input: { name: 'oss-twice', role: 'Viewer' } }))).toMatchObject({
      status: 409,
      code: 'API_KEY_ALREADY_EXISTS',
    });
  });

  it('answers 401 without credentials on every operation', async () => {
    expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: null })), 401, 'UNAUTHENTICATED');
    expectOutcome(
      await restOutcome(await app.request('/api/auth/keys', { method: 'POST', auth: null, json: { name: 'x', role: 'Viewer' } })),
      401,
      'UNAUTHENTICATED',
    );
    expectOutcome(await restOutcome(await app.request('/api/auth/keys/1', { method: 'DELETE', auth: null })), 401, 'UNAUTHENTICATED');
    expect(graphqlOutcome(await app.graphql(LIST, {}, { auth: null }))).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it.each(['Viewer', 'Editor'] as const)('answers 403 to an org %s on every operation, even with apikey permissions', async (role) => {
    const member = await createUser(app, `oss-${role.toLowerCase()}`, { orgRole: role });
    // Permissions do not count in oss: only the org role does.
    await assignUserRole(app, member.id, 'fixed:apikeys:writer');
    const victim = await createKey(app, { name: `oss-victim-${role}`, role: 'Viewer' });
    expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: member })), 403, 'ACCESS_DENIED');
    expectOutcome(
      await restOutcome(
        await app.request('/api/auth/keys', { method: 'POST', auth: member, json: { name: `oss-by-${role}`, role: 'Viewer' } }),
      ),
      403,
      'ACCESS_DENIED',
    );
    expectOutcome(
      await restOutcome(await app.request(`/api/auth/keys/${victim.id}`, { method: 'DELETE', auth: member })),
      403,
      'ACCESS_DENIED',
    );
    expect(graphqlOutcome(await app.graphql(LIST, {}, { auth: member }))).toMatchObject({ status: 403, code: 'ACCESS_DENIED' });
    expect(
      graphqlOutcome(await app.graphql(CREATE, { input: { name: `oss-gql-by-${role}`, role: 'Viewer' } }, { auth: member })),
    ).toMatchObject({
      status: 403,
      code: 'ACCESS_DENIED',
    });
    expect(graphqlOutcome(await app.graphql(DELETE, { id: victim.id }, { auth: member }))).toMatchObject({
      status: 403,
      code: 'ACCESS_DENIED',
    });
    expect(await app.database.prisma.apiKey.count({ where: { id: victim.id } })).toBe(1);
  });

  it.each(keyForms)('keys authenticate ($form): an Admin key manages keys, an Editor key gets 403', async ({ form, auth }) => {
    const admin = await createKey(app, { name: `oss-admin-key ${form}`, role: 'Admin' });
    const editor = await createKey(app, { name: `oss-editor-key ${form}`, role: 'Editor' });
    expect((await app.request('/api/auth/keys', { auth: auth(admin.key) })).status).toBe(200);
    expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: auth(editor.key) })), 403, 'ACCESS_DENIED');
    // The access-control endpoints do not exist in oss, whoever asks.
    expectOutcome(
      await restOutcome(await app.request('/api/access-control/roles', { auth: auth(admin.key) })),
      404,
      'ACCESS_CONTROL_UNAVAILABLE',
    );
  });
});
