/**
 * The REST route table: each documented path of service-interface.md mapped onto one core
 * service call. `requires` repeats the spec's permission for readers; the core enforces it.
 */
import { apiKeyToJson } from '../modules/api-keys/service.js';
import { roleToJson } from '../modules/roles/service.js';
import { parseBooleanParam } from '../kernel/inputs.js';
import type { Route } from './use-rest-routes.js';

const withPermissions = { include: { permissions: { orderBy: [{ action: 'asc' as const }, { scope: 'asc' as const }] } } };

export const roleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/status',
    requires: 'status:accesscontrol on services:accesscontrol',
    handler: ({ principal, services }) => services.roles.status(principal),
  },
  {
    method: 'GET',
    path: '/api/access-control/roles',
    requires: 'roles:read on roles:*',
    handler: async ({ principal, services, query }) => {
      const roles = await services.roles.list(principal, { includeHidden: parseBooleanParam('includeHidden', query.get('includeHidden')) });
      return roles.map(roleToJson);
    },
  },
  {
    method: 'GET',
    path: '/api/access-control/roles/:uid',
    requires: 'roles:read on roles:*',
    handler: async ({ principal, services, params }) =>
      roleToJson(await services.roles.get(principal, params.uid as string, withPermissions)),
  },
  {
    method: 'POST',
    path: '/api/access-control/roles',
    requires: 'roles:write on permissions:type:delegate, plus delegation',
    handler: async ({ principal, services, body }) => roleToJson(await services.roles.create(principal, body, withPermissions)),
  },
  {
    method: 'PUT',
    path: '/api/access-control/roles/:uid',
    requires: 'roles:write on permissions:type:delegate, plus delegation',
    handler: async ({ principal, services, params, body }) =>
      roleToJson(await services.roles.update(principal, params.uid as string, body, withPermissions)),
  },
  {
    method: 'DELETE',
    path: '/api/access-control/roles/:uid',
    requires: 'roles:delete on permissions:type:delegate, plus delegation',
    handler: ({ principal, services, params, query }) =>
      services.roles.delete(principal, params.uid as string, {
        force: parseBooleanParam('force', query.get('force')),
        global: parseBooleanParam('global', query.get('global')),
      }),
  },
];

/** API keys: in both editions (service-interface.md "List/Create/Delete API key"). */
export const apiKeyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/auth/keys',
    requires: 'apikey:read on apikey:* (oss: org Admin)',
    handler: async ({ principal, services, query }) => {
      const keys = await services.apiKeys.list(principal, {
        includeExpired: parseBooleanParam('includeExpired', query.get('includeExpired')),
      });
      return keys.map(apiKeyToJson);
    },
  },
  {
    method: 'POST',
    path: '/api/auth/keys',
    requires: 'apikey:create (oss: org Admin), and an org role at least the key role',
    handler: ({ principal, services, body }) => services.apiKeys.create(principal, body),
  },
  {
    method: 'DELETE',
    path: '/api/auth/keys/:id',
    requires: 'apikey:delete on apikey:id:<id> (oss: org Admin)',
    handler: ({ principal, services, params }) => services.apiKeys.delete(principal, params.id),
  },
];

const includeHidden = (query: URLSearchParams) => ({ includeHidden: parseBooleanParam('includeHidden', query.get('includeHidden')) });

/** Role assignments of users and service accounts (one `:userId` for both) and of teams. */
export const assignmentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/users/:userId/roles',
    requires: 'users.roles:read on users:id:<userId>',
    handler: async ({ principal, services, params, query }) =>
      (await services.assignments.listUserRoles(principal, params.userId, includeHidden(query))).map(roleToJson),
  },
  {
    method: 'POST',
    path: '/api/access-control/users/:userId/roles',
    requires: 'users.roles:add on permissions:type:delegate, plus delegation; global: Service Admin',
    handler: ({ principal, services, params, body }) => services.assignments.addUserRole(principal, params.userId, body),
  },
  {
    method: 'PUT',
    path: '/api/access-control/users/:userId/roles',
    requires: 'users.roles:add and users.roles:delete on permissions:type:delegate, plus delegation; global: Service Admin',
    handler: ({ principal, services, params, body }) => services.assignments.setUserRoles(principal, params.userId, body),
  },
  {
    method: 'DELETE',
    path: '/api/access-control/users/:userId/roles/:roleUID',
    requires: 'users.roles:delete on permissions:type:delegate, plus delegation; global: Service Admin',
    handler: ({ principal, services, params, query }) =>
      services.assignments.removeUserRole(principal, params.userId, params.roleUID, {
        global: parseBooleanParam('global', query.get('global')),
      }),
  },
  {
    method: 'GET',
    path: '/api/access-control/teams/:teamId/roles',
    requires: 'teams.roles:read on teams:id:<teamId>',
    handler: async ({ principal, services, params, query }) =>
      (await services.assignments.listTeamRoles(principal, params.teamId, includeHidden(query))).map(roleToJson),
  },
  {
    method: 'POST',
    path: '/api/access-control/teams/:teamId/roles',
    requires: 'teams.roles:add on permissions:type:delegate, plus delegation',
    handler: ({ principal, services, params, body }) => services.assignments.addTeamRole(principal, params.teamId, body),
  },
  {
    method: 'PUT',
    path: '/api/access-control/teams/:teamId/roles',
    requires: 'teams.roles:add and teams.roles:delete on permissions:type:delegate, plus delegation',
    handler: ({ principal, services, params, body }) => services.assignments.setTeamRoles(principal, params.teamId, body),
  },
  {
    method: 'DELETE',
    path: '/api/access-control/teams/:teamId/roles/:roleUID',
    requires: 'teams.roles:delete on permissions:type:delegate, plus delegation',
    handler: ({ principal, services, params }) => services.assignments.removeTeamRole(principal, params.teamId, params.roleUID),
  },
];

/** Permission listings of the caller and of a user or service account. */
export const permissionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/user/permissions',
    requires: 'none (signed in)',
    handler: ({ principal, services, query }) =>
      services.assignments.ownPermissions(principal, { reloadCache: parseBooleanParam('reloadcache', query.get('reloadcache')) }),
  },
  {
    method: 'GET',
    path: '/api/access-control/users/:userId/permissions',
    requires: 'users.permissions:read on users:id:<userId>',
    handler: ({ principal, services, params }) => services.assignments.userPermissions(principal, params.userId),
  },
];

/** Reset of the basic roles to their defaults. */
export const basicRoleRoutes: Route[] = [
  {
    method: 'POST',
    path: '/api/access-control/roles/hard-reset',
    requires: 'roles:write on permissions:type:escalate',
    handler: ({ principal, services, body }) => services.basicRoles.reset(principal, body),
  },
];

/** Every REST route of the service. */
export const routes: Route[] = [...roleRoutes, ...assignmentRoutes, ...permissionRoutes, ...basicRoleRoutes, ...apiKeyRoutes];
