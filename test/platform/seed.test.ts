import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC_ROLES, FIXED_ROLES } from '../../src/kernel/builtin-roles.js';
import { seed } from '../../src/kernel/seed.js';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

async function snapshot() {
  const db = app.database.prisma;
  return {
    orgs: await db.org.findMany({ orderBy: { id: 'asc' } }),
    users: await db.user.findMany({ orderBy: { id: 'asc' } }),
    members: await db.orgUser.findMany(),
    roles: await db.role.findMany({ orderBy: { id: 'asc' }, include: { permissions: { orderBy: { id: 'asc' } } } }),
    grants: await db.basicRoleGrant.findMany({ orderBy: { id: 'asc' } }),
  };
}

describe('seed', () => {
  it('creates org 1, basic and fixed roles and the Service Admin', async () => {
    const s = await snapshot();
    expect(s.orgs).toEqual([expect.objectContaining({ id: 1, name: 'Main Org.' })]);
    expect(s.users).toEqual([expect.objectContaining({ login: ADMIN.login, isServiceAdmin: true, orgId: 1 })]);
    expect(s.members).toEqual([expect.objectContaining({ orgId: 1, role: 'Admin' })]);
    expect(s.roles).toHaveLength(BASIC_ROLES.length + FIXED_ROLES.length);
    expect(s.roles.every((r) => r.orgId === 0)).toBe(true);
    const viewer = s.roles.find((r) => r.uid === 'basic_viewer');
    expect(viewer).toMatchObject({ name: 'basic:viewer', group: 'Basic', hidden: true });
    expect(s.grants.map((g) => g.basicRole).sort()).toEqual(['Admin', 'Editor', 'Service Admin', 'Viewer']);
    expect(s.users[0]?.passwordHash).toMatch(/^\$argon2id\$/);
  });

  it('basic roles inherit: Viewer ⊆ Editor ⊆ Admin', () => {
    const held = (uid: string) => {
      const role = BASIC_ROLES.find((r) => r.uid === uid);
      if (!role) throw new Error(`no basic role ${uid}`);
      return role.permissions.map((p) => `${p.action} ${p.scope}`);
    };
    const [viewer, editor, admin] = [held('basic_viewer'), held('basic_editor'), held('basic_admin')];
    expect(viewer.length).toBeGreaterThan(0);
    expect(viewer.filter((p) => !editor.includes(p))).toEqual([]); // Viewer permissions an Editor lacks
    expect(editor.filter((p) => !admin.includes(p))).toEqual([]); // Editor permissions an Admin lacks
    expect(editor.length).toBeGreaterThan(viewer.length);
    expect(admin.length).toBeGreaterThan(editor.length);
  });

  it('fixed role uids follow Grafana: fixed_ + base64url(sha1(name))', () => {
    const reader = FIXED_ROLES.find((r) => r.name === 'fixed:roles:reader');
    expect(reader?.uid).toMatch(/^fixed_[A-Za-z0-9_-]{27}$/);
    expect(reader?.uid).toBe(`fixed_${createHash('sha1').update('fixed:roles:reader').digest('base64url')}`);
  });

  it('is idempotent, and keeps an edited basic role', async () => {
    const edit = await app.request('/api/access-control/roles/basic_editor', {
      method: 'PUT',
      json: { version: 1, name: 'basic:editor', permissions: [{ action: 'teams:create' }] },
    });
    expect(edit.status, await edit.clone().text()).toBe(200);
    // The admin's last-seen time is written after the answer: wait for it, or it lands between the snapshots.
    await app.services.sessions.seenWritesSettled();
    const before = await snapshot();
    const edited = before.roles.find((r) => r.uid === 'basic_editor');
    expect(edited?.permissions.map((p) => p.action)).toEqual(['teams:create']);
    const result = await seed(app.database.prisma, { adminLogin: ADMIN.login, adminPassword: 'another-password' });
    expect(result).toEqual({ createdAdmin: false, createdRoles: [], updatedFixedRoles: [], adminPasswordIgnored: true });
    expect(await snapshot()).toEqual(before);
  });

  it('restores a tampered fixed role', async () => {
    const db = app.database.prisma;
    const reader = await db.role.findFirstOrThrow({ where: { name: 'fixed:roles:reader' } });
    await db.permission.deleteMany({ where: { roleId: reader.id } });
    const result = await seed(db, { adminLogin: ADMIN.login, adminPassword: 'x' });
    expect(result.updatedFixedRoles).toEqual(['fixed:roles:reader']);
    expect(await db.permission.count({ where: { roleId: reader.id } })).toBe(
      FIXED_ROLES.find((r) => r.name === 'fixed:roles:reader')?.permissions.length,
    );
  });
});
