/**
 * Organizations and memberships over GraphQL: createOrganization, organizations, organization,
 * addOrgUser, updateOrgUserRole, removeOrgUser — every success and error path, and the
 * permission cache seeing each membership change on the very next request.
 */
import { describe, expect, it } from 'vitest';
import { expectData, expectGraphqlError, mustGraphql } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createOrgViaGraphql, createUserViaGraphql, unique } from '../support/subjects.js';

useSeededApp();

const CREATE_ORG = 'mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id name created updated } }';
const ORGS = '{ organizations { id name } }';
const ORG = 'query($id: Int!) { organization(id: $id) { id name } }';
const ADD = `mutation($orgId: Int!, $userId: Int!, $role: OrgRole!) {
  addOrgUser(orgId: $orgId, userId: $userId, role: $role) { orgId userId role org { id name } user { id login } }
}`;
const UPDATE = `mutation($orgId: Int!, $userId: Int!, $role: OrgRole!) {
  updateOrgUserRole(orgId: $orgId, userId: $userId, role: $role) { orgId userId role }
}`;
const REMOVE = 'mutation($orgId: Int!, $userId: Int!) { removeOrgUser(orgId: $orgId, userId: $userId) { message } }';
const WHOAMI = '{ viewer { id orgId orgRole } }';

const membership = (orgId: number, userId: number) =>
  app.database.prisma.orgUser.findUnique({ where: { orgId_userId: { orgId, userId } } });

describe('createOrganization', () => {
  it('creates an organization whose Admin is the caller', async () => {
    const name = unique('Tenant');
    const { createOrganization: org } = expectData(
      await app.graphql<{ createOrganization: { id: number; name: string } }>(CREATE_ORG, { input: { name } }),
    );
    expect(org).toMatchObject({ name });
    expect(org.id).toBeGreaterThan(fx.org2.id);
    expect((await membership(org.id, 1))?.role).toBe('Admin');
    const me = expectData(await app.graphql<{ viewer: { orgId: number; orgRole: string } }>(WHOAMI, {}, { orgId: org.id }));
    expect(me.viewer).toEqual({ id: 1, orgId: org.id, orgRole: 'Admin' });
  });

  it('400 for an empty or too long name, 409 for a taken one (also after trimming)', async () => {
    expectGraphqlError(await app.graphql(CREATE_ORG, { input: { name: '  ' } }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(CREATE_ORG, { input: { name: 'o'.repeat(191) } }), 'VALIDATION_FAILED');
    const before = await app.database.prisma.org.count();
    expectGraphqlError(await app.graphql(CREATE_ORG, { input: { name: fx.org2.name } }), 'ALREADY_EXISTS');
    expectGraphqlError(await app.graphql(CREATE_ORG, { input: { name: ` ${fx.org2.name} ` } }), 'ALREADY_EXISTS');
    expect(await app.database.prisma.org.count()).toBe(before);
  });

  it('401 without credentials, 403 for anyone but a Service Admin', async () => {
    expectGraphqlError(await app.graphql(CREATE_ORG, { input: { name: unique('x') } }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.editor, fx.viewer, fx.org2.admin]) {
      const msg = expectGraphqlError(
        await app.graphql(CREATE_ORG, { input: { name: unique('x') } }, { auth: actor.auth }),
        'ACCESS_DENIED',
      );
      expect(msg).toContain('orgs:create');
    }
  });
});

describe('organizations and organization', () => {
  it('a Service Admin sees every organization; others see those they belong to', async () => {
    const all = expectData(await app.graphql<{ organizations: { id: number }[] }>(ORGS));
    expect(all.organizations.map((o) => o.id)).toEqual(expect.arrayContaining([1, fx.org2.id]));
    const mine = expectData(await app.graphql<{ organizations: { id: number; name: string }[] }>(ORGS, {}, { auth: fx.viewer.auth }));
    expect(mine.organizations).toEqual([{ id: 1, name: 'Main Org.' }]);
    const theirs = expectData(await app.graphql<{ organizations: { id: number }[] }>(ORGS, {}, { auth: fx.org2.admin.auth }));
    expect(theirs.organizations.map((o) => o.id)).toEqual([fx.org2.id]);
  });

  it('organization(id): own organization, or any for a Service Admin; 404 otherwise', async () => {
    expect(
      expectData(await app.graphql<{ organization: { name: string } }>(ORG, { id: 1 }, { auth: fx.viewer.auth })).organization.name,
    ).toBe('Main Org.');
    expectGraphqlError(await app.graphql(ORG, { id: fx.org2.id }, { auth: fx.viewer.auth }), 'ORG_NOT_FOUND');
    expectGraphqlError(await app.graphql(ORG, { id: 1 }, { auth: fx.org2.admin.auth }), 'ORG_NOT_FOUND');
    expect(expectData(await app.graphql<{ organization: { id: number } }>(ORG, { id: fx.org2.id })).organization.id).toBe(fx.org2.id);
    expectGraphqlError(await app.graphql(ORG, { id: 999_999 }), 'ORG_NOT_FOUND');
    expectGraphqlError(await app.graphql(ORG, { id: 0 }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(ORG, { id: 1 }, { auth: null }), 'UNAUTHENTICATED');
    expectGraphqlError(await app.graphql(ORGS, {}, { auth: null }), 'UNAUTHENTICATED');
  });
});

describe('addOrgUser', () => {
  it('a Service Admin adds an existing user to an organization it acts in, or to any other', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer', orgId: fx.org2.id });
    const { addOrgUser } = expectData(
      await app.graphql<{ addOrgUser: Record<string, unknown> }>(ADD, { orgId: 1, userId: user.id, role: 'Editor' }),
    );
    expect(addOrgUser).toEqual({
      orgId: 1,
      userId: user.id,
      role: 'Editor',
      org: { id: 1, name: 'Main Org.' },
      user: { id: user.id, login: user.login },
    });
    const me = expectData(await app.graphql<{ viewer: { orgId: number; orgRole: string } }>(WHOAMI, {}, { auth: user.auth, orgId: 1 }));
    expect(me.viewer).toMatchObject({ orgId: 1, orgRole: 'Editor' });

    // acting in org 1, adding to another organization
    const org = await createOrgViaGraphql(app);
    expectData(await app.graphql(ADD, { orgId: org.id, userId: user.id, role: 'Admin' }));
    expect((await membership(org.id, user.id))?.role).toBe('Admin');
  });

  it('400 for bad ids, 404 for an unknown organization, user or a service account, 409 for a member', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer', orgId: fx.org2.id });
    expectGraphqlError(await app.graphql(ADD, { orgId: 0, userId: user.id, role: 'Viewer' }), 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(ADD, { orgId: 1, userId: -3, role: 'Viewer' }), 'VALIDATION_FAILED');
    const badRole = await app.graphql(ADD, { orgId: 1, userId: user.id, role: 'Owner' });
    expect(badRole.body.errors?.[0]?.message).toMatch(/OrgRole/);
    expectGraphqlError(await app.graphql(ADD, { orgId: 999_999, userId: user.id, role: 'Viewer' }), 'ORG_NOT_FOUND');
    expectGraphqlError(await app.graphql(ADD, { orgId: 1, userId: 999_999, role: 'Viewer' }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(ADD, { orgId: 1, userId: fx.org2.serviceAccount.id, role: 'Viewer' }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(ADD, { orgId: 1, userId: fx.editor.id, role: 'Viewer' }), 'ALREADY_EXISTS');
    expect(await membership(1, user.id)).toBeNull();
    expect((await membership(1, fx.editor.id))?.role).toBe('Editor');
  });

  it('401 without credentials; 403 for Editor and Viewer; 403 for an org Admin (adding reveals a user of anywhere)', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer', orgId: fx.org2.id });
    const vars = { orgId: 1, userId: user.id, role: 'Viewer' };
    expectGraphqlError(await app.graphql(ADD, vars, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(expectGraphqlError(await app.graphql(ADD, vars, { auth: actor.auth }), 'ACCESS_DENIED')).toContain('org.users:add');
    }
    expect(expectGraphqlError(await app.graphql(ADD, vars, { auth: fx.orgAdmin.auth }), 'ACCESS_DENIED')).toContain('users:read');
    expect(await membership(1, user.id)).toBeNull();
  });

  it("403 for a role above the caller's own unless Service Admin, and for an organization the caller does not act in", async () => {
    const manager = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:org.users:writer', 1);
    await assignUserRole(app, manager.id, 'fixed:users:reader', 0);
    const auth = manager.auth;
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer', orgId: fx.org2.id });
    expect(expectGraphqlError(await app.graphql(ADD, { orgId: 1, userId: user.id, role: 'Admin' }, { auth }), 'ACCESS_DENIED')).toMatch(
      /higher than/,
    );
    expectGraphqlError(await app.graphql(ADD, { orgId: fx.org2.id, userId: fx.editor.id, role: 'Viewer' }, { auth }), 'ACCESS_DENIED');
    expect(
      expectData(await app.graphql<{ addOrgUser: { role: string } }>(ADD, { orgId: 1, userId: user.id, role: 'Editor' }, { auth }))
        .addOrgUser.role,
    ).toBe('Editor');
  });
});

describe('updateOrgUserRole', () => {
  it('an org Admin changes a role; the member holds the new permissions on its very next request', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer' });
    const auth = user.auth;
    // Viewer: no serviceaccounts:read (and the index is now cached)
    expectGraphqlError(await app.graphql('{ serviceAccounts { id } }', {}, { auth }), 'ACCESS_DENIED');
    const { updateOrgUserRole } = expectData(
      await app.graphql<{ updateOrgUserRole: unknown }>(UPDATE, { orgId: 1, userId: user.id, role: 'Editor' }, { auth: fx.orgAdmin.auth }),
    );
    expect(updateOrgUserRole).toEqual({ orgId: 1, userId: user.id, role: 'Editor' });
    expectData(await app.graphql('{ serviceAccounts { id } }', {}, { auth }));
    expectData(await app.graphql(UPDATE, { orgId: 1, userId: user.id, role: 'None' }, { auth: fx.orgAdmin.auth }));
    expectGraphqlError(await app.graphql('{ serviceAccounts { id } }', {}, { auth }), 'ACCESS_DENIED');
    expectGraphqlError(await app.graphql('{ users { id } }', {}, { auth }), 'ACCESS_DENIED');
  });

  it('400 when the last Admin would lose the role; fine while another Admin remains', async () => {
    const org = await createOrgViaGraphql(app); // admin is its only Admin
    expect(expectGraphqlError(await app.graphql(UPDATE, { orgId: org.id, userId: 1, role: 'Editor' }), 'LAST_ORG_ADMIN')).toMatch(
      /no organization admin left/,
    );
    expect((await membership(org.id, 1))?.role).toBe('Admin');
    const second = await createUserViaGraphql(app, { orgRole: 'Viewer', orgId: org.id });
    expectData(await app.graphql(UPDATE, { orgId: org.id, userId: second.id, role: 'Admin' }));
    expectData(await app.graphql(UPDATE, { orgId: org.id, userId: 1, role: 'Editor' }));
    expect((await membership(org.id, 1))?.role).toBe('Editor');
  });

  it("401; 403 for Editor and Viewer, for a role above the caller's, for another organization; 404 for a non-member; 400 for bad ids", async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer' });
    const vars = { orgId: 1, userId: user.id, role: 'Editor' };
    expectGraphqlError(await app.graphql(UPDATE, vars, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(expectGraphqlError(await app.graphql(UPDATE, vars, { auth: actor.auth }), 'ACCESS_DENIED')).toContain('org.users:write');
    }
    const manager = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:org.users:writer', 1);
    expectGraphqlError(await app.graphql(UPDATE, { ...vars, role: 'Admin' }, { auth: manager.auth }), 'ACCESS_DENIED');
    expectGraphqlError(
      await app.graphql(UPDATE, { orgId: fx.org2.id, userId: fx.org2.admin.id, role: 'Viewer' }, { auth: fx.orgAdmin.auth }),
      'ACCESS_DENIED',
    );
    expectGraphqlError(await app.graphql(UPDATE, { orgId: 1, userId: fx.org2.admin.id, role: 'Viewer' }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { orgId: 1, userId: fx.serviceAccount.id, role: 'Viewer' }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { orgId: 1, userId: 999_999, role: 'Viewer' }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(UPDATE, { orgId: 1, userId: 0, role: 'Viewer' }), 'VALIDATION_FAILED');
    expect((await membership(1, user.id))?.role).toBe('Viewer');
    expect((await membership(fx.org2.id, fx.org2.admin.id))?.role).toBe('Admin');
  });
});

describe('removeOrgUser', () => {
  it('removes the membership, the team memberships there and the default organization moves on', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Editor' });
    expectData(await app.graphql(ADD, { orgId: fx.org2.id, userId: user.id, role: 'Viewer' }));
    await mustGraphql(app, 'mutation($t: Int!, $u: Int!) { addTeamMember(teamId: $t, userId: $u) { id } }', { t: fx.team.id, u: user.id });
    expectData(await app.graphql('{ viewer { id } }', {}, { auth: user.auth })); // warm its cache

    const { removeOrgUser } = expectData(
      await app.graphql<{ removeOrgUser: { message: string } }>(REMOVE, { orgId: 1, userId: user.id }, { auth: fx.orgAdmin.auth }),
    );
    expect(removeOrgUser.message).toBe('User removed from organization');
    expect(await membership(1, user.id)).toBeNull();
    expect(await app.database.prisma.teamMember.count({ where: { userId: user.id } })).toBe(0);
    expectGraphqlError(await app.graphql(WHOAMI, {}, { auth: user.auth, orgId: 1 }), 'ORG_NOT_ACCESSIBLE');
    const me = expectData(await app.graphql<{ viewer: { orgId: number } }>(WHOAMI, {}, { auth: user.auth }));
    expect(me.viewer.orgId).toBe(fx.org2.id);
  });

  it('400 when removing the last Admin; 404 for a non-member; 401; 403', async () => {
    const org = await createOrgViaGraphql(app);
    expectGraphqlError(await app.graphql(REMOVE, { orgId: org.id, userId: 1 }), 'LAST_ORG_ADMIN');
    expect(await membership(org.id, 1)).not.toBeNull();
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer' });
    expectGraphqlError(await app.graphql(REMOVE, { orgId: 1, userId: user.id }, { auth: null }), 'UNAUTHENTICATED');
    for (const actor of [fx.editor, fx.viewer]) {
      expect(expectGraphqlError(await app.graphql(REMOVE, { orgId: 1, userId: user.id }, { auth: actor.auth }), 'ACCESS_DENIED')).toContain(
        'org.users:remove',
      );
    }
    expectGraphqlError(
      await app.graphql(REMOVE, { orgId: fx.org2.id, userId: fx.org2.admin.id }, { auth: fx.orgAdmin.auth }),
      'ACCESS_DENIED',
    );
    expectGraphqlError(await app.graphql(REMOVE, { orgId: 1, userId: fx.org2.admin.id }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(REMOVE, { orgId: 1, userId: fx.serviceAccount.id }), 'USER_NOT_FOUND');
    expectGraphqlError(await app.graphql(REMOVE, { orgId: 1, userId: 0 }), 'VALIDATION_FAILED');
    expect(await membership(1, user.id)).not.toBeNull();
    expect(await membership(1, fx.serviceAccount.id)).not.toBeNull();
  });

  it('a Service Admin removes members of any organization', async () => {
    const user = await createUserViaGraphql(app, { orgRole: 'Viewer', orgId: fx.org2.id });
    expectData(await app.graphql(REMOVE, { orgId: fx.org2.id, userId: user.id }));
    expect(await membership(fx.org2.id, user.id)).toBeNull();
  });
});
