/**
 * The Team type with the team queries and mutations; every resolver calls one TeamService
 * method, the same as its REST twin (rest.ts).
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { Team } from '../../generated/prisma/client.js';
import { needs } from '../../kernel/requirements.js';
import { teamRolesBatch } from '../assignments/graphql.js';
import { teamRoleRequirements } from '../assignments/service.js';
import { builder, DEFAULT_LIST_BOUND, DENIABLE } from '../shared/builder.js';
import { avatarUrl } from '../shared/directory.js';
import { MessagePayload } from '../shared/message.js';
import { MAX_PAGE_SIZE, pageSize, requestedRows } from '../shared/paging.js';
import { UserType } from '../users/graphql.js';
import { teamRequirements } from './service.js';

export const TeamType = builder.prismaObject('Team', {
  description: 'A team of one organization. Its id is the one REST paths take as :teamId.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    orgId: t.exposeInt('orgId'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    avatarUrl: t.string({
      description: "Grafana's avatar address: /avatar/<md5 of the email, or of the name when there is none>.",
      select: { email: true, name: true },
      resolve: (team) => avatarUrl(team.email, team.name),
    }),
    memberCount: t.relationCount('members', { description: 'Number of members.' }),
    members: t.field({
      type: [UserType],
      description: `The first members of the team by login: \`first\` of them (default ${DEFAULT_LIST_BOUND}, at most ${MAX_PAGE_SIZE}; compare memberCount). Every member: teamMembers.`,
      args: { first: t.arg.int({ description: `How many (default ${DEFAULT_LIST_BOUND}, at most ${MAX_PAGE_SIZE}).` }) },
      // Bounded, so the cost estimate (use-graphql-limits.ts) is an upper bound: members of members' teams multiply.
      complexity: (args) => ({ field: 1, multiplier: requestedRows(args.first, DEFAULT_LIST_BOUND) }),
      select: (args, _ctx, nestedSelection) => ({
        members: {
          orderBy: [{ user: { login: 'asc' } }],
          take: pageSize('first', args.first, DEFAULT_LIST_BOUND),
          select: { user: nestedSelection(true) },
        },
      }),
      resolve: (team) => team.members.map((m) => m.user),
    }),
    created: t.expose('created', { type: 'DateTime' }),
    updated: t.expose('updated', { type: 'DateTime' }),
    roles: t.prismaField({
      type: ['Role'],
      nullable: true,
      description: `Roles assigned to the team; not basic roles. ${needs(teamRoleRequirements.read)} ${DENIABLE}`,
      args: { includeHidden: t.arg.boolean({ description: 'Include hidden roles. Basic roles are never listed.' }) },
      resolve: (query, team, args, ctx, info) => teamRolesBatch(team.id, { args, query: { ...query } }, ctx, info),
    }),
  }),
});

/** One page of teamSearch, the shape of Grafana's SearchTeamQueryResult. */
const TeamSearchResult = builder
  .objectRef<{ totalCount: number; page: number; perPage: number; teams: Team[] }>('TeamSearchResult')
  .implement({
    description: 'One page of a team search (REST: GET /api/teams/search).',
    fields: (t) => ({
      totalCount: t.exposeInt('totalCount', { description: 'Number of matching teams on every page.' }),
      page: t.exposeInt('page'),
      perPage: t.exposeInt('perPage'),
      teams: t.field({ type: [TeamType], description: 'This page, in the requested order.', resolve: (result) => result.teams }),
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
    description: `Teams of the current organization the caller may read (${teamRequirements.search.text()}).`,
    resolve: (query, _root, _args, ctx) => ctx.services.teams.list(ctx.principal, query),
  }),
  teamSearch: t.field({
    type: TeamSearchResult,
    description: `One page of the teams of the current organization the caller may read, as Grafana's team search. ${needs(teamRequirements.search)}`,
    args: {
      query: t.arg.string({ description: 'Part of the name, in any case.' }),
      name: t.arg.string({ description: 'The whole name.' }),
      teamIds: t.arg.intList({ description: 'Only these teams.' }),
      page: t.arg.int({ description: 'Page number from 1 (default 1).' }),
      perPage: t.arg.int({ description: 'Teams per page (default 1000, at most 1000).' }),
      sort: t.arg.string({
        description: 'Comma-separated name-asc, name-desc, email-asc, email-desc, memberCount-asc, memberCount-desc (default name-asc).',
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const page = await ctx.services.teams.search(ctx.principal, args, queryFromInfo({ context: ctx, info, path: ['teams'] }));
      return { totalCount: page.totalCount, page: page.page, perPage: page.perPage, teams: page.rows };
    },
  }),
  team: t.prismaField({
    type: 'Team',
    description: `One team of the current organization. ${needs(teamRequirements.read)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.get(ctx.principal, args.id, query),
  }),
  teamMembers: t.prismaField({
    type: ['User'],
    description: `Members of a team of the current organization, by login (REST: GET /api/teams/:teamId/members). ${needs(teamRequirements.readMembers)}`,
    args: { teamId: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.members(ctx.principal, args.teamId, query),
  }),
}));

builder.mutationFields((t) => ({
  createTeam: t.prismaField({
    type: 'Team',
    description: `Creates a team in the current organization. ${needs(teamRequirements.create)}`,
    args: { input: t.arg({ type: CreateTeamInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.create(ctx.principal, args.input, query),
  }),
  updateTeam: t.prismaField({
    type: 'Team',
    description: `Renames a team or changes its email. ${needs(teamRequirements.write)}`,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateTeamInput, required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.teams.update(ctx.principal, args.id, args.input, query),
  }),
  deleteTeam: t.field({
    type: MessagePayload,
    description: `Deletes a team with its memberships and role assignments. ${needs(teamRequirements.delete)}`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.teams.delete(ctx.principal, args.id),
  }),
  addTeamMember: t.prismaField({
    type: 'Team',
    description: `Adds a member of the organization to a team. ${needs(teamRequirements.addMember)}`,
    args: memberArgs(t),
    resolve: (query, _root, args, ctx) => ctx.services.teams.addMember(ctx.principal, args.teamId, { userId: args.userId }, query),
  }),
  removeTeamMember: t.prismaField({
    type: 'Team',
    description: `Removes a member from a team. ${needs(teamRequirements.writeMembers)}`,
    args: memberArgs(t),
    resolve: (query, _root, args, ctx) => ctx.services.teams.removeMember(ctx.principal, args.teamId, args.userId, query),
  }),
}));
