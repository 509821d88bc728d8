/**
 * GraphQL door of role assignments: the add, remove and set mutations for users, service
 * accounts and teams, and the batches the `roles` fields of their types (User, ServiceAccount,
 * Team) load through, one per path and request.
 * Every resolver calls one SubjectAssignments method, the same the REST routes call; the
 * descriptions are the requirements the core checks.
 */
import type { Role } from '../../generated/prisma/client.js';
import { needs } from '../../kernel/requirements.js';
import type { RoleQuery } from '../roles/service.js';
import { batchByPath } from '../shared/batch.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import type { ListOptions } from './listing.js';
import { teamRoleRequirements, userRoleRequirements } from './stores.js';

builder.mutationFields((t) => ({
  addUserRole: t.field({
    type: MessagePayload,
    description: `Assigns a role to a user or service account. ${needs(userRoleRequirements.add)}`,
    args: {
      userId: t.arg.int({ required: true }),
      roleUid: t.arg.string({ required: true }),
      global: t.arg.boolean({ description: 'Assign in every organization (Service Admin only). Default: the current organization.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.userRoles.add(ctx.principal, args.userId, { roleUid: args.roleUid, global: args.global }),
  }),
  removeUserRole: t.field({
    type: MessagePayload,
    description: `Removes a role from a user or service account. ${needs(userRoleRequirements.remove)}`,
    args: {
      userId: t.arg.int({ required: true }),
      roleUid: t.arg.string({ required: true }),
      global: t.arg.boolean({ description: 'Remove the global assignment instead of the current organization one.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.userRoles.remove(ctx.principal, args.userId, args.roleUid, args),
  }),
  setUserRoles: t.field({
    type: MessagePayload,
    description: `Makes the roles of a user or service account exactly roleUids. ${needs(userRoleRequirements.set)}`,
    args: {
      userId: t.arg.int({ required: true }),
      roleUids: t.arg.stringList({ required: true }),
      global: t.arg.boolean({ description: 'Set the global assignments (Service Admin only) instead of the current organization ones.' }),
      includeHidden: t.arg.boolean({ description: 'Also remove hidden roles absent from roleUids; without it they stay.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.userRoles.set(ctx.principal, args.userId, args),
  }),
  addTeamRole: t.field({
    type: MessagePayload,
    description: `Assigns a role to a team. ${needs(teamRoleRequirements.add)}`,
    args: { teamId: t.arg.int({ required: true }), roleUid: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teamRoles.add(ctx.principal, args.teamId, { roleUid: args.roleUid }),
  }),
  removeTeamRole: t.field({
    type: MessagePayload,
    description: `Removes a role from a team. ${needs(teamRoleRequirements.remove)}`,
    args: { teamId: t.arg.int({ required: true }), roleUid: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teamRoles.remove(ctx.principal, args.teamId, args.roleUid, {}),
  }),
  setTeamRoles: t.field({
    type: MessagePayload,
    description: `Makes the roles of a team exactly roleUids. ${needs(teamRoleRequirements.set)}`,
    args: {
      teamId: t.arg.int({ required: true }),
      roleUids: t.arg.stringList({ required: true }),
      includeHidden: t.arg.boolean({ description: 'Also remove hidden roles absent from roleUids; without it they stay.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.teamRoles.set(ctx.principal, args.teamId, args),
  }),
}));

/** The shared inputs of a batch of `roles` fields: the field's arguments and the Prisma selection of its roles. */
interface RolesField {
  args: ListOptions;
  query: RoleQuery;
}

/** `User.roles` and `ServiceAccount.roles` of every row at one path, in one batch (shared/batch.ts). */
export const userRolesBatch = batchByPath<number, Role[], RolesField>((ids, ctx, { args, query }) =>
  ctx.services.userRoles.listMany(ctx.principal, ids, args, query),
);

/** `Team.roles` of every row at one path, in one batch (shared/batch.ts). */
export const teamRolesBatch = batchByPath<number, Role[], RolesField>((ids, ctx, { args, query }) =>
  ctx.services.teamRoles.listMany(ctx.principal, ids, args, query),
);
