/**
 * REST door of teams, Grafana's paths and shapes (pkg/api team routes, public/openapi3.json
 * TeamDTO, TeamMemberDTO, SearchTeamQueryResult): `GET /api/teams/search`, `POST /api/teams`,
 * `GET|PUT|DELETE /api/teams/:teamId`, `GET|POST /api/teams/:teamId/members`,
 * `DELETE /api/teams/:teamId/members/:userId`. Team role routes live in modules/assignments.
 */
import {
  avatarUrl,
  type CountedTeam,
  grafanaBody,
  type SearchPage,
  searchPageJson,
  teamToJson,
  WITH_MEMBER_COUNT,
} from '../shared/directory.js';
import { accessControlParam, directorySearchParams, type Route } from '../shared/rest.js';
import { addTeamMemberInput, createTeamInput, updateTeamInput } from './inputs.js';
import { teamRequirements } from './service.js';

/** Grafana's TeamMemberDTO. */
export interface TeamMemberJson {
  orgId: number;
  teamId: number;
  userId: number;
  auth_module: string;
  email: string;
  name: string;
  login: string;
  avatarUrl: string;
  labels: string[];
  permission: number;
}

const teamIdsParam = (query: URLSearchParams) => {
  // Grafana ignores teamId values that are not numbers.
  const ids = query.getAll('teamId').filter((v) => /^\d{1,10}$/.test(v));
  return ids.length > 0 ? ids.map(Number) : undefined;
};

export const teamRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/teams/search',
    requires: teamRequirements.search,
    summary: 'Search the teams of the current organization, with paging (query, name, teamId, page, perpage, sort).',
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
    handler: ({ principal, services, params }) => services.teams.delete(principal, params.teamId),
  },
  {
    method: 'GET',
    path: '/api/teams/:teamId/members',
    requires: teamRequirements.readMembers,
    summary: 'Members of a team (TeamMemberDTO list), by login.',
    handler: async ({ principal, services, params }) => {
      const users = await services.teams.members(principal, params.teamId, {
        select: { id: true, login: true, email: true, name: true, authModule: true },
      });
      const teamId = Number(params.teamId);
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
    requires: teamRequirements.writeMembers,
    summary: "Add a member of the team's organization to a team ({userId}).",
    body: addTeamMemberInput,
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
    handler: async ({ principal, services, params }) => {
      await services.teams.removeMember(principal, params.teamId, params.userId, { select: { id: true } });
      return { message: 'Team Member removed' };
    },
  },
];
