/**
 * What every team operation needs and how a team is found: one table for TeamService (service.ts,
 * members.ts), the REST routes and the GraphQL field descriptions.
 *
 * Permissions (Grafana's route table, pkg/api team routes): teams:create; teams:read,
 * teams:write, teams:delete on teams:id:<id>. Members: Grafana checks teams.permissions:read /
 * teams.permissions:write on teams:id:<id>; this service accepts those or teams:read /
 * teams:write, so either kind of role works. Teams are looked up within the caller's organization
 * only: another organization's team is 404 (the wall, kernel/guards.ts).
 */
import type { Prisma, Team } from '../../generated/prisma/client.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { any, permission } from '../../kernel/evaluator.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Db, Tx } from '../../platform/database.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each team. */
export type TeamQuery = { include?: Prisma.TeamInclude; select?: Prisma.TeamSelect };
/** What may be loaded with each member (a User row). */
export type MemberQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };

/** teams:write or teams.permissions:write on teams:id:<id> (Grafana's team member routes). */
function writeMembers(id: string | number) {
  return any(permission(Action.TeamsWrite, Scope.team(id)), permission(Action.TeamsPermissionsWrite, Scope.team(id)));
}

/** The permission each team operation needs; `id` is the team's id. */
export const teamRequirements = {
  create: requirement([], () => permission(Action.TeamsCreate)),
  search: requirement([], () => permission(Action.TeamsRead)),
  read: requirement(['id'], ({ id }) => permission(Action.TeamsRead, Scope.team(id))),
  write: requirement(['id'], ({ id }) => permission(Action.TeamsWrite, Scope.team(id))),
  delete: requirement(['id'], ({ id }) => permission(Action.TeamsDelete, Scope.team(id))),
  readMembers: requirement(['id'], ({ id }) =>
    any(permission(Action.TeamsRead, Scope.team(id)), permission(Action.TeamsPermissionsRead, Scope.team(id))),
  ),
  writeMembers: requirement(['id'], ({ id }) => writeMembers(id)),
  /** Adding a member gives it the team's roles: the one delegation rule (members.ts). */
  addMember: requirement(
    ['id'],
    ({ id }) => writeMembers(id),
    "and every permission of the team's roles (delegation) or users.roles:add on permissions:type:escalate",
  ),
};

/**
 * 404 TEAM_NOT_FOUND with Grafana's text: "Team not found" (pkg/api team handlers), or
 * `message` where Grafana words it otherwise; the id is in the details.
 */
export const teamNotFound = (id: number, message = 'Team not found') => new DomainError('TEAM_NOT_FOUND', message, { id });

/** The team `id` of the caller's organization, or 404 (`message` as teamNotFound). */
export async function findTeam(db: Db | Tx, caller: Principal, id: number, message?: string): Promise<Team> {
  const team = await db.team.findFirst({ where: { id, orgId: caller.orgId } });
  if (!team) throw teamNotFound(id, message);
  return team;
}
