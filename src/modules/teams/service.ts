/**
 * Teams of the caller's organization and their members.
 *
 * Permissions (requirements.ts, Grafana's route table): teams:create; teams:read, teams:write,
 * teams:delete on teams:id:<id> (org Admin, fixed:teams:*; every org role reads); members as
 * members.ts says (adding one passes the one delegation rule). Every permission is checked before
 * the body is validated. Teams are looked up within the caller's organization only: another
 * organization's team is 404 (the wall, kernel/guards.ts). Every change goes through
 * `access.write()` and is recorded in the audit log (team.create, team.update, team.delete,
 * team_member.add, team_member.remove).
 */
import type { Prisma, Team, User } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { idFilter, permittedIds, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isUniqueViolation } from '../../platform/database.js';
import { containsText } from '../../platform/database-dialect.js';
import { accessControlMetadata, type SearchPage, searchPage } from '../shared/directory.js';
import { pageOffset } from '../shared/paging.js';
import { createTeamInput, teamSearchInput, updateTeamInput } from './inputs.js';
import { addTeamMember, removeTeamMember, teamMembers } from './members.js';
import { findTeam, type MemberQuery, type TeamQuery, teamNotFound, teamRequirements } from './requirements.js';

export { type MemberQuery, type TeamQuery, teamRequirements } from './requirements.js';

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

  /** teamMembers (members.ts): the members of a team, by login. */
  members(caller: Principal, rawTeamId: unknown, query: MemberQuery = {}): Promise<User[]> {
    return teamMembers(this.deps, caller, rawTeamId, query);
  }

  /** addTeamMember (members.ts): adds a member, under the one delegation rule. */
  addMember(caller: Principal, rawTeamId: unknown, rawInput: unknown, query: TeamQuery = {}): Promise<Team> {
    return addTeamMember(this.deps, caller, rawTeamId, rawInput, query);
  }

  /** removeTeamMember (members.ts): removes a member. */
  removeMember(caller: Principal, rawTeamId: unknown, rawUserId: unknown, query: TeamQuery = {}): Promise<Team> {
    return removeTeamMember(this.deps, caller, rawTeamId, rawUserId, query);
  }
}
