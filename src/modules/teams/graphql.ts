/** The Team type with the team queries and mutations; every resolver calls one TeamService method. */

import { needs } from '../../kernel/requirements.js';
import { teamRoleRequirements } from '../assignments/service.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { UserType } from '../users/graphql.js';

builder.prismaObject('Team', {
  description: 'A team of one organization. Its id is the one REST paths take as :teamId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    orgId: t.exposeInt('orgId'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    members: t.field({
      type: [UserType],
      description: 'Members of the team, by login.',
      select: (_args, _ctx, nestedSelection) => ({
        members: { orderBy: [{ user: { login: 'asc' } }], select: { user: nestedSelection(true) } },
      }),
      resolve: (team) => team.members.map((m) => m.user),
    }),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    roles: t.prismaField({
      type: ['Role'],
      description: `Roles assigned to the team; not basic roles. ${needs(teamRoleRequirements.read)}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles. Basic roles are never listed.' }) },
      resolve: (query, team, args, ctx) =>
        ctx.services.teamRoles.list(ctx.principal, team.id, args, query, team.orgId === ctx.principal.orgId),
    }),
  }),
});

export const CreateTeamInput = builder.inputType('CreateTeamInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique in the organization; at most 190 characters.' }),
    email: t.string({ description: 'Optional email address of the team.' }),
  }),
});

export const UpdateTeamInput = builder.inputType('UpdateTeamInput', {
  fields: (t) => ({
    name: t.string({ description: 'Unchanged when omitted.' }),
    email: t.string({ description: 'Unchanged when omitted; "" clears it.' }),
  }),
});

const memberArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  teamId: t.arg.int({ required: true }),
  userId: t.arg.int({ required: true, description: "A member of the team's organization." }),
});

builder.queryFields((t) => ({
  teams: t.prismaField({
    type: ['Team'],
    description: 'Teams of the current organization the caller may read (teams:read).',
    resolve: (query, _root, _args, ctx) => ctx.services.teams.list(ctx.principal, query),
  }),
  team: t.prismaField({
    type: 'Team',
    description: 'One team of the current organization. Needs teams:read on teams:id:<id>.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.get(ctx.principal, args.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createTeam: t.prismaField({
    type: 'Team',
    description: 'Creates a team in the current organization. Needs teams:create.',
    args: { input: t.arg({ type: CreateTeamInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.create(ctx.principal, args.input, query),
  }),
  updateTeam: t.prismaField({
    type: 'Team',
    description: 'Renames a team or changes its email. Needs teams:write on teams:id:<id>.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateTeamInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.update(ctx.principal, args.id, args.input, query),
  }),
  deleteTeam: t.field({
    type: MessagePayload,
    description: 'Deletes a team with its memberships and role assignments. Needs teams:delete on teams:id:<id>.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teams.delete(ctx.principal, args.id),
  }),
  addTeamMember: t.prismaField({
    type: 'Team',
    description: 'Adds a member of the organization to a team. Needs teams:write on teams:id:<teamId>.',
    args: memberArgs(t),
    resolve: (query, _root, args, ctx) => ctx.services.teams.addMember(ctx.principal, args, query),
  }),
  removeTeamMember: t.prismaField({
    type: 'Team',
    description: 'Removes a member from a team. Needs teams:write on teams:id:<teamId>.',
    args: memberArgs(t),
    resolve: (query, _root, args, ctx) => ctx.services.teams.removeMember(ctx.principal, args, query),
  }),
}));
