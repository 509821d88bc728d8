/**
 * Role assignments and permission listings: fields added to User, ServiceAccount, Team and
 * Viewer, the `userPermissions` query and the assignment and reset mutations. Every resolver
 * calls one AssignmentService / BasicRoleService method, the same the REST routes call.
 */
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { PermissionEntry } from '../shared/permission.js';
import { ServiceAccountType } from '../service-accounts/graphql.js';
import { TeamType } from '../teams/graphql.js';
import { UserType } from '../users/graphql.js';
import { Viewer } from '../permissions/viewer-graphql.js';

const INCLUDE_HIDDEN = 'Include hidden roles. Basic roles are never listed.';

builder.prismaObjectFields(UserType, (t) => ({
  roles: t.prismaField({
    type: ['Role'],
    description:
      'Roles assigned directly to the user in the current organization and globally; not basic roles, not team roles. ' +
      'Needs users.roles:read on users:id:<id>.',
    args: { includeHidden: t.arg.boolean({ description: INCLUDE_HIDDEN }) },
    resolve: (query, user, args, ctx) => ctx.services.assignments.listUserRoles(ctx.principal, user.id, args, query),
  }),
  permissions: t.field({
    type: [PermissionEntry],
    description: 'Effective permissions in the current organization. Needs users.permissions:read on users:id:<id>.',
    resolve: (user, _args, ctx) => ctx.services.assignments.userPermissions(ctx.principal, user.id),
  }),
}));

builder.prismaObjectFields(ServiceAccountType, (t) => ({
  roles: t.prismaField({
    type: ['Role'],
    description:
      'Roles assigned directly to the service account in the current organization and globally; not basic roles. ' +
      'Needs users.roles:read on users:id:<id>.',
    args: { includeHidden: t.arg.boolean({ description: INCLUDE_HIDDEN }) },
    resolve: (query, account, args, ctx) => ctx.services.assignments.listUserRoles(ctx.principal, account.id, args, query),
  }),
  permissions: t.field({
    type: [PermissionEntry],
    description: 'Effective permissions in the current organization. Needs users.permissions:read on users:id:<id>.',
    resolve: (account, _args, ctx) => ctx.services.assignments.userPermissions(ctx.principal, account.id),
  }),
}));

builder.prismaObjectFields(TeamType, (t) => ({
  roles: t.prismaField({
    type: ['Role'],
    description: 'Roles assigned to the team; not basic roles. Needs teams.roles:read on teams:id:<id>.',
    args: { includeHidden: t.arg.boolean({ description: INCLUDE_HIDDEN }) },
    resolve: (query, team, args, ctx) => ctx.services.assignments.listRolesOfTeam(ctx.principal, team, args, query),
  }),
}));

builder.objectFields(Viewer, (t) => ({
  teams: t.prismaField({
    type: ['Team'],
    description: 'Teams the caller belongs to in the current organization, by name (none for an API key).',
    resolve: (query, principal, _args, ctx) => ctx.services.assignments.teamsOfCaller(principal, query),
  }),
}));

builder.queryFields((t) => ({
  userPermissions: t.field({
    type: [PermissionEntry],
    description:
      'Effective permissions of a user or service account in the current organization. Needs users.permissions:read on users:id:<userId>.',
    args: { userId: t.arg.int({ required: true, description: 'Id of a user or service account of the current organization.' }) },
    resolve: (_root, args, ctx) => ctx.services.assignments.userPermissions(ctx.principal, args.userId),
  }),
}));

builder.mutationFields((t) => ({
  addUserRole: t.field({
    type: MessagePayload,
    description:
      'Assigns a role to a user or service account. Needs users.roles:add on permissions:type:delegate and every permission ' +
      'of the role; global also needs a Service Admin.',
    args: {
      userId: t.arg.int({ required: true }),
      roleUid: t.arg.string({ required: true }),
      global: t.arg.boolean({ description: 'Assign in every organization (Service Admin only). Default: the current organization.' }),
    },
    resolve: (_root, args, ctx) =>
      ctx.services.assignments.addUserRole(ctx.principal, args.userId, { roleUid: args.roleUid, global: args.global }),
  }),
  removeUserRole: t.field({
    type: MessagePayload,
    description:
      'Removes a role from a user or service account. Needs users.roles:delete on permissions:type:delegate and every permission ' +
      'of the role; global also needs a Service Admin.',
    args: {
      userId: t.arg.int({ required: true }),
      roleUid: t.arg.string({ required: true }),
      global: t.arg.boolean({ description: 'Remove the global assignment instead of the current organization one.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.assignments.removeUserRole(ctx.principal, args.userId, args.roleUid, args),
  }),
  setUserRoles: t.field({
    type: MessagePayload,
    description:
      'Makes the roles of a user or service account exactly roleUids. Needs users.roles:add and users.roles:delete on ' +
      'permissions:type:delegate and every permission of each role added or removed.',
    args: {
      userId: t.arg.int({ required: true }),
      roleUids: t.arg.stringList({ required: true }),
      global: t.arg.boolean({ description: 'Set the global assignments (Service Admin only) instead of the current organization ones.' }),
      includeHidden: t.arg.boolean({ description: 'Also remove hidden roles absent from roleUids; without it they stay.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.assignments.setUserRoles(ctx.principal, args.userId, args),
  }),
  addTeamRole: t.field({
    type: MessagePayload,
    description: 'Assigns a role to a team. Needs teams.roles:add on permissions:type:delegate and every permission of the role.',
    args: { teamId: t.arg.int({ required: true }), roleUid: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.assignments.addTeamRole(ctx.principal, args.teamId, { roleUid: args.roleUid }),
  }),
  removeTeamRole: t.field({
    type: MessagePayload,
    description: 'Removes a role from a team. Needs teams.roles:delete on permissions:type:delegate and every permission of the role.',
    args: { teamId: t.arg.int({ required: true }), roleUid: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.assignments.removeTeamRole(ctx.principal, args.teamId, args.roleUid),
  }),
  setTeamRoles: t.field({
    type: MessagePayload,
    description:
      'Makes the roles of a team exactly roleUids. Needs teams.roles:add and teams.roles:delete on permissions:type:delegate ' +
      'and every permission of each role added or removed.',
    args: {
      teamId: t.arg.int({ required: true }),
      roleUids: t.arg.stringList({ required: true }),
      includeHidden: t.arg.boolean({ description: 'Also remove hidden roles absent from roleUids; without it they stay.' }),
    },
    resolve: (_root, args, ctx) => ctx.services.assignments.setTeamRoles(ctx.principal, args.teamId, args),
  }),
  resetBasicRoles: t.field({
    type: MessagePayload,
    description:
      'With basicRoles true, restores the default permissions of every basic role; otherwise changes nothing. ' +
      'Needs roles:write on permissions:type:escalate.',
    args: { basicRoles: t.arg.boolean() },
    resolve: (_root, args, ctx) => ctx.services.basicRoles.reset(ctx.principal, { BasicRoles: args.basicRoles }),
  }),
}));
