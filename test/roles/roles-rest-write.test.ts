/**
 * Request-level tests of the write paths of roles and their documented status codes (REST door):
 * create, update, delete. Reads: roles-rest-read.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { readJson } from '../support/requests.js';
import type { Actor } from '../support/subjects.js';
import { assignUserRole } from '../support/subjects.js';
import { rolesRestScene } from './roles-rest-scene.js';

let app: TestApp;
let viewer: Actor;
let writer: Actor;
let otherAdmin: Actor;

beforeAll(async () => {
  ({ app, viewer, writer, otherAdmin } = await rolesRestScene());
  // A role only org 2 holds (roles-rest-read.test.ts shows the list never shows it to org 1).
  await app.request('/api/access-control/roles', { method: 'POST', json: { name: 'org2-only', uid: 'org2-only' }, auth: otherAdmin });
});
afterAll(() => app.close());

describe('POST /api/access-control/roles', () => {
  it('creates a role with a generated uid, version 0 and its permissions', async () => {
    const res = await app.request('/api/access-control/roles', {
      method: 'POST',
      json: {
        name: 'custom:reader',
        description: 'reads',
        permissions: [{ action: 'teams:read', scope: 'teams:*' }, { action: 'users:create' }],
      },
    });
    expect(res.status).toBe(200);
    const role = await readJson(res);
    expect(role).toMatchObject({ name: 'custom:reader', description: 'reads', version: 0, global: false, hidden: false });
    expect(String(role.uid)).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(role.permissions).toEqual([
      expect.objectContaining({ action: 'teams:read', scope: 'teams:*' }),
      expect.objectContaining({ action: 'users:create', scope: '' }),
    ]);
    expect(Date.parse(String(role.created))).not.toBeNaN();
    const read = await readJson(await app.request(`/api/access-control/roles/${role.uid}`));
    expect(read.permissions).toHaveLength(2);
  });
  it('keeps a given uid and version', async () => {
    const role = await readJson(
      await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'my-uid_1', name: 'custom:v', version: 3 } }),
    );
    expect(role).toMatchObject({ uid: 'my-uid_1', version: 3 });
  });
  it('creates a global role for a Service Admin', async () => {
    const role = await readJson(
      await app.request('/api/access-control/roles', { method: 'POST', json: { name: 'custom:global', global: true } }),
    );
    expect(role.global).toBe(true);
  });

  const bad: [string, unknown][] = [
    ['name missing', { permissions: [] }],
    ['name empty', { name: '' }],
    ['name not a string', { name: 7 }],
    ['fixed: prefix', { name: 'fixed:mine' }],
    ['basic: prefix', { name: 'basic:mine' }],
    ['name too long', { name: 'x'.repeat(191) }],
    ['uid too long', { name: 'a', uid: 'u'.repeat(41) }],
    ['uid with bad characters', { name: 'a', uid: 'has space' }],
    ['version negative', { name: 'a', version: -1 }],
    ['version not a number', { name: 'a', version: '1' }],
    ['global not a boolean', { name: 'a', global: 'yes' }],
    ['permissions not an array', { name: 'a', permissions: 'roles:read' }],
    ['permission without action', { name: 'a', permissions: [{ scope: 'x:*' }] }],
    ['malformed action', { name: 'a', permissions: [{ action: 'roles' }] }],
    ['wildcard in the middle', { name: 'a', permissions: [{ action: 'roles:read', scope: 'roles:*:x' }] }],
    ['wildcard without colon', { name: 'a', permissions: [{ action: 'roles:read', scope: 'roles*' }] }],
    ['body an array', [{ name: 'a' }]],
  ];
  it.each(bad)('400 and nothing written: %s', async (_why, json) => {
    const before = await app.database.prisma.role.count();
    const res = await app.request('/api/access-control/roles', { method: 'POST', json });
    expect(res.status).toBe(400);
    const b = await readJson(res);
    expect(b.code).toBe('VALIDATION_FAILED');
    expect(typeof b.message).toBe('string');
    expect(await app.database.prisma.role.count()).toBe(before);
  });
  it('400 for invalid JSON and for a missing content type', async () => {
    const invalid = await app.request('/api/access-control/roles', {
      method: 'POST',
      body: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(invalid.status).toBe(400);
    expect((await readJson(invalid)).code).toBe('INVALID_JSON');
    const noType = await app.request('/api/access-control/roles', { method: 'POST', body: '{"name":"x"}' });
    expect(noType.status).toBe(400);
    expect((await readJson(noType)).code).toBe('UNSUPPORTED_CONTENT_TYPE');
    const empty = await app.request('/api/access-control/roles', { method: 'POST' });
    expect(empty.status).toBe(400);
  });
  it('409 for a taken uid or name', async () => {
    await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'dup-uid', name: 'custom:dup' } });
    const uid = await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'dup-uid', name: 'custom:other' } });
    expect(uid.status).toBe(409);
    const name = await app.request('/api/access-control/roles', { method: 'POST', json: { name: 'custom:dup' } });
    expect(name.status).toBe(409);
    expect((await readJson(name)).code).toBe('ROLE_ALREADY_EXISTS');
  });
  it('403 without roles:write, and 403 when delegating permissions the caller lacks', async () => {
    expect((await app.request('/api/access-control/roles', { method: 'POST', json: { name: 'v' }, auth: viewer })).status).toBe(403);
    const escalate = await app.request('/api/access-control/roles', {
      method: 'POST',
      json: { name: 'custom:escalate', permissions: [{ action: 'users:read', scope: 'global.users:*' }] },
      auth: writer,
    });
    expect(escalate.status).toBe(403);
    expect((await readJson(escalate)).message).toContain('users:read on global.users:*');
    const ok = await app.request('/api/access-control/roles', {
      method: 'POST',
      json: {
        name: 'custom:delegated',
        permissions: [
          { action: 'users:read', scope: 'global.users:id:4' },
          { action: 'teams:read', scope: 'teams:id:1' },
        ],
      },
      auth: writer,
    });
    expect(ok.status).toBe(200);
  });
  it('403 for a global role created by a non Service Admin', async () => {
    const res = await app.request('/api/access-control/roles', { method: 'POST', json: { name: 'custom:g', global: true }, auth: writer });
    expect(res.status).toBe(403);
  });
});

describe('PUT /api/access-control/roles/:uid', () => {
  it('replaces permissions wholesale and takes the new version', async () => {
    await app.request('/api/access-control/roles', {
      method: 'POST',
      json: { uid: 'upd', name: 'custom:upd', permissions: [{ action: 'teams:read', scope: 'teams:*' }] },
    });
    const res = await app.request('/api/access-control/roles/upd', {
      method: 'PUT',
      json: { version: 1, name: 'custom:upd2', description: 'd', permissions: [{ action: 'users:create' }] },
    });
    expect(res.status).toBe(200);
    const role = await readJson(res);
    expect(role).toMatchObject({ version: 1, name: 'custom:upd2', description: 'd' });
    expect((role.permissions as { action: string }[]).map((p) => p.action)).toEqual(['users:create']);
  });
  it('400 naming the stale version, and nothing changes', async () => {
    const res = await app.request('/api/access-control/roles/upd', {
      method: 'PUT',
      json: { version: 1, name: 'custom:stale', permissions: [] },
    });
    expect(res.status).toBe(400);
    const b = await readJson(res);
    expect(b.code).toBe('ROLE_VERSION_CONFLICT');
    expect(b.message).toBe('the provided role version is smaller than or equal to stored role');
    const role = await readJson(await app.request('/api/access-control/roles/upd'));
    expect(role.name).toBe('custom:upd2');
    expect(role.permissions).toHaveLength(1);
  });
  it('400 without version or name', async () => {
    expect((await app.request('/api/access-control/roles/upd', { method: 'PUT', json: { name: 'x' } })).status).toBe(400);
    expect((await app.request('/api/access-control/roles/upd', { method: 'PUT', json: { version: 9 } })).status).toBe(400);
  });
  it('keeps permissions when the field is omitted', async () => {
    const role = await readJson(
      await app.request('/api/access-control/roles/upd', { method: 'PUT', json: { version: 2, name: 'custom:upd2' } }),
    );
    expect(role.permissions).toHaveLength(1);
  });
  it('never updates a fixed role (400); updates a basic role', async () => {
    const fixed = await readJson(await app.request('/api/access-control/roles/fixed_dummy'));
    expect(fixed.code).toBe('ROLE_NOT_FOUND');
    const list = (await (await app.request('/api/access-control/roles')).json()) as { uid: string; name: string }[];
    const reader = list.find((r) => r.name === 'fixed:roles:reader');
    const res = await app.request(`/api/access-control/roles/${reader?.uid}`, {
      method: 'PUT',
      json: { version: 5, name: 'fixed:roles:reader', permissions: [] },
    });
    expect(res.status).toBe(400);
    expect((await readJson(res)).code).toBe('ROLE_IS_FIXED');

    const basic = await readJson(await app.request('/api/access-control/roles/basic_viewer'));
    const updated = await app.request('/api/access-control/roles/basic_viewer', {
      method: 'PUT',
      json: {
        version: Number(basic.version) + 1,
        name: 'basic:viewer',
        permissions: [...(basic.permissions as object[]), { action: 'teams:create' }],
      },
    });
    expect(updated.status).toBe(200);
    // The next request of a viewer already holds the new permission (cache invalidated).
    const perms = await app.graphql<{ viewer: { permissions: { action: string }[] } }>(
      '{ viewer { permissions { action } } }',
      {},
      { auth: viewer },
    );
    expect(perms.body.data?.viewer.permissions.map((p) => p.action)).toContain('teams:create');
  });
  it('404 for an unknown role; 403 for a viewer; 403 for delegation of the old permissions', async () => {
    expect((await app.request('/api/access-control/roles/nope', { method: 'PUT', json: { version: 1, name: 'x' } })).status).toBe(404);
    expect(
      (await app.request('/api/access-control/roles/upd', { method: 'PUT', json: { version: 9, name: 'x' }, auth: viewer })).status,
    ).toBe(403);
    await app.request('/api/access-control/roles', {
      method: 'POST',
      json: { uid: 'strong', name: 'custom:strong', permissions: [{ action: 'users:delete', scope: 'global.users:*' }] },
    });
    const res = await app.request('/api/access-control/roles/strong', {
      method: 'PUT',
      json: { version: 1, name: 'custom:strong', permissions: [] },
      auth: writer,
    });
    expect(res.status).toBe(403);
  });
});

describe('DELETE /api/access-control/roles/:uid', () => {
  it('deletes an unassigned role', async () => {
    await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'del1', name: 'custom:del1' } });
    const res = await app.request('/api/access-control/roles/del1', { method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Role deleted' });
    expect((await app.request('/api/access-control/roles/del1')).status).toBe(404);
  });
  it('refuses an assigned role without force (400), deletes it and its assignments with force', async () => {
    await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'del2', name: 'custom:del2' } });
    const role = await app.database.prisma.role.findUniqueOrThrow({ where: { uid: 'del2' } });
    await assignUserRole(app, viewer.id, 'del2');
    const refused = await app.request('/api/access-control/roles/del2', { method: 'DELETE' });
    expect(refused.status).toBe(400);
    expect((await readJson(refused)).code).toBe('ROLE_ASSIGNED');
    expect((await app.request('/api/access-control/roles/del2')).status).toBe(200);
    const forced = await app.request('/api/access-control/roles/del2?force=true', { method: 'DELETE' });
    expect(forced.status).toBe(200);
    expect(await app.database.prisma.userRole.count({ where: { roleId: role.id } })).toBe(0);
  });
  it('a global role needs global=true', async () => {
    await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'gdel', name: 'custom:gdel', global: true } });
    expect((await app.request('/api/access-control/roles/gdel', { method: 'DELETE' })).status).toBe(404);
    expect((await app.request('/api/access-control/roles/gdel?global=true', { method: 'DELETE' })).status).toBe(200);
  });
  it('400 for fixed and basic roles; 403 for a viewer; 404 for another org’s role', async () => {
    const list = (await (await app.request('/api/access-control/roles')).json()) as { uid: string; name: string }[];
    const fixed = list.find((r) => r.name === 'fixed:roles:writer');
    expect((await app.request(`/api/access-control/roles/${fixed?.uid}?global=true`, { method: 'DELETE' })).status).toBe(400);
    expect((await app.request('/api/access-control/roles/basic_admin?global=true', { method: 'DELETE' })).status).toBe(400);
    expect((await app.request('/api/access-control/roles/upd', { method: 'DELETE', auth: viewer })).status).toBe(403);
    expect((await app.request('/api/access-control/roles/org2-only', { method: 'DELETE' })).status).toBe(404);
    expect((await app.request('/api/access-control/roles/org2-only', { auth: otherAdmin })).status).toBe(200);
  });
});
