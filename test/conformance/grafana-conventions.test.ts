/**
 * Grafana's conventions that clients compare byte for byte: boolean query
 * parameters read as Go's strconv.ParseBool reads them, the organization header under Grafana's
 * name (`X-Grafana-Org-Id`), and the access-denied body of pkg/services/accesscontrol/middleware.go
 * (`title`, `message`, `accessErrorId`), while the GraphQL door keeps its own error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grafanaPermissionsText } from '../../src/kernel/errors.js';
import { all, any, permission } from '../../src/kernel/evaluator.js';
import { parseBooleanParam } from '../../src/modules/shared/rest.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Actor, createUser } from '../support/subjects.js';

let app: TestApp;
let nobody: Actor;

beforeAll(async () => {
  app = await createTestApp();
  nobody = await createUser(app, 'conventions-nobody', { orgRole: 'None' });
  const org = await app.request('/api/orgs', { method: 'POST', json: { name: 'Conventions' } });
  expect(org.status).toBe(200);
});

afterAll(() => app.close());

describe('boolean query parameters: Go strconv.ParseBool', () => {
  it.each([
    ['1', true],
    ['t', true],
    ['T', true],
    ['TRUE', true],
    ['true', true],
    ['True', true],
    ['0', false],
    ['f', false],
    ['F', false],
    ['FALSE', false],
    ['false', false],
    ['False', false],
    ['', false],
    [null, false],
  ] as const)('%j is %s', (value, expected) => {
    expect(parseBooleanParam('flag', value)).toBe(expected);
  });

  it.each(['yes', 'no', 'on', 'off', 'tRUE', 'fALSE', 'truee', ' true', 'true ', '2', '-1', 'y', 'n'])(
    '%j is 400 naming the parameter',
    (value) => {
      expect(() => parseBooleanParam('includeHidden', value)).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED', message: 'includeHidden: must be true or false' }),
      );
    },
  );

  it('reaches the routes: includeHidden=T lists hidden roles, =F and =False do not, =yes is a 400', async () => {
    const names = async (q: string) => {
      const res = await app.request(`/api/access-control/roles?includeHidden=${q}`);
      expect(res.status, q).toBe(200);
      return ((await res.json()) as { name: string; hidden: boolean }[]).filter((r) => r.hidden).length;
    };
    expect(await names('T')).toBeGreaterThan(0);
    expect(await names('TRUE')).toBe(await names('T'));
    expect(await names('F')).toBe(0);
    expect(await names('False')).toBe(0);
    const bad = await app.request('/api/access-control/roles?includeHidden=yes');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ message: 'includeHidden: must be true or false', code: 'VALIDATION_FAILED' });
  });
});

describe('X-Grafana-Org-Id, an alias of X-Service-Org-Id', () => {
  const currentOrg = async (headers: Record<string, string>) => {
    const res = await app.request('/api/org', { headers });
    return { status: res.status, body: (await res.json()) as { id?: number; message?: string; code?: string } };
  };

  it('selects the organization like X-Service-Org-Id', async () => {
    expect((await currentOrg({ 'x-grafana-org-id': '2' })).body.id).toBe(2);
    expect((await currentOrg({ 'x-service-org-id': '2' })).body.id).toBe(2);
    expect((await currentOrg({})).body.id).toBe(1);
  });

  it('both headers naming the same organization are fine (compared as ids)', async () => {
    expect((await currentOrg({ 'x-grafana-org-id': '2', 'x-service-org-id': '02' })).body.id).toBe(2);
  });

  it('both headers naming different organizations: 400, on both doors', async () => {
    const rest = await currentOrg({ 'x-grafana-org-id': '2', 'x-service-org-id': '1' });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ message: 'X-Service-Org-Id and X-Grafana-Org-Id name different organizations', code: 'VALIDATION_FAILED' });
    const gql = await app.request('/graphql', {
      method: 'POST',
      json: { query: '{ viewer { orgId } }' },
      headers: { 'x-grafana-org-id': '2', 'x-service-org-id': '1' },
    });
    expect(gql.status).toBe(400);
    const body = (await gql.json()) as { errors: { extensions: { code: string } }[] };
    expect(body.errors[0]?.extensions.code).toBe('VALIDATION_FAILED');
  });

  it.each(['abc', '0', '-2', '1.5'])('X-Grafana-Org-Id %j is a 400 naming that header', async (value) => {
    const res = await currentOrg({ 'x-grafana-org-id': value });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('X-Grafana-Org-Id must be a positive organization id');
  });

  it('an organization the caller is not in is a 401 under either name', async () => {
    expect((await app.request('/api/access-control/status', { auth: nobody.auth, headers: { 'x-grafana-org-id': '2' } })).status).toBe(401);
  });
});

describe('"Permissions needed": what Grafana’s evaluator String() prints', () => {
  it.each(
    (
      [
        [permission('users:read'), 'users:read'],
        [permission('users:read', 'global.users:*'), 'users:read'],
        [permission('teams:write', 'teams:id:1', 'teams:*'), 'teams:write'],
        [all(permission('roles:write', 'permissions:type:delegate')), 'roles:write'],
        [all(permission('a:r', 'x:1'), permission('b:w')), 'all of a:r, b:w'],
        [any(permission('a:r', 'x:1, y:2'), permission('b:w', 'z:*')), 'any of a:r, b:w'],
        [all(any(permission('a:r'), permission('b:r', 's:1')), permission('c:w')), 'all of any of a:r, b:r, c:w'],
      ] as const
    ).map(([evaluator, text]) => [evaluator.describe(), text] as const),
  )('%s -> %s', (described, text) => {
    expect(grafanaPermissionsText(described)).toBe(text);
  });

  it.each([
    'Service Admin to delete another organization',
    'org role Admin',
    'delegation of teams:write on teams:*',
    'acting in organization 2 (send X-Service-Org-Id: 2)',
    'action: ',
    'all(action: a:r',
    'action: a:r scopes: has space',
  ])('leaves %j, which is no evaluator description, as it is', (text) => {
    expect(grafanaPermissionsText(text)).toBe(text);
  });
});

describe('403: Grafana’s access-denied body', () => {
  it('has title "Access denied", the message naming the permission, an accessErrorId, and our code', async () => {
    const res = await app.request('/api/access-control/roles', { auth: nobody.auth });
    expect(res.status).toBe(403);
    const body = (await res.json()) as Record<string, string>;
    expect(Object.keys(body)).toEqual(['accessErrorId', 'message', 'title', 'code']);
    expect(body).toEqual({
      accessErrorId: expect.stringMatching(/^ACE\d{10}$/),
      // Grafana's evaluator prints the action only (evaluator.go permissionEvaluator.String).
      message: "You'll need additional permissions to perform this action. Permissions needed: roles:read",
      title: 'Access denied',
      code: 'ACCESS_DENIED',
    });
  });

  it('names composed requirements as Grafana’s evaluators print them: "any of a, b"', async () => {
    const res = await app.request('/api/teams/1/members', { auth: nobody.auth });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toBe(
      "You'll need additional permissions to perform this action. Permissions needed: any of teams:read, teams.permissions:read",
    );
  });

  it('gives every denial its own id', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const res = await app.request('/api/auth/keys', { auth: nobody.auth });
      ids.add(((await res.json()) as { accessErrorId: string }).accessErrorId);
    }
    expect(ids.size).toBe(5);
  });

  it('other errors keep {message, code}', async () => {
    const res = await app.request('/api/access-control/roles/no-such-role');
    expect(res.status).toBe(404);
    expect(Object.keys((await res.json()) as object)).toEqual(['message', 'code']);
  });

  it('GraphQL keeps its error shape: extensions code, status and the needed permission, no Grafana fields', async () => {
    const res = await app.graphql('{ roles { uid } }', {}, { auth: nobody.auth });
    expect(res.status).toBe(403);
    const error = res.body.errors?.[0] as { message: string; extensions: Record<string, unknown> };
    expect(error.message).toBe("You'll need additional permissions to perform this action. Permissions needed: roles:read");
    expect(error.extensions).toMatchObject({ code: 'ACCESS_DENIED', details: { needed: 'action: roles:read scopes: roles:*' } });
    expect(error.extensions).not.toHaveProperty('accessErrorId');
    expect(error.extensions).not.toHaveProperty('title');
  });
});

describe('JSON answers end with a newline, as Grafana’s (json.Encoder)', () => {
  it('success, error, denial, paging and plugin answers: one line of JSON and "\\n"', async () => {
    const answers = [
      await app.request('/api/access-control/roles'),
      await app.request('/api/users/search?perpage=1'),
      await app.request('/api/access-control/roles/no-such-role'),
      await app.request('/api/access-control/roles', { auth: nobody.auth }),
      await app.request('/api/access-control/roles', { auth: null }),
      await app.request('/api/health', { auth: null }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 404, 403, 401, 200]);
    for (const res of answers) {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const text = await res.text();
      expect(text.endsWith('}\n') || text.endsWith(']\n'), JSON.stringify(text.slice(-20))).toBe(true);
      expect(text.indexOf('\n')).toBe(text.length - 1);
      expect(() => JSON.parse(text)).not.toThrow();
    }
  });
});
