/**
 * REST door of role assignments (service-interface.md "List roles of a user or service account",
 * "Add role to ...", "Remove role from ...", "Set roles of ...", "Team role operations"). One
 * `:userId` names a user or a service account. Each handler calls one SubjectAssignments method.
 */
import { roleToJson } from '../roles/rest.js';
import { includeHiddenParam, parseBooleanParam, type Route } from '../shared/rest.js';
import { teamRoleRequirements, userRoleRequirements } from './stores.js';

export const assignmentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/users/:userId/roles',
    requires: userRoleRequirements.read,
    handler: async ({ principal, services, params, query }) =>
      (await services.userRoles.list(principal, params.userId, includeHiddenParam(query))).map(roleToJson),
  },
  {
    method: 'POST',
    path: '/api/access-control/users/:userId/roles',
    requires: userRoleRequirements.add,
    handler: ({ principal, services, params, body }) => services.userRoles.add(principal, params.userId, body),
  },
  {
    method: 'PUT',
    path: '/api/access-control/users/:userId/roles',
    requires: userRoleRequirements.set,
    handler: ({ principal, services, params, body }) => services.userRoles.set(principal, params.userId, body),
  },
  {
    method: 'DELETE',
    path: '/api/access-control/users/:userId/roles/:roleUID',
    requires: userRoleRequirements.remove,
    handler: ({ principal, services, params, query }) =>
      services.userRoles.remove(principal, params.userId, params.roleUID, { global: parseBooleanParam('global', query.get('global')) }),
  },
  {
    method: 'GET',
    path: '/api/access-control/teams/:teamId/roles',
    requires: teamRoleRequirements.read,
    handler: async ({ principal, services, params, query }) =>
      (await services.teamRoles.list(principal, params.teamId, includeHiddenParam(query))).map(roleToJson),
  },
  {
    method: 'POST',
    path: '/api/access-control/teams/:teamId/roles',
    requires: teamRoleRequirements.add,
    handler: ({ principal, services, params, body }) => services.teamRoles.add(principal, params.teamId, body),
  },
  {
    method: 'PUT',
    path: '/api/access-control/teams/:teamId/roles',
    requires: teamRoleRequirements.set,
    handler: ({ principal, services, params, body }) => services.teamRoles.set(principal, params.teamId, body),
  },
  {
    method: 'DELETE',
    path: '/api/access-control/teams/:teamId/roles/:roleUID',
    requires: teamRoleRequirements.remove,
    handler: ({ principal, services, params }) => services.teamRoles.remove(principal, params.teamId, params.roleUID, {}),
  },
];
