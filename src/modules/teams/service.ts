/**
 * Teams of the caller's organization and their members.
 *
 * Permissions (Grafana's route table, pkg/api team routes): teams:create; teams:read,
 * teams:write, teams:delete on teams:id:<id> (org Admin, fixed:teams:*; every org role reads).
 * Members: Grafana checks teams.permissions:read / teams.permissions:write on teams:id:<id>; this
 * service accepts those or teams:read / teams:write (which it has always required, and which
 * GraphQL's Team.members follows), so either kind of role works. Every permission is checked
 * before the body is validated. Teams are looked up within the caller's organization only:
 * another organization's team is 404 (the wall, kernel/guards.ts). A member must already belong
 * to the team's organization; service accounts are not team members (upstream-behaviour.md:
 * their permissions come from their own roles and org role only). Every change goes through
 * `access.write()` and is recorded in the audit log (team.create, team.update, team.delete,
 * team_member.add, team_member.remove).
 */
import type { Prisma, Team, User } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { any, permission } from '../../kernel/evaluator.js';
import { idFilter, permittedIds, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { containsText, type Db, isUniqueViolation, type Tx } from '../../platform/database.js';
import { accessControlMetadata, pageOffset, type SearchPage, searchPage } from '../shared/directory.js';
import { addTeamMemberInput, createTeamInput, teamSearchInput, updateTeamInput } from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each team. */
export type TeamQuery = { include?: Prisma.TeamInclude; select?: Prisma.TeamSelect };
/** What may be loaded with each member (a User row). */
export type MemberQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };

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
  writeMembers: requirement(['id'], ({ id }) =>
    any(permission(Action.TeamsWrite, Scope.team(id)), permission(Action.TeamsPermissionsWrite, Scope.team(id))),
  ),
};

/**
 * 404 TEAM_NOT_FOUND with Grafana's text: "Team not found" (pkg/api team handlers), or
 * `message` where Grafana words it otherwise; the id is in the details.
 */
const teamNotFound = (id: number, message = 'Team not found') => new DomainError('TEAM_NOT_FOUND', message, { id });

/** The team `id` of the caller's organization, or 404 (`message` as teamNotFound). */
async function findTeam(db: Db | Tx, caller: Principal, id: number, message?: string): Promise<Team> {
  const team = await db.team.findFirst({ where: { id, orgId: caller.orgId } });
  if (!team) throw teamNotFound(id, message);
  return team;
}

/** 409 with Grafana's text, "Team name taken" (pkg/api team createTeam); the name is in the details. */
const duplicateName = (name: string) => new DomainError('ALREADY_EXISTS', 'Team name taken', { name });

/** Teams and their members; every method authorizes its caller (rules in the module comment). */
export class TeamService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates a team in the caller's organization. Needs teams:create.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, ORG_NOT_FOUND (404), ALREADY_EXISTS (409: name taken in the organization).
   */
  async create(caller: Principal, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, teamRequirements.create.for({}));
    const input = parseInput(createTeamInput, rawInput);
    const { db } = this.deps;
    const orgId = caller.orgId;
    try {
      const id = await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        const team = await tx.team.create({ data: { orgId, name: input.name, email: input.email ?? '' } });
        await recordAudit(tx, caller, { action: 'team.create', orgId, resource: { kind: 'team', id: team.id }, after: team });
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
    const index = await this.deps.access.check(caller, teamRequirements.search.for({}));
    const ids = permittedIds(index, Action.TeamsRead, 'teams:id:');
    return this.deps.db.team.findMany({ ...query, where: { orgId: caller.orgId, ...idFilter(ids) }, orderBy: [{ name: 'asc' }] });
  }

  /**
   * One page of the teams of the caller's organization it may read (Grafana's team search):
   * `query` is part of the name (any case), `name` the whole name, `teamIds` limits to those ids;
   * `page` (from 1) of `perPage` (default 1000) rows, sorted by `sort` (default name ascending,
   * then id); `totalCount` counts every match. Needs teams:read; rows are filtered by
   * teams:id:<id> as in `list`.
   * @throws DomainError VALIDATION_FAILED (400: unknown sort option, bad types), 401, 403.
   */
  async search(caller: Principal, rawParams: unknown, query: TeamQuery = {}): Promise<SearchPage<Team>> {
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, teamRequirements.search.for({}));
    const params = parseInput(teamSearchInput, rawParams ?? {});
    const ids = permittedIds(index, Action.TeamsRead, 'teams:id:');
    const where: Prisma.TeamWhereInput = {
      orgId: caller.orgId,
      AND: [
        idFilter(ids),
        params.teamIds ? { id: { in: params.teamIds } } : {},
        params.query ? { name: containsText(this.deps.db, params.query) } : {},
        params.name != null && params.name !== '' ? { name: params.name } : {},
      ],
    };
    const orderBy: Prisma.TeamOrderByWithRelationInput[] = (params.sort ?? []).map(({ field, direction }) =>
      field === 'memberCount' ? { members: { _count: direction } } : { [field]: direction },
    );
    if (orderBy.length === 0) orderBy.push({ name: 'asc' });
    orderBy.push({ id: 'asc' });
    const { db } = this.deps;
    const [totalCount, rows] = await Promise.all([
      db.team.count({ where }),
      db.team.findMany({ ...query, where, orderBy, skip: pageOffset(params.page, params.perPage), take: params.perPage }),
    ]);
    return searchPage(params, totalCount, rows, index, Scope.team);
  }

  /**
   * One team of the caller's organization. Needs teams:read on teams:id:<id>. With
   * `accessControl`, the row carries the caller's actions on it (Grafana's metadata).
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404: unknown or of another organization).
   */
  async get(
    caller: Principal,
    rawId: unknown,
    query: TeamQuery = {},
    options: { accessControl?: boolean } = {},
  ): Promise<Team & { accessControl?: Record<string, boolean> }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, teamRequirements.read.for({ id }));
    const team = await this.deps.db.team.findFirst({ ...query, where: { id, orgId: caller.orgId } });
    if (!team) throw teamNotFound(id);
    return options.accessControl ? { ...team, accessControl: accessControlMetadata(index, Scope.team(id)) } : team;
  }

  /**
   * Renames a team or changes its email. Needs teams:write on teams:id:<id>.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, TEAM_NOT_FOUND (404), ALREADY_EXISTS (409).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, teamRequirements.write.for({ id }));
    const input = parseInput(updateTeamInput, rawInput);
    const { db } = this.deps;
    try {
      await this.deps.access.write(async (tx) => {
        const before = await findTeam(tx, caller, id);
        const after = await tx.team.update({
          where: { id },
          data: { ...(input.name != null && { name: input.name }), ...(input.email != null && { email: input.email }) },
        });
        await recordAudit(tx, caller, { action: 'team.update', orgId: before.orgId, resource: { kind: 'team', id }, before, after });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(input.name ?? '');
      throw error;
    }
    return db.team.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * Deletes a team with its memberships and role assignments. Needs teams:delete on teams:id:<id>.
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404, Grafana's "Failed to delete Team. ID not found").
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, teamRequirements.delete.for({ id }));
    await this.deps.access.write(async (tx) => {
      const team = await findTeam(tx, caller, id, 'Failed to delete Team. ID not found');
      const members = await tx.teamMember.findMany({ where: { teamId: id }, select: { userId: true }, orderBy: { userId: 'asc' } });
      await tx.team.delete({ where: { id } }); // members and team roles: ON DELETE CASCADE
      const before = { ...team, memberIds: members.map((m) => m.userId) };
      await recordAudit(tx, caller, { action: 'team.delete', orgId: team.orgId, resource: { kind: 'team', id }, before });
    });
    return { message: 'Team deleted' };
  }

  /**
   * Members of a team of the caller's organization, by login (Grafana's `GET
   * /api/teams/:teamId/members`). Needs teams:read or teams.permissions:read on teams:id:<teamId>.
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404).
   */
  async members(caller: Principal, rawTeamId: unknown, query: MemberQuery = {}): Promise<User[]> {
    requireSignedIn(caller);
    const teamId = parseId('teamId', rawTeamId);
    await this.deps.access.check(caller, teamRequirements.readMembers.for({ id: teamId }));
    const { db } = this.deps;
    await findTeam(db, caller, teamId);
    return db.user.findMany({ ...query, where: { teams: { some: { teamId } } }, orderBy: [{ login: 'asc' }] });
  }

  /**
   * Adds `{userId}`, a member of the team's organization, to team `teamId`. Needs teams:write or
   * teams.permissions:write on teams:id:<teamId>. Returns the team.
   * @throws DomainError VALIDATION_FAILED (400: also for a service account), 401, 403,
   *   TEAM_NOT_FOUND (404), USER_NOT_FOUND (404: unknown or not in the team's organization),
   *   ALREADY_TEAM_MEMBER (400, Grafana's "User is already added to this team").
   */
  async addMember(caller: Principal, rawTeamId: unknown, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const teamId = parseId('teamId', rawTeamId);
    await this.deps.access.check(caller, teamRequirements.writeMembers.for({ id: teamId }));
    const { userId } = parseInput(addTeamMemberInput, rawInput);
    const { db } = this.deps;
    // Grafana's text (pkg/api/team_members.go addTeamMember); which user is in the details.
    const alreadyMember = () => new DomainError('ALREADY_TEAM_MEMBER', 'User is already added to this team', { id: userId });
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
    return db.team.findUniqueOrThrow({ ...query, where: { id: teamId } });
  }

  /**
   * Removes user `userId` from team `teamId`. Needs teams:write or teams.permissions:write on
   * teams:id:<teamId>. Returns the team.
   * @throws DomainError 400, 401, 403, TEAM_NOT_FOUND (404), USER_NOT_FOUND (404 "Team member not
   *   found", Grafana's text: not a member).
   */
  async removeMember(caller: Principal, rawTeamId: unknown, rawUserId: unknown, query: TeamQuery = {}): Promise<Team> {
    requireSignedIn(caller);
    const teamId = parseId('teamId', rawTeamId);
    await this.deps.access.check(caller, teamRequirements.writeMembers.for({ id: teamId }));
    const userId = parseId('userId', rawUserId);
    const { db } = this.deps;
    await this.deps.access.write(async (tx) => {
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
    return db.team.findUniqueOrThrow({ ...query, where: { id: teamId } });
  }
}
