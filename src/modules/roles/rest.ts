/**
 * REST door of the roles feature: its routes (service-interface.md "Roles") and the JSON shape of
 * a role. Each handler parses the request, calls one RoleService / ResetService method and
 * shapes the answer.
 */
import { z } from 'zod';
import type { Role } from '../../generated/prisma/client.js';
import { jsonTime, messageJson, PAGE_PARAM, PER_PAGE_PARAM, parseBooleanParam, type Route, searchPageSchema } from '../shared/rest.js';
import { createRoleInput, updateRoleInput } from './inputs.js';
import { roleRequirements } from './requirements.js';
import { resetInput, resetRequirements } from './reset.js';
import { ROLE_WITH_PERMISSIONS } from './service.js';

/** A role as the REST door answers it (upstream-behaviour.md "Roles", JSON role). */
export interface RoleJson {
  uid: string;
  name: string;
  displayName: string;
  description: string;
  group: string;
  hidden: boolean;
  global: boolean;
  version: number;
  created: string;
  updated: string;
  /** The longest assignment in seconds; absent: no limit (Grafana's roles have none). */
  maxAssignmentSeconds?: number;
  permissions?: { action: string; scope: string; created: string; updated: string }[];
}

/** RoleJson as a schema (Grafana's RoleDTO), for the OpenAPI document. */
export const roleDto = z
  .strictObject({
    uid: z.string(),
    name: z.string(),
    displayName: z.string(),
    description: z.string(),
    group: z.string(),
    hidden: z.boolean(),
    global: z.boolean(),
    version: z.int().nonnegative(),
    created: jsonTime(),
    updated: jsonTime(),
    maxAssignmentSeconds: z.int().positive().optional().meta({ description: 'The longest assignment in seconds; absent: no limit' }),
    permissions: z
      .array(z.strictObject({ action: z.string(), scope: z.string(), created: jsonTime(), updated: jsonTime() }))
      .optional()
      .meta({ description: 'Only when one role is answered, not in listings' }),
  })
  .meta({ id: 'RoleDTO' });

// RoleJson and roleDto describe one shape: each must be assignable to the other.
const _roleJsonIsRoleDto: [RoleJson, z.infer<typeof roleDto>] extends [z.infer<typeof roleDto>, RoleJson] ? true : never = true;

type PermissionRow = { action: string; scope: string; created: Date; updated: Date };

/** JSON shape of a role row; `permissions` only when loaded. */
export function roleToJson(role: Role & { permissions?: PermissionRow[] }): RoleJson {
  const json: RoleJson = {
    uid: role.uid,
    name: role.name,
    displayName: role.displayName,
    description: role.description,
    group: role.group,
    hidden: role.hidden,
    global: role.orgId === 0,
    version: role.version,
    created: role.created.toISOString(),
    updated: role.updated.toISOString(),
  };
  if (role.maxAssignmentSeconds !== null) json.maxAssignmentSeconds = role.maxAssignmentSeconds;
  if (role.permissions) {
    json.permissions = role.permissions.map((p) => ({
      action: p.action,
      scope: p.scope,
      created: p.created.toISOString(),
      updated: p.updated.toISOString(),
    }));
  }
  return json;
}

/** A listing row's JSON, made once per row the listing cache shares between requests (listing-cache.ts freezes them). */
const listedJson = new WeakMap<Role, RoleJson>();

/** A whole listing's JSON rows, once per frozen listing (listing-page.ts shares them): a shared answer (http/answer-cache.ts). */
const listingJson = new WeakMap<readonly Role[], readonly RoleJson[]>();

/** The JSON rows of `rows`; a frozen listing keeps its frozen array, whose bytes are then made once per listing. */
function listingRowsJson(rows: readonly Role[]): readonly RoleJson[] {
  if (!Object.isFrozen(rows)) return rows.map(listedRoleJson);
  let json = listingJson.get(rows);
  if (!json) {
    json = Object.freeze(rows.map(listedRoleJson));
    listingJson.set(rows, json);
  }
  return json;
}

/** roleToJson of a listed role; rows of the listing cache keep theirs (no shaping per request). */
function listedRoleJson(role: Role): RoleJson {
  if (!Object.isFrozen(role)) return roleToJson(role);
  let json = listedJson.get(role);
  if (!json) {
    json = Object.freeze(roleToJson(role));
    listedJson.set(role, json);
  }
  return json;
}

/** A page of the role listing (with `page` or `perpage`), in the shape of Grafana's searches. */
const rolePageDto = searchPageSchema('RoleSearchResult', 'roles', roleDto);

const withPermissions = ROLE_WITH_PERMISSIONS;

/** Role routes, the access-control status and the hard reset. */
export const roleRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/access-control/status',
    requires: roleRequirements.status,
    summary: 'Whether role-based access control is enabled',
    response: z.strictObject({ enabled: z.boolean() }),
    handler: ({ principal, services }) => services.roles.status(principal),
  },
  {
    method: 'GET',
    path: '/api/access-control/roles',
    requires: roleRequirements.read,
    summary:
      'List the global roles and those of the current organization (without permissions): an array (Grafana), or with page or perpage one page {totalCount, roles, page, perPage}',
    response: z.union([z.array(roleDto), rolePageDto]),
    query: [
      { name: 'includeHidden', type: 'boolean', description: 'Include hidden roles' },
      { name: 'delegatable', type: 'boolean', description: 'Only roles the caller may assign (every permission held)' },
      PAGE_PARAM,
      PER_PAGE_PARAM,
    ],
    handler: async ({ principal, services, query }) => {
      const options = {
        includeHidden: parseBooleanParam('includeHidden', query.get('includeHidden')),
        delegatable: parseBooleanParam('delegatable', query.get('delegatable')),
      };
      // Grafana's listing has no paging: without either parameter its array, unchanged.
      if (!query.has(PAGE_PARAM.name) && !query.has(PER_PAGE_PARAM.name)) {
        return listingRowsJson(await services.roles.list(principal, options));
      }
      const page = await services.roles.page(principal, options, {
        page: query.get(PAGE_PARAM.name),
        perpage: query.get(PER_PAGE_PARAM.name),
      });
      return { totalCount: page.totalCount, roles: page.rows.map(listedRoleJson), page: page.page, perPage: page.perPage };
    },
  },
  {
    method: 'GET',
    path: '/api/access-control/actions',
    requires: roleRequirements.read,
    summary: 'Every known action (built-in, registered by products, or held by a role) with the fixed roles carrying it, by action',
    response: z.array(
      z.strictObject({
        action: z.string(),
        fixedRoles: z.array(z.strictObject({ uid: z.string(), name: z.string(), displayName: z.string() })),
      }),
    ),
    query: [{ name: 'prefix', type: 'string', description: 'Only actions starting with it, e.g. "notes:" or "users"' }],
    // The REST twin of GraphQL `actions(prefix)`: the same RoleService.actions.
    handler: async ({ principal, services, query }) =>
      (await services.roles.actions(principal, query.get('prefix'))).map(({ action, fixedRoles }) => ({
        action,
        fixedRoles: fixedRoles.map((r) => ({ uid: r.uid, name: r.name, displayName: r.displayName })),
      })),
  },
  {
    method: 'GET',
    path: '/api/access-control/roles/:uid',
    requires: roleRequirements.read,
    summary: 'Get a role with its permissions',
    response: roleDto,
    handler: async ({ principal, services, params }) =>
      roleToJson(await services.roles.get(principal, params.uid as string, withPermissions)),
  },
  {
    method: 'POST',
    path: '/api/access-control/roles',
    requires: roleRequirements.write,
    summary: 'Create a custom role',
    body: createRoleInput,
    response: roleDto,
    handler: async ({ principal, services, body }) => roleToJson(await services.roles.create(principal, body, withPermissions)),
  },
  {
    method: 'PUT',
    path: '/api/access-control/roles/:uid',
    requires: roleRequirements.write,
    summary: 'Update a custom or basic role (a higher version; permissions replaced)',
    body: updateRoleInput,
    response: roleDto,
    handler: async ({ principal, services, params, body }) =>
      roleToJson(await services.roles.update(principal, params.uid as string, body, withPermissions)),
  },
  {
    method: 'DELETE',
    path: '/api/access-control/roles/:uid',
    requires: roleRequirements.delete,
    summary: 'Delete a custom role',
    response: messageJson,
    query: [
      { name: 'force', type: 'boolean', description: 'Also remove its assignments (otherwise an assigned role is kept, 400)' },
      { name: 'global', type: 'boolean', description: 'The role is global' },
    ],
    handler: ({ principal, services, params, query }) =>
      services.roles.delete(principal, params.uid as string, {
        force: parseBooleanParam('force', query.get('force')),
        global: parseBooleanParam('global', query.get('global')),
      }),
  },
  {
    method: 'POST',
    path: '/api/access-control/roles/hard-reset',
    requires: resetRequirements.reset,
    summary: 'Reset the basic roles to their default permissions',
    body: resetInput,
    response: messageJson,
    handler: ({ principal, services, body }) => services.basicRoles.reset(principal, body),
  },
];
