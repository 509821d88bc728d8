/**
 * REST door of teams, Grafana's paths and shapes (pkg/api team routes, public/openapi3.json
 * TeamDTO, TeamMemberDTO, SearchTeamQueryResult): `GET /api/teams/search`, `POST /api/teams`,
 * `GET|PUT|DELETE /api/teams/:teamId`, `GET|POST /api/teams/:teamId/members`,
 * `DELETE /api/teams/:teamId/members/:userId`. Team role routes live in modules/assignments.
 */
import { z } from 'zod';
import { idFromText, parseId } from '../../kernel/inputs.js';
import {
  avatarUrl,
  type CountedTeam,
  grafanaBody,
  type SearchPage,
  searchPageJson,
  teamToJson,
  WITH_MEMBER_COUNT,
} from '../shared/directory.js';
import {
  ACCESS_CONTROL_PARAM,
  accessControlParam,
  directorySearchParams,
  directorySearchQuery,
  jsonId,
  messageJson,
  type QueryParam,
  type Route,
  searchPageSchema,
  teamDto,
} from '../shared/rest.js';
import { addTeamMemberInput, createTeamInput, updateTeamInput } from './inputs.js';
import { teamRequirements } from './service.js';

/** Grafana's TeamMemberDTO. */
export const teamMemberDto = z
  .strictObject({
    orgId: jsonId(),
    teamId: jsonId(),
    userId: jsonId(),
    auth_module: z.string(),
    email: z.string(),
    name: z.string(),
    login: z.string(),
    avatarUrl: z.string().meta({ description: '"" for a member without an email' }),
    labels: z.array(z.string()),
    permission: z.int(),
  })
  .meta({ id: 'TeamMemberDTO' });
export type TeamMemberJson = z.infer<typeof teamMemberDto>;

/** Grafana's `teamId` filter of the team search, repeatable; values that are not numbers are ignored. */
const TEAM_ID_PARAM: QueryParam = {
  name: 'teamId',
  type: 'integer',
  repeated: true,
  description: 'Only these teams (repeat for several); values that are not numbers are ignored, as Grafana',
};

const teamIdsParam = (query: URLSearchParams) => {
  // Grafana ignores teamId values that are not numbers.
  const ids = query.getAll(TEAM_ID_PARAM.name).flatMap((v) => idFromText(v) ?? []);
  return ids.length > 0 ? ids : undefined;
};

/** The team search's parameters: directorySearchQuery's, and `name`, `teamId`, `sort`. */
const TEAM_SEARCH_QUERY: readonly QueryParam[] = [
  ...directorySearchQuery('the team name (a part of it)'),
  { name: 'name', type: 'string', description: 'The whole team name' },
  TEAM_ID_PARAM,
  {
    name: 'sort',
    type: 'string',
    description:
      'Order, comma-separated options: `name-asc` (default), `name-desc`, `email-asc`, `email-desc`, `memberCount-asc`, `memberCount-desc`',
  },
];

export const teamRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/teams/search',
    requires: teamRequirements.search,
    summary: 'Search the teams of the current organization, with paging (query, name, teamId, page, perpage, sort).',
    query: TEAM_SEARCH_QUERY,
    response: searchPageSchema('SearchTeamQueryResult', 'teams', teamDto),
    handler: async ({ principal, services, query }) => {
      const params = {
        ...directorySearchParams(query),
        name: query.get('name'),
        teamIds: teamIdsParam(query),
        sort: query.get('sort') || undefined,
      };
      const page = await services.teams.search(principal, params, WITH_MEMBER_COUNT);
      return searchPageJson(page as SearchPage<CountedTeam>, 'teams', teamToJson);
    },
  },
  {
    method: 'POST',
    path: '/api/teams',
    requires: teamRequirements.create,
    summary: 'Create a team in the current organization: {teamId, message}.',
    body: createTeamInput,
    response: z.strictObject({ teamId: jsonId(), message: z.literal('Team created') }),
    handler: async ({ principal, services, body }) => {
      const team = await services.teams.create(principal, grafanaBody(body, ['name', 'email']), { select: { id: true } });
      return { teamId: team.id, message: 'Team created' };
    },
  },
  {
    method: 'GET',
    path: '/api/teams/:teamId',
    requires: teamRequirements.read,
    summary: 'One team of the current organization (TeamDTO).',
    query: [ACCESS_CONTROL_PARAM],
    response: teamDto,
    handler: async ({ principal, services, params, query }) => {
      const team = await services.teams.get(principal, params.teamId, WITH_MEMBER_COUNT, { accessControl: accessControlParam(query) });
      return teamToJson(team as CountedTeam & { accessControl?: Record<string, boolean> }, team.accessControl);
    },
  },
  {
    method: 'PUT',
    path: '/api/teams/:teamId',
    requires: teamRequirements.write,
    summary: 'Rename a team or change its email.',
    body: updateTeamInput,
    response: messageJson,
    handler: async ({ principal, services, params, body }) => {
      await services.teams.update(principal, params.teamId, grafanaBody(body, ['name', 'email']), { select: { id: true } });
      return { message: 'Team updated' };
    },
  },
  {
    method: 'DELETE',
    path: '/api/teams/:teamId',
    requires: teamRequirements.delete,
    summary: 'Delete a team with its memberships and role assignments.',
    response: messageJson,
    handler: ({ principal, services, params }) => services.teams.delete(principal, params.teamId),
  },
  {
    method: 'GET',
    path: '/api/teams/:teamId/members',
    requires: teamRequirements.readMembers,
    summary: 'Members of a team (TeamMemberDTO list), by login.',
    response: z.array(teamMemberDto),
    handler: async ({ principal, services, params }) => {
      const users = await services.teams.members(principal, params.teamId, {
        select: { id: true, login: true, email: true, name: true, authModule: true },
      });
      const teamId = parseId('teamId', params.teamId);
      return users.map(
        (u): TeamMemberJson => ({
          orgId: principal.orgId,
          teamId,
          userId: u.id,
          auth_module: u.authModule,
          email: u.email,
          name: u.name,
          login: u.login,
          // Grafana: no avatar for a member without an email (dtos.GetGravatarUrl)
          avatarUrl: u.email === '' ? '' : avatarUrl(u.email),
          labels: [],
          permission: 0,
        }),
      );
    },
  },
  {
    method: 'POST',
    path: '/api/teams/:teamId/members',
    requires: teamRequirements.addMember,
    summary: "Add a member of the team's organization to a team ({userId}).",
    body: addTeamMemberInput,
    response: messageJson,
    handler: async ({ principal, services, params, body }) => {
      await services.teams.addMember(principal, params.teamId, grafanaBody(body, ['userId']), { select: { id: true } });
      return { message: 'Member added to Team' };
    },
  },
  {
    method: 'DELETE',
    path: '/api/teams/:teamId/members/:userId',
    requires: teamRequirements.writeMembers,
    summary: 'Remove a member from a team.',
    response: messageJson,
    handler: async ({ principal, services, params }) => {
      await services.teams.removeMember(principal, params.teamId, params.userId, { select: { id: true } });
      return { message: 'Team Member removed' };
    },
  },
];
