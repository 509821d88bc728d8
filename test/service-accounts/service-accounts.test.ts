/**
 * Service accounts over GraphQL: createServiceAccount, updateServiceAccount,
 * deleteServiceAccount, serviceAccounts, serviceAccount — every success and error path.
 */
import { describe, expect, it } from 'vitest';
import { expectData, expectGraphqlError } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createServiceAccountViaGraphql, createUserViaGraphql, unique } from '../support/subjects.js';

useSeededApp();

const SA_FIELDS = 'id login name orgId role isDisabled created updated';
const CREATE = `mutation($input: CreateServiceAccountInput!) { createServiceAccount(input: $input) { ${SA_FIELDS} } }`;
const UPDATE = `mutation($id: Int!, $input: UpdateServiceAccountInput!) { updateServiceAccount(id: $id, input: $input) { ${SA_FIELDS} } }`;
const DELETE = 'mutation($id: Int!) { deleteServiceAccount(id: $id) { message } }';
const LIST = `{ serviceAccounts { ${SA_FIELDS} } }`;
const ONE = `query($id: Int!) { serviceAccount(id: $id) { ${SA_FIELDS} } }`;

type SaData = { id: number; login: string; name: string; orgId: number; role: string; isDisabled: boolean };

describe('createServiceAccount', () => {
  it("creates a service account of the caller's organization with a Grafana-style login and the org role", async () => {
    const { createServiceAccount: sa } = expectData(
      await app.graphql<{ createServiceAccount: SaData }>(
        CREATE,
        { input: { name: 'Grafana Agent', role: 'Editor' } },
        { auth: fx.orgAdmin.auth },
      ),
    );
    expect(sa).toMatchObject({ login: 'sa-1-grafana-agent', name: 'Grafana Agent', orgId: 1, role: 'Editor', isDisabled: false });
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id: sa.id }, include: { orgs: true } });
    expect(row).toMatchObject({ isServiceAccount: true, passwordHash: null, orgId: 1 });
    expect(row.orgs).toEqual([expect.objectContaining({ orgId: 1, role: 'Editor' })]);
  });

  it('defaults the role to Viewer', async () => {
    const sa = await createServiceAccountViaGraphql(app, { auth: fx.orgAdmin.auth });
    expect(sa.role).toBe('Viewer');
    expect(await app.database.prisma.orgUser.findMany({ where: { userId: sa.id } })).toEqual([
      expect.objectContaining({ orgId: 1, role: 'Viewer' }),
    ]);
  });

  it('the same name is taken (400, Grafana’s ErrServiceAccountAlreadyExists) in one organization, free in another with its own login', async () => {
    expect(
      expectGraphqlError(
        await app.graphql(CREATE, { input: { name: fx.serviceAccount.name } }, { auth: fx.orgAdmin.auth }),
        'SERVICE_ACCOUNT_ALREADY_EXISTS',
      ),
    ).toBe('service account already exists');
    // a different name with the same login slug collides too
    expectGraphqlError(
      await app.graphql(CREATE, { input: { name: fx.serviceAccount.name.toUpperCase() } }),
      'SERVICE_ACCOUNT_ALREADY_EXISTS',
    );
    const other = await createServiceAccountViaGraphql(app, { input: { name: fx.serviceAccount.name }, auth: fx.org2.admin.auth });
    expect(other).toMatchObject({ orgId: fx.org2.id, login: `sa-${fx.org2.id}-${fx.serviceAccount.name}` });
  });

  it('400 for an empty name or one without letters or digits; 401; 403 for Editor and Viewer', async () => {
    const before = await app.database.prisma.user.count();
    expectGraphqlError(await app.graphql(CREATE, { input: { name: '' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(CREATE, { input: { name: '!!!' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(CREATE, { input: { name: unique('b') } }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(
        expectGraphqlError(await app.graphql(CREATE, { input: { name: unique('b') } }, { auth: actor.auth }), 'ACCESS_DENIED'),
      ).toContain('serviceaccounts:create');
    }
    expect(await app.database.prisma.user.count()).toBe(before);
  });

  it("403 for a role above the caller's own", async () => {
    const manager = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:serviceaccounts:writer', 1);
    const auth = manager.auth;
    expect(
      expectGraphqlError(await app.graphql(CREATE, { input: { name: unique('b'), role: 'Admin' } }, { auth }), 'ACCESS_DENIED'),
    ).toMatch(/higher than/);
    expect((await createServiceAccountViaGraphql(app, { input: { role: 'Editor' }, auth: auth })).role).toBe('Editor');
  });
});

describe('serviceAccounts and serviceAccount', () => {
  it('lists the service accounts of the current organization to Editors and Admins', async () => {
    for (const actor of [fx.editor, fx.orgAdmin]) {
      const { serviceAccounts } = expectData(await app.graphql<{ serviceAccounts: SaData[] }>(LIST, {}, { auth: actor.auth }));
      expect(serviceAccounts.map((s) => s.id)).toContain(fx.serviceAccount.id);
      expect(serviceAccounts.every((s) => s.orgId === 1)).toBe(true);
      expect(serviceAccounts.map((s) => s.id)).not.toContain(fx.org2.serviceAccount.id);
    }
    const { serviceAccounts } = expectData(await app.graphql<{ serviceAccounts: SaData[] }>(LIST, {}, { auth: fx.org2.admin.auth }));
    expect(serviceAccounts).toContainEqual(expect.objectContaining({ id: fx.org2.serviceAccount.id, role: 'Editor', orgId: fx.org2.id }));
    expect(serviceAccounts.every((s) => s.orgId === fx.org2.id)).toBe(true);
  });

  it("serviceAccount(id): 404 for another organization's, a user's or an unknown id; 400; 401; 403 for a Viewer", async () => {
    const { serviceAccount } = expectData(
      await app.graphql<{ serviceAccount: SaData }>(ONE, { id: fx.serviceAccount.id }, { auth: fx.editor.auth }),
    );
    expect(serviceAccount).toMatchObject({ id: fx.serviceAccount.id, login: fx.serviceAccount.login, role: 'Viewer' });
    expectGraphqlError(await app.graphql(ONE, { id: fx.org2.serviceAccount.id }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(ONE, { id: fx.editor.id }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(ONE, { id: 999_999 }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(ONE, { id: 0 }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(ONE, { id: fx.serviceAccount.id }, { auth: null }), 'UNAUTHENTICATED');
    expectGraphqlError(await app.graphql(LIST, {}, { auth: null }), 'UNAUTHENTICATED');
    expect(expectGraphqlError(await app.graphql(ONE, { id: fx.serviceAccount.id }, { auth: fx.viewer.auth }), 'ACCESS_DENIED')).toContain(
      'serviceaccounts:read',
    );
    expectGraphqlError(await app.graphql(LIST, {}, { auth: fx.viewer.auth }), 'ACCESS_DENIED');
  });
});

describe('updateServiceAccount', () => {
  it('renames (login kept), changes the role, disables and enables', async () => {
    const sa = await createServiceAccountViaGraphql(app, { input: { role: 'Viewer' }, auth: fx.orgAdmin.auth });
    const auth = fx.orgAdmin.auth;
    const name = unique('renamed-bot');
    const { updateServiceAccount } = expectData(
      await app.graphql<{ updateServiceAccount: SaData }>(
        UPDATE,
        { id: sa.id, input: { name, role: 'Admin', isDisabled: true } },
        { auth },
      ),
    );
    expect(updateServiceAccount).toMatchObject({ id: sa.id, login: sa.login, name, role: 'Admin', isDisabled: true });
    const kept = expectData(
      await app.graphql<{ updateServiceAccount: SaData }>(UPDATE, { id: sa.id, input: { isDisabled: false } }, { auth }),
    );
    expect(kept.updateServiceAccount).toMatchObject({ name, role: 'Admin', isDisabled: false });
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id: sa.id }, include: { orgs: true } });
    expect(row).toMatchObject({ login: sa.login, name, isDisabled: false });
    expect(row.orgs).toEqual([expect.objectContaining({ orgId: 1, role: 'Admin' })]);
  });

  it('400, 401, 403 (Editor, Viewer, role above own), 404 (other organization, user, unknown), 400 (name taken)', async () => {
    const sa = await createServiceAccountViaGraphql(app, { auth: fx.orgAdmin.auth });
    expectGraphqlError(await app.graphql(UPDATE, { id: sa.id, input: { name: '' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(UPDATE, { id: sa.id, input: {} }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(
        expectGraphqlError(await app.graphql(UPDATE, { id: sa.id, input: { name: 'x' } }, { auth: actor.auth }), 'ACCESS_DENIED'),
      ).toContain('serviceaccounts:write');
    }
    const manager = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:serviceaccounts:writer', 1);
    expectGraphqlError(await app.graphql(UPDATE, { id: sa.id, input: { role: 'Admin' } }, { auth: manager.auth }), 'ACCESS_DENIED');
    expectGraphqlError(await app.graphql(UPDATE, { id: fx.org2.serviceAccount.id, input: { name: 'x' } }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: fx.viewer.id, input: { name: 'x' } }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: 999_999, input: { name: 'x' } }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { id: sa.id, input: { name: fx.serviceAccount.name } }), 'SERVICE_ACCOUNT_ALREADY_EXISTS');
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id: sa.id }, include: { orgs: true } });
    expect(row).toMatchObject({ name: sa.name, isDisabled: false });
    expect(row.orgs[0]?.role).toBe('Viewer');
  });
});

describe('deleteServiceAccount', () => {
  it('deletes a service account; 401, 403, 404 (other organization, user, unknown), 400', async () => {
    const sa = await createServiceAccountViaGraphql(app, { auth: fx.orgAdmin.auth });
    expectGraphqlError(await app.graphql(DELETE, { id: sa.id }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(expectGraphqlError(await app.graphql(DELETE, { id: sa.id }, { auth: actor.auth }), 'ACCESS_DENIED')).toContain(
        'serviceaccounts:delete',
      );
    }
    expectGraphqlError(await app.graphql(DELETE, { id: fx.org2.serviceAccount.id }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: fx.viewer.id }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: 999_999 }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expectGraphqlError(await app.graphql(DELETE, { id: 0 }), 'VALIDATION_FAILED');
    const { deleteServiceAccount } = expectData(
      await app.graphql<{ deleteServiceAccount: { message: string } }>(DELETE, { id: sa.id }, { auth: fx.orgAdmin.auth }),
    );
    expect(deleteServiceAccount.message).toBe('Service account deleted');
    expectGraphqlError(await app.graphql(ONE, { id: sa.id }), 'SERVICE_ACCOUNT_NOT_FOUND');
    expect(await app.database.prisma.user.count({ where: { id: sa.id } })).toBe(0);
    expect(await app.database.prisma.user.count({ where: { id: { in: [fx.org2.serviceAccount.id, fx.viewer.id] } } })).toBe(2);
  });
});
