/**
 * Members of teams: list, add and remove them (Grafana's pkg/api/team_members.go). TeamService
 * (service.ts) answers both doors and the CLI through these functions.
 *
 * A member must already belong to the team's organization; service accounts are not team members
 * (upstream-behaviour.md: their permissions come from their own roles and org role only). Joining
 * a team makes the member hold the team's roles, so adding one passes the one delegation rule
 * (kernel/delegation.ts): the caller must hold every permission of the team's
 * roles, or users.roles:add on permissions:type:escalate; checked inside the write's transaction
 * before the membership is written. Removing a member gives nobody anything. Every change goes
 * through `access.write()` and is audited (team_member.add, team_member.remove).
 */
import type { Team, User } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { authorizeGrant } from '../../kernel/delegation.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { PRINCIPAL_GRANT_ACTION, teamGain } from '../../kernel/gains.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isUniqueViolation } from '../../platform/database.js';
import { addTeamMemberInput } from './inputs.js';
import { findTeam, type MemberQuery, type TeamQuery, teamRequirements } from './requirements.js';

/**
 * Members of a team of the caller's organization, by login (Grafana's `GET
 * /api/teams/:teamId/members`). Needs teams:read or teams.permissions:read on teams:id:<teamId>.
 * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404).
 */
export async function teamMembers(deps: FeatureDeps, caller: Principal, rawTeamId: unknown, query: MemberQuery = {}): Promise<User[]> {
  requireSignedIn(caller);
  const teamId = parseId('teamId', rawTeamId);
  await deps.access.check(caller, teamRequirements.readMembers.for({ id: teamId }));
  await findTeam(deps.db, caller, teamId);
  return deps.db.user.findMany({ ...query, where: { teams: { some: { teamId } } }, orderBy: [{ login: 'asc' }] });
}

/**
 * Adds `{userId}`, a member of the team's organization, to team `teamId`. Needs teams:write or
 * teams.permissions:write on teams:id:<teamId>, and the team's roles' permissions (delegation) or
 * users.roles:add on permissions:type:escalate. Returns the team.
 * @throws DomainError VALIDATION_FAILED (400: also for a service account), 401, ACCESS_DENIED
 *   (403: permission, or delegation naming what the caller lacks), TEAM_NOT_FOUND (404),
 *   USER_NOT_FOUND (404: unknown or not in the team's organization), ALREADY_TEAM_MEMBER (400,
 *   Grafana's "User is already added to this team").
 */
export async function addTeamMember(
  deps: FeatureDeps,
  caller: Principal,
  rawTeamId: unknown,
  rawInput: unknown,
  query: TeamQuery = {},
): Promise<Team> {
  requireSignedIn(caller);
  const teamId = parseId('teamId', rawTeamId);
  const index = await deps.access.check(caller, teamRequirements.addMember.for({ id: teamId }));
  const { userId } = parseInput(addTeamMemberInput, rawInput);
  // Grafana's text (pkg/api/team_members.go addTeamMember); which user is in the details.
  const alreadyMember = () => new DomainError('ALREADY_TEAM_MEMBER', 'User is already added to this team', { id: userId });
  try {
    await deps.access.write(async (tx) => {
      const team = await findTeam(tx, caller, teamId);
      const member = await tx.orgUser.findUnique({
        where: { orgId_userId: { orgId: team.orgId, userId } },
        select: { user: { select: { isServiceAccount: true } } },
      });
      if (!member) throw notFound('USER_NOT_FOUND', 'user', userId, ' in the organization of the team');
      if (member.user.isServiceAccount) throw new DomainError('VALIDATION_FAILED', 'userId: service accounts cannot be team members');
      if (await tx.teamMember.findUnique({ where: { teamId_userId: { teamId, userId } }, select: { userId: true } })) {
        throw alreadyMember();
      }
      const gain = await teamGain(tx, teamId, team.orgId);
      await authorizeGrant(
        tx,
        caller,
        index,
        {
          what: `add user ${userId} to team ${teamId}`,
          action: PRINCIPAL_GRANT_ACTION,
          gains: [gain],
        },
        deps.clock.now(),
      );
      await tx.teamMember.create({ data: { teamId, userId, orgId: team.orgId } });
      await recordAudit(tx, caller, {
        action: 'team_member.add',
        orgId: team.orgId,
        resource: { kind: 'team_member', id: `${teamId}:${userId}` },
        after: { teamId, userId },
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
  return deps.db.team.findUniqueOrThrow({ ...query, where: { id: teamId } });
}

/**
 * Removes user `userId` from team `teamId`. Needs teams:write or teams.permissions:write on
 * teams:id:<teamId>. Returns the team.
 * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404), USER_NOT_FOUND (404 "Team member not
 *   found", Grafana's text: not a member).
 */
export async function removeTeamMember(
  deps: FeatureDeps,
  caller: Principal,
  rawTeamId: unknown,
  rawUserId: unknown,
  query: TeamQuery = {},
): Promise<Team> {
  requireSignedIn(caller);
  const teamId = parseId('teamId', rawTeamId);
  await deps.access.check(caller, teamRequirements.writeMembers.for({ id: teamId }));
  const userId = parseId('userId', rawUserId);
  await deps.access.write(async (tx) => {
    const team = await findTeam(tx, caller, teamId);
    const { count } = await tx.teamMember.deleteMany({ where: { teamId, userId } });
    if (count === 0) throw new DomainError('USER_NOT_FOUND', 'Team member not found', { id: userId });
    await recordAudit(tx, caller, {
      action: 'team_member.remove',
      orgId: team.orgId,
      resource: { kind: 'team_member', id: `${teamId}:${userId}` },
      before: { teamId, userId },
    });
  });
  return deps.db.team.findUniqueOrThrow({ ...query, where: { id: teamId } });
}
