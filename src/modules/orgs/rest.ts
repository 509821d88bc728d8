/**
 * REST door of organizations, Grafana's paths, bodies and JSON shapes (pkg/api/org.go,
 * pkg/api/org_users.go; docs "Organization HTTP API"): the current organization (`/api/org...`,
 * the one the request acts in) and every organization (`/api/orgs...`). Each handler calls one
 * OrgService or OrgMemberService method; the rules live there.
 */
import { z } from 'zod';
import { jsonId, messageJson, type QueryParam, type Route, type RouteRequest } from '../shared/rest.js';
import { addOrgUserByLoginBody, createOrganizationInput, orgUserRoleBody, updateOrganizationInput } from './inputs.js';
import { MEMBER_QUERY, members, membersPage, membersPageDto, orgDetailsDto, orgDetailsJson, orgUserDto } from './json.js';
import { orgRequirements } from './requirements.js';

/** `query` and `limit` of the current organization's member list and lookup (listOptions reads these). */
const MEMBER_LIST_QUERY: readonly QueryParam[] = [
  { name: 'query', type: 'string', description: 'Text matched, in any case, against the login, email and name (a part of any)' },
  { name: 'limit', type: 'integer', description: 'Only the first this many members (by login; at most 1000)' },
];

/** `query`, `page` and `perpage` of the member searches (searchOptions reads these). */
const MEMBER_SEARCH_QUERY: readonly QueryParam[] = [
  MEMBER_LIST_QUERY[0] as QueryParam,
  { name: 'page', type: 'integer', description: 'Page number, from 1 (default 1)' },
  { name: 'perpage', type: 'integer', description: 'Members per page (default 1000, at most 1000)' },
];

/** `query`, `name`, `page` and `perpage` of `GET /api/orgs` (Grafana's SearchOrgs). */
const ORG_SEARCH_QUERY: readonly QueryParam[] = [
  { name: 'query', type: 'string', description: 'A prefix of the name' },
  { name: 'name', type: 'string', description: 'The whole name' },
  { name: 'page', type: 'integer', description: 'Page number, from 0 as Grafana’s store counts (skips perpage × page)' },
  { name: 'perpage', type: 'integer', description: 'Organizations per page (default 1000, at most 1000)' },
];

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
function organizationRoutes(
  base: string,
  orgIdOf: (req: RouteRequest) => unknown,
  which: string,
  listOf: ListOptions,
  listQuery: readonly QueryParam[],
): Route[] {
  return [
    {
      method: 'GET',
      path: base,
      requires: orgRequirements.read,
      summary: `${which}: {id, name, address}.`,
      response: orgDetailsDto,
      handler: async (req) => orgDetailsJson(await req.services.orgs.get(req.principal, orgIdOf(req))),
    },
    {
      method: 'PUT',
      path: base,
      requires: orgRequirements.write,
      summary: `Rename ${which.toLowerCase()}.`,
      body: updateOrganizationInput,
      response: messageJson,
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
      ...(listQuery.length > 0 && { query: listQuery }),
      response: z.array(orgUserDto),
      handler: async (req) =>
        members(await req.services.orgMembers.listUsers(req.principal, orgIdOf(req), listOf(req.query), MEMBER_QUERY)),
    },
    {
      method: 'GET',
      path: `${base}/users/search`,
      requires: orgRequirements.readUsers,
      summary: `Members of ${which.toLowerCase()} with paging: {totalCount, orgUsers, page, perPage}.`,
      query: MEMBER_SEARCH_QUERY,
      response: membersPageDto,
      handler: async (req) =>
        membersPage(await req.services.orgMembers.listUsers(req.principal, orgIdOf(req), searchOptions(req.query), MEMBER_QUERY)),
    },
    {
      method: 'POST',
      path: `${base}/users`,
      requires: orgRequirements.addUserByLogin,
      summary: `Add an existing user, by login or email, to ${which.toLowerCase()}.`,
      body: addOrgUserByLoginBody,
      response: z.strictObject({ message: z.literal('User added to organization'), userId: jsonId() }),
      handler: async (req) => {
        const membership = await req.services.orgMembers.addUserByLogin(req.principal, orgIdOf(req), req.body);
        return { message: 'User added to organization', userId: membership.userId };
      },
    },
    {
      method: 'PATCH',
      path: `${base}/users/:userId`,
      requires: orgRequirements.writeUser,
      summary: `Change a member's org role in ${which.toLowerCase()}.`,
      body: orgUserRoleBody,
      response: messageJson,
      handler: async (req) => {
        const change = { orgId: orgIdOf(req), userId: req.params.userId, role: bodyField(req.body, 'role') };
        await req.services.orgMembers.updateUserRole(req.principal, change);
        return { message: 'Organization user updated' };
      },
    },
    {
      method: 'DELETE',
      path: `${base}/users/:userId`,
      requires: orgRequirements.removeUser,
      summary: `Remove a member from ${which.toLowerCase()} (with its team memberships there).`,
      response: messageJson,
      handler: (req) => req.services.orgMembers.removeUser(req.principal, { orgId: orgIdOf(req), userId: req.params.userId }),
    },
  ];
}

/** The options a plain member list reads from the query string. */
type ListOptions = (query: URLSearchParams) => { query?: string | null; limit?: string | null };

export const orgRoutes: Route[] = [
  // The current organization (the one the request acts in); `query` and `limit` filter its members.
  ...organizationRoutes('/api/org', (req) => req.principal.orgId, 'The current organization', listOptions, MEMBER_LIST_QUERY),
  {
    method: 'GET',
    path: '/api/org/users/lookup',
    requires: orgRequirements.readUsers,
    summary: 'Members of the current organization, short: [{userId, login, avatarUrl}].',
    query: MEMBER_LIST_QUERY,
    response: z.array(z.strictObject({ userId: jsonId(), login: z.string(), avatarUrl: z.string() }).meta({ id: 'UserLookupDTO' })),
    handler: async ({ principal, services, query }) =>
      members(await services.orgMembers.listUsers(principal, principal.orgId, listOptions(query), MEMBER_QUERY)).map((m) => ({
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
    [],
  ),
  {
    method: 'GET',
    path: '/api/orgs',
    requires: orgRequirements.readAll,
    summary: 'Search organizations (query: name prefix, name: exact, perpage default 1000, page from 0): [{id, name}].',
    query: ORG_SEARCH_QUERY,
    response: z.array(z.strictObject({ id: jsonId(), name: z.string() }).meta({ id: 'OrgDTO' })),
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
    response: z.strictObject({ orgId: jsonId(), message: z.literal('Organization created') }),
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
    response: orgDetailsDto,
    handler: async ({ principal, services, params }) => orgDetailsJson(await services.orgs.getByName(principal, params.name)),
  },
  {
    method: 'DELETE',
    path: '/api/orgs/:orgId',
    requires: orgRequirements.delete,
    summary: 'Delete an organization with its members, teams, keys, service accounts and org roles.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.orgs.delete(principal, params.orgId),
  },
];
