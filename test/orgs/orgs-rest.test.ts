/**
 * Organizations over REST, Grafana's paths and shapes, with their GraphQL twins side by side:
 * GET/PUT /api/org, GET/POST /api/orgs, GET /api/orgs/name/:name, GET/PUT /api/orgs/:orgId —
 * every success and error status, the wall between organizations, and the audit rows.
 * Deletion: org-delete.test.ts; members: org-users-rest.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectData, expectGraphqlError, expectOutcome, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { type Actor, createKey, createOrgViaGraphql, createUser, unique } from '../support/subjects.js';

useSeededApp();
let nobody: Actor;
beforeAll(async () => {
  nobody = await createUser(app, 'orgs-rest-none', { orgRole: 'None' });
});

const NO_ADDRESS = { address1: '', address2: '', city: '', zipCode: '', state: '', country: '' };
const details = (id: number, name: string) => ({ id, name, address: NO_ADDRESS });

const ORG = 'query($id: Int!) { organization(id: $id) { id name } }';
const UPDATE = 'mutation($id: Int, $name: String!) { updateOrganization(id: $id, input: { name: $name }) { id name } }';
const SEARCH =
  'query($q: String, $name: String, $page: Int, $perPage: Int) { searchOrganizations(query: $q, name: $name, page: $page, perPage: $perPage) { id name } }';
const BY_NAME = 'query($name: String!) { organizationByName(name: $name) { id name } }';

const audits = (action: string, resourceId: number) =>
  app.database.prisma.auditEvent.findMany({ where: { action, resourceKind: 'org', resourceId: String(resourceId) } });

/** A new organization whose only Admin is a new user (member there only); the admin of the service is no member. */
async function tenant(): Promise<{ id: number; name: string; admin: Actor; editor: Actor }> {
  const name = unique('Tenant');
  const org = await app.database.prisma.org.create({ data: { name } });
  const admin = await createUser(app, unique('tenant-admin'), { orgId: org.id, orgRole: 'Admin' });
  const editor = await createUser(app, unique('tenant-editor'), { orgId: org.id, orgRole: 'Editor' });
  return { id: org.id, name, admin, editor };
}

describe('GET /api/org', () => {
  it('200 {id, name, address} of the organization the request acts in, for any member with a role; same as organization(id)', async () => {
    for (const actor of [fx.viewer, fx.editor, fx.orgAdmin, fx.admin]) {
      const out = await rest(app, 'GET', '/api/org', { auth: actor.auth });
      expectOutcome(out, 200);
      expect(out.body).toEqual(details(1, 'Main Org.'));
    }
    const theirs = await rest(app, 'GET', '/api/org/', { auth: fx.org2.admin.auth });
    expect(theirs.body).toEqual(details(fx.org2.id, fx.org2.name));
    const header = await rest(app, 'GET', '/api/org', { orgId: fx.org2.id });
    expect(header.body).toEqual(details(fx.org2.id, fx.org2.name));
    const door = expectData(await app.graphql<{ organization: unknown }>(ORG, { id: 1 }, { auth: fx.viewer.auth }));
    expect(door.organization).toEqual({ id: 1, name: 'Main Org.' });
  });

  it('an API key reads its own organization', async () => {
    const key = await createKey(app, { name: unique('org-reader'), role: 'Viewer' });
    const out = await rest(app, 'GET', '/api/org', { auth: { token: key.key } });
    expect(out.body).toEqual(details(1, 'Main Org.'));
  });

  it('401 without credentials; 403 for org role None naming orgs:read on orgs:id:<id>, on both doors', async () => {
    expectOutcome(await rest(app, 'GET', '/api/org', { auth: null }), 401, 'UNAUTHENTICATED');
    const message = expectOutcome(await rest(app, 'GET', '/api/org', { auth: nobody.auth }), 403, 'ACCESS_DENIED');
    expect(message).toBe(`You'll need additional permissions to perform this action. Permissions needed: orgs:read`);
    const gqlDenial = await app.graphql(ORG, { id: 1 }, { auth: nobody.auth });
    expect(expectGraphqlError(gqlDenial, 'ACCESS_DENIED')).toBe(message);
    expect(gqlDenial.body.errors?.[0]?.extensions).toMatchObject({ details: { needed: 'action: orgs:read scopes: orgs:id:1' } });
  });
});

describe('PUT /api/org', () => {
  it('an org Admin renames the organization it acts in: {"message":"Organization updated"}, audited as org.update', async () => {
    const t = await tenant();
    const name = unique('Renamed');
    const out = await rest(app, 'PUT', '/api/org', { auth: t.admin.auth, json: { name } });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Organization updated' });
    expect((await app.database.prisma.org.findUniqueOrThrow({ where: { id: t.id } })).name).toBe(name);
    const [event] = await audits('org.update', t.id);
    expect(event).toMatchObject({ orgId: 0, actorId: t.admin.id, actorLogin: t.admin.login });
    expect(JSON.parse(event?.before ?? '{}')).toMatchObject({ id: t.id, name: t.name });
    expect(JSON.parse(event?.after ?? '{}')).toMatchObject({ id: t.id, name });

    // GraphQL twin: the current organization when id is omitted
    const again = unique('Renamed');
    const door = expectData(await app.graphql<{ updateOrganization: unknown }>(UPDATE, { name: again }, { auth: t.admin.auth }));
    expect(door.updateOrganization).toEqual({ id: t.id, name: again });
  });

  it('400 for a missing, empty or too long name or a non-object body; 400 "Organization name taken"', async () => {
    const t = await tenant();
    for (const json of [{}, { name: '  ' }, { name: 'x'.repeat(191) }, ['x'], 'x']) {
      expectOutcome(await rest(app, 'PUT', '/api/org', { auth: t.admin.auth, json }), 400, 'VALIDATION_FAILED');
    }
    const taken = await rest(app, 'PUT', '/api/org', { auth: t.admin.auth, json: { name: 'Main Org.' } });
    expect(expectOutcome(taken, 400, 'ORG_NAME_TAKEN')).toBe('Organization name taken');
    expectGraphqlError(await app.graphql(UPDATE, { name: fx.org2.name }, { auth: t.admin.auth }), 'ORG_NAME_TAKEN');
    // its own name again is no conflict
    expectOutcome(await rest(app, 'PUT', '/api/org', { auth: t.admin.auth, json: { name: t.name } }), 200);
    expect((await app.database.prisma.org.findUniqueOrThrow({ where: { id: t.id } })).name).toBe(t.name);
  });

  it('401; 403 for Editor, Viewer and None naming orgs:write, checked before the body', async () => {
    const t = await tenant();
    expectOutcome(await rest(app, 'PUT', '/api/org', { auth: null, json: { name: 'x' } }), 401, 'UNAUTHENTICATED');
    const message = expectOutcome(await rest(app, 'PUT', '/api/org', { auth: t.editor.auth, json: {} }), 403, 'ACCESS_DENIED');
    expect(message).toBe(`You'll need additional permissions to perform this action. Permissions needed: orgs:write`);
    for (const actor of [fx.viewer, nobody]) {
      expectOutcome(await rest(app, 'PUT', '/api/org', { auth: actor.auth, json: { name: 'x' } }), 403, 'ACCESS_DENIED');
    }
    expect((await app.database.prisma.org.findUniqueOrThrow({ where: { id: 1 } })).name).toBe('Main Org.');
  });
});

describe('GET /api/orgs', () => {
  it('a Service Admin lists [{id, name}] by id, filtered by name prefix or exact name; same as searchOrganizations', async () => {
    const out = await rest(app, 'GET', '/api/orgs');
    expectOutcome(out, 200);
    const list = out.body as { id: number; name: string }[];
    expect(list.slice(0, 2)).toEqual([
      { id: 1, name: 'Main Org.' },
      { id: fx.org2.id, name: fx.org2.name },
    ]);
    expect(Object.keys(list[0] ?? {}).sort()).toEqual(['id', 'name']);
    expect((await rest(app, 'GET', '/api/orgs?query=main')).body).toEqual([{ id: 1, name: 'Main Org.' }]);
    expect((await rest(app, 'GET', '/api/orgs?query=Org.')).body).toEqual([]); // a prefix, not a substring
    expect((await rest(app, 'GET', `/api/orgs?name=${encodeURIComponent(fx.org2.name)}`)).body).toEqual([
      { id: fx.org2.id, name: fx.org2.name },
    ]);
    expect((await rest(app, 'GET', '/api/orgs?name=Second')).body).toEqual([]);
    const door = expectData(await app.graphql<{ searchOrganizations: unknown }>(SEARCH, { q: 'Main' }));
    expect(door.searchOrganizations).toEqual([{ id: 1, name: 'Main Org.' }]);
  });

  it('perpage (default 1000) and page from 0, as Grafana skips perpage * page', async () => {
    for (let i = 0; i < 3; i++) await createOrgViaGraphql(app, { name: unique('Paged') });
    const all = (await rest(app, 'GET', '/api/orgs')).body as { id: number }[];
    expect((await rest(app, 'GET', '/api/orgs?perpage=2')).body).toEqual(all.slice(0, 2));
    expect((await rest(app, 'GET', '/api/orgs?perpage=2&page=1')).body).toEqual(all.slice(2, 4));
    expect((await rest(app, 'GET', '/api/orgs?perpage=0&page=0')).body).toEqual(all);
    expect((await rest(app, 'GET', '/api/orgs?perpage=2&page=99999')).body).toEqual([]);
    // Grafana's QueryInt: not a number is the default; page below 0 is 0.
    expect((await rest(app, 'GET', '/api/orgs?perpage=ten&page=-2')).body).toEqual(all);
    const paged = expectData(await app.graphql<{ searchOrganizations: unknown }>(SEARCH, { perPage: 2, page: 1 }));
    expect(paged.searchOrganizations).toEqual(all.slice(2, 4));
  });

  it('400 for more than 1000 per page on both doors; 401; 403 for an org Admin and a Viewer (orgs:read on orgs:*)', async () => {
    expectOutcome(await rest(app, 'GET', '/api/orgs?perpage=1001'), 400, 'VALIDATION_FAILED');
    expectGraphqlError(await app.graphql(SEARCH, { perPage: 10_000 }), 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', '/api/orgs', { auth: null }), 401, 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.viewer, fx.org2.admin]) {
      const message = expectOutcome(await rest(app, 'GET', '/api/orgs', { auth: actor.auth }), 403, 'ACCESS_DENIED');
      expect(message).toBe(`You'll need additional permissions to perform this action. Permissions needed: orgs:read`);
      const gqlDenial = await app.graphql(SEARCH, {}, { auth: actor.auth });
      expectGraphqlError(gqlDenial, 'ACCESS_DENIED');
      expect(gqlDenial.body.errors?.[0]?.extensions).toMatchObject({ details: { needed: 'action: orgs:read scopes: orgs:*' } });
    }
  });
});

describe('POST /api/orgs', () => {
  it('200 {orgId, message:"Organization created"}; the caller is its Admin; audited as org.create', async () => {
    const name = unique('Created');
    const out = await rest(app, 'POST', '/api/orgs', { json: { name } });
    expectOutcome(out, 200);
    const body = out.body as { orgId: number; message: string };
    expect(body).toEqual({ orgId: expect.any(Number), message: 'Organization created' });
    expect(await app.database.prisma.org.findUnique({ where: { id: body.orgId } })).toMatchObject({ name });
    const membership = await app.database.prisma.orgUser.findUnique({ where: { orgId_userId: { orgId: body.orgId, userId: 1 } } });
    expect(membership?.role).toBe('Admin');
    const [event] = await audits('org.create', body.orgId);
    expect(event).toMatchObject({ orgId: 0, actorId: 1, actorKind: 'user' });
    expect(JSON.parse(event?.after ?? '{}')).toMatchObject({ id: body.orgId, name, admin: 1 });
  });

  it('409 "Organization name taken"; 400 for a bad body; 401; 403 for an org Admin and for an API key', async () => {
    const taken = await rest(app, 'POST', '/api/orgs', { json: { name: 'Main Org.' } });
    expect(expectOutcome(taken, 409, 'ALREADY_EXISTS')).toBe('Organization name taken');
    for (const json of [{}, { name: '' }, { name: 7 }, []]) {
      expectOutcome(await rest(app, 'POST', '/api/orgs', { json }), 400, 'VALIDATION_FAILED');
    }
    expectOutcome(await rest(app, 'POST', '/api/orgs', { auth: null, json: { name: unique('x') } }), 401, 'UNAUTHENTICATED');
    const message = expectOutcome(await rest(app, 'POST', '/api/orgs', { auth: fx.orgAdmin.auth, json: {} }), 403, 'ACCESS_DENIED');
    expect(message).toContain('orgs:create');
    const key = await createKey(app, { name: unique('admin-key'), role: 'Admin' });
    expectOutcome(await rest(app, 'POST', '/api/orgs', { auth: { token: key.key }, json: { name: unique('x') } }), 403, 'ACCESS_DENIED');
  });
});

describe('GET /api/orgs/name/:name', () => {
  it('a Service Admin finds an organization by its exact (URL-encoded) name; same as organizationByName', async () => {
    const out = await rest(app, 'GET', '/api/orgs/name/Main%20Org%2E');
    expectOutcome(out, 200);
    expect(out.body).toEqual(details(1, 'Main Org.'));
    const door = expectData(await app.graphql<{ organizationByName: unknown }>(BY_NAME, { name: fx.org2.name }));
    expect(door.organizationByName).toEqual({ id: fx.org2.id, name: fx.org2.name });
  });

  it('404 "Organization not found"; 401; 403 for anyone without orgs:read on orgs:*, even for its own organization', async () => {
    expect(expectOutcome(await rest(app, 'GET', '/api/orgs/name/nowhere'), 404, 'ORG_NOT_FOUND')).toBe('Organization not found');
    expectOutcome(await rest(app, 'GET', '/api/orgs/name/main%20org.'), 404, 'ORG_NOT_FOUND');
    expectGraphqlError(await app.graphql(BY_NAME, { name: 'nowhere' }), 'ORG_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/orgs/name/x', { auth: null }), 401, 'UNAUTHENTICATED');
    for (const actor of [fx.orgAdmin, fx.viewer]) {
      expectOutcome(await rest(app, 'GET', '/api/orgs/name/Main%20Org.', { auth: actor.auth }), 403, 'ACCESS_DENIED');
      expectGraphqlError(await app.graphql(BY_NAME, { name: 'Main Org.' }, { auth: actor.auth }), 'ACCESS_DENIED');
    }
  });
});

describe('GET /api/orgs/:orgId', () => {
  it('the organization the caller acts in for any member with a role, any for a Service Admin', async () => {
    expect((await rest(app, 'GET', '/api/orgs/1', { auth: fx.viewer.auth })).body).toEqual(details(1, 'Main Org.'));
    expect((await rest(app, 'GET', `/api/orgs/${fx.org2.id}`)).body).toEqual(details(fx.org2.id, fx.org2.name));
    expect((await rest(app, 'GET', `/api/orgs/${fx.org2.id}`, { auth: fx.org2.admin.auth })).body).toEqual(
      details(fx.org2.id, fx.org2.name),
    );
  });

  it('404 for another organization (as if it did not exist) and for an unknown id; 400 for a bad id; 401; 403 for None', async () => {
    for (const [actor, id] of [
      [fx.viewer, fx.org2.id],
      [fx.orgAdmin, fx.org2.id],
      [fx.org2.admin, 1],
    ] as const) {
      const out = await rest(app, 'GET', `/api/orgs/${id}`, { auth: actor.auth });
      expect(expectOutcome(out, 404, 'ORG_NOT_FOUND')).toBe('Organization not found');
      expectGraphqlError(await app.graphql(ORG, { id }, { auth: actor.auth }), 'ORG_NOT_FOUND');
    }
    expectOutcome(await rest(app, 'GET', '/api/orgs/999999'), 404, 'ORG_NOT_FOUND');
    for (const id of ['abc', '0', '-1', '1.5']) expectOutcome(await rest(app, 'GET', `/api/orgs/${id}`), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', '/api/orgs/1', { auth: null }), 401, 'UNAUTHENTICATED');
    expectOutcome(await rest(app, 'GET', `/api/orgs/${fx.org2.id}`, { auth: nobody.auth }), 403, 'ACCESS_DENIED');
  });
});

describe('PUT /api/orgs/:orgId', () => {
  it('a Service Admin renames any organization; an org Admin the one it acts in; same as updateOrganization(id)', async () => {
    const t = await tenant();
    const name = unique('ByAdmin');
    expect((await rest(app, 'PUT', `/api/orgs/${t.id}`, { json: { name } })).body).toEqual({ message: 'Organization updated' });
    expect((await app.database.prisma.org.findUniqueOrThrow({ where: { id: t.id } })).name).toBe(name);
    const own = unique('ByOwnAdmin');
    expectOutcome(await rest(app, 'PUT', `/api/orgs/${t.id}`, { auth: t.admin.auth, json: { name: own } }), 200);
    const door = expectData(await app.graphql<{ updateOrganization: unknown }>(UPDATE, { id: t.id, name: t.name }));
    expect(door.updateOrganization).toEqual({ id: t.id, name: t.name });
    expect(await audits('org.update', t.id)).toHaveLength(3);
  });

  it("403 for another organization's Admin (the wall) and for an Editor; 404 unknown; 400 bad id or body; 401", async () => {
    const t = await tenant();
    for (const actor of [fx.orgAdmin, fx.org2.admin]) {
      const out = await rest(app, 'PUT', `/api/orgs/${t.id}`, { auth: actor.auth, json: { name: 'pwned' } });
      expect(expectOutcome(out, 403, 'ACCESS_DENIED')).toContain(`organization ${t.id}`);
      expectGraphqlError(await app.graphql(UPDATE, { id: t.id, name: 'pwned' }, { auth: actor.auth }), 'ACCESS_DENIED');
    }
    expectOutcome(await rest(app, 'PUT', `/api/orgs/${t.id}`, { auth: t.editor.auth, json: { name: 'x' } }), 403, 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'PUT', '/api/orgs/999999', { json: { name: unique('x') } }), 404, 'ORG_NOT_FOUND');
    expectOutcome(await rest(app, 'PUT', '/api/orgs/x', { json: { name: unique('x') } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', `/api/orgs/${t.id}`, { json: { name: '' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'PUT', `/api/orgs/${t.id}`, { auth: null, json: { name: 'x' } }), 401, 'UNAUTHENTICATED');
    expect((await app.database.prisma.org.findUniqueOrThrow({ where: { id: t.id } })).name).toBe(t.name);
    expect(await audits('org.update', t.id)).toHaveLength(0);
  });
});
