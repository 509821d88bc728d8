/**
 * REST door of users, Grafana's paths, bodies and JSON shapes (pkg/api/user.go,
 * pkg/api/admin_users.go; docs "User HTTP API" and "Admin HTTP API"): the user directory
 * (`/api/users...`) and the server administrator's user routes (`/api/admin/users...`). Every
 * handler calls one method of a user service (service.ts, admin.ts, search.ts); the rules live there.
 */
import { z } from 'zod';
import type { User } from '../../generated/prisma/client.js';
import { AUTH_MODULE, authLabels } from '../../kernel/auth-module.js';
import { asOrgRole, ORG_ROLES } from '../../kernel/principal.js';
import { avatarUrl, type CountedTeam, searchPageJson, teamToJson, WITH_MEMBER_COUNT } from '../shared/directory.js';
import {
  jsonId,
  jsonTime,
  messageJson,
  PAGE_PARAM,
  PER_PAGE_PARAM,
  type QueryParam,
  type Route,
  searchPageSchema,
  searchTextParam,
  teamDto,
} from '../shared/rest.js';
import { adminCreateUserBody, setPasswordInput, setServiceAdminInput, updateUserProfileBody } from './inputs.js';
import type { SearchedUser } from './search.js';
import { type MembershipWithOrg, userRequirements } from './service.js';

const lastSeen = {
  lastSeenAt: jsonTime().meta({ description: 'Its last authenticated request; never seen: 10 years before its creation, as Grafana' }),
  lastSeenAtAge: z.string().meta({ description: 'Grafana’s age text of lastSeenAt: "3y", "2M", "5d", "4h", "7m" or "< 1 minute"' }),
};
const authLabelsJson = z.array(z.string()).meta({ description: '["LDAP"] or ["OAuth"] for users who sign in there, else []' });

/** One hit of `GET /api/users` and `/api/users/search` (Grafana's UserSearchHitDTO). */
export const userSearchHitDto = z
  .strictObject({
    id: jsonId(),
    name: z.string(),
    login: z.string(),
    email: z.string(),
    avatarUrl: z.string(),
    isAdmin: z.boolean().meta({ description: 'The Service Admin flag (Grafana Admin)' }),
    isDisabled: z.boolean(),
    ...lastSeen,
    authLabels: authLabelsJson,
  })
  .meta({ id: 'UserSearchHitDTO' });
export type UserSearchHitJson = z.infer<typeof userSearchHitDto>;

/** Grafana's UserProfileDTO: `GET /api/users/:id` and `/api/users/lookup` (see userProfileJson). */
export const userProfileDto = z
  .strictObject({
    id: jsonId(),
    email: z.string(),
    name: z.string(),
    login: z.string(),
    theme: z.string().meta({ description: 'Not kept here: ""' }),
    orgId: jsonId().meta({ description: 'Its default organization' }),
    isGrafanaAdmin: z.boolean().meta({ description: 'The Service Admin flag' }),
    isDisabled: z.boolean(),
    isExternal: z.boolean(),
    isExternallySynced: z.boolean(),
    isGrafanaAdminExternallySynced: z.boolean(),
    authLabels: authLabelsJson,
    updatedAt: jsonTime(),
    createdAt: jsonTime(),
    avatarUrl: z.string(),
  })
  .meta({ id: 'UserProfileDTO' });

/** Grafana's UserOrgDTO: one organization of a user with its role there. */
export const userOrgDto = z.strictObject({ orgId: jsonId(), name: z.string(), role: z.enum(ORG_ROLES) }).meta({ id: 'UserOrgDTO' });

/** `perpage`, `page` and `query` of the user searches (searchOptions reads exactly these). */
const USER_SEARCH_QUERY: readonly QueryParam[] = [searchTextParam('the login, email and name (a part of any)'), PAGE_PARAM, PER_PAGE_PARAM];

/** `loginOrEmail` of the lookup. */
const LOGIN_OR_EMAIL_PARAM: QueryParam = { name: 'loginOrEmail', type: 'string', description: 'The whole login or email' };

/** A search hit from a searched user row. */
export function userSearchHitJson(user: SearchedUser): UserSearchHitJson {
  return {
    id: user.id,
    name: user.name,
    login: user.login,
    email: user.email,
    avatarUrl: avatarUrl(user.email),
    isAdmin: user.isServiceAdmin,
    isDisabled: user.isDisabled,
    lastSeenAt: user.lastSeenAt.toISOString(),
    lastSeenAtAge: user.lastSeenAtAge,
    authLabels: authLabels(user.authModule),
  };
}

/**
 * `GET /api/users/:id` and `/api/users/lookup` (Grafana's UserProfileDTO). `isGrafanaAdmin` is the
 * Service Admin flag; `theme` is not kept here (""); LDAP and OAuth users are synced at each login.
 */
export function userProfileJson(user: User): z.infer<typeof userProfileDto> {
  const external = user.authModule !== AUTH_MODULE.local;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    login: user.login,
    theme: '',
    orgId: user.orgId,
    isGrafanaAdmin: user.isServiceAdmin,
    isDisabled: user.isDisabled,
    isExternal: external,
    isExternallySynced: external,
    isGrafanaAdminExternallySynced: external,
    authLabels: authLabels(user.authModule),
    updatedAt: user.updated.toISOString(),
    createdAt: user.created.toISOString(),
    avatarUrl: avatarUrl(user.email),
  };
}

/** `GET /api/users/:id/orgs` entry (Grafana's UserOrgDTO). */
function userOrgJson(membership: MembershipWithOrg): z.infer<typeof userOrgDto> {
  return { orgId: membership.orgId, name: membership.org.name, role: asOrgRole(membership.role) };
}

/** USER_SEARCH_QUERY's values, as the service reads them. */
function searchOptions(query: URLSearchParams) {
  return { query: query.get('query'), page: query.get(PAGE_PARAM.name), perPage: query.get(PER_PAGE_PARAM.name) };
}

/** The user routes: the directory (`/api/users...`) and the server administrator's (`/api/admin/users...`). */
export const userRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/users',
    requires: userRequirements.search,
    summary: 'Search users (perpage default 1000, page default 1, query in login, email or name): an array of hits.',
    query: USER_SEARCH_QUERY,
    response: z.array(userSearchHitDto),
    handler: async ({ principal, services, query }) =>
      (await services.userSearch.search(principal, searchOptions(query))).rows.map(userSearchHitJson),
  },
  {
    method: 'GET',
    path: '/api/users/search',
    requires: userRequirements.search,
    summary: 'Search users with paging: {totalCount, users, page, perPage}.',
    query: USER_SEARCH_QUERY,
    response: searchPageSchema('SearchUserQueryResult', 'users', userSearchHitDto),
    handler: async ({ principal, services, query }) =>
      searchPageJson(await services.userSearch.search(principal, searchOptions(query)), 'users', userSearchHitJson),
  },
  {
    method: 'GET',
    path: '/api/users/lookup',
    requires: userRequirements.search,
    summary: 'The user whose login or email is ?loginOrEmail=.',
    query: [LOGIN_OR_EMAIL_PARAM],
    response: userProfileDto,
    handler: async ({ principal, services, query }) =>
      userProfileJson(await services.userSearch.lookup(principal, query.get(LOGIN_OR_EMAIL_PARAM.name))),
  },
  {
    method: 'GET',
    path: '/api/users/:id',
    requires: userRequirements.read,
    summary: 'One user.',
    response: userProfileDto,
    handler: async ({ principal, services, params }) =>
      userProfileJson(await services.users.get(principal, params.id, {}, { global: true })),
  },
  {
    method: 'PUT',
    path: '/api/users/:id',
    requires: userRequirements.write,
    summary: "Update a user's login, email and name.",
    body: updateUserProfileBody,
    response: messageJson,
    handler: ({ principal, services, params, body }) => services.users.updateProfile(principal, params.id, body),
  },
  {
    method: 'GET',
    path: '/api/users/:id/orgs',
    requires: userRequirements.read,
    summary: "A user's organizations with its role in each.",
    response: z.array(userOrgDto),
    handler: async ({ principal, services, params }) => (await services.users.orgsOf(principal, params.id)).map(userOrgJson),
  },
  {
    method: 'POST',
    path: '/api/users/:id/using/:orgId',
    requires: userRequirements.write,
    summary: "Switch a user's default organization to one it is a member of.",
    response: messageJson,
    handler: ({ principal, services, params }) => services.userAdmin.switchOrg(principal, params.id, params.orgId),
  },
  {
    method: 'GET',
    path: '/api/users/:id/teams',
    requires: userRequirements.read,
    summary: "A user's teams in the organization acted in.",
    response: z.array(teamDto),
    handler: async ({ principal, services, params }) => {
      const teams = await services.users.teamsOf(principal, params.id, WITH_MEMBER_COUNT, { global: true });
      return (teams as CountedTeam[]).map((team) => teamToJson(team));
    },
  },
  {
    method: 'POST',
    path: '/api/admin/users',
    requires: userRequirements.create,
    summary: 'Create a user with a password (login falls back to email and back): {id, message}.',
    body: adminCreateUserBody,
    response: z.strictObject({ id: jsonId(), message: z.literal('User created') }),
    handler: ({ principal, services, body }) => services.users.adminCreate(principal, body),
  },
  {
    method: 'DELETE',
    path: '/api/admin/users/:id',
    requires: userRequirements.delete,
    summary: 'Delete a user with its memberships, roles and sessions.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.users.delete(principal, params.id),
  },
  {
    method: 'PUT',
    path: '/api/admin/users/:id/password',
    requires: userRequirements.setPassword,
    summary: "Set a local user's password; its sessions end.",
    body: setPasswordInput,
    response: messageJson,
    handler: ({ principal, services, params, body }) => services.userAdmin.setPassword(principal, params.id, body),
  },
  {
    method: 'PUT',
    path: '/api/admin/users/:id/permissions',
    requires: userRequirements.setServiceAdmin,
    summary: 'Grant or revoke the Service Admin flag ({isGrafanaAdmin}).',
    body: setServiceAdminInput,
    response: messageJson,
    handler: ({ principal, services, params, body }) => services.userAdmin.setServiceAdmin(principal, params.id, body),
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/disable',
    requires: userRequirements.disable,
    summary: 'Disable a user: it cannot sign in and its sessions end.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.userAdmin.disable(principal, params.id),
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/enable',
    requires: userRequirements.enable,
    summary: 'Enable a disabled user.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.userAdmin.enable(principal, params.id),
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/unlock',
    requires: userRequirements.unlock,
    summary:
      'Lift the sign-in lock that failed passwords put on a user (429 LOGIN_BLOCKED): its login, email and account counters are cleared.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.userAdmin.unlock(principal, params.id),
  },
];
