/**
 * Request-level tests of the read paths of roles and their documented status codes (REST door):
 * the access-control status, the role list, one role, routing. Writes: roles-rest-write.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { readJson } from '../support/requests.js';
import type { Actor } from '../support/subjects.js';
import { rolesRestScene } from './roles-rest-scene.js';

let app: TestApp;
let viewer: Actor;
let writer: Actor;
let otherAdmin: Actor;
let org2: number;

beforeAll(async () => {
  ({ app, viewer, writer, otherAdmin, org2 } = await rolesRestScene());
});
afterAll(() => app.close());

describe('GET /api/access-control/status', () => {
  it('200 with enabled true for an admin', async () => {
    const res = await app.request('/api/access-control/status');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ enabled: true });
  });
  it('401 without credentials, with a message', async () => {
    const res = await app.request('/api/access-control/status', { auth: null });
    expect(res.status).toBe(401);
    expect(await readJson(res)).toMatchObject({ message: 'Unauthorized' });
  });
  it('401 with a wrong password', async () => {
    const res = await app.request('/api/access-control/status', { auth: { login: 'admin', password: 'nope' } });
    expect(res.status).toBe(401);
  });
  it('403 for a viewer, naming the permission', async () => {
    const res = await app.request('/api/access-control/status', { auth: viewer });
    expect(res.status).toBe(403);
    const b = await readJson(res);
    expect(b.code).toBe('ACCESS_DENIED');
    expect(b.message).toContain('status:accesscontrol');
  });
});

describe('GET /api/access-control/roles', () => {
  it('lists global and own-org roles without permissions; hidden only on request', async () => {
    const res = await app.request('/api/access-control/roles');
    expect(res.status).toBe(200);
    const roles = (await res.json()) as { name: string; hidden: boolean; permissions?: unknown; global: boolean }[];
    expect(roles.some((r) => r.name === 'fixed:roles:reader' && r.global)).toBe(true);
    expect(roles.every((r) => r.permissions === undefined)).toBe(true);
    expect(roles.some((r) => r.hidden)).toBe(false);
    expect(roles.some((r) => r.name.startsWith('basic:'))).toBe(false);

    const hidden = (await (await app.request('/api/access-control/roles?includeHidden=true')).json()) as { name: string }[];
    expect(hidden.map((r) => r.name)).toEqual(
      expect.arrayContaining(['basic:viewer', 'basic:editor', 'basic:admin', 'basic:service_admin']),
    );
  });
  it('never lists another organization’s roles', async () => {
    await app.request('/api/access-control/roles', { method: 'POST', json: { name: 'org2-only', uid: 'org2-only' }, auth: otherAdmin });
    const names = ((await (await app.request('/api/access-control/roles?includeHidden=true')).json()) as { name: string }[]).map(
      (r) => r.name,
    );
    expect(names).not.toContain('org2-only');
    const own = ((await (await app.request('/api/access-control/roles', { auth: otherAdmin })).json()) as { name: string }[]).map(
      (r) => r.name,
    );
    expect(own).toContain('org2-only');
  });
  it('400 for a malformed boolean', async () => {
    const res = await app.request('/api/access-control/roles?includeHidden=maybe');
    expect(res.status).toBe(400);
    expect((await readJson(res)).message).toContain('includeHidden');
  });
  it('403 for a viewer, 401 anonymous', async () => {
    expect((await app.request('/api/access-control/roles', { auth: viewer })).status).toBe(403);
    expect((await app.request('/api/access-control/roles', { auth: null })).status).toBe(401);
  });
});

describe('GET /api/access-control/roles/:uid', () => {
  it('404 for an unknown uid and for another organization’s role', async () => {
    const unknown = await app.request('/api/access-control/roles/nope');
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).code).toBe('ROLE_NOT_FOUND');
    await app.request('/api/access-control/roles', { method: 'POST', json: { uid: 'org2-secret', name: 'secret' }, auth: otherAdmin });
    expect((await app.request('/api/access-control/roles/org2-secret')).status).toBe(404);
    // A member of org 1 only naming org 2 in the header: 401. A Service Admin may enter org 2,
    // but holds no org role there, so still sees nothing (403).
    expect((await app.request('/api/access-control/roles/org2-secret', { orgId: org2, auth: writer })).status).toBe(401);
    expect((await app.request('/api/access-control/roles/org2-secret', { orgId: org2 })).status).toBe(403);
  });
  it('403 for a viewer', async () => {
    expect((await app.request('/api/access-control/roles/basic_viewer', { auth: viewer })).status).toBe(403);
  });
});

describe('routing', () => {
  it('404 for an unknown path, 405 for a known path with another method', async () => {
    expect((await app.request('/api/access-control/nothing')).status).toBe(404);
    const res = await app.request('/api/access-control/status', { method: 'DELETE' });
    expect(res.status).toBe(405);
  });
});
