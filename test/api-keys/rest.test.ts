/** REST /api/auth/keys in the enterprise edition: every path and status code. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, restOutcome } from '../support/requests.js';
import { addOrgMember, assignUserRole, createKey, createOrg, createRole, createUser, p } from '../support/subjects.js';

const KEY_SHAPE = /^pcs_[0-9A-Za-z]{38}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let app: TestApp;
let otherOrg: number;
let admin: { id: number };

beforeAll(async () => {
  app = await createTestApp();
  otherOrg = (await createOrg(app, 'Other Org')).id;
  admin = await app.database.prisma.user.findUniqueOrThrow({ where: { login: 'admin' } });
  await addOrgMember(app, otherOrg, admin.id, 'Admin');
});
afterAll(() => app.close());

type KeyItem = { id: number; name: string; role: string; expiration?: string };
async function list(options: { query?: string; orgId?: number } = {}): Promise<KeyItem[]> {
  const res = await app.request(`/api/auth/keys${options.query ?? ''}`, options.orgId ? { orgId: options.orgId } : {});
  expect(res.status).toBe(200);
  return (await res.json()) as KeyItem[];
}

describe('POST /api/auth/keys', () => {
  it('creates a key in the caller organization and answers {id, name, key}, the only time the key is shown', async () => {
    const created = await createKey(app, { name: 'create-basic', role: 'Editor' });
    expect(Object.keys(created).sort()).toEqual(['id', 'key', 'name']);
    expect(created.name).toBe('create-basic');
    expect(created.key).toMatch(KEY_SHAPE);
    const row = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } });
    expect({ orgId: row.orgId, role: row.role, expires: row.expires }).toEqual({ orgId: 1, role: 'Editor', expires: null });
    const listed = (await list()).find((k) => k.id === created.id);
    expect(listed).toEqual({ id: created.id, name: 'create-basic', role: 'Editor' });
  });

  it.each([
    ['None', 'None'],
    ['an unknown role', 'Superuser'],
    ['a lower-case role', 'admin'],
    ['a number', 7],
    ['no role', undefined],
  ])('refuses %s as role with 400 VALIDATION_FAILED naming the field', async (_label, role) => {
    const res = await app.request('/api/auth/keys', { method: 'POST', json: { name: `bad-role-${String(role)}`, role } });
    expect(expectOutcome(await restOutcome(res), 400, 'VALIDATION_FAILED')).toMatch(/^role: /);
  });

  it.each([
    ['no name', { role: 'Viewer' }, /^name: /],
    ['a blank name', { name: '   ', role: 'Viewer' }, /^name: /],
    ['a name of 191 characters', { name: 'n'.repeat(191), role: 'Viewer' }, /^name: /],
    ['a string secondsToLive', { name: 's1', role: 'Viewer', secondsToLive: 'ten' }, /^secondsToLive: /],
    ['a fractional secondsToLive', { name: 's2', role: 'Viewer', secondsToLive: 1.5 }, /^secondsToLive: /],
    ['a secondsToLive beyond a 32-bit integer', { name: 's3', role: 'Viewer', secondsToLive: 2 ** 31 }, /^secondsToLive: /],
    ['an array body', [{ name: 'x', role: 'Viewer' }], /JSON object/],
  ])('refuses %s with 400 VALIDATION_FAILED', async (_label, json, message) => {
    const res = await app.request('/api/auth/keys', { method: 'POST', json });
    expect(expectOutcome(await restOutcome(res), 400, 'VALIDATION_FAILED')).toMatch(message);
  });

  it('refuses a body that is not JSON (400) and a missing content type (400)', async () => {
    const broken = await app.request('/api/auth/keys', { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } });
    expectOutcome(await restOutcome(broken), 400, 'INVALID_JSON');
    const untyped = await app.request('/api/auth/keys', { method: 'POST', body: JSON.stringify({ name: 'untyped', role: 'Viewer' }) });
    expectOutcome(await restOutcome(untyped), 400, 'UNSUPPORTED_CONTENT_TYPE');
    expect(await app.database.prisma.apiKey.count({ where: { name: 'untyped' } })).toBe(0);
  });

  it('answers 409 API_KEY_ALREADY_EXISTS for a name taken in the organization, and allows it in another one', async () => {
    await createKey(app, { name: 'twice', role: 'Viewer' });
    const again = await app.request('/api/auth/keys', { method: 'POST', json: { name: 'twice', role: 'Admin' } });
    expectOutcome(await restOutcome(again), 409, 'API_KEY_ALREADY_EXISTS');
    const elsewhere = await createKey(app, { name: 'twice', role: 'Viewer' }, { orgId: otherOrg });
    expect((await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: elsewhere.id } })).orgId).toBe(otherOrg);
  });

  it('creates the key in the organization named by X-Service-Org-Id', async () => {
    const created = await createKey(app, { name: 'header-org', role: 'Admin' }, { orgId: otherOrg });
    expect((await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.id } })).orgId).toBe(otherOrg);
    expect((await list()).some((k) => k.id === created.id)).toBe(false);
    expect((await list({ orgId: otherOrg })).some((k) => k.id === created.id)).toBe(true);
  });

  it('answers 401 without credentials and writes nothing', async () => {
    const res = await app.request('/api/auth/keys', { method: 'POST', json: { name: 'anon', role: 'Viewer' }, auth: null });
    expectOutcome(await restOutcome(res), 401, 'UNAUTHENTICATED');
    expect(await app.database.prisma.apiKey.count({ where: { name: 'anon' } })).toBe(0);
  });

  it('answers 403 to a Viewer user, who cannot create an Admin key (nor any key)', async () => {
    const viewer = await createUser(app, 'viewer-create', { orgRole: 'Viewer' });
    for (const role of ['Admin', 'Viewer']) {
      const res = await app.request('/api/auth/keys', { method: 'POST', json: { name: `by-viewer-${role}`, role }, auth: viewer });
      expectOutcome(await restOutcome(res), 403, 'ACCESS_DENIED');
    }
    expect(await app.database.prisma.apiKey.count({ where: { name: { startsWith: 'by-viewer-' } } })).toBe(0);
  });

  it('answers 403 for a key role above the caller org role, even when apikey:create is granted', async () => {
    const editor = await createUser(app, 'editor-create', { orgRole: 'Editor' });
    await assignUserRole(app, editor.id, 'fixed:apikeys:writer');
    const above = await app.request('/api/auth/keys', { method: 'POST', json: { name: 'editor-admin', role: 'Admin' }, auth: editor });
    expect(expectOutcome(await restOutcome(above), 403, 'ACCESS_DENIED')).toMatch(/role Admin.*org role Editor/);
    await createKey(app, { name: 'editor-editor', role: 'Editor' }, { auth: editor });
    await createKey(app, { name: 'editor-viewer', role: 'Viewer' }, { auth: editor });
  });
});

describe('GET /api/auth/keys', () => {
  it('lists the organization keys by name; expiration (ISO 8601) only on keys that expire; never the key', async () => {
    const org = (await createOrg(app, 'Listing Org')).id;
    await addOrgMember(app, org, admin.id, 'Admin');
    for (const name of ['charlie', 'alpha', 'bravo']) {
      await createKey(app, { name, role: 'Viewer', ...(name === 'bravo' && { secondsToLive: 3600 }) }, { orgId: org });
    }
    const keys = await list({ orgId: org });
    expect(keys.map((k) => k.name)).toEqual(['alpha', 'bravo', 'charlie']);
    expect(keys.map((k) => 'expiration' in k)).toEqual([false, true, false]);
    expect(keys[1]?.expiration).toMatch(ISO);
    for (const key of keys)
      expect(Object.keys(key).sort()).toEqual(key.expiration ? ['expiration', 'id', 'name', 'role'] : ['id', 'name', 'role']);
  });

  it('refuses includeExpired values other than true/false with 400', async () => {
    expectOutcome(await restOutcome(await app.request('/api/auth/keys?includeExpired=maybe')), 400, 'VALIDATION_FAILED');
  });

  it('answers 401 without credentials and 403 without apikey:read', async () => {
    expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: null })), 401, 'UNAUTHENTICATED');
    const editor = await createUser(app, 'editor-list', { orgRole: 'Editor' });
    expectOutcome(await restOutcome(await app.request('/api/auth/keys', { auth: editor })), 403, 'ACCESS_DENIED');
    await assignUserRole(app, editor.id, 'fixed:apikeys:reader');
    expect((await app.request('/api/auth/keys', { auth: editor })).status).toBe(200);
  });
});

describe('DELETE /api/auth/keys/:id', () => {
  it('deletes a key: 200 {"message": "API key deleted"}, then 404 API_KEY_NOT_FOUND', async () => {
    const created = await createKey(app, { name: 'to-delete', role: 'Viewer' });
    const res = await app.request(`/api/auth/keys/${created.id}`, { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'API key deleted' });
    expect(await app.database.prisma.apiKey.count({ where: { id: created.id } })).toBe(0);
    expectOutcome(await restOutcome(await app.request(`/api/auth/keys/${created.id}`, { method: 'DELETE' })), 404, 'API_KEY_NOT_FOUND');
  });

  it("answers 404 for an unknown id and for another organization's key, which stays", async () => {
    expectOutcome(await restOutcome(await app.request('/api/auth/keys/987654', { method: 'DELETE' })), 404, 'API_KEY_NOT_FOUND');
    const foreign = await createKey(app, { name: 'foreign', role: 'Viewer' }, { orgId: otherOrg });
    expectOutcome(await restOutcome(await app.request(`/api/auth/keys/${foreign.id}`, { method: 'DELETE' })), 404, 'API_KEY_NOT_FOUND');
    expect(await app.database.prisma.apiKey.count({ where: { id: foreign.id } })).toBe(1);
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999'])('answers 400 for the id %s', async (id) => {
    expectOutcome(await restOutcome(await app.request(`/api/auth/keys/${id}`, { method: 'DELETE' })), 400, 'VALIDATION_FAILED');
  });

  it('answers 401 without credentials and 403 without apikey:delete on the key, which stays', async () => {
    const created = await createKey(app, { name: 'guarded', role: 'Viewer' });
    expectOutcome(
      await restOutcome(await app.request(`/api/auth/keys/${created.id}`, { method: 'DELETE', auth: null })),
      401,
      'UNAUTHENTICATED',
    );
    const viewer = await createUser(app, 'viewer-delete', { orgRole: 'Viewer' });
    expectOutcome(
      await restOutcome(await app.request(`/api/auth/keys/${created.id}`, { method: 'DELETE', auth: viewer })),
      403,
      'ACCESS_DENIED',
    );
    expect(await app.database.prisma.apiKey.count({ where: { id: created.id } })).toBe(1);
  });

  it('checks apikey:delete on apikey:id:<id>: a grant for one key deletes that key only', async () => {
    const mine = await createKey(app, { name: 'scoped-mine', role: 'Viewer' });
    const theirs = await createKey(app, { name: 'scoped-theirs', role: 'Viewer' });
    const editor = await createUser(app, 'editor-delete', { orgRole: 'Editor' });
    await createRole(app, `delete-one-${mine.id}`, [p('apikey:delete', `apikey:id:${mine.id}`)], { name: `delete key ${mine.id}` });
    await assignUserRole(app, editor.id, `delete-one-${mine.id}`);
    expectOutcome(
      await restOutcome(await app.request(`/api/auth/keys/${theirs.id}`, { method: 'DELETE', auth: editor })),
      403,
      'ACCESS_DENIED',
    );
    expect((await app.request(`/api/auth/keys/${mine.id}`, { method: 'DELETE', auth: editor })).status).toBe(200);
  });
});
