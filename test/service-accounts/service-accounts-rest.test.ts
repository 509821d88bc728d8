/**
 * Service accounts over Grafana's REST paths (`/api/serviceaccounts/search`,
 * `/api/serviceaccounts`, `/api/serviceaccounts/:id`): ServiceAccountDTO and
 * ServiceAccountProfileDTO shapes, 201 on creation, messages and status codes, paging and
 * filters, the organization wall, the audit log, and the GraphQL twins (serviceAccountSearch,
 * createServiceAccount, ...) answering the same through the same service.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceAccountProfileJson as ProfileJson, ServiceAccountJson as SaJson } from '../../src/modules/service-accounts/rest.js';
import { auditOf, nameAvatar } from '../support/effects.js';
import { expectData, expectGraphqlError, expectOutcome, rest } from '../support/requests.js';
import { app, fx, useSeededApp } from '../support/scene.js';
import { assignUserRole, createRole, createServiceAccountViaGraphql, createUserViaGraphql, p, unique } from '../support/subjects.js';

useSeededApp();

type SearchJson = { totalCount: number; serviceAccounts: SaJson[]; page: number; perPage: number };

/** The ServiceAccountDTO of the fixture account (a Viewer of org 1) with `tokens`. */
const fixtureBotJson = (tokens: unknown) => ({
  id: fx.serviceAccount.id,
  name: 'fixture-bot',
  login: fx.serviceAccount.login,
  orgId: 1,
  isDisabled: false,
  role: 'Viewer',
  tokens,
  avatarUrl: nameAvatar('fixture-bot'),
  isManaged: false,
});

const SEARCH = `query($query: String, $disabled: Boolean, $page: Int, $perPage: Int) {
  serviceAccountSearch(query: $query, disabled: $disabled, page: $page, perPage: $perPage) {
    totalCount page perPage serviceAccounts { id login name role isDisabled avatarUrl tokenCount } } }`;

describe('POST /api/serviceaccounts', () => {
  it('answers 201 with the ServiceAccountDTO; recorded as service_account.create', async () => {
    const out = await rest(app, 'POST', '/api/serviceaccounts', {
      json: { name: 'Grafana Agent', role: 'Editor', isDisabled: true },
      auth: fx.orgAdmin.auth,
    });
    expect(out.status, JSON.stringify(out.body)).toBe(201);
    const sa = out.body as SaJson;
    expect(sa).toEqual({
      id: expect.any(Number),
      name: 'Grafana Agent',
      login: 'sa-1-grafana-agent',
      orgId: 1,
      isDisabled: true,
      role: 'Editor',
      tokens: 0,
      avatarUrl: nameAvatar('Grafana Agent'),
      isManaged: false,
    });
    const [event] = await auditOf(app, 'service_account.create', sa.id);
    expect(event).toMatchObject({ orgId: 1, actorId: fx.orgAdmin.id, resourceKind: 'service_account', before: null });
    expect(event?.after).toEqual({ id: sa.id, login: sa.login, name: sa.name, orgId: 1, isDisabled: true, role: 'Editor' });
  });

  it('defaults to Viewer and enabled; GraphQL createServiceAccount takes isDisabled too', async () => {
    const out = await rest(app, 'POST', '/api/serviceaccounts', { json: { name: unique('plain') } });
    expect(out.status).toBe(201);
    expect(out.body).toMatchObject({ role: 'Viewer', isDisabled: false });
    const gql = await createServiceAccountViaGraphql(app, { input: { isDisabled: true } });
    expect(gql.isDisabled).toBe(true);
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: gql.id } })).toMatchObject({ isDisabled: true });
  });

  it("400 for a taken name (Grafana's BadRequest); 400 for a missing name or a bad role; 403 for a role above the caller's, for Editor and Viewer; 401", async () => {
    const accounts = () => app.database.prisma.user.count({ where: { isServiceAccount: true } });
    const before = await accounts();
    const taken = await rest(app, 'POST', '/api/serviceaccounts', { json: { name: fx.serviceAccount.name } });
    expect(expectOutcome(taken, 400, 'SERVICE_ACCOUNT_ALREADY_EXISTS')).toBe('service account already exists');
    expectOutcome(await rest(app, 'POST', '/api/serviceaccounts', { json: {} }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', '/api/serviceaccounts', { json: { name: 'x', role: 'Boss' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', '/api/serviceaccounts', { json: { name: 'x', isDisabled: 'yes' } }), 400, 'VALIDATION_FAILED');
    const manager = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:serviceaccounts:writer', 1);
    const above = await rest(app, 'POST', '/api/serviceaccounts', { json: { name: unique('b'), role: 'Admin' }, auth: manager.auth });
    expect(expectOutcome(above, 403, 'ACCESS_DENIED')).toMatch(/higher than/);
    for (const actor of [fx.editor, fx.viewer]) {
      const out = await rest(app, 'POST', '/api/serviceaccounts', { json: {}, auth: actor.auth });
      expect(expectOutcome(out, 403, 'ACCESS_DENIED')).toContain('serviceaccounts:create');
    }
    expectOutcome(await rest(app, 'POST', '/api/serviceaccounts', { json: { name: 'x' }, auth: null }), 401, 'UNAUTHENTICATED');
    expect(await accounts()).toBe(before);
  });
});

describe('GET /api/serviceaccounts/search', () => {
  it("answers Grafana's SearchOrgServiceAccountsResult of the current organization, with token counts", async () => {
    const token = await rest(app, 'POST', `/api/serviceaccounts/${fx.serviceAccount.id}/tokens`, { json: { name: unique('tok') } });
    expectOutcome(token, 200);
    const out = await rest(app, 'GET', '/api/serviceaccounts/search', { auth: fx.editor.auth });
    expectOutcome(out, 200);
    const body = out.body as SearchJson;
    expect(Object.keys(body).sort()).toEqual(['page', 'perPage', 'serviceAccounts', 'totalCount']);
    expect(body).toMatchObject({ page: 1, perPage: 1000, totalCount: body.serviceAccounts.length });
    expect(body.serviceAccounts.find((s) => s.id === fx.serviceAccount.id)).toEqual(fixtureBotJson(1));
    expect(body.serviceAccounts.every((s) => s.orgId === 1)).toBe(true);
    expect(body.serviceAccounts.map((s) => s.id)).not.toContain(fx.org2.serviceAccount.id);
    const org2 = (await rest(app, 'GET', '/api/serviceaccounts/search', { auth: fx.org2.admin.auth })).body as SearchJson;
    expect(org2.serviceAccounts.map((s) => s.id)).toEqual([fx.org2.serviceAccount.id]);
  });

  it('pages, filters by part of the name or login and by disabled; GraphQL serviceAccountSearch answers the same', async () => {
    const prefix = unique('Robot');
    const made: SaJson[] = [];
    for (const [i, suffix] of ['a', 'b', 'c', 'd'].entries()) {
      const out = await rest(app, 'POST', '/api/serviceaccounts', { json: { name: `${prefix} ${suffix}`, isDisabled: i % 2 === 1 } });
      made.push(out.body as SaJson);
    }
    const page2 = (await rest(app, 'GET', `/api/serviceaccounts/search?query=${prefix.toLowerCase()}&perpage=3&page=2`)).body as SearchJson;
    expect(page2).toMatchObject({ totalCount: 4, page: 2, perPage: 3 });
    expect(page2.serviceAccounts.map((s) => s.name)).toEqual([`${prefix} d`]);
    const gql = expectData(
      await app.graphql<{
        serviceAccountSearch: { totalCount: number; serviceAccounts: { id: number; avatarUrl: string; tokenCount: number }[] };
      }>(SEARCH, { query: prefix.toLowerCase(), perPage: 3, page: 2 }),
    );
    expect(gql.serviceAccountSearch.totalCount).toBe(4);
    expect(gql.serviceAccountSearch.serviceAccounts).toEqual([
      expect.objectContaining({ id: made[3]?.id, avatarUrl: made[3]?.avatarUrl, tokenCount: 0, isDisabled: true }),
    ]);

    // the login is sa-1-<slug>: "robot-" matches through it as well
    const byLogin = (await rest(app, 'GET', `/api/serviceaccounts/search?query=sa-1-${prefix.toLowerCase()}-b`)).body as SearchJson;
    expect(byLogin.serviceAccounts.map((s) => s.id)).toEqual([made[1]?.id]);

    for (const param of ['disabled', 'Disabled']) {
      const disabled = (await rest(app, 'GET', `/api/serviceaccounts/search?query=${prefix}&${param}=true`)).body as SearchJson;
      expect(disabled.serviceAccounts.map((s) => s.name)).toEqual([`${prefix} b`, `${prefix} d`]);
    }
    const gqlDisabled = expectData(
      await app.graphql<{ serviceAccountSearch: { serviceAccounts: { id: number }[] } }>(SEARCH, { query: prefix, disabled: true }),
    );
    expect(gqlDisabled.serviceAccountSearch.serviceAccounts.map((s) => s.id)).toEqual([made[1]?.id, made[3]?.id]);
    expectOutcome(await rest(app, 'GET', '/api/serviceaccounts/search?disabled=maybe'), 400, 'VALIDATION_FAILED');
  });

  it('403 for a Viewer (Grafana: serviceaccounts:read) on both doors, 401 without credentials; one-id readers see that account only', async () => {
    expect(expectOutcome(await rest(app, 'GET', '/api/serviceaccounts/search', { auth: fx.viewer.auth }), 403, 'ACCESS_DENIED')).toContain(
      'serviceaccounts:read',
    );
    expectGraphqlError(await app.graphql(SEARCH, {}, { auth: fx.viewer.auth }), 'ACCESS_DENIED');
    expectOutcome(await rest(app, 'GET', '/api/serviceaccounts/search', { auth: null }), 401, 'UNAUTHENTICATED');
    const reader = await createUserViaGraphql(app, { orgRole: 'None' });
    const role = await createRole(app, unique('one-sa'), [p('serviceaccounts:read', `serviceaccounts:id:${fx.serviceAccount.id}`)], {
      name: unique('one sa'),
    });
    await assignUserRole(app, reader.id, role.uid);
    const body = (await rest(app, 'GET', '/api/serviceaccounts/search', { auth: reader.auth })).body as SearchJson;
    expect(body).toMatchObject({ totalCount: 1, serviceAccounts: [expect.objectContaining({ id: fx.serviceAccount.id })] });
    expectOutcome(await rest(app, 'GET', `/api/serviceaccounts/${fx.org2.serviceAccount.id}`, { auth: reader.auth }), 403, 'ACCESS_DENIED');
  });

  it("accesscontrol=true adds each account's accessControl map", async () => {
    const body = (await rest(app, 'GET', '/api/serviceaccounts/search?accesscontrol=true', { auth: fx.editor.auth })).body as SearchJson;
    const fixture = body.serviceAccounts.find((s) => s.id === fx.serviceAccount.id);
    expect(fixture?.accessControl).toEqual({ 'serviceaccounts:read': true });
    const admin = (await rest(app, 'GET', '/api/serviceaccounts/search?accesscontrol=1', { auth: fx.orgAdmin.auth })).body as SearchJson;
    expect(admin.serviceAccounts[0]?.accessControl).toMatchObject({
      'serviceaccounts:read': true,
      'serviceaccounts:write': true,
      'serviceaccounts:delete': true,
    });
  });

  it('GraphQL serviceAccountSearch loads accounts, roles and token counts in a constant number of SQL statements', async () => {
    const query = '{ serviceAccountSearch { totalCount serviceAccounts { id role tokenCount } } }';
    await app.graphql(query);
    app.resetQueries();
    expectData(await app.graphql(query));
    const few = app.queries.length;
    const added: number[] = [];
    for (let i = 0; i < 3; i++) added.push((await createServiceAccountViaGraphql(app)).id);
    await app.graphql(query);
    app.resetQueries();
    const { serviceAccountSearch } = expectData(
      await app.graphql<{ serviceAccountSearch: { serviceAccounts: { id: number; role: string; tokenCount: number }[] } }>(query),
    );
    expect(app.queries.length).toBe(few);
    // The same statements now load the new accounts with their roles and token counts.
    const loaded = serviceAccountSearch.serviceAccounts.filter((s) => added.includes(s.id)).sort((a, b) => a.id - b.id);
    expect(loaded).toEqual(added.map((id) => ({ id, role: 'Viewer', tokenCount: 0 })));
  });
});

describe('GET, PATCH and DELETE /api/serviceaccounts/:id', () => {
  it("GET answers the ServiceAccountProfileDTO; 404 for another organization's account, a user's id or an unknown id; 400; 403; 401", async () => {
    const out = await rest(app, 'GET', `/api/serviceaccounts/${fx.serviceAccount.id}`, { auth: fx.editor.auth });
    expectOutcome(out, 200);
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id: fx.serviceAccount.id } });
    expect(out.body).toEqual({
      ...fixtureBotJson(expect.any(Number)),
      createdAt: row.created.toISOString(),
      updatedAt: row.updated.toISOString(),
      teams: [],
    });
    expectOutcome(await rest(app, 'GET', `/api/serviceaccounts/${fx.org2.serviceAccount.id}`), 404, 'SERVICE_ACCOUNT_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', `/api/serviceaccounts/${fx.viewer.id}`), 404, 'SERVICE_ACCOUNT_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/serviceaccounts/999999'), 404, 'SERVICE_ACCOUNT_NOT_FOUND');
    expectOutcome(await rest(app, 'GET', '/api/serviceaccounts/abc'), 400, 'VALIDATION_FAILED');
    const denied = await rest(app, 'GET', `/api/serviceaccounts/${fx.serviceAccount.id}`, { auth: fx.viewer.auth });
    expect(expectOutcome(denied, 403, 'ACCESS_DENIED')).toBe(
      `You'll need additional permissions to perform this action. Permissions needed: serviceaccounts:read`,
    );
    expectOutcome(await rest(app, 'GET', `/api/serviceaccounts/${fx.serviceAccount.id}`, { auth: null }), 401, 'UNAUTHENTICATED');
    const acl = (await rest(app, 'GET', `/api/serviceaccounts/${fx.serviceAccount.id}?accesscontrol=true`)).body as ProfileJson;
    expect(acl.accessControl).toMatchObject({ 'serviceaccounts:write': true });
  });

  it('PATCH renames, re-roles and disables: {message, id, name, serviceaccount}; recorded as service_account.update', async () => {
    const sa = (await rest(app, 'POST', '/api/serviceaccounts', { json: { name: unique('patchme') } })).body as SaJson;
    const name = unique('patched');
    const out = await rest(app, 'PATCH', `/api/serviceaccounts/${sa.id}`, {
      json: { name, role: 'Admin', isDisabled: true },
      auth: fx.orgAdmin.auth,
    });
    expectOutcome(out, 200);
    const body = out.body as { message: string; id: number; name: string; serviceaccount: ProfileJson };
    expect(body).toMatchObject({ message: 'Service account updated', id: sa.id, name });
    expect(body.serviceaccount).toMatchObject({ id: sa.id, login: sa.login, name, role: 'Admin', isDisabled: true, teams: [] });
    const [event] = await auditOf(app, 'service_account.update', sa.id);
    expect(event?.before).toMatchObject({ name: sa.name, role: 'Viewer', isDisabled: false });
    expect(event?.after).toMatchObject({ name, role: 'Admin', isDisabled: true });
    // omitted fields keep their value; Go's any-case keys are taken
    const kept = await rest(app, 'PATCH', `/api/serviceaccounts/${sa.id}`, { json: { IsDisabled: false } });
    expect((kept.body as { serviceaccount: ProfileJson }).serviceaccount).toMatchObject({ name, role: 'Admin', isDisabled: false });
    const gql = expectData(
      await app.graphql<{ serviceAccount: { name: string; role: string; isDisabled: boolean } }>(
        'query($id: Int!) { serviceAccount(id: $id) { name role isDisabled } }',
        { id: sa.id },
      ),
    );
    expect(gql.serviceAccount).toEqual({ name, role: 'Admin', isDisabled: false });
  });

  it("PATCH: 400 for a bad role, 403 for a role above the caller's and for Editor (before the body), 404 (wall, user), 400 for a taken name", async () => {
    const sa = (await rest(app, 'POST', '/api/serviceaccounts', { json: { name: unique('guarded') } })).body as SaJson;
    const path = `/api/serviceaccounts/${sa.id}`;
    expectOutcome(await rest(app, 'PATCH', path, { json: { role: 'Root' } }), 400, 'VALIDATION_FAILED');
    const manager = await createUserViaGraphql(app, { orgRole: 'Editor' });
    await assignUserRole(app, manager.id, 'fixed:serviceaccounts:writer', 1);
    expect(expectOutcome(await rest(app, 'PATCH', path, { json: { role: 'Admin' }, auth: manager.auth }), 403, 'ACCESS_DENIED')).toMatch(
      /higher than/,
    );
    const denied = await rest(app, 'PATCH', path, { json: { role: 'Root' }, auth: fx.editor.auth });
    expect(expectOutcome(denied, 403, 'ACCESS_DENIED')).toContain('serviceaccounts:write');
    expectOutcome(
      await rest(app, 'PATCH', `/api/serviceaccounts/${fx.org2.serviceAccount.id}`, { json: { name: 'x' } }),
      404,
      'SERVICE_ACCOUNT_NOT_FOUND',
    );
    expectOutcome(
      await rest(app, 'PATCH', `/api/serviceaccounts/${fx.viewer.id}`, { json: { name: 'x' } }),
      404,
      'SERVICE_ACCOUNT_NOT_FOUND',
    );
    const taken = await rest(app, 'PATCH', path, { json: { name: fx.serviceAccount.name } });
    expect(expectOutcome(taken, 400, 'SERVICE_ACCOUNT_ALREADY_EXISTS')).toBe('service account already exists');
    expectOutcome(await rest(app, 'PATCH', path, { json: { name: 'x' }, auth: null }), 401, 'UNAUTHENTICATED');
    const row = await app.database.prisma.user.findUniqueOrThrow({ where: { id: sa.id }, include: { orgs: true } });
    expect(row).toMatchObject({ name: sa.name, isDisabled: false });
    expect(row.orgs[0]?.role).toBe('Viewer');
    expect(await app.database.prisma.user.findUniqueOrThrow({ where: { id: fx.org2.serviceAccount.id } })).toMatchObject({
      name: 'org2-bot',
    });
  });

  it('DELETE: "Service account deleted" with its tokens, recorded as service_account.delete; then 404; 403 for Editor; the wall', async () => {
    const sa = (await rest(app, 'POST', '/api/serviceaccounts', { json: { name: unique('doomed'), role: 'Editor' } })).body as SaJson;
    expectOutcome(await rest(app, 'POST', `/api/serviceaccounts/${sa.id}/tokens`, { json: { name: unique('tok') } }), 200);
    const denied = await rest(app, 'DELETE', `/api/serviceaccounts/${sa.id}`, { auth: fx.editor.auth });
    expect(expectOutcome(denied, 403, 'ACCESS_DENIED')).toContain('serviceaccounts:delete');
    expectOutcome(await rest(app, 'DELETE', `/api/serviceaccounts/${fx.org2.serviceAccount.id}`), 404, 'SERVICE_ACCOUNT_NOT_FOUND');
    const out = await rest(app, 'DELETE', `/api/serviceaccounts/${sa.id}`, { auth: fx.orgAdmin.auth });
    expectOutcome(out, 200);
    expect(out.body).toEqual({ message: 'Service account deleted' });
    expect(await app.database.prisma.apiKey.count({ where: { serviceAccountId: sa.id } })).toBe(0);
    expectOutcome(await rest(app, 'DELETE', `/api/serviceaccounts/${sa.id}`), 404, 'SERVICE_ACCOUNT_NOT_FOUND');
    const [event] = await auditOf(app, 'service_account.delete', sa.id);
    expect(event?.before).toEqual({ id: sa.id, login: sa.login, name: sa.name, orgId: 1, isDisabled: false, role: 'Editor' });
    expect(event?.after).toBeNull();
    expect(await app.database.prisma.user.count({ where: { id: fx.org2.serviceAccount.id } })).toBe(1);
  });
});
