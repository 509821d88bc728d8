/**
 * The questions products ask, through both doors: Grafana's permission search
 * and its GraphQL twin `userPermissionsSearch`, user actions, `viewer { can }`, the check with
 * its reason (`checkAccess`, POST /api/access-control/check) with every source kind, delegatable
 * role listings, and `actions` with its REST twin GET /api/access-control/actions.
 * Answers are compared with what each user really holds (its own permission listing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productRoleUid } from '../../src/kernel/builtin-roles.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, gql, rest } from '../support/requests.js';
import { type Actor, assignUserRole, createKey, createRole, createTeam, createUser, p } from '../support/subjects.js';

let app: TestApp;
let viewer: Actor;
let editor: Actor;
let orgAdmin: Actor;
let teamName: string;

const SEARCH = '/api/access-control/users/permissions/search';
const CHECK = '/api/access-control/check';
const READER = productRoleUid('plugins:notes:reader');
const WRITER = productRoleUid('plugins:notes:writer');

beforeAll(async () => {
  app = await createTestApp();
  viewer = await createUser(app, 'q-viewer', { orgRole: 'Viewer' });
  editor = await createUser(app, 'q-editor', { orgRole: 'Editor' });
  orgAdmin = await createUser(app, 'q-admin', { orgRole: 'Admin' });
  const registered = await rest(app, 'PUT', '/api/access-control/plugins/notes/roles', {
    json: [
      { role: { name: 'plugins:notes:reader', permissions: [p('notes:read', 'notes:*')] }, grants: ['Viewer'] },
      { role: { name: 'plugins:notes:writer', permissions: [p('notes:write', 'notes:*')] } },
    ],
  });
  expectOutcome(registered, 200);
  const team = await createTeam(app, 'q-writers', { members: [editor.id] });
  teamName = team.name;
  expectOutcome(await rest(app, 'POST', `/api/access-control/teams/${team.id}/roles`, { json: { roleUid: WRITER } }), 200);
  await createRole(app, 'q-direct', [p('notes:write', 'notes:id:7')]);
  await assignUserRole(app, viewer.id, 'q-direct');
});
afterAll(() => app.close());

const own = async (who: Actor) =>
  (await rest(app, 'GET', '/api/access-control/user/permissions', { auth: who.auth })).body as Record<string, string[]>;

describe('GET /api/access-control/users/permissions/search', () => {
  it("answers Grafana's shape for every member holding a match, agreeing with each member's own permissions", async () => {
    const res = await rest(app, 'GET', `${SEARCH}?actionPrefix=notes`);
    expectOutcome(res, 200);
    const body = res.body as Record<string, Record<string, string[]>>;
    expect(Object.keys(body).sort()).toEqual([String(viewer.id), String(editor.id), String(orgAdmin.id), '1'].sort());
    for (const who of [viewer, editor, orgAdmin]) {
      const mine = Object.fromEntries(Object.entries(await own(who)).filter(([a]) => a.startsWith('notes')));
      expect(body[String(who.id)]).toEqual(mine);
    }
    expect(body[String(viewer.id)]).toEqual({ 'notes:read': ['notes:*'], 'notes:write': ['notes:id:7'] });
  });

  it('filters by action, scope (wildcards that cover it), userId and userLogin', async () => {
    const byScope = (await rest(app, 'GET', `${SEARCH}?action=notes:write&scope=notes:id:7`)).body;
    expect(byScope).toEqual({ [viewer.id]: { 'notes:write': ['notes:id:7'] }, [editor.id]: { 'notes:write': ['notes:*'] } });
    const ids = async (query: string) => Object.keys((await rest(app, 'GET', `${SEARCH}?${query}`)).body as object);
    expect(await ids('action=notes:write&scope=notes:id:8')).toEqual([String(editor.id)]);
    expect(await ids(`action=notes:read&userId=${editor.id}`)).toEqual([String(editor.id)]);
    expect(await ids('action=notes:read&userLogin=q-viewer')).toEqual([String(viewer.id)]);
  });

  it('400 without an action filter, 403 without users.permissions:read on users:*', async () => {
    expectOutcome(await rest(app, 'GET', `${SEARCH}?userId=1`), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'GET', `${SEARCH}?action=notes:read`, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
  });
});

describe('GraphQL userPermissionsSearch, the twin of the REST search', () => {
  const QUERY = `query($p: String, $a: String, $s: String, $u: Int, $l: String) {
    userPermissionsSearch(actionPrefix: $p, action: $a, scope: $s, userId: $u, userLogin: $l) { userId action scopes } }`;
  type Row = { userId: number; action: string; scopes: string[] };
  /** The REST answer as the GraphQL rows: one per user and action, by userId then action. */
  const asRows = (body: Record<string, Record<string, string[]>>): Row[] =>
    Object.entries(body)
      .flatMap(([id, byAction]) => Object.entries(byAction).map(([action, scopes]) => ({ userId: Number(id), action, scopes })))
      .sort((a, b) => a.userId - b.userId || a.action.localeCompare(b.action));

  it('answers the same matches as REST, one row per user and action, for every filter', async () => {
    const cases: [string, Record<string, unknown>][] = [
      ['actionPrefix=notes', { p: 'notes' }],
      ['action=notes:write&scope=notes:id:7', { a: 'notes:write', s: 'notes:id:7' }],
      [`action=notes:read&userId=${editor.id}`, { a: 'notes:read', u: editor.id }],
      ['actionPrefix=notes:&userLogin=q-viewer', { p: 'notes:', l: 'q-viewer' }],
    ];
    for (const [query, variables] of cases) {
      const viaRest = await rest(app, 'GET', `${SEARCH}?${query}`);
      expectOutcome(viaRest, 200);
      const res = await gql(app, QUERY, variables);
      expect(res.data?.userPermissionsSearch).toEqual(asRows(viaRest.body as Record<string, Record<string, string[]>>));
    }
    const rows = (await gql(app, QUERY, { p: 'notes', u: viewer.id })).data?.userPermissionsSearch;
    expect(rows).toEqual([
      { userId: viewer.id, action: 'notes:read', scopes: ['notes:*'] },
      { userId: viewer.id, action: 'notes:write', scopes: ['notes:id:7'] },
    ]);
  });

  it('400 without an action filter, 403 without users.permissions:read on users:*', async () => {
    expectOutcome(await gql(app, QUERY, { u: 1 }), 400, 'VALIDATION_FAILED');
    const message = expectOutcome(await gql(app, QUERY, { a: 'notes:read' }, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
    expect(message).toContain('users.permissions:read');
  });
});

describe('GET /api/access-control/user/actions and viewer { can }', () => {
  it('answers {"<action>": true} for exactly the actions held', async () => {
    const res = await rest(app, 'GET', '/api/access-control/user/actions', { auth: viewer.auth });
    expect(res.body).toEqual(Object.fromEntries(Object.keys(await own(viewer)).map((a) => [a, true])));
    expect(res.body).toMatchObject({ 'notes:read': true, 'notes:write': true });
  });

  it('can(action, scope) follows the evaluator', async () => {
    const query = `{ viewer {
      read: can(action: "notes:read", scope: "notes:id:1") w7: can(action: "notes:write", scope: "notes:id:7")
      w8: can(action: "notes:write", scope: "notes:id:8") any: can(action: "notes:write") } }`;
    const res = await gql(app, query, {}, { auth: viewer.auth });
    expect(res.data?.viewer).toEqual({ read: true, w7: true, w8: false, any: true });
  });
});

describe('the check with its reason', () => {
  const reason = (userId: number | undefined, action: string, scopes: string[], auth: Actor['auth'] | undefined = undefined) =>
    rest(app, 'POST', CHECK, { json: { ...(userId && { userId }), action, scopes }, ...(auth && { auth }) });

  it('basic:viewer, direct and team:<name> sources; missing when denied', async () => {
    const self = await reason(undefined, 'notes:write', ['notes:id:7'], viewer.auth);
    expect(self.body).toEqual({
      allowed: true,
      grantedBy: [{ role: { uid: 'q-direct', name: 'custom:q-direct' }, source: 'direct', permission: p('notes:write', 'notes:id:7') }],
      missing: [],
      subjectDisabled: false,
    });
    const read = await reason(undefined, 'notes:read', ['notes:id:1'], viewer.auth);
    expect(read.body).toMatchObject({ allowed: true, grantedBy: [{ role: { uid: READER }, source: 'basic:viewer' }] });
    const denied = await reason(undefined, 'notes:write', ['notes:id:8', 'notes:id:9'], viewer.auth);
    expect(denied.body).toEqual({
      allowed: false,
      grantedBy: [],
      missing: [p('notes:write', 'notes:id:8'), p('notes:write', 'notes:id:9')],
      subjectDisabled: false,
    });
    const team = await reason(editor.id, 'notes:write', ['notes:id:8']);
    expect(team.body).toMatchObject({ allowed: true, grantedBy: [{ role: { uid: WRITER }, source: `team:${teamName}` }] });
  });

  it('service-admin and api-key sources', async () => {
    const admin = await reason(undefined, 'provisioning:reload', ['provisioners:accesscontrol']);
    expect(admin.body).toMatchObject({ allowed: true, grantedBy: [{ role: { uid: 'basic_service_admin' }, source: 'service-admin' }] });
    const key = await createKey(app, { name: 'q-key', role: 'Viewer' });
    const byKey = await reason(undefined, 'notes:read', [], { token: key.key });
    expect(byKey.body).toMatchObject({ allowed: true, grantedBy: [{ role: { uid: READER }, source: 'api-key' }] });
  });

  it('another user needs users.permissions:read on users:id:<id>; oneself nothing; the same on GraphQL', async () => {
    expectOutcome(await reason(editor.id, 'notes:read', [], viewer.auth), 403, 'ACCESS_DENIED');
    expectOutcome(await reason(viewer.id, 'notes:read', [], viewer.auth), 200);
    expectOutcome(await reason(999999, 'notes:read', []), 404, 'USER_NOT_FOUND');
    const query = `query($u: Int, $a: String!, $s: [String!]) { checkAccess(userId: $u, action: $a, scopes: $s) {
      allowed grantedBy { role { uid name } source permission { action scope } } missing { action scope } subjectDisabled } }`;
    const res = await gql(app, query, { u: editor.id, a: 'notes:write', s: ['notes:id:1'] });
    const viaRest = await reason(editor.id, 'notes:write', ['notes:id:1']);
    expect(res.data?.checkAccess).toEqual(viaRest.body);
    expectOutcome(await gql(app, query, { u: editor.id, a: 'notes:read' }, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
  });

  it('checks the permission before the body: a Viewer asking about another user with a bad body gets 403, not 400', async () => {
    const badBodies = [{ userId: editor.id, action: 'x' }, { userId: editor.id }, { userId: String(editor.id), scopes: 'no' }];
    for (const json of badBodies) {
      const message = expectOutcome(await rest(app, 'POST', CHECK, { json, auth: viewer.auth }), 403, 'ACCESS_DENIED');
      expect(message).toContain('users.permissions:read');
    }
    expectOutcome(await rest(app, 'POST', CHECK, { json: { userId: 'abc', action: 'x' }, auth: viewer.auth }), 403, 'ACCESS_DENIED');
    const query = 'query($u: Int, $a: String!) { checkAccess(userId: $u, action: $a) { allowed } }';
    expectOutcome(await gql(app, query, { u: editor.id, a: 'x' }, { auth: viewer.auth }), 403, 'ACCESS_DENIED');
    // Allowed callers, and oneself, still get the 400 that names the bad field.
    expectOutcome(await rest(app, 'POST', CHECK, { json: { userId: editor.id, action: 'x' } }), 400, 'VALIDATION_FAILED');
    expectOutcome(
      await rest(app, 'POST', CHECK, { json: { userId: viewer.id, action: 'x' }, auth: viewer.auth }),
      400,
      'VALIDATION_FAILED',
    );
    expectOutcome(await gql(app, query, { u: viewer.id, a: 'x' }, { auth: viewer.auth }), 400, 'VALIDATION_FAILED');
    expectOutcome(await rest(app, 'POST', CHECK, { json: { userId: 'abc', action: 'notes:read' } }), 400, 'VALIDATION_FAILED');
  });
});

describe('delegatable roles and actions', () => {
  it('roles?delegatable=true lists only what the caller may assign', async () => {
    const names = async (auth?: Actor['auth']) =>
      (
        (await rest(app, 'GET', '/api/access-control/roles?delegatable=true&includeHidden=true', auth ? { auth } : {})).body as unknown as {
          name: string;
        }[]
      ).map((r) => r.name);
    const admins = await names(orgAdmin.auth);
    expect(admins).toContain('fixed:teams:reader');
    expect(admins).toContain('plugins:notes:reader');
    expect(admins).not.toContain('plugins:notes:writer');
    expect(admins.some((n) => n.startsWith('basic:'))).toBe(false);
    const all = await names();
    expect(all).toContain('plugins:notes:writer');
    expect(all.some((n) => n.startsWith('basic:'))).toBe(false);
    const res = await gql(app, '{ roles(delegatable: true) { name } }', {}, { auth: orgAdmin.auth });
    expect((res.data?.roles as { name: string }[] | undefined)?.map((r) => r.name)).toEqual(admins);
  });

  it('actions(prefix) lists known actions with the fixed roles carrying them', async () => {
    const res = await gql(
      app,
      '{ notes: actions(prefix: "notes") { action fixedRoles { name } } roles: actions(prefix: "roles:") { action fixedRoles { name } } }',
      {},
    );
    expect(res.data?.notes).toEqual([
      { action: 'notes:read', fixedRoles: [{ name: 'plugins:notes:reader' }] },
      { action: 'notes:write', fixedRoles: [{ name: 'plugins:notes:writer' }] },
    ]);
    const roles = res.data?.roles as { action: string; fixedRoles: { name: string }[] }[];
    expect(roles.map((r) => r.action)).toEqual(['roles:delete', 'roles:read', 'roles:write']);
    expect(roles.find((r) => r.action === 'roles:write')?.fixedRoles.map((r) => r.name)).toEqual([
      'fixed:roles:resetter',
      'fixed:roles:writer',
    ]);
  });

  it('GET /api/access-control/actions?prefix= answers what GraphQL actions(prefix) answers', async () => {
    const fields = 'action fixedRoles { uid name displayName }';
    for (const prefix of ['notes', 'roles:', 'no-such-prefix']) {
      const viaRest = await rest(app, 'GET', `/api/access-control/actions?prefix=${encodeURIComponent(prefix)}`);
      expectOutcome(viaRest, 200);
      const res = await gql(app, `query($p: String) { actions(prefix: $p) { ${fields} } }`, { p: prefix });
      expect(viaRest.body).toEqual(res.data?.actions);
    }
    const notes = await rest(app, 'GET', '/api/access-control/actions?prefix=notes');
    expect(notes.body).toEqual([
      { action: 'notes:read', fixedRoles: [{ uid: READER, name: 'plugins:notes:reader', displayName: expect.any(String) }] },
      { action: 'notes:write', fixedRoles: [{ uid: WRITER, name: 'plugins:notes:writer', displayName: expect.any(String) }] },
    ]);
    const everything = (await rest(app, 'GET', '/api/access-control/actions')).body as { action: string }[];
    expect(everything.map((a) => a.action)).toEqual(expect.arrayContaining(['notes:read', 'roles:read', 'users:read']));
    const message = expectOutcome(await rest(app, 'GET', '/api/access-control/actions', { auth: viewer.auth }), 403, 'ACCESS_DENIED');
    expect(message).toContain('roles:read');
  });
});
