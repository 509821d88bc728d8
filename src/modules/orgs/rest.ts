/**
 * REST door of organizations, Grafana's paths, bodies and JSON shapes (pkg/api/org.go,
 * pkg/api/org_users.go; docs "Organization HTTP API"): the current organization (`/api/org...`,
 * the one the request acts in) and every organization (`/api/orgs...`). Each handler calls one
 * OrgService method; the rules live there.
 */
import type { Org, OrgUser } from '../../generated/prisma/client.js';
import { ageString, avatarUrl, lastSeenAt as lastSeenOf } from '../shared/directory.js';
import type { Route, RouteRequest } from '../shared/rest.js';
import { AUTH_MODULE, authLabels } from '../sign-in/service.js';
import { addOrgUserByLoginBody, createOrganizationInput, orgUserRoleBody, updateOrganizationInput } from './inputs.js';
import type { OrgMembersPage } from './members.js';
import { orgRequirements } from './requirements.js';

/** Grafana's OrgDetailsDTO. No postal address is kept here: its fields are "". */
export interface OrgDetailsJson {
  id: number;
  name: string;
  address: { address1: string; address2: string; city: string; zipCode: string; state: string; country: string };
}

/** `GET /api/org`, `/api/orgs/:orgId`, `/api/orgs/name/:name`. */
export function orgDetailsJson(org: Pick<Org, 'id' | 'name'>): OrgDetailsJson {
  return { id: org.id, name: org.name, address: { address1: '', address2: '', city: '', zipCode: '', state: '', country: '' } };
}

/** Grafana's OrgUserDTO (`GET /api/org/users`, `/api/orgs/:orgId/users`). */
export interface OrgUserJson {
  orgId: number;
  userId: number;
  email: string;
  name: string;
  avatarUrl: string;
  login: string;
  role: string;
  lastSeenAt: string;
  lastSeenAtAge: string;
  isDisabled: boolean;
  authLabels: string[];
  isExternallySynced: boolean;
}

/** The user fields a member row loads: its profile and its newest session. */
const MEMBER_QUERY = {
  include: {
    user: {
      select: {
        login: true,
        email: true,
        name: true,
        isDisabled: true,
        authModule: true,
        created: true,
        sessions: { select: { lastSeenAt: true }, orderBy: { lastSeenAt: 'desc' as const }, take: 1 },
      },
    },
  },
};

type MemberRow = OrgUser & {
  user: {
    login: string;
    email: string;
    name: string;
    isDisabled: boolean;
    authModule: string;
    created: Date;
    sessions: { lastSeenAt: Date }[];
  };
};

/** A member row as Grafana's OrgUserDTO; last seen = its newest session, ages against `now`. */
export function orgUserJson(member: MemberRow, now: Date = new Date()): OrgUserJson {
  const { user } = member;
  const lastSeenAt = lastSeenOf(user.sessions[0]?.lastSeenAt, user.created);
  const external = user.authModule !== AUTH_MODULE.local;
  return {
    orgId: member.orgId,
    userId: member.userId,
    email: user.email,
    name: user.name,
    avatarUrl: avatarUrl(user.email),
    login: user.login,
    role: member.role,
    lastSeenAt: lastSeenAt.toISOString(),
    lastSeenAtAge: ageString(lastSeenAt, now),
    isDisabled: user.isDisabled,
    authLabels: authLabels(user.authModule),
    isExternallySynced: external,
  };
}

const members = (page: OrgMembersPage<OrgUser>) => (page.members as MemberRow[]).map((m) => orgUserJson(m));

/** Grafana's SearchOrgUsersQueryResult: `{totalCount, orgUsers, page, perPage}`. */
const membersPage = (page: OrgMembersPage<OrgUser>) => ({
  totalCount: page.totalCount,
  orgUsers: members(page),
  page: page.page,
  perPage: page.perPage,
});

/** `query` and `limit` of `GET /api/org/users` (Grafana ignores both on `/api/orgs/:orgId/users`). */
const listOptions = (query: URLSearchParams) => ({ query: query.get('query'), limit: query.get('limit') });
/** `query`, `page` (from 1) and `perpage` of the member searches; always paged. */
const searchOptions = (query: URLSearchParams) => ({
  query: query.get('query'),
  page: query.get('page') || '1',
  perpage: query.get('perpage'),
});

/** One field of a JSON body, undefined when the body is not an object (the service then says what is missing). */
function bodyField(body: unknown, key: string): unknown {
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined;
}

/**
 * The routes Grafana has twice, for the organization the request acts in (`/api/org`) and for
 * one named in the path (`/api/orgs/:orgId`): the organization itself and its members. One
 * definition, so the two cannot drift; `orgIdOf` reads the organization from the request.
 */
function organizationRoutes(base: string, orgIdOf: (req: RouteRequest) => unknown, which: string, listOf: ListOptions): Route[] {
  return [
    {
      method: 'GET',
      path: base,
      requires: orgRequirements.read,
      summary: `${which}: {id, name, address}.`,
      handler: async (req) => orgDetailsJson(await req.services.orgs.get(req.principal, orgIdOf(req))),
    },
    {
      method: 'PUT',
      path: base,
      requires: orgRequirements.write,
      summary: `Rename ${which.toLowerCase()}.`,
      body: updateOrganizationInput,
      handler: async (req) => {
        await req.services.orgs.update(req.principal, orgIdOf(req), req.body);
        return { message: 'Organization updated' };
      },
    },
    {
      method: 'GET',
      path: `${base}/users`,
      requires: orgRequirements.readUsers,
      summary: `Members of ${which.toLowerCase()}, by login.`,
      handler: async (req) => members(await req.services.orgs.listUsers(req.principal, orgIdOf(req), listOf(req.query), MEMBER_QUERY)),
    },
    {
      method: 'GET',
      path: `${base}/users/search`,
      requires: orgRequirements.readUsers,
      summary: `Members of ${which.toLowerCase()} with paging: {totalCount, orgUsers, page, perPage}.`,
      handler: async (req) =>
        membersPage(await req.services.orgs.listUsers(req.principal, orgIdOf(req), searchOptions(req.query), MEMBER_QUERY)),
    },
    {
      method: 'POST',
      path: `${base}/users`,
      requires: orgRequirements.addUserByLogin,
      summary: `Add an existing user, by login or email, to ${which.toLowerCase()}.`,
      body: addOrgUserByLoginBody,
      handler: async (req) => {
        const membership = await req.services.orgs.addUserByLogin(req.principal, orgIdOf(req), req.body);
        return { message: 'User added to organization', userId: membership.userId };
      },
    },
    {
      method: 'PATCH',
      path: `${base}/users/:userId`,
      requires: orgRequirements.writeUser,
      summary: `Change a member's org role in ${which.toLowerCase()}.`,
      body: orgUserRoleBody,
      handler: async (req) => {
        const change = { orgId: orgIdOf(req), userId: req.params.userId, role: bodyField(req.body, 'role') };
        await req.services.orgs.updateUserRole(req.principal, change);
        return { message: 'Organization user updated' };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/users/:userId`,
      requires: orgRequirements.removeUser,
      summary: `Remove a member from ${which.toLowerCase()} (with its team memberships there).`,
      handler: (req) => req.services.orgs.removeUser(req.principal, { orgId: orgIdOf(req), userId: req.params.userId }),
    },
  ];
}

/** The options a plain member list reads from the query string. */
type ListOptions = (query: URLSearchParams) => { query?: string | null; limit?: string | null };

export const orgRoutes: Route[] = [
  // The current organization (the one the request acts in); `query` and `limit` filter its members.
  ...organizationRoutes('/api/org', (req) => req.principal.orgId, 'The current organization', listOptions),
  {
    method: 'GET',
    path: '/api/org/users/lookup',
    requires: orgRequirements.readUsers,
    summary: 'Members of the current organization, short: [{userId, login, avatarUrl}].',
    handler: async ({ principal, services, query }) =>
      members(await services.orgs.listUsers(principal, principal.orgId, listOptions(query), MEMBER_QUERY)).map((m) => ({
        userId: m.userId,
        login: m.login,
        avatarUrl: m.avatarUrl,
      })),
  },
  // Any organization, by id (Grafana ignores `query` and `limit` on its member list).
  ...organizationRoutes(
    '/api/orgs/:orgId',
    (req) => req.params.orgId,
    'One organization',
    () => ({}),
  ),
  {
    method: 'GET',
    path: '/api/orgs',
    requires: orgRequirements.readAll,
    summary: 'Search organizations (query: name prefix, name: exact, perpage default 1000, page from 0): [{id, name}].',
    handler: async ({ principal, services, query }) => {
      const options = { query: query.get('query'), name: query.get('name'), page: query.get('page'), perpage: query.get('perpage') };
      return (await services.orgs.search(principal, options)).map((o) => ({ id: o.id, name: o.name }));
    },
  },
  {
    method: 'POST',
    path: '/api/orgs',
    requires: orgRequirements.create,
    summary: 'Create an organization; the caller becomes its Admin. {orgId, message}.',
    body: createOrganizationInput,
    handler: async ({ principal, services, body }) => {
      const org = await services.orgs.create(principal, body);
      return { orgId: org.id, message: 'Organization created' };
    },
  },
  {
    method: 'GET',
    path: '/api/orgs/name/:name',
    requires: orgRequirements.readAll,
    summary: 'The organization with exactly that name.',
    handler: async ({ principal, services, params }) => orgDetailsJson(await services.orgs.getByName(principal, params.name)),
  },
  {
    method: 'DELETE',
    path: '/api/orgs/:orgId',
    requires: orgRequirements.delete,
    summary: 'Delete an organization with its members, teams, keys, service accounts and org roles.',
    handler: ({ principal, services, params }) => services.orgs.delete(principal, params.orgId),
  },
];
