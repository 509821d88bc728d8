/**
 * REST door of role assignments (service-interface.md "List roles of a user or service account",
 * "Add role to ...", "Remove role from ...", "Set roles of ...", "Team role operations"). One
 * `:userId` names a user or a service account. Both subject kinds get the same four routes from
 * one template; each handler calls one SubjectAssignments method.
 */
import { type ZodType, z } from 'zod';
import type { Requirement } from '../../kernel/requirements.js';
import { roleDto, roleToJson } from '../roles/rest.js';
import type { Services } from '../services.js';
import { INCLUDE_HIDDEN_PARAM, includeHiddenParam, messageJson, parseBooleanParam, type Route } from '../shared/rest.js';
import { addTeamRoleInput, addUserRoleInput, setTeamRolesInput, setUserRolesInput } from './inputs.js';
import { teamRoleRequirements, userRoleRequirements } from './stores.js';

interface SubjectRoutes {
  /** e.g. `/api/access-control/users/:userId/roles` */
  base: string;
  param: string;
  assignments: (services: Services) => Services['userRoles'];
  requirements: { read: Requirement<'id'>; add: Requirement; remove: Requirement; set: Requirement };
  /** Users may remove a global assignment with `?global=true`; teams have none. */
  globalQuery: boolean;
  /** For the OpenAPI document: who the subject is ("user or service account", "team") and the bodies. */
  who: string;
  bodies: { add: ZodType; set: ZodType };
}

/** GET (list), POST (add), PUT (set) and DELETE (remove) for one kind of subject. */
function subjectRoutes(s: SubjectRoutes): Route[] {
  return [
    {
      method: 'GET',
      path: s.base,
      requires: s.requirements.read,
      summary: `List the roles assigned directly to a ${s.who}`,
      query: [INCLUDE_HIDDEN_PARAM],
      response: z.array(roleDto),
      handler: async ({ principal, services, params, query }) =>
        (await s.assignments(services).list(principal, params[s.param], includeHiddenParam(query))).map(roleToJson),
    },
    {
      method: 'POST',
      path: s.base,
      requires: s.requirements.add,
      summary: `Assign a role to a ${s.who}`,
      body: s.bodies.add,
      response: messageJson,
      handler: ({ principal, services, params, body }) => s.assignments(services).add(principal, params[s.param], body),
    },
    {
      method: 'PUT',
      path: s.base,
      requires: s.requirements.set,
      summary: `Replace the roles of a ${s.who} with the given set`,
      body: s.bodies.set,
      response: messageJson,
      handler: ({ principal, services, params, body }) => s.assignments(services).set(principal, params[s.param], body),
    },
    {
      method: 'DELETE',
      path: `${s.base}/:roleUID`,
      requires: s.requirements.remove,
      summary: `Remove a role from a ${s.who}`,
      response: messageJson,
      ...(s.globalQuery && { query: [{ name: 'global', type: 'boolean', description: 'Remove the global assignment' }] }),
      handler: ({ principal, services, params, query }) =>
        s.assignments(services).remove(principal, params[s.param], params.roleUID, {
          global: s.globalQuery && parseBooleanParam('global', query.get('global')),
        }),
    },
  ];
}

export const assignmentRoutes: Route[] = [
  ...subjectRoutes({
    base: '/api/access-control/users/:userId/roles',
    param: 'userId',
    assignments: (services) => services.userRoles,
    requirements: userRoleRequirements,
    globalQuery: true,
    who: 'user or service account',
    bodies: { add: addUserRoleInput, set: setUserRolesInput },
  }),
  ...subjectRoutes({
    base: '/api/access-control/teams/:teamId/roles',
    param: 'teamId',
    assignments: (services) => services.teamRoles,
    requirements: teamRoleRequirements,
    globalQuery: false,
    who: 'team',
    bodies: { add: addTeamRoleInput, set: setTeamRolesInput },
  }),
];
