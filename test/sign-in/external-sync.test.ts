/**
 * Syncing a user of an identity provider (LDAP on every Basic request, OAuth and LDAP logins):
 * a sign-in that changes nothing writes nothing, so it keeps every caller's cached permissions;
 * a changed name, email, flag or org role is written as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExternalIdentity } from '../../src/modules/sign-in/service.js';
import { createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
const identity: ExternalIdentity = {
  login: 'ext-sync',
  email: 'ext-sync@example.com',
  name: 'Ext Sync',
  orgRoles: [{ orgId: 1, role: 'Editor' }],
  isServiceAdmin: false,
};
const WRITES = /^\s*(INSERT|UPDATE|DELETE|BEGIN)/i;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

async function warmCache(): Promise<void> {
  expect((await app.request('/api/access-control/user/permissions')).status).toBe(200);
  expect(app.services.access.cachedPrincipals).toBeGreaterThan(0);
  // The caller's last-seen write runs after the answer: let it land before counting writes.
  await app.services.sessions.seenWritesSettled();
}

describe('SignInService.syncExternalUser', () => {
  it('creates the user on first sign-in, then answers a repeat sign-in without a write, keeping the permission cache', async () => {
    const id = await app.services.signIn.syncExternalUser(identity, 'ldap', true);
    await warmCache();
    const cached = app.services.access.cachedPrincipals;
    app.resetQueries();
    expect(await app.services.signIn.syncExternalUser(identity, 'ldap', true)).toBe(id);
    expect(app.queries.filter((sql) => WRITES.test(sql))).toEqual([]);
    expect(app.services.access.cachedPrincipals).toBe(cached);
  });

  it('writes a changed name and org role (and the cache is emptied, as after any write)', async () => {
    await warmCache();
    const changed = { ...identity, name: 'Ext Renamed', orgRoles: [{ orgId: 1, role: 'Admin' as const }] };
    const id = await app.services.signIn.syncExternalUser(changed, 'ldap', true);
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id }, include: { orgs: true } });
    expect(row.name).toBe('Ext Renamed');
    expect(row.orgs.map((m) => [m.orgId, m.role])).toEqual([[1, 'Admin']]);
    expect(app.services.access.cachedPrincipals).toBe(0);
  });

  it('still refuses a disabled user, though nothing else would change', async () => {
    const current = { ...identity, name: 'Ext Renamed', orgRoles: [{ orgId: 1, role: 'Admin' as const }] };
    await app.database.prisma.user.update({ where: { login: identity.login }, data: { isDisabled: true } });
    await expect(app.services.signIn.syncExternalUser(current, 'ldap', true)).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
  });
});
