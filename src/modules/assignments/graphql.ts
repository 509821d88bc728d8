/**
 * GraphQL door of role assignments: the add, remove and set mutations for users, service
 * accounts and teams, and the batches the `roles` fields of their types (User, ServiceAccount,
 * Team) load through, one per path and request.
 * Every resolver calls one SubjectAssignments method, the same the REST routes call; the
 * descriptions are the requirements the core checks.
 */
import type { Role } from '../../generated/prisma/client.js';
import { needs } from '../../kernel/requirements.js';
import { RoleObject } from '../roles/graphql.js';
import type { RoleQuery } from '../roles/service.js';
import { batchByPath } from '../shared/batch.js';
import { builder, DENIABLE } from '../shared/builder.js';
import type { GraphQLContext } from '../shared/context.js';
import { MessagePayload } from '../shared/message.js';
import type { SubjectAssignments } from './core.js';
import type { AssignedRole, ListOptions } from './listing.js';
import { teamRoleRequirements, userRoleRequirements } from './stores.js';

/** The optional window of add and set (window.ts): both absent assign for good, as Grafana. */
const windowArgs = builder.args((t) => ({
  notBefore: t.field({ type: 'DateTime', description: 'Held from this moment; absent: at once.' }),
  expiresAt: t.field({
    type: 'DateTime',
    description: 'Held until this moment, refused from it on; absent: for good (not allowed when the role has maxAssignmentSeconds).',
  }),
}));

builder.mutationFields((t) => ({
  addUserRole: t.field({
    type: MessagePayload,
    description: `Assigns a role to a user or service account. ${needs(userRoleRequirements.add)}`,
    args: {
      userId: t.arg.int({ required: true }),
      roleUid: t.arg.string({ required: true }),
      global: t.arg.boolean({ description: 'Assign in every organization (Service Admin only). Default: the current organization.' }),
      ...windowArgs,
    },
    resolve: (_root, args, ctx) => ctx.services.userRoles.add(ctx.principal, args.userId, args),
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
      ...windowArgs,
    },
    resolve: (_root, args, ctx) => ctx.services.userRoles.set(ctx.principal, args.userId, args),
  }),
  addTeamRole: t.field({
    type: MessagePayload,
    description: `Assigns a role to a team. ${needs(teamRoleRequirements.add)}`,
    args: { teamId: t.arg.int({ required: true }), roleUid: t.arg.string({ required: true }), ...windowArgs },
    resolve: (_root, args, ctx) => ctx.services.teamRoles.add(ctx.principal, args.teamId, args),
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
      ...windowArgs,
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

/** One assignment as GraphQL shows it, with how it reaches its subject. */
type RoleAssignmentShape = AssignedRole & { source: 'org' | 'global' | 'team' };

export const RoleAssignment = builder.objectRef<RoleAssignmentShape>('RoleAssignment').implement({
  description: 'A role assigned to a user, service account or team, with where it was assigned and when it is held.',
  fields: (t) => ({
    role: t.field({ type: RoleObject, resolve: (a) => a.role }),
    source: t.exposeString('source', {
      description: 'org: assigned in the current organization; global: in every organization; team: to the team.',
    }),
    notBefore: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Held from this moment (pending until then); null: at once.',
      resolve: (a) => a.window.notBefore,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Held until this moment; null: for good.',
      resolve: (a) => a.window.expiresAt,
    }),
  }),
});

const assignmentsBatch = (assignments: (ctx: GraphQLContext) => SubjectAssignments) =>
  batchByPath<number, RoleAssignmentShape[], ListOptions>(async (ids, ctx, args) =>
    (await assignments(ctx).listAssignmentsMany(ctx.principal, ids, args)).map((answer) =>
      answer instanceof Error
        ? answer
        : answer.map(
            (a): RoleAssignmentShape => ({
              ...a,
              source: assignments(ctx) === ctx.services.teamRoles ? 'team' : a.global ? 'global' : 'org',
            }),
          ),
    ),
  );
/** `roleAssignments` of users and service accounts, batched per path. */
export const userAssignmentsBatch = assignmentsBatch((ctx) => ctx.services.userRoles);
const teamAssignmentsBatch = assignmentsBatch((ctx) => ctx.services.teamRoles);

/** The description of every `roleAssignments` field. */
export const ROLE_ASSIGNMENTS = 'Assignments in force or pending (ended ones are not listed), each with its window; basic roles never.';
const includeHidden = builder.args((t) => ({ includeHidden: t.boolean({ description: 'Include hidden roles.' }) }));

builder.prismaObjectFields('User', (t) => ({
  roleAssignments: t.field({
    type: [RoleAssignment],
    nullable: true,
    description: `${ROLE_ASSIGNMENTS} ${needs(userRoleRequirements.read)} ${DENIABLE}`,
    args: includeHidden,
    resolve: (user, args, ctx, info) => userAssignmentsBatch(user.id, args, ctx, info),
  }),
}));

builder.prismaObjectFields('Team', (t) => ({
  roleAssignments: t.field({
    type: [RoleAssignment],
    nullable: true,
    description: `${ROLE_ASSIGNMENTS} ${needs(teamRoleRequirements.read)} ${DENIABLE}`,
    args: includeHidden,
    resolve: (team, args, ctx, info) => teamAssignmentsBatch(team.id, args, ctx, info),
  }),
}));
