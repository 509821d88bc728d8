/**
 * Conformance with Grafana's clients: the requests the Python `grafana-client`
 * makes for users, organizations, teams, service accounts, role assignments and keys, replayed
 * in its order and exactly as it sends them (method, `/api` path with its query string built the
 * way it builds it, JSON body, basic or bearer credentials, `X-Grafana-Org-Id` for
 * `organization_id`; fixtures/README.md names the source). Every answer must have a status
 * Grafana documents for the path and validate against Grafana's published schema for it
 * (grafana-schemas.ts), and success messages are Grafana's texts, which scripts compare.
 *
 * Each step is one test, in order; a step reads ids captured by earlier ones, so a failure can
 * make later steps fail too: the first failure is the one to read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, authHeader, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { createUser } from '../support/subjects.js';
import { checkAnswer } from './grafana-schemas.js';

/** What the client sends: its user agent, and niquests' defaults. */
const CLIENT_HEADERS = { 'user-agent': 'grafana-client/5.1.0', accept: '*/*' };

interface State {
  [key: string]: number | string | undefined;
}

interface Step {
  /** The grafana-client method (or, for calls it lacks, "http:" and Grafana's docs section). */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path after `/api`, as the client formats it. */
  path: (s: State) => string;
  json?: (s: State) => unknown;
  /**
   * Credentials: the admin (default), another user by login (password from state unless given),
   * or a token in state.
   */
  as?: { login: string; password?: string } | { token: string };
  /** `organization_id` of the client: sent as X-Grafana-Org-Id. */
  orgId?: (s: State) => number | undefined;
  status: number;
  /** Grafana's success (or error) message text. */
  message?: string;
  /** Further checks on the body; may record ids in the state. */
  check?: (body: never, s: State) => void;
}

let app: TestApp;
const state: State = {};

function credentials(step: Step): Credentials {
  if (!step.as) return ADMIN;
  if ('token' in step.as) return { token: String(state[step.as.token]) };
  return { login: step.as.login, password: step.as.password ?? String(state[`${step.as.login}.password`]) };
}

/** Sends one request the way grafana-client's GrafanaClient does. */
async function send(step: Step): Promise<{ status: number; body: unknown; url: string }> {
  const url = `/api${step.path(state)}`;
  const headers = new Headers(CLIENT_HEADERS);
  headers.set('authorization', authHeader(credentials(step)));
  const orgId = step.orgId?.(state);
  if (orgId) headers.set('x-grafana-org-id', String(orgId));
  const init: RequestInit = { method: step.method, headers };
  if (step.json) {
    headers.set('content-type', 'application/json');
    init.body = JSON.stringify(step.json(state));
  }
  const res = await app.yoga.fetch(`http://test${url}`, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), url };
}

const ALICE = { login: 'alice' };
const NOBODY = { login: 'nobody' };

/** Keys every element of a list answer must carry for the client's code to work. */
function everyHas(list: unknown, keys: string[]): void {
  expect(Array.isArray(list)).toBe(true);
  for (const item of list as Record<string, unknown>[]) for (const k of keys) expect(item, k).toHaveProperty(k);
}

const steps: Step[] = [
  // health.check(): grafana-client 4.x reads /api/health; 5.x reads buildInfo from /api/frontend/settings
  {
    name: 'health.check (4.x)',
    method: 'GET',
    path: () => '/health',
    status: 200,
    check: (b: { version: string }) => expect(b.version).toBeTypeOf('string'),
  },
  {
    name: 'health.check (5.x), GrafanaApi.version',
    method: 'GET',
    path: () => '/frontend/settings',
    status: 200,
    check: (b: { buildInfo: { version: string } }) => expect(b.buildInfo.version).toBeTypeOf('string'),
  },

  // admin.create_user, users.*, admin.*
  ...['alice', 'bob'].map(
    (login): Step => ({
      name: `admin.create_user (${login})`,
      method: 'POST',
      path: () => '/admin/users',
      json: () => ({ name: login, email: `${login}@example.com`, login, password: `${login}-password-1` }),
      status: 200,
      message: 'User created',
      check: (b: { id: number }, s) => {
        s[login] = b.id;
        s[`${login}.password`] = `${login}-password-1`;
      },
    }),
  ),
  {
    name: 'users.search_users() page 1',
    method: 'GET',
    path: () => '/users?page=1',
    status: 200,
    check: (b: { login: string }[]) => {
      everyHas(b, ['id', 'login', 'email']);
      expect(b.map((u) => u.login)).toEqual(expect.arrayContaining(['admin', 'alice', 'bob']));
    },
  },
  // The client pages until an empty page: an answer ignoring `page` would make it loop for ever.
  {
    name: 'users.search_users() page 2 is empty',
    method: 'GET',
    path: () => '/users?page=2',
    status: 200,
    check: (b: unknown[]) => expect(b).toEqual([]),
  },
  {
    name: 'users.search_users(query, page, perpage)',
    method: 'GET',
    path: () => '/users?query=alice&page=1&perpage=10',
    status: 200,
    check: (b: { login: string }[]) => expect(b.map((u) => u.login)).toEqual(['alice']),
  },
  {
    name: 'http: users/search (paged)',
    method: 'GET',
    path: () => '/users/search?perpage=10&page=1',
    status: 200,
    check: (b: { totalCount: number; users: unknown[] }) => expect(b.totalCount).toBeGreaterThanOrEqual(3),
  },
  {
    name: 'users.get_user',
    method: 'GET',
    path: (s) => `/users/${s.alice}`,
    status: 200,
    check: (b: { login: string }) => expect(b.login).toBe('alice'),
  },
  {
    name: 'users.find_user',
    method: 'GET',
    path: () => '/users/lookup?loginOrEmail=alice',
    status: 200,
    check: (b: { id: number }, s) => expect(b.id).toBe(s.alice),
  },
  {
    name: 'users.update_user',
    method: 'PUT',
    path: (s) => `/users/${s.alice}`,
    json: () => ({ email: 'alice@corp.example', name: 'Alice A', login: 'alice', theme: 'light' }),
    status: 200,
    message: 'User updated',
  },
  {
    name: 'users.get_user_organisations',
    method: 'GET',
    path: (s) => `/users/${s.alice}/orgs`,
    status: 200,
    check: (b) => everyHas(b, ['orgId', 'name', 'role']),
  },
  {
    name: 'users.get_user_teams',
    method: 'GET',
    path: (s) => `/users/${s.alice}/teams`,
    status: 200,
    check: (b: unknown[]) => expect(b).toEqual([]),
  },
  {
    name: 'admin.change_user_password',
    method: 'PUT',
    path: (s) => `/admin/users/${s.alice}/password`,
    json: () => ({ password: 'alice-password-2' }),
    status: 200,
    message: 'User password updated',
    check: (_b, s) => {
      s['alice.password'] = 'alice-password-2';
    },
  },
  ...[true, false].map(
    (isGrafanaAdmin): Step => ({
      name: `admin.change_user_permissions (${isGrafanaAdmin})`,
      method: 'PUT',
      path: (s) => `/admin/users/${s.bob}/permissions`,
      json: () => ({ isGrafanaAdmin }),
      status: 200,
      message: 'User permissions updated',
    }),
  ),
  {
    name: 'admin.set_user_enabled(False)',
    method: 'POST',
    path: (s) => `/admin/users/${s.bob}/disable`,
    status: 200,
    message: 'User disabled',
  },
  {
    name: 'admin.set_user_enabled(True)',
    method: 'POST',
    path: (s) => `/admin/users/${s.bob}/enable`,
    status: 200,
    message: 'User enabled',
  },

  // user.* as alice
  {
    name: 'user.get_actual_user',
    as: ALICE,
    method: 'GET',
    path: () => '/user',
    status: 200,
    check: (b: { login: string }) => expect(b.login).toBe('alice'),
  },
  {
    name: 'user.get_actual_user_organisations',
    as: ALICE,
    method: 'GET',
    path: () => '/user/orgs',
    status: 200,
    check: (b) => everyHas(b, ['orgId', 'name', 'role']),
  },
  {
    name: 'user.get_actual_user_teams',
    as: ALICE,
    method: 'GET',
    path: () => '/user/teams',
    status: 200,
    check: (b: unknown[]) => expect(b).toEqual([]),
  },
  {
    name: 'user.change_actual_user_password',
    as: ALICE,
    method: 'PUT',
    path: () => '/user/password',
    json: () => ({ oldPassword: 'alice-password-2', newPassword: 'alice-password-3', confirmNew: 'alice-password-3' }),
    status: 200,
    message: 'User password changed',
    check: (_b, s) => {
      s['alice.password'] = 'alice-password-3';
    },
  },

  // organization.* and organizations.*
  {
    name: 'organization.create_organization',
    method: 'POST',
    path: () => '/orgs',
    json: () => ({ name: 'Research' }),
    status: 200,
    message: 'Organization created',
    check: (b: { orgId: number }, s) => {
      s.org = b.orgId;
    },
  },
  {
    name: 'organization.find_organization',
    method: 'GET',
    path: () => '/orgs/name/Research',
    status: 200,
    check: (b: { id: number }, s) => expect(b.id).toBe(s.org),
  },
  {
    name: 'organizations.list_organization',
    method: 'GET',
    path: () => '/orgs',
    status: 200,
    check: (b: { name: string }[]) => expect(b.map((o) => o.name)).toEqual(expect.arrayContaining(['Main Org.', 'Research'])),
  },
  {
    name: 'organizations.update_organization',
    method: 'PUT',
    path: (s) => `/orgs/${s.org}`,
    json: () => ({ name: 'Research Lab' }),
    status: 200,
    message: 'Organization updated',
  },
  {
    name: 'organizations.organization_user_add',
    method: 'POST',
    path: (s) => `/orgs/${s.org}/users`,
    json: () => ({ loginOrEmail: 'alice', role: 'Viewer' }),
    status: 200,
    message: 'User added to organization',
  },
  {
    name: 'organizations.organization_user_list',
    method: 'GET',
    path: (s) => `/orgs/${s.org}/users`,
    status: 200,
    check: (b) => everyHas(b, ['userId', 'login', 'role']),
  },
  {
    name: 'organizations.organization_user_update',
    method: 'PATCH',
    path: (s) => `/orgs/${s.org}/users/${s.alice}`,
    json: () => ({ role: 'Editor' }),
    status: 200,
    message: 'Organization user updated',
  },
  {
    name: 'user.switch_actual_user_organisation',
    as: ALICE,
    method: 'POST',
    path: (s) => `/user/using/${s.org}`,
    status: 200,
    message: 'Active organization changed',
  },
  {
    name: 'user.switch_user_organisation',
    method: 'POST',
    path: (s) => `/users/${s.alice}/using/1`,
    status: 200,
    message: 'Active organization changed',
  },
  {
    name: 'GrafanaApi(organization_id=…).organization.get_current_organization (X-Grafana-Org-Id)',
    method: 'GET',
    path: () => '/org',
    orgId: (s) => s.org as number,
    status: 200,
    check: (b: { id: number; name: string }, s) => expect(b).toMatchObject({ id: s.org, name: 'Research Lab' }),
  },
  {
    name: 'organization.get_current_organization',
    method: 'GET',
    path: () => '/org',
    status: 200,
    check: (b: { id: number }) => expect(b.id).toBe(1),
  },
  {
    name: 'organization.update_current_organization',
    method: 'PUT',
    path: () => '/org',
    json: () => ({ name: 'Main Org.' }),
    status: 200,
    message: 'Organization updated',
  },
  {
    name: 'admin.create_user (carol, OrgId)',
    method: 'POST',
    path: () => '/admin/users',
    json: (s) => ({ name: 'carol', email: 'carol@example.com', login: 'carol', password: 'carol-password-1', OrgId: s.org }),
    status: 200,
    message: 'User created',
    check: (b: { id: number }, s) => {
      s.carol = b.id;
      s['carol.password'] = 'carol-password-1';
    },
  },
  {
    name: 'organization.add_user_current_organization',
    method: 'POST',
    path: () => '/org/users',
    json: () => ({ loginOrEmail: 'carol', role: 'Viewer' }),
    status: 200,
    message: 'User added to organization',
  },
  {
    name: 'organization.get_current_organization_users',
    method: 'GET',
    path: () => '/org/users',
    status: 200,
    check: (b: { login: string }[]) => expect(b.map((u) => u.login)).toEqual(expect.arrayContaining(['admin', 'carol'])),
  },
  {
    name: 'organization.update_user_current_organization',
    method: 'PATCH',
    path: (s) => `/org/users/${s.carol}`,
    json: () => ({ role: 'Editor' }),
    status: 200,
    message: 'Organization user updated',
  },
  {
    name: 'organization.delete_user_current_organization',
    method: 'DELETE',
    path: (s) => `/org/users/${s.carol}`,
    status: 200,
    message: 'User removed from organization',
  },
  {
    name: 'organizations.organization_user_delete',
    method: 'DELETE',
    path: (s) => `/orgs/${s.org}/users/${s.carol}`,
    status: 200,
    message: 'User removed from organization',
  },

  // teams.* and rbac.*
  {
    name: 'teams.add_team',
    method: 'POST',
    path: () => '/teams',
    json: () => ({ name: 'platform', email: 'platform@example.com' }),
    status: 200,
    message: 'Team created',
    check: (b: { teamId: number }, s) => {
      s.team = b.teamId;
    },
  },
  {
    name: 'teams.add_team (a taken name: GrafanaClientError 409)',
    method: 'POST',
    path: () => '/teams',
    json: () => ({ name: 'platform' }),
    status: 409,
    message: 'Team name taken',
  },
  {
    // The client pages until a page holds fewer than perPage teams.
    name: 'teams.search_teams()',
    method: 'GET',
    path: () => '/teams/search?page=1',
    status: 200,
    check: (b: { teams: { name: string }[]; perPage: number }) => {
      expect(b.teams.map((t) => t.name)).toContain('platform');
      expect(b.teams.length).toBeLessThan(b.perPage);
    },
  },
  {
    name: 'teams.search_teams(query, page, perpage)',
    method: 'GET',
    path: () => '/teams/search?query=plat&page=1&perpage=10',
    status: 200,
    check: (b: { teams: { name: string }[] }) => expect(b.teams.map((t) => t.name)).toEqual(['platform']),
  },
  {
    name: 'teams.get_team_by_name',
    method: 'GET',
    path: () => '/teams/search?name=platform',
    status: 200,
    check: (b: { teams: { id: number }[] }, s) => expect(b.teams.map((t) => t.id)).toEqual([s.team]),
  },
  {
    name: 'teams.get_team',
    method: 'GET',
    path: (s) => `/teams/${s.team}`,
    status: 200,
    check: (b: { name: string }) => expect(b.name).toBe('platform'),
  },
  {
    name: 'teams.update_team',
    method: 'PUT',
    path: (s) => `/teams/${s.team}`,
    json: () => ({ name: 'platform-eng', email: 'platform@example.com' }),
    status: 200,
    message: 'Team updated',
  },
  {
    name: 'teams.add_team_member',
    method: 'POST',
    path: (s) => `/teams/${s.team}/members`,
    json: (s) => ({ userId: s.alice }),
    status: 200,
    message: 'Member added to Team',
  },
  {
    name: 'teams.add_team_member (already a member: GrafanaBadInputError)',
    method: 'POST',
    path: (s) => `/teams/${s.team}/members`,
    json: (s) => ({ userId: s.alice }),
    status: 400,
    message: 'User is already added to this team',
  },
  {
    name: 'teams.get_team_members',
    method: 'GET',
    path: (s) => `/teams/${s.team}/members`,
    status: 200,
    check: (b: { userId: number }[], s) => expect(b.map((m) => m.userId)).toEqual([s.alice]),
  },
  {
    name: 'users.get_user_teams (a member)',
    method: 'GET',
    path: (s) => `/users/${s.alice}/teams`,
    status: 200,
    check: (b: { id: number }[], s) => expect(b.map((t) => t.id)).toEqual([s.team]),
  },
  {
    name: 'rbac.get_rbac_roles_all',
    method: 'GET',
    path: () => '/access-control/roles',
    status: 200,
    check: (b) => everyHas(b, ['uid', 'name']),
  },
  {
    name: 'rbac.create_rbac_role',
    method: 'POST',
    path: () => '/access-control/roles',
    json: () => ({
      name: 'custom:replay',
      displayName: 'Replay',
      description: 'made by the grafana-client replay',
      permissions: [{ action: 'teams:read', scope: 'teams:*' }],
    }),
    status: 200,
    check: (b: { uid: string }, s) => {
      s.role = b.uid;
    },
  },
  {
    name: 'http: access_control.md "Get status"',
    method: 'GET',
    path: () => '/access-control/status',
    status: 200,
    check: (b) => expect(b).toEqual({ enabled: true }),
  },
  {
    name: 'http: access_control.md "Get a role"',
    method: 'GET',
    path: (s) => `/access-control/roles/${s.role}`,
    status: 200,
    check: (b: { permissions: unknown[] }) => everyHas(b.permissions, ['action', 'scope']),
  },
  {
    name: 'http: access_control.md "Update a role"',
    method: 'PUT',
    path: (s) => `/access-control/roles/${s.role}`,
    json: () => ({ version: 2, name: 'custom:replay', permissions: [{ action: 'teams:read', scope: 'teams:*' }] }),
    status: 200,
    check: (b: { version: number }) => expect(b.version).toBe(2),
  },
  {
    name: 'rbac.add_rbac_role_team',
    method: 'POST',
    path: (s) => `/access-control/teams/${s.team}/roles`,
    json: (s) => ({ roleUid: s.role }),
    status: 200,
    message: 'Role added to the team.',
  },
  {
    name: 'http: access_control.md "List roles assigned to a team"',
    method: 'GET',
    path: (s) => `/access-control/teams/${s.team}/roles`,
    status: 200,
    check: (b: { uid: string }[], s) => expect(b.map((r) => r.uid)).toEqual([s.role]),
  },
  {
    name: 'rbac.add_rbac_roles_team',
    method: 'PUT',
    path: (s) => `/access-control/teams/${s.team}/roles`,
    json: (s) => ({ roleUids: [s.role] }),
    status: 200,
    message: 'Team roles have been updated.',
  },
  {
    name: 'rbac.remove_rbac_role_team',
    method: 'DELETE',
    path: (s) => `/access-control/teams/${s.team}/roles/${s.role}`,
    status: 200,
    message: 'Role removed from team.',
  },
  {
    name: 'http: access_control.md "Add a user role assignment"',
    method: 'POST',
    path: (s) => `/access-control/users/${s.alice}/roles`,
    json: (s) => ({ roleUid: s.role, global: false }),
    status: 200,
    message: 'Role added to the user.',
  },
  {
    name: 'http: access_control.md "List roles assigned to a user"',
    method: 'GET',
    path: (s) => `/access-control/users/${s.alice}/roles?includeHidden=True`,
    status: 200,
    check: (b: { uid: string }[], s) => expect(b.map((r) => r.uid)).toEqual([s.role]),
  },
  {
    name: 'http: access_control.md "Set user role assignments"',
    method: 'PUT',
    path: (s) => `/access-control/users/${s.alice}/roles`,
    json: (s) => ({ roleUids: [s.role], global: false }),
    status: 200,
    message: 'User roles have been updated.',
  },
  {
    name: 'http: access_control.md "Remove a user role assignment"',
    method: 'DELETE',
    path: (s) => `/access-control/users/${s.alice}/roles/${s.role}?global=false`,
    status: 200,
    message: 'Role removed from user.',
  },
  {
    name: 'http: access_control.md "Delete a custom role"',
    method: 'DELETE',
    path: (s) => `/access-control/roles/${s.role}?force=true`,
    status: 200,
    message: 'Role deleted',
  },
  {
    name: 'teams.remove_team_member',
    method: 'DELETE',
    path: (s) => `/teams/${s.team}/members/${s.alice}`,
    status: 200,
    message: 'Team Member removed',
  },
  { name: 'teams.delete_team', method: 'DELETE', path: (s) => `/teams/${s.team}`, status: 200, message: 'Team deleted' },

  // serviceaccount.*
  {
    name: 'serviceaccount.create',
    method: 'POST',
    path: () => '/serviceaccounts/',
    json: () => ({ name: 'ci-bot', role: 'Editor' }),
    status: 201,
    check: (b: { id: number; name: string; role: string }, s) => {
      expect(b).toMatchObject({ name: 'ci-bot', role: 'Editor' });
      s.sa = b.id;
    },
  },
  {
    name: 'serviceaccount.create (a taken name: GrafanaBadInputError)',
    method: 'POST',
    path: () => '/serviceaccounts/',
    json: () => ({ name: 'ci-bot', role: 'Viewer' }),
    status: 400,
    message: 'service account already exists',
  },
  {
    name: 'serviceaccount.get',
    method: 'GET',
    path: (s) => `/serviceaccounts/${s.sa}?accesscontrol=true`,
    status: 200,
    check: (b: { id: number }, s) => expect(b.id).toBe(s.sa),
  },
  {
    name: 'serviceaccount.update',
    method: 'PATCH',
    path: (s) => `/serviceaccounts/${s.sa}`,
    json: () => ({ name: 'ci-robot', role: 'Viewer' }),
    status: 200,
    message: 'Service account updated',
  },
  {
    name: 'serviceaccount.search(query) page 1',
    method: 'GET',
    path: () => '/serviceaccounts/search?query=ci&page=1',
    status: 200,
    check: (b: { serviceAccounts: { name: string }[]; totalCount: number }) => {
      expect(b.serviceAccounts.map((a) => a.name)).toEqual(['ci-robot']);
      expect(b.totalCount).toBe(1); // search_one requires exactly one
    },
  },
  // The client pages until `serviceAccounts` is empty.
  {
    name: 'serviceaccount.search(query) page 2 is empty',
    method: 'GET',
    path: () => '/serviceaccounts/search?query=ci&page=2',
    status: 200,
    check: (b: { serviceAccounts: unknown[] }) => expect(b.serviceAccounts).toEqual([]),
  },
  {
    name: 'serviceaccount.create_token',
    method: 'POST',
    path: (s) => `/serviceaccounts/${s.sa}/tokens`,
    json: () => ({ name: 'deploy', secondsToLive: 3600 }),
    status: 200,
    check: (b: { id: number; key: string }, s) => {
      s.token = b.id;
      s.tokenKey = b.key;
    },
  },
  {
    name: 'serviceaccount.get_tokens',
    method: 'GET',
    path: (s) => `/serviceaccounts/${s.sa}/tokens`,
    status: 200,
    check: (b: { id: number }[], s) => expect(b.map((t) => t.id)).toEqual([s.token]),
  },
  {
    name: 'GrafanaApi(auth=<token>): the token authenticates',
    as: { token: 'tokenKey' },
    method: 'GET',
    path: () => '/access-control/user/permissions',
    status: 200,
    // The account's own permissions: a Viewer (since serviceaccount.update) reads teams, writes none.
    check: (b: Record<string, string[]>) => {
      expect(b).toHaveProperty('teams:read');
      expect(b).not.toHaveProperty('teams:write');
    },
  },
  {
    name: 'serviceaccount.delete_token',
    method: 'DELETE',
    path: (s) => `/serviceaccounts/${s.sa}/tokens/${s.token}`,
    status: 200,
    message: 'Service account token deleted',
  },
  {
    name: 'serviceaccount.delete',
    method: 'DELETE',
    path: (s) => `/serviceaccounts/${s.sa}`,
    status: 200,
    message: 'Service account deleted',
  },

  // sessions and provisioning (user.md, admin.md)
  {
    name: 'http: user.md "Auth tokens of the actual user"',
    as: ALICE,
    method: 'GET',
    path: () => '/user/auth-tokens',
    status: 200,
    check: (b: unknown[]) => expect(b).toEqual([]),
  },
  {
    name: 'http: admin.md "Logout user"',
    method: 'POST',
    path: (s) => `/admin/users/${s.alice}/logout`,
    status: 200,
    message: 'User logged out',
  },
  {
    name: 'http: admin.md "Reload provisioning configurations"',
    method: 'POST',
    path: () => '/admin/provisioning/access-control/reload',
    status: 200,
  },

  // API keys (auth.md; Grafana's legacy key API)
  {
    name: 'http: auth.md "Create API Key"',
    method: 'POST',
    path: () => '/auth/keys',
    json: () => ({ name: 'replay', role: 'Viewer', secondsToLive: 60 }),
    status: 200,
    check: (b: { id: number; key: string }, s) => {
      s.key = b.id;
    },
  },
  {
    name: 'http: auth.md "Get API Keys"',
    method: 'GET',
    path: () => '/auth/keys?includeExpired=t',
    status: 200,
    check: (b) => everyHas(b, ['id', 'name', 'role']),
  },
  { name: 'http: auth.md "Delete API Key"', method: 'DELETE', path: (s) => `/auth/keys/${s.key}`, status: 200, message: 'API key deleted' },

  // failures, as the client sees them (GrafanaClientError and friends read `message`)
  {
    name: '403: a caller without the permission (GrafanaClientError)',
    as: NOBODY,
    method: 'POST',
    path: () => '/teams',
    json: () => ({ name: 'not-allowed' }),
    status: 403,
    check: (b: { title: string; accessErrorId: string; message: string }) => {
      expect(b.title).toBe('Access denied');
      expect(b.accessErrorId).toMatch(/^ACE\d{10}$/);
      // Grafana's evaluator prints the action only (accesscontrol/evaluator.go String).
      expect(b.message).toBe("You'll need additional permissions to perform this action. Permissions needed: teams:create");
    },
  },
  { name: '404: users.get_user of no one', method: 'GET', path: () => '/users/999999', status: 404, message: 'user not found' },
  { name: '404: teams.get_team of no team', method: 'GET', path: () => '/teams/999999', status: 404, message: 'Team not found' },
  {
    name: '400: organizations.delete_organization of the organization acted in (GrafanaBadInputError)',
    method: 'DELETE',
    path: () => '/orgs/1',
    status: 400,
    message: 'Can not delete org for current user',
  },
  {
    name: '401: a wrong password (GrafanaUnauthorizedError)',
    as: { login: 'carol', password: 'not-her-password' },
    method: 'GET',
    path: () => '/user',
    status: 401,
  },

  // clean-up calls
  {
    name: 'organizations.delete_organization',
    method: 'DELETE',
    path: (s) => `/orgs/${s.org}`,
    status: 200,
    message: 'Organization deleted',
  },
  { name: 'admin.delete_user', method: 'DELETE', path: (s) => `/admin/users/${s.bob}`, status: 200, message: 'User deleted' },
];

beforeAll(async () => {
  app = await createTestApp();
  // A signed-in user of org 1 with org role None, for the 403.
  const nobody = await createUser(app, 'nobody', { orgRole: 'None' });
  state['nobody.password'] = nobody.password;
});

afterAll(async () => {
  await app?.close();
});

describe('grafana-client, replayed: status, Grafana’s schema and Grafana’s message for every answer', () => {
  /** Ids in titles as `{name}`: the state is filled while the steps run. */
  const named = new Proxy({}, { get: (_t, key) => `{${String(key)}}` }) as State;
  it.each(steps.map((step) => [`${step.name}: ${step.method} /api${step.path(named)}`, step] as const))('%s', async (_name, step) => {
    const { status, body, url } = await send(step);
    expect({ status, body }, `${step.method} ${url}`).toMatchObject({ status: step.status });
    const { problems } = checkAnswer(step.method, url, status, body);
    expect(problems, `${step.method} ${url}: ${JSON.stringify(body)?.slice(0, 400)}`).toEqual([]);
    if (step.message) expect((body as { message?: string }).message).toBe(step.message);
    step.check?.(body as never, state);
  });
});

describe('the replay', () => {
  it('checks every path the client calls against a Grafana schema, but for the few Grafana does not publish', () => {
    const unpublished = steps.filter((s) => !checkAnswer(s.method, `/api${s.path(state)}`, s.status, undefined).covered).map((s) => s.name);
    expect(unpublished.sort()).toEqual(
      [
        'GrafanaApi(auth=<token>): the token authenticates',
        'health.check (4.x)',
        'health.check (5.x), GrafanaApi.version',
        'user.switch_user_organisation',
      ].sort(),
    );
  });
});
