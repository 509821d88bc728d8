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
import { INCLUDE_HIDDEN_PARAM, includeHiddenParam, jsonTime, messageJson, parseBooleanParam, type Route } from '../shared/rest.js';
import { addTeamRoleInput, addUserRoleInput, setTeamRolesInput, setUserRolesInput } from './inputs.js';
import type { AssignedRole } from './listing.js';
import { teamRoleRequirements, userRoleRequirements } from './stores.js';
import type { AssignmentWindow } from './window.js';

/** A listed role: Grafana's role shape, and the window of a time-bound assignment (absent: for good). */
const assignedRoleDto = roleDto.extend({
  notBefore: jsonTime().optional().describe('Held from this moment (RFC 3339); absent: at once'),
  expiresAt: jsonTime().optional().describe('Held until this moment (RFC 3339); absent: for good'),
});

/**
 * The JSON of a listing: each role once (as Grafana lists them), with the window of its assignment
 * that holds longest (one held for good shows none; otherwise the latest expiresAt).
 */
function assignedRolesJson(assigned: readonly AssignedRole[]): z.infer<typeof assignedRoleDto>[] {
  const byRole = new Map<number, AssignedRole>();
  for (const a of assigned) {
    const seen = byRole.get(a.role.id);
    if (!seen || outlasts(a.window, seen.window)) byRole.set(a.role.id, a);
  }
  return [...byRole.values()].map(({ role, window }) => ({
    ...roleToJson(role),
    ...(window.notBefore && { notBefore: window.notBefore.toISOString() }),
    ...(window.expiresAt && { expiresAt: window.expiresAt.toISOString() }),
  }));
}

/** True when window `a` holds longer than `b` (no end beats any end; then the later end). */
function outlasts(a: AssignmentWindow, b: AssignmentWindow): boolean {
  if (b.expiresAt === null) return false;
  return a.expiresAt === null || a.expiresAt > b.expiresAt;
}

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
      summary: `List the roles assigned directly to a ${s.who}; a time-bound one with notBefore and expiresAt`,
      query: [INCLUDE_HIDDEN_PARAM],
      response: z.array(assignedRoleDto),
      handler: async ({ principal, services, params, query }) =>
        assignedRolesJson(await s.assignments(services).listAssignments(principal, params[s.param], includeHiddenParam(query))),
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
