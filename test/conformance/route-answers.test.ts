/**
 * The answers the OpenAPI document promises: every route that declares a
 * `response` schema is called once with a real request, in an order that creates what later
 * calls use, and its answer must have the route's success status and validate against the JSON
 * Schema the served `/api/openapi.json` gives for that status (ajv, JSON Schema 2020-12, the
 * document's `components/schemas` resolved). The schemas are strict objects, so a field the
 * answer has and the document lacks fails as surely as a missing one. A route with a `response`
 * but no sample here fails the coverage test, so a new route cannot go unchecked.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/http/openapi.js';
import { routes } from '../../src/http/routes.js';
import { fixedRoleUid } from '../../src/kernel/builtin-roles.js';
import type { Route } from '../../src/modules/shared/rest.js';
import { ADMIN, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { type Fixtures, seedFixtures } from '../support/subjects.js';

type State = Record<string, number | string>;

interface Sample {
  /** `METHOD /api/path/:param`, as in the route table. */
  route: string;
  /** The concrete URL (with a query string when the sample exercises one). */
  url: (s: State) => string;
  json?: (s: State) => unknown;
  auth?: (fx: Fixtures) => Credentials;
  /** Records ids the later samples use. */
  keep?: (body: never, s: State) => void;
}

const PERMISSIONS = [{ action: 'teams:read', scope: 'teams:*' }];

/** In order: each creates what later ones read, change and delete. */
const samples: Sample[] = [
  // users
  {
    route: 'POST /api/admin/users',
    url: () => '/api/admin/users',
    json: () => ({ name: 'Answers', email: 'answers@example.com', login: 'answers', password: 'answers-password-1' }),
    keep: (b: { id: number }, s) => {
      s.user = b.id;
    },
  },
  { route: 'GET /api/users', url: () => '/api/users?query=answers&perpage=5&page=1' },
  { route: 'GET /api/users/search', url: () => '/api/users/search?perpage=10&page=1' },
  { route: 'GET /api/users/lookup', url: () => '/api/users/lookup?loginOrEmail=answers' },
  { route: 'GET /api/users/:id', url: (s) => `/api/users/${s.user}` },
  {
    route: 'PUT /api/users/:id',
    url: (s) => `/api/users/${s.user}`,
    json: () => ({ login: 'answers', email: 'answers@example.com', name: 'Answers Two' }),
  },
  { route: 'GET /api/users/:id/orgs', url: (s) => `/api/users/${s.user}/orgs` },
  { route: 'GET /api/users/:id/teams', url: (s) => `/api/users/${s.editor}/teams` },
  { route: 'POST /api/users/:id/using/:orgId', url: (s) => `/api/users/${s.user}/using/1` },
  {
    route: 'PUT /api/admin/users/:id/password',
    url: (s) => `/api/admin/users/${s.user}/password`,
    json: () => ({ password: 'answers-2' }),
  },
  {
    route: 'PUT /api/admin/users/:id/permissions',
    url: (s) => `/api/admin/users/${s.user}/permissions`,
    json: () => ({ isGrafanaAdmin: false }),
  },
  { route: 'POST /api/admin/users/:id/disable', url: (s) => `/api/admin/users/${s.user}/disable` },
  { route: 'POST /api/admin/users/:id/enable', url: (s) => `/api/admin/users/${s.user}/enable` },
  { route: 'POST /api/admin/users/:id/unlock', url: (s) => `/api/admin/users/${s.user}/unlock` },

  // organizations
  {
    route: 'POST /api/orgs',
    url: () => '/api/orgs',
    json: () => ({ name: 'Answers Org' }),
    keep: (b: { orgId: number }, s) => {
      s.org = b.orgId;
    },
  },
  { route: 'GET /api/orgs/name/:name', url: () => `/api/orgs/name/${encodeURIComponent('Answers Org')}` },
  { route: 'GET /api/orgs', url: () => '/api/orgs?query=Answers&perpage=10&page=0' },
  { route: 'GET /api/orgs/:orgId', url: (s) => `/api/orgs/${s.org}` },
  { route: 'PUT /api/orgs/:orgId', url: (s) => `/api/orgs/${s.org}`, json: () => ({ name: 'Answers Org 2' }) },
  {
    route: 'POST /api/orgs/:orgId/users',
    url: (s) => `/api/orgs/${s.org}/users`,
    json: () => ({ loginOrEmail: 'answers', role: 'Viewer' }),
  },
  { route: 'GET /api/orgs/:orgId/users', url: (s) => `/api/orgs/${s.org}/users` },
  { route: 'GET /api/orgs/:orgId/users/search', url: (s) => `/api/orgs/${s.org}/users/search?query=answers&perpage=10&page=1` },
  { route: 'PATCH /api/orgs/:orgId/users/:userId', url: (s) => `/api/orgs/${s.org}/users/${s.user}`, json: () => ({ role: 'Editor' }) },
  { route: 'DELETE /api/orgs/:orgId/users/:userId', url: (s) => `/api/orgs/${s.org}/users/${s.user}` },
  { route: 'GET /api/org', url: () => '/api/org' },
  { route: 'PUT /api/org', url: () => '/api/org', json: () => ({ name: 'Main Org.' }) },
  { route: 'GET /api/org/users', url: () => '/api/org/users?query=a&limit=50' },
  { route: 'GET /api/org/users/search', url: () => '/api/org/users/search?perpage=2&page=2' },
  { route: 'GET /api/org/users/lookup', url: () => '/api/org/users/lookup?query=answers&limit=5' },
  { route: 'POST /api/org/users', url: () => '/api/org/users', json: () => ({ loginOrEmail: 'org2-admin', role: 'Viewer' }) },
  { route: 'PATCH /api/org/users/:userId', url: (s) => `/api/org/users/${s.org2Admin}`, json: () => ({ role: 'Editor' }) },
  { route: 'DELETE /api/org/users/:userId', url: (s) => `/api/org/users/${s.org2Admin}` },

  // teams, roles and their assignments
  {
    route: 'POST /api/teams',
    url: () => '/api/teams',
    json: () => ({ name: 'answers-team', email: 'answers-team@example.com' }),
    keep: (b: { teamId: number }, s) => {
      s.team = b.teamId;
    },
  },
  { route: 'GET /api/teams/search', url: () => '/api/teams/search?query=answers&accesscontrol=true&sort=name-desc' },
  { route: 'GET /api/teams/:teamId', url: (s) => `/api/teams/${s.team}?accesscontrol=true` },
  { route: 'PUT /api/teams/:teamId', url: (s) => `/api/teams/${s.team}`, json: () => ({ name: 'answers-team-2' }) },
  { route: 'POST /api/teams/:teamId/members', url: (s) => `/api/teams/${s.team}/members`, json: (s) => ({ userId: s.user }) },
  { route: 'GET /api/teams/:teamId/members', url: (s) => `/api/teams/${s.team}/members` },
  { route: 'DELETE /api/teams/:teamId/members/:userId', url: (s) => `/api/teams/${s.team}/members/${s.user}` },
  {
    route: 'POST /api/access-control/roles',
    url: () => '/api/access-control/roles',
    json: () => ({ uid: 'answers-role', name: 'custom:answers', permissions: PERMISSIONS }),
  },
  { route: 'GET /api/access-control/status', url: () => '/api/access-control/status' },
  { route: 'GET /api/access-control/actions', url: () => '/api/access-control/actions?prefix=roles' },
  { route: 'GET /api/access-control/roles', url: () => '/api/access-control/roles?includeHidden=true' },
  { route: 'GET /api/access-control/roles/:uid', url: () => '/api/access-control/roles/answers-role' },
  {
    route: 'PUT /api/access-control/roles/:uid',
    url: () => '/api/access-control/roles/answers-role',
    json: () => ({ name: 'custom:answers', version: 2, permissions: PERMISSIONS }),
  },
  {
    route: 'POST /api/access-control/teams/:teamId/roles',
    url: (s) => `/api/access-control/teams/${s.team}/roles`,
    json: () => ({ roleUid: 'answers-role' }),
  },
  { route: 'GET /api/access-control/teams/:teamId/roles', url: (s) => `/api/access-control/teams/${s.team}/roles?includeHidden=true` },
  {
    route: 'PUT /api/access-control/teams/:teamId/roles',
    url: (s) => `/api/access-control/teams/${s.team}/roles`,
    json: () => ({ roleUids: ['answers-role'] }),
  },
  {
    route: 'DELETE /api/access-control/teams/:teamId/roles/:roleUID',
    url: (s) => `/api/access-control/teams/${s.team}/roles/answers-role`,
  },
  {
    route: 'POST /api/access-control/users/:userId/roles',
    url: (s) => `/api/access-control/users/${s.user}/roles`,
    json: () => ({ roleUid: 'answers-role' }),
  },
  { route: 'GET /api/access-control/users/:userId/roles', url: (s) => `/api/access-control/users/${s.user}/roles` },
  {
    route: 'PUT /api/access-control/users/:userId/roles',
    url: (s) => `/api/access-control/users/${s.user}/roles`,
    json: () => ({ roleUids: ['answers-role'] }),
  },
  {
    route: 'DELETE /api/access-control/users/:userId/roles/:roleUID',
    url: (s) => `/api/access-control/users/${s.user}/roles/answers-role?global=false`,
  },
  { route: 'DELETE /api/teams/:teamId', url: (s) => `/api/teams/${s.team}` },
  { route: 'DELETE /api/access-control/roles/:uid', url: () => '/api/access-control/roles/answers-role?force=true' },
  { route: 'POST /api/access-control/roles/hard-reset', url: () => '/api/access-control/roles/hard-reset', json: () => ({}) },

  // service accounts, their tokens, API keys
  {
    route: 'POST /api/serviceaccounts',
    url: () => '/api/serviceaccounts',
    json: () => ({ name: 'answers-bot', role: 'Editor' }),
    keep: (b: { id: number }, s) => {
      s.sa = b.id;
    },
  },
  { route: 'GET /api/serviceaccounts/search', url: () => '/api/serviceaccounts/search?query=answers&accesscontrol=true' },
  { route: 'GET /api/serviceaccounts/:id', url: (s) => `/api/serviceaccounts/${s.sa}?accesscontrol=true` },
  { route: 'PATCH /api/serviceaccounts/:id', url: (s) => `/api/serviceaccounts/${s.sa}`, json: () => ({ name: 'answers-bot-2' }) },
  {
    route: 'POST /api/serviceaccounts/:id/tokens',
    url: (s) => `/api/serviceaccounts/${s.sa}/tokens`,
    json: () => ({ name: 'answers-token', secondsToLive: 3600 }),
    keep: (b: { id: number }, s) => {
      s.token = b.id;
    },
  },
  { route: 'GET /api/serviceaccounts/:id/tokens', url: (s) => `/api/serviceaccounts/${s.sa}/tokens` },
  { route: 'DELETE /api/serviceaccounts/:id/tokens/:tokenId', url: (s) => `/api/serviceaccounts/${s.sa}/tokens/${s.token}` },
  { route: 'DELETE /api/serviceaccounts/:id', url: (s) => `/api/serviceaccounts/${s.sa}` },
  {
    route: 'POST /api/auth/keys',
    url: () => '/api/auth/keys',
    json: () => ({ name: 'answers-key', role: 'Viewer', secondsToLive: 60 }),
    keep: (b: { id: number }, s) => {
      s.key = b.id;
    },
  },
  { route: 'GET /api/auth/keys', url: () => '/api/auth/keys?includeExpired=true' },
  { route: 'DELETE /api/auth/keys/:id', url: (s) => `/api/auth/keys/${s.key}` },
  { route: 'POST /api/serviceaccounts/migrate', url: () => '/api/serviceaccounts/migrate' },

  // clean-up
  { route: 'DELETE /api/admin/users/:id', url: (s) => `/api/admin/users/${s.user}` },
  { route: 'DELETE /api/orgs/:orgId', url: (s) => `/api/orgs/${s.org}` },
  // access requests: the viewer asks, the admin answers
  { route: 'GET /api/access-control/requests/roles', url: () => '/api/access-control/requests/roles', auth: (fx) => fx.viewer.auth },
  {
    route: 'POST /api/access-control/requests',
    url: () => '/api/access-control/requests',
    json: () => ({ roleUid: fixedRoleUid('fixed:teams:writer'), durationSeconds: 600, justification: 'answers' }),
    auth: (fx) => fx.viewer.auth,
    keep: (b: { id: number }, s) => {
      s.approve = b.id;
    },
  },
  // The requests denied and cancelled are asked for in beforeAll (each route is sampled once).
  ...(['approve', 'deny', 'cancel'] as const).map(
    (answer): Sample => ({
      route: `POST /api/access-control/requests/:id/${answer}`,
      url: (s) => `/api/access-control/requests/${s[answer]}/${answer}`,
      json: () => ({ comment: 'answers' }),
      ...(answer === 'cancel' && { auth: (fx: Fixtures) => fx.viewer.auth }),
    }),
  ),
  { route: 'GET /api/access-control/requests', url: () => '/api/access-control/requests?status=approved&perpage=5&page=1' },
  { route: 'GET /api/access-control/requests/:id', url: (s) => `/api/access-control/requests/${s.approve}` },
];

let app: TestApp;
let fx: Fixtures;
let doc: OpenApiDocument;
const state: State = {};
/** Each sampled route's answer, for the checks on optional fields. */
const answers = new Map<string, unknown>();
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS with a default export; under ESM interop it may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  a: Ajv2020,
) => Ajv2020;
addFormats(ajv);

const DOC_ID = 'https://portcullis.test/openapi.json';

/** `node` with the document's local references made absolute, so a schema compiles on its own. */
function absoluteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(absoluteRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : absoluteRefs(v),
    ]),
  );
}

const routeOf = (key: string): Route | undefined => routes.find((r) => `${r.method} ${r.path}` === key);

/** The validator of the document's success answer for `route`. */
function validatorOf(route: Route): ValidateFunction {
  const op = doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase() as 'get'];
  const answer = op?.responses[String(route.status ?? 200)] as { content: { 'application/json': { schema: object } } } | undefined;
  if (!answer) throw new Error(`no success answer documented for ${route.method} ${route.path}`);
  return ajv.compile(absoluteRefs(answer.content['application/json'].schema) as object);
}

beforeAll(async () => {
  app = await createTestApp();
  fx = await seedFixtures(app);
  state.editor = fx.editor.id;
  state.org2Admin = fx.org2.admin.id;
  for (const [answer, role] of [
    ['deny', 'fixed:apikeys:reader'],
    ['cancel', 'fixed:audit:reader'],
  ] as const) {
    const json = { roleUid: fixedRoleUid(role), durationSeconds: 600, justification: 'answers' };
    state[answer] = (
      (await (await app.request('/api/access-control/requests', { method: 'POST', json, auth: fx.viewer.auth })).json()) as { id: number }
    ).id;
  }
  doc = (await (await app.request('/api/openapi.json', { auth: null })).json()) as OpenApiDocument;
  ajv.addSchema({ $id: DOC_ID, components: doc.components });
});

afterAll(() => app?.close());

describe('every documented success answer validates against the document', () => {
  it.each(samples.map((s) => [s.route, s] as const))('%s', async (key, sample) => {
    const route = routeOf(key);
    expect(route, `${key} is not in the route table`).toBeDefined();
    if (!route) return;
    const url = sample.url(state);
    const template = new RegExp(`^${route.path.replace(/:\w+/g, '[^/?]+')}(\\?|$)`);
    expect(url, 'the sample calls its route').toMatch(template);
    const res = await app.request(url, {
      method: route.method,
      auth: sample.auth?.(fx) ?? ADMIN,
      ...(sample.json && { json: sample.json(state) }),
    });
    const text = await res.text();
    const body: unknown = text === '' ? undefined : JSON.parse(text);
    expect(res.status, `${route.method} ${url}: ${text.slice(0, 400)}`).toBe(route.status ?? 200);
    const validate = validatorOf(route);
    expect(validate(body) ? [] : validate.errors, `${route.method} ${url}: ${text.slice(0, 600)}`).toEqual([]);
    answers.set(key, body);
    sample.keep?.(body as never, state);
  });
});

describe('the samples', () => {
  it('call every route that documents its answer, each once', () => {
    const documented = routes.filter((r) => r.response).map((r) => `${r.method} ${r.path}`);
    expect(samples.map((s) => s.route).sort()).toEqual(documented.sort());
  });

  it('check something: an answer with a field more, or one less, or a wrong type, is refused', () => {
    const route = routeOf('GET /api/teams/:teamId') as Route;
    const validate = validatorOf(route);
    const team = answers.get('GET /api/teams/:teamId') as Record<string, unknown>;
    expect(validate(team)).toBe(true);
    expect(validate({ ...team, surprise: 1 })).toBe(false);
    const { name: _name, ...nameless } = team;
    expect(validate(nameless)).toBe(false);
    expect(validate({ ...team, memberCount: '2' })).toBe(false);
    const search = validatorOf(routeOf('GET /api/users/search') as Route);
    const page = answers.get('GET /api/users/search') as { users: Record<string, unknown>[] };
    expect(validate(page)).toBe(false);
    expect(search({ ...page, users: [{ ...page.users[0], lastSeenAt: 'yesterday' }] })).toBe(false);
  });

  it('exercised the optional fields too: accessControl, expirations, the permissions of a role', () => {
    // Strict schemas reject unknown fields; these make sure the optional ones were validated at least once.
    type Rows<K extends string> = Record<K, { accessControl?: object }[]>;
    expect((answers.get('GET /api/teams/search') as Rows<'teams'>).teams[0]?.accessControl).toBeDefined();
    expect((answers.get('GET /api/serviceaccounts/search') as Rows<'serviceAccounts'>).serviceAccounts[0]?.accessControl).toBeDefined();
    expect((answers.get('GET /api/serviceaccounts/:id') as { accessControl?: object }).accessControl).toBeDefined();
    expect((answers.get('GET /api/serviceaccounts/:id/tokens') as { expiration?: string }[])[0]?.expiration).toBeDefined();
    expect((answers.get('GET /api/auth/keys') as { expiration?: string }[])[0]?.expiration).toBeDefined();
    expect((answers.get('GET /api/access-control/roles/:uid') as { permissions?: unknown[] }).permissions).toEqual([
      expect.objectContaining(PERMISSIONS[0]),
    ]);
  });
});
