/**
 * Teams of the caller's organization and their members.
 *
 * Permissions (Grafana): teams:create; teams:read, teams:write (also for members),
 * teams:delete on teams:id:<id> (org Admin, fixed:teams:*; every org role reads). Teams are
 * looked up within the caller's organization only: another organization's team is 404 (the
 * wall, kernel/guards.ts). A member must already belong to the team's organization; service
 * accounts are not team members (upstream-behaviour.md: their permissions come from their own
 * roles and org role only). Membership changes and deletions change permissions, so they end
 * through `access.write()`.
 */
import type { Prisma, Team } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError, notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import { idFilter, permittedIds, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { type Db, isUniqueViolation, type Tx } from '../../platform/database.js';
import { createTeamInput, memberInput, updateTeamInput } from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each team. */
export type TeamQuery = { include?: Prisma.TeamInclude; select?: Prisma.TeamSelect };

/** The team `id` of the caller's organization, or 404. */
async function findTeam(db: Db | Tx, caller: Principal, id: number): Promise<Team> {
  const team = await db.team.findFirst({ where: { id, orgId: caller.orgId } });
  if (!team) throw notFound('TEAM_NOT_FOUND', 'team', id);
  return team;
}

const duplicateName = (name: string) => alreadyExists(`a team named "${name}" already exists in this organization`);

/** Teams and their members; every method authorizes its caller (rules in the module comment). */
export class TeamService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates a team in the caller's organization. Needs teams:create.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, ORG_NOT_FOUND (404), ALREADY_EXISTS (409: name taken in the organization).
   */
  async create(caller: Principal, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const input = parseInput(createTeamInput, rawInput);
    await this.deps.access.check(caller, permission(Action.TeamsCreate));
    const { db } = this.deps;
    const orgId = caller.orgId;
    try {
      const id = await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        const team = await tx.team.create({ data: { orgId, name: input.name, email: input.email ?? '' }, select: { id: true } });
        return team.id;
      });
      return await db.team.findUniqueOrThrow({ ...query, where: { id } });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(input.name);
      throw error;
    }
  }

  /**
   * Teams of the caller in the organization it acts in, by name (GraphQL `viewer.teams`). Any
   * signed-in caller may see its own teams; an API key belongs to none.
   * @throws DomainError UNAUTHENTICATED (401).
   */
  async ofCaller(caller: Principal, query: TeamQuery = {}): Promise<Team[]> {
    requireSignedIn(caller);
    if (caller.kind === 'apiKey') return [];
    return this.deps.db.team.findMany({
      ...query,
      where: { orgId: caller.orgId, members: { some: { userId: caller.id } } },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
  }

  /**
   * Teams of the caller's organization by name: those whose teams:id:<id> it may read.
   * Needs teams:read. @throws DomainError 401, 403.
   */
  async list(caller: Principal, query: TeamQuery = {}): Promise<Team[]> {
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, permission(Action.TeamsRead));
    const ids = permittedIds(index, Action.TeamsRead, 'teams:id:');
    return this.deps.db.team.findMany({ ...query, where: { orgId: caller.orgId, ...idFilter(ids) }, orderBy: [{ name: 'asc' }] });
  }

  /**
   * One team of the caller's organization. Needs teams:read on teams:id:<id>.
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404: unknown or of another organization).
   */
  async get(caller: Principal, rawId: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, permission(Action.TeamsRead, Scope.team(id)));
    const team = await this.deps.db.team.findFirst({ ...query, where: { id, orgId: caller.orgId } });
    if (!team) throw notFound('TEAM_NOT_FOUND', 'team', id);
    return team;
  }

  /**
   * Renames a team or changes its email. Needs teams:write on teams:id:<id>.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, TEAM_NOT_FOUND (404), ALREADY_EXISTS (409).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const input = parseInput(updateTeamInput, rawInput);
    await this.deps.access.check(caller, permission(Action.TeamsWrite, Scope.team(id)));
    const { db } = this.deps;
    try {
      await this.deps.access.write(async (tx) => {
        await findTeam(tx, caller, id);
        await tx.team.update({
          where: { id },
          data: { ...(input.name != null && { name: input.name }), ...(input.email != null && { email: input.email }) },
        });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(input.name ?? '');
      throw error;
    }
    return db.team.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * Deletes a team with its memberships and role assignments. Needs teams:delete on teams:id:<id>.
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, permission(Action.TeamsDelete, Scope.team(id)));
    await this.deps.access.write(async (tx) => {
      await findTeam(tx, caller, id);
      await tx.team.delete({ where: { id } }); // members and team roles: ON DELETE CASCADE
    });
    return { message: 'Team deleted' };
  }

  /**
   * Adds a member of the team's organization to the team. Needs teams:write on teams:id:<teamId>.
   * @throws DomainError VALIDATION_FAILED (400: also for a service account), 401, 403,
   *   TEAM_NOT_FOUND (404), USER_NOT_FOUND (404: unknown or not in the team's organization),
   *   ALREADY_EXISTS (409: already a member).
   */
  async addMember(caller: Principal, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const { teamId, userId } = parseInput(memberInput, rawInput);
    await this.deps.access.check(caller, permission(Action.TeamsWrite, Scope.team(teamId)));
    const { db } = this.deps;
    const alreadyMember = () => alreadyExists(`user ${userId} is already a member of team ${teamId}`);
    try {
      await this.deps.access.write(async (tx) => {
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
        await tx.teamMember.create({ data: { teamId, userId, orgId: team.orgId } });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyMember();
      throw error;
    }
    return db.team.findUniqueOrThrow({ ...query, where: { id: teamId } });
  }

  /**
   * Removes a member from a team. Needs teams:write on teams:id:<teamId>.
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404), USER_NOT_FOUND (404: not a member).
   */
  async removeMember(caller: Principal, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const { teamId, userId } = parseInput(memberInput, rawInput);
    await this.deps.access.check(caller, permission(Action.TeamsWrite, Scope.team(teamId)));
    const { db } = this.deps;
    await this.deps.access.write(async (tx) => {
      await findTeam(tx, caller, teamId);
      const { count } = await tx.teamMember.deleteMany({ where: { teamId, userId } });
      if (count === 0) throw notFound('USER_NOT_FOUND', 'user', userId, ` in team ${teamId}`);
    });
    return db.team.findUniqueOrThrow({ ...query, where: { id: teamId } });
  }
}
