/**
 * GraphQL door of the roles feature: the Role type with all its fields, its inputs, queries and
 * mutations, and the basic-role reset. Every resolver calls one RoleService / BasicRoleService
 * method, the same the REST routes call; descriptions name the requirement the service checks.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Role } from '../../generated/prisma/client.js';
import { isBasicRoleName } from '../../kernel/builtin-roles.js';
import { needs } from '../../kernel/requirements.js';
import { batchByPath } from '../shared/batch.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { PermissionInput } from '../shared/permission.js';
import { DEFAULT_ROLES_FIRST, type RoleSlice, roleCursor } from './listing-page.js';
import { roleRequirements } from './requirements.js';
import { resetRequirements } from './reset.js';
import type { RoleQuery } from './service.js';

/**
 * `Role.grantedRoles` of every basic role at one path of a request, from one read of the grants
 * (shared/batch.ts): a listing of basic roles reads them once, not once per role; a mutation
 * document that changes grants between two root fields reads them afresh (another path).
 */
const grantedRolesBatch = batchByPath<string, Role[], RoleQuery>(async (names, ctx, query) => {
  const granted = await ctx.services.roles.grantedRoles(ctx.principal, query);
  return names.map((name) => granted.get(name) ?? []);
});

/** The Role type, for fields of other types that answer rows already loaded. */
export const RoleObject = builder.prismaObject('Role', {
  description: 'A role: basic (basic:*), fixed (fixed:*) or custom, global or local to one organization.',
  fields: (t) => ({
    uid: t.exposeString('uid'),
    name: t.exposeString('name'),
    displayName: t.exposeString('displayName'),
    description: t.exposeString('description'),
    group: t.exposeString('group'),
    hidden: t.exposeBoolean('hidden', { description: 'Hidden roles are listed only with includeHidden.' }),
    maxAssignmentSeconds: t.exposeInt('maxAssignmentSeconds', {
      nullable: true,
      description: 'The longest assignment of the role in seconds; null: no limit.',
    }),
    global: t.boolean({
      description: 'True for a global role (organization id 0), false for an organization-local one.',
      select: { orgId: true },
      resolve: (role) => role.orgId === 0,
    }),
    version: t.exposeInt('version', { description: 'Each update must send a higher version.' }),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    permissions: t.relation('permissions', {
      description:
        "The role's own permissions. For a basic role, not those of the roles it grants (grantedRoles), which its holders get too.",
      query: { orderBy: [{ action: 'asc' }, { scope: 'asc' }] },
    }),
    grantedRoles: t.prismaField({
      type: ['Role'],
      description:
        "Fixed roles registered by products (plugins:<productId>:<name>) that this basic role grants, by name, Viewer -> Editor -> Admin inheritance included (a grant to Viewer is listed on Editor and Admin too; Service Admin only when named); empty for other roles. Every holder of the basic role gets their permissions, beside the basic role's own `permissions`: they are kept apart (Grafana Enterprise assigns plugin roles to basic roles as fixed roles), so updating the basic role neither copies nor removes them, and a product's re-registration withdraws them. Rule: plugin.json `grants` (upstream-behaviour.md \"Escalation and provisioning\"). REST keeps Grafana's role shape and has no such field: GET /api/access-control/roles/:uid answers the basic role's own permissions only.",
      resolve: (query, role, _args, ctx, info) => {
        const selection = { ...query }; // read for every row: the Prisma plugin's sign that `query` was used (shared/batch.ts)
        return isBasicRoleName(role.name) ? grantedRolesBatch(role.name, selection, ctx, info) : []; // other roles grant none
      },
    }),
  }),
});

/** The connection of one window of the listing: cursors are positions (listing-page.roleCursor). */
function roleConnection(slice: RoleSlice) {
  const edges = slice.rows.map((node, i) => ({ cursor: roleCursor(slice.offset + i), node }));
  const pageInfo = {
    hasNextPage: slice.offset + slice.rows.length < slice.totalCount,
    hasPreviousPage: slice.offset > 0,
    startCursor: edges[0]?.cursor ?? null,
    endCursor: edges.at(-1)?.cursor ?? null,
  };
  return { edges, pageInfo, totalCount: slice.totalCount };
}

export const CreateRoleInput = builder.inputType('CreateRoleInput', {
  fields: (t) => ({
    uid: t.string({
      description: 'Generated when omitted. At most 40 of [a-zA-Z0-9_-], not beginning with fixed_, basic_, plugins_, prov_ or managed_.',
    }),
    global: t.boolean({ description: 'Create a global role (Service Admin only). Default false.' }),
    version: t.int({ description: 'Default 0; at most 2147483646, so that an update (a higher version) stays possible.' }),
    name: t.string({
      required: true,
      description:
        'At most 190 characters, stored NFC; must not begin with "fixed:", "basic:", "plugins:" or "managed:" nor a look-alike of them.',
    }),
    displayName: t.string(),
    description: t.string(),
    group: t.string(),
    hidden: t.boolean(),
    maxAssignmentSeconds: t.int({
      description: 'The longest assignment of the role in seconds (expiresAt then required). Default: no limit.',
    }),
    permissions: t.field({ type: [PermissionInput], description: 'Default: no permissions.' }),
  }),
});

export const UpdateRoleInput = builder.inputType('UpdateRoleInput', {
  fields: (t) => ({
    version: t.int({ required: true, description: 'Must be greater than the stored version; a role at 2147483647 accepts 2147483647.' }),
    name: t.string({ required: true }),
    displayName: t.string({ description: 'Unchanged when omitted.' }),
    description: t.string({ description: 'Unchanged when omitted.' }),
    group: t.string({ description: 'Unchanged when omitted.' }),
    hidden: t.boolean({ description: 'Unchanged when omitted.' }),
    maxAssignmentSeconds: t.int({ description: 'Unchanged when omitted; null: no limit.' }),
    permissions: t.field({ type: [PermissionInput], description: 'The complete list after the update; unchanged when omitted.' }),
  }),
});

const AccessControlStatus = builder.objectRef<{ enabled: boolean }>('AccessControlStatus').implement({
  fields: (t) => ({ enabled: t.exposeBoolean('enabled') }),
});

builder.queryFields((t) => ({
  accessControlStatus: t.field({
    type: AccessControlStatus,
    description: `Whether role-based access control is enabled. ${needs(roleRequirements.status)}`,
    resolve: (_root, _args, ctx) => ctx.services.roles.status(ctx.principal),
  }),
  roles: t.prismaField({
    type: ['Role'],
    description: `Global roles and the roles of the current organization, by name then id, all at once (rolesConnection pages them). ${needs(roleRequirements.read)}`,
    args: {
      includeHidden: t.arg.boolean({ description: 'Include hidden roles (basic roles among them).' }),
      delegatable: t.arg.boolean({ description: 'Only the roles the caller may assign (to users or teams); never basic roles.' }),
    },
    resolve: (query, _root, args, ctx) => ctx.services.roles.list(ctx.principal, args, query),
  }),
  rolesConnection: t.connection(
    {
      type: RoleObject,
      description: `The roles of \`roles\`, a page at a time (Relay connection): \`first\` after cursor \`after\`, or \`last\` before cursor \`before\` (default ${DEFAULT_ROLES_FIRST}, at most 1000). ${needs(roleRequirements.read)}`,
      args: {
        includeHidden: t.arg.boolean({ description: 'Include hidden roles (basic roles among them).' }),
        delegatable: t.arg.boolean({ description: 'Only the roles the caller may assign (to users or teams); never basic roles.' }),
      },
      resolve: async (_root, args, ctx, info) => {
        const query = queryFromInfo({ context: ctx, info, path: ['edges', 'node'] });
        return roleConnection(await ctx.services.roles.window(ctx.principal, args, args, query));
      },
    },
    {
      name: 'RoleConnection',
      description: 'Roles, by name then id.',
      fields: (c) => ({
        totalCount: c.int({
          description: 'Roles listed with these arguments, on every page.',
          resolve: (connection) => connection.totalCount,
        }),
      }),
    },
    { name: 'RoleEdge' },
  ),
  role: t.prismaField({
    type: 'Role',
    description: `One role by uid. ${needs(roleRequirements.read)}`,
    args: { uid: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.roles.get(ctx.principal, args.uid, query),
  }),
}));

const ActionInfo = builder.objectRef<{ action: string; fixedRoles: Role[] }>('ActionInfo').implement({
  description: 'A known action and the fixed roles (fixed: and registered plugins:) that carry it.',
  fields: (t) => ({
    action: t.exposeString('action'),
    fixedRoles: t.field({ type: [RoleObject], resolve: (a) => a.fixedRoles }),
  }),
});

builder.queryField('actions', (t) =>
  t.field({
    type: [ActionInfo],
    description: `Every known action (built-in, registered by products, or held by a role) starting with prefix, with the fixed roles carrying it, for role editors. ${needs(roleRequirements.read)}`,
    args: { prefix: t.arg.string({ description: 'Only actions starting with it, e.g. "notes:" or "users".' }) },
    resolve: (_root, args, ctx) => ctx.services.roles.actions(ctx.principal, args.prefix),
  }),
);

builder.mutationFields((t) => ({
  createRole: t.prismaField({
    type: 'Role',
    description: `Creates a custom role. ${needs(roleRequirements.write)}`,
    args: { input: t.arg({ type: CreateRoleInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.roles.create(ctx.principal, args.input, query),
  }),
  updateRole: t.prismaField({
    type: 'Role',
    description: `Updates a custom or basic role. ${needs(roleRequirements.write)}`,
    args: { uid: t.arg.string({ required: true }), input: t.arg({ type: UpdateRoleInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.roles.update(ctx.principal, args.uid, args.input, query),
  }),
  deleteRole: t.field({
    type: MessagePayload,
    description: `Deletes a custom role. ${needs(roleRequirements.delete)}`,
    args: {
      uid: t.arg.string({ required: true }),
      force: t.arg.boolean({ description: 'Also delete its assignments; without it an assigned role is refused.' }),
      global: t.arg.boolean({ description: 'Delete a global role instead of one of the current organization.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.roles.delete(ctx.principal, args.uid, args),
  }),
}));

builder.mutationFields((t) => ({
  resetBasicRoles: t.field({
    type: MessagePayload,
    description: `With basicRoles true, restores the default permissions of every basic role; otherwise changes nothing. ${needs(resetRequirements.reset)}`,
    args: { basicRoles: t.arg.boolean() },
    resolve: (_root, args, ctx) => ctx.services.basicRoles.reset(ctx.principal, { BasicRoles: args.basicRoles }),
  }),
}));
