/** GraphQL apiKeys / createApiKey / deleteApiKey in the enterprise edition: every status code. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { graphqlOutcome } from '../support/requests.js';
import { addOrgMember, assignUserRole, createKey, createOrg, createUser } from '../support/subjects.js';

const CREATE = 'mutation ($input: CreateApiKeyInput!) { createApiKey(input: $input) { id name key } }';
const LIST = 'query ($includeExpired: Boolean) { apiKeys(includeExpired: $includeExpired) { id name role expiration lastUsedAt } }';
const DELETE = 'mutation ($id: Int!) { deleteApiKey(id: $id) { message } }';

type NewKey = { createApiKey: { id: number; name: string; key: string } };
type KeyList = { apiKeys: { id: number; name: string; role: string; expiration: string | null; lastUsedAt: string | null }[] };

let app: TestApp;
let otherOrg: number;

beforeAll(async () => {
  app = await createTestApp();
  otherOrg = (await createOrg(app, 'Other Org')).id;
  const admin = await app.database.prisma.user.findUniqueOrThrow({ where: { login: 'admin' } });
  await addOrgMember(app, otherOrg, admin.id, 'Admin');
});
afterAll(() => app.close());

describe('createApiKey', () => {
  it('creates a key and returns {id, name, key}; apiKeys lists it without its value', async () => {
    const result = await app.graphql<NewKey>(CREATE, { input: { name: 'gql-create', role: 'Admin' } });
    expect(result.status).toBe(200);
    const created = result.body.data?.createApiKey;
    expect(created?.key).toMatch(/^pcs_[0-9A-Za-z]{38}$/);
    const listed = await app.graphql<KeyList>(LIST);
    expect(listed.body.data?.apiKeys.find((k) => k.id === created?.id)).toEqual({
      id: created?.id,
      name: 'gql-create',
      role: 'Admin',
      expiration: null,
      lastUsedAt: null,
    });
  });

  it.each([
    ['role None', { name: 'gql-none', role: 'None' }, /^role: /],
    ['a blank name', { name: ' ', role: 'Viewer' }, /^name: /],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, input, message) => {
    const error = graphqlOutcome(await app.graphql(CREATE, { input }));
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(error.message).toMatch(message);
  });

  it('answers 409 API_KEY_ALREADY_EXISTS for a taken name', async () => {
    await app.graphql(CREATE, { input: { name: 'gql-twice', role: 'Viewer' } });
    expect(graphqlOutcome(await app.graphql(CREATE, { input: { name: 'gql-twice', role: 'Viewer' } }))).toMatchObject({
      status: 409,
      code: 'API_KEY_ALREADY_EXISTS',
    });
  });

  it('creates the key in the organization named by X-Service-Org-Id', async () => {
    const result = await app.graphql<NewKey>(CREATE, { input: { name: 'gql-header-org', role: 'Viewer' } }, { orgId: otherOrg });
    const id = result.body.data?.createApiKey.id as number;
    expect((await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id } })).orgId).toBe(otherOrg);
  });

  it('answers 401 without credentials', async () => {
    const error = graphqlOutcome(await app.graphql(CREATE, { input: { name: 'gql-anon', role: 'Viewer' } }, { auth: null }));
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
  });

  it('answers 403 to a Viewer asking for an Admin key, and to an Editor asking above its role', async () => {
    const viewer = await createUser(app, 'gql-viewer-create', { orgRole: 'Viewer' });
    expect(graphqlOutcome(await app.graphql(CREATE, { input: { name: 'gql-v', role: 'Admin' } }, { auth: viewer }))).toMatchObject({
      status: 403,
      code: 'ACCESS_DENIED',
    });
    const editor = await createUser(app, 'gql-editor-create', { orgRole: 'Editor' });
    await assignUserRole(app, editor.id, 'fixed:apikeys:writer');
    const error = graphqlOutcome(await app.graphql(CREATE, { input: { name: 'gql-e', role: 'Admin' } }, { auth: editor }));
    expect(error).toMatchObject({ status: 403, code: 'ACCESS_DENIED' });
    expect(error.message).toMatch(/above your org role Editor/);
    expect(await app.database.prisma.apiKey.count({ where: { name: { in: ['gql-v', 'gql-e'] } } })).toBe(0);
  });
});

describe('apiKeys', () => {
  it('lists by name with expiration only for expiring keys', async () => {
    const org = (await createOrg(app, 'GraphQL Listing Org')).id;
    const admin = await app.database.prisma.user.findUniqueOrThrow({ where: { login: 'admin' } });
    await addOrgMember(app, org, admin.id, 'Admin');
    await createKey(app, { name: 'zulu', role: 'Editor', secondsToLive: 60 }, { orgId: org });
    await createKey(app, { name: 'yankee', role: 'Viewer' }, { orgId: org });
    const keys = (await app.graphql<KeyList>(LIST, {}, { orgId: org })).body.data?.apiKeys ?? [];
    expect(keys.map((k) => [k.name, k.role, k.expiration === null])).toEqual([
      ['yankee', 'Viewer', true],
      ['zulu', 'Editor', false],
    ]);
  });

  it('answers 401 without credentials and 403 without apikey:read', async () => {
    expect(graphqlOutcome(await app.graphql(LIST, {}, { auth: null }))).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    const editor = await createUser(app, 'gql-editor-list', { orgRole: 'Editor' });
    expect(graphqlOutcome(await app.graphql(LIST, {}, { auth: editor }))).toMatchObject({ status: 403, code: 'ACCESS_DENIED' });
  });
});

describe('deleteApiKey', () => {
  it('deletes a key with {message: "API key deleted"}, then answers 404', async () => {
    const created = await createKey(app, { name: 'gql-delete', role: 'Viewer' });
    const result = await app.graphql<{ deleteApiKey: { message: string } }>(DELETE, { id: created.id });
    expect(result.body.data?.deleteApiKey).toEqual({ message: 'API key deleted' });
    expect(graphqlOutcome(await app.graphql(DELETE, { id: created.id }))).toMatchObject({ status: 404, code: 'API_KEY_NOT_FOUND' });
  });

  it("answers 404 for another organization's key, which stays", async () => {
    const foreign = await createKey(app, { name: 'gql-foreign', role: 'Viewer' }, { orgId: otherOrg });
    expect(graphqlOutcome(await app.graphql(DELETE, { id: foreign.id }))).toMatchObject({ status: 404, code: 'API_KEY_NOT_FOUND' });
    expect(await app.database.prisma.apiKey.count({ where: { id: foreign.id } })).toBe(1);
  });

  it('answers 400 for a non-positive id', async () => {
    expect(graphqlOutcome(await app.graphql(DELETE, { id: 0 }))).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });

  it('answers 401 without credentials and 403 to a Viewer', async () => {
    const created = await createKey(app, { name: 'gql-guarded', role: 'Viewer' });
    expect(graphqlOutcome(await app.graphql(DELETE, { id: created.id }, { auth: null }))).toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
    });
    const viewer = await createUser(app, 'gql-viewer-delete', { orgRole: 'Viewer' });
    expect(graphqlOutcome(await app.graphql(DELETE, { id: created.id }, { auth: viewer }))).toMatchObject({
      status: 403,
      code: 'ACCESS_DENIED',
    });
    expect(await app.database.prisma.apiKey.count({ where: { id: created.id } })).toBe(1);
  });
});
