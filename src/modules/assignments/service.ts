/**
 * Role assignments of users, service accounts and teams (list, add, remove, set), and the
 * permission listings of the caller and of a user or service account.
 *
 * Subjects: one `userId` names a user or a service account (the same table, as in Grafana); it
 * must be a member of the caller's organization, and a team must belong to it, otherwise the
 * answer is 404 whatever the id (issue #3 item 5: organizations are walls).
 *
 * Assignments: a user's assignment lives in one organization (orgId of the caller) or is global
 * (orgId 0, `global: true`); a team's always lives in the team's organization. Only roles the
 * caller can see (global or of its organization) can be assigned; basic roles never (they are
 * held through the org role), and an organization's role never globally.
 *
 * Rules: service-interface.md "Required permissions", "List roles of a user or service account",
 * "Add role to ...", "Remove role from ...", "Set roles of ...", "Team role operations", "List own
 * permissions", "List permissions of a user or service account"; upstream-behaviour.md
 * "Permission evaluation" (effective permissions, delegation). Success messages are Grafana's.
 */
import { z } from 'zod';
import type { Db, Tx } from '../../platform/database.js';
import type { Prisma, Role, Team, User } from '../../generated/prisma/client.js';
import { type AccessService, requireCoverage, requireSignedIn } from '../../kernel/access.js';
import { BASIC_PREFIX, isBasicRoleName } from '../../kernel/builtin-roles.js';
import { DomainError, invalid } from '../../kernel/errors.js';
import { all, type PermissionIndex, permission } from '../../kernel/evaluator.js';
import { Action, type PermissionPair, Scope } from '../../kernel/catalogue.js';
import { isOrgRole, type Principal, type UserPrincipal } from '../../kernel/principal.js';
import { MAX_ROLE_UID_LENGTH, type RoleQuery, requireServiceAdmin, roleNotFound } from '../roles/service.js';
import { parseInput } from '../../kernel/inputs.js';

/** A `{message}` success body (service-interface.md "Message response"). */
export interface Message {
  message: string;
}

/** What a Pothos `query` (or any caller) may ask Prisma to load with each team. */
export type TeamQuery = { include?: Prisma.TeamInclude; select?: Prisma.TeamSelect };

type SignedIn = Exclude<Principal, { kind: 'anonymous' }>;
type AssignableRole = Role & { permissions: PermissionPair[] };

/** Grafana's success texts (pkg/api access-control handlers of the enterprise API). */
export const MESSAGES = {
  userRoleAdded: 'Role added to the user.',
  userRoleRemoved: 'Role removed from user.',
  userRolesSet: 'User roles have been updated.',
  teamRoleAdded: 'Role added to the team.',
  teamRoleRemoved: 'Role removed from the team.',
  teamRolesSet: 'Team roles have been updated.',
} as const;

/** Ids are SQLite rowids created by this service: positive and far below this. */
const MAX_ID = 2_147_483_647;
/** Largest set a client may send; the spec shows no limit, this keeps one request bounded. */
const MAX_ROLE_UIDS = 1000;

/**
 * A numeric id from a REST path (string of digits) or a GraphQL argument (number).
 * @throws DomainError VALIDATION_FAILED (400) naming `field` unless it is a whole number in
 *   1..2147483647.
 */
export function parseId(field: string, value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_ID) throw invalid(`${field}: must be a positive whole number`);
  return n;
}

const uid = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .min(1, `${field} must not be empty`)
    .max(MAX_ROLE_UID_LENGTH, `${field} is longer than ${MAX_ROLE_UID_LENGTH} characters`);
const uidList = z
  .array(uid('roleUids[]'), { error: 'roleUids is required and must be an array of strings' })
  .max(MAX_ROLE_UIDS, `roleUids: at most ${MAX_ROLE_UIDS} roles`)
  .transform((uids) => [...new Set(uids)]);
const flag = (field: string) => z.boolean({ error: `${field} must be a boolean` }).nullish();
const body = { error: 'body must be a JSON object' };

/** Body of add user role: `{roleUid, global?}` (service-interface.md "Add role to a user"). */
export const addUserRoleInput = z.object({ roleUid: uid('roleUid'), global: flag('global') }, body);
/** Body of set user roles: `{roleUids, global?, includeHidden?}`. Duplicate uids collapse. */
export const setUserRolesInput = z.object({ roleUids: uidList, global: flag('global'), includeHidden: flag('includeHidden') }, body);
/** Body of add team role: `{roleUid}` (teams have no `global`). */
export const addTeamRoleInput = z.object({ roleUid: uid('roleUid') }, body);
/** Body of set team roles: `{roleUids, includeHidden?}`. */
export const setTeamRolesInput = z.object({ roleUids: uidList, includeHidden: flag('includeHidden') }, body);
const roleUidParam = uid('roleUID');

export type AddUserRoleInput = z.input<typeof addUserRoleInput>;
export type SetUserRolesInput = z.input<typeof setUserRolesInput>;
export type AddTeamRoleInput = z.input<typeof addTeamRoleInput>;
export type SetTeamRolesInput = z.input<typeof setTeamRolesInput>;

export interface AssignmentServiceDeps {
  db: Db;
  access: AccessService;
  /** Throws 404 ACCESS_CONTROL_UNAVAILABLE in the oss edition (RoleService.assertAvailable). */
  availability: { assertAvailable(): void };
}

/**
 * The principal `user` would be when acting in `orgId` with org role `role` (an OrgUser row's
 * role; anything unknown counts as "None"), for computing its effective permissions. Its cache
 * key is the one the user's own requests use, so both share one cached index; authMethod is
 * "none" because nobody signed in.
 */
export function principalOfMember(user: User, orgId: number, role: string): UserPrincipal {
  return {
    kind: user.isServiceAccount ? 'serviceAccount' : 'user',
    id: user.id,
    login: user.login,
    orgId,
    orgRole: isOrgRole(role) ? role : 'None',
    isServiceAdmin: user.isServiceAdmin,
    authMethod: 'none',
  };
}

/** Filter for roles a list may show in `orgId`: visible there, never basic, hidden on request. */
function listableRoles(orgId: number, includeHidden: boolean | null | undefined): Prisma.RoleWhereInput {
  return {
    orgId: { in: [0, orgId] },
    NOT: { name: { startsWith: BASIC_PREFIX } },
    ...(includeHidden ? {} : { hidden: false }),
  };
}

/**
 * What a set changes: the wanted roles not yet assigned are added; the assigned roles not wanted
 * are removed, except hidden ones unless `includeHidden` (service-interface.md "Set roles": set
 * without includeHidden leaves hidden assignments untouched). A hidden role named in the request
 * is added either way: the client asked for it by uid.
 */
export function planSet<R extends { id: number; hidden: boolean }>(
  current: readonly R[],
  wanted: readonly R[],
  includeHidden: boolean,
): { add: R[]; remove: R[] } {
  const wantedIds = new Set(wanted.map((r) => r.id));
  const currentIds = new Set(current.map((r) => r.id));
  return {
    add: wanted.filter((r) => !currentIds.has(r.id)),
    remove: current.filter((r) => !wantedIds.has(r.id) && (includeHidden || !r.hidden)),
  };
}

export class AssignmentService {
  constructor(private readonly deps: AssignmentServiceDeps) {}

  // ---- users and service accounts -------------------------------------------------------------

  /**
   * Roles assigned directly to a user or service account: its assignments in the caller's
   * organization and its global ones; never basic roles, never roles it holds through a team;
   * hidden roles only with includeHidden. Sorted by name. Needs users.roles:read on
   * users:id:<userId>.
   * @throws DomainError VALIDATION_FAILED (400: userId), UNAUTHENTICATED (401), ACCESS_DENIED
   *   (403), USER_NOT_FOUND (404: not a member of the caller's organization), 404 in oss.
   */
  async listUserRoles(
    caller: Principal,
    userId: unknown,
    options: { includeHidden?: boolean | null },
    query: RoleQuery = {},
  ): Promise<Role[]> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    await this.deps.access.check(caller, permission(Action.UsersRolesRead, Scope.user(id)));
    await this.member(this.deps.db, caller, id);
    return this.deps.db.role.findMany({
      ...query,
      where: {
        ...listableRoles(caller.orgId, options.includeHidden),
        userRoles: { some: { userId: id, orgId: { in: [0, caller.orgId] } } },
      },
      orderBy: [{ name: 'asc' }],
    });
  }

  /**
   * Assigns a role to a user or service account in the caller's organization, or globally with
   * `global: true`. Assigning a role already assigned changes nothing and succeeds (Grafana).
   * Needs users.roles:add on permissions:type:delegate and every permission of the role
   * (delegation). A global assignment acts in every organization, so it also needs a Service
   * Admin: an org Admin must not reach past its organization's wall.
   * @throws DomainError VALIDATION_FAILED (400: userId or body), ROLE_NOT_ASSIGNABLE (400: basic
   *   role, or an organization's role with global), 401, ACCESS_DENIED (403), USER_NOT_FOUND /
   *   ROLE_NOT_FOUND (404), 404 in oss.
   */
  async addUserRole(caller: Principal, userId: unknown, rawInput: unknown): Promise<Message> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    const input = parseInput(addUserRoleInput, rawInput);
    await this.deps.access.check(caller, permission(Action.UsersRolesAdd, Scope.Delegate));
    const orgId = this.assignmentOrg(caller, input.global);
    await this.write(caller, async (tx, index) => {
      await this.member(tx, caller, id);
      const role = await this.assignableRole(tx, caller, input.roleUid, orgId);
      requireCoverage(index, role.permissions);
      const key = { orgId, userId: id, roleId: role.id };
      if (!(await tx.userRole.findUnique({ where: { orgId_userId_roleId: key } }))) await tx.userRole.create({ data: key });
    });
    return { message: MESSAGES.userRoleAdded };
  }

  /**
   * Removes a role from a user or service account: its assignment in the caller's organization,
   * or its global one with `global: true`. Removing a role that is not assigned succeeds and
   * changes nothing (Grafana); an unknown uid is 404, since delegation needs the role's
   * permissions. Needs users.roles:delete on permissions:type:delegate and delegation of the
   * role's permissions; global needs a Service Admin.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE (400), 401, ACCESS_DENIED (403),
   *   USER_NOT_FOUND / ROLE_NOT_FOUND (404), 404 in oss.
   */
  async removeUserRole(caller: Principal, userId: unknown, roleUid: unknown, options: { global?: boolean | null }): Promise<Message> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    const uid = parseInput(roleUidParam, roleUid);
    await this.deps.access.check(caller, permission(Action.UsersRolesDelete, Scope.Delegate));
    const orgId = this.assignmentOrg(caller, options.global);
    await this.write(caller, async (tx, index) => {
      await this.member(tx, caller, id);
      const role = await this.assignableRole(tx, caller, uid, orgId);
      requireCoverage(index, role.permissions);
      await tx.userRole.deleteMany({ where: { orgId, userId: id, roleId: role.id } });
    });
    return { message: MESSAGES.userRoleRemoved };
  }

  /**
   * Replaces the user's or service account's assignments in the caller's organization (or its
   * global ones with `global: true`) by exactly `roleUids`, in one transaction; without
   * includeHidden, hidden assignments stay (rules in `planSet`). Needs users.roles:add and
   * users.roles:delete on permissions:type:delegate, and delegation of every role added or
   * removed (roles kept need none); global needs a Service Admin.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE (400), 401, ACCESS_DENIED (403),
   *   USER_NOT_FOUND / ROLE_NOT_FOUND (404: first unknown uid; nothing is changed), 404 in oss.
   */
  async setUserRoles(caller: Principal, userId: unknown, rawInput: unknown): Promise<Message> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    const input = parseInput(setUserRolesInput, rawInput);
    await this.deps.access.check(
      caller,
      all(permission(Action.UsersRolesAdd, Scope.Delegate), permission(Action.UsersRolesDelete, Scope.Delegate)),
    );
    const orgId = this.assignmentOrg(caller, input.global);
    await this.write(caller, async (tx, index) => {
      await this.member(tx, caller, id);
      const wanted = await this.assignableRoles(tx, caller, input.roleUids, orgId);
      const rows = await tx.userRole.findMany({
        where: { orgId, userId: id, role: { orgId: { in: [0, caller.orgId] }, NOT: { name: { startsWith: BASIC_PREFIX } } } },
        include: { role: { include: { permissions: { select: { action: true, scope: true } } } } },
      });
      const plan = planSet(
        rows.map((r) => r.role),
        wanted,
        input.includeHidden ?? false,
      );
      requireCoverage(
        index,
        [...plan.add, ...plan.remove].flatMap((r) => r.permissions),
      );
      if (plan.remove.length > 0) {
        await tx.userRole.deleteMany({ where: { orgId, userId: id, roleId: { in: plan.remove.map((r) => r.id) } } });
      }
      if (plan.add.length > 0) await tx.userRole.createMany({ data: plan.add.map((r) => ({ orgId, userId: id, roleId: r.id })) });
    });
    return { message: MESSAGES.userRolesSet };
  }

  // ---- teams ------------------------------------------------------------------------------------

  /**
   * Roles assigned to a team of the caller's organization, sorted by name; never basic roles;
   * hidden ones only with includeHidden. Needs teams.roles:read on teams:id:<teamId>.
   * @throws DomainError VALIDATION_FAILED (400: teamId), 401, ACCESS_DENIED (403),
   *   TEAM_NOT_FOUND (404: no such team in the caller's organization), 404 in oss.
   */
  async listTeamRoles(
    caller: Principal,
    teamId: unknown,
    options: { includeHidden?: boolean | null },
    query: RoleQuery = {},
  ): Promise<Role[]> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('teamId', teamId);
    await this.deps.access.check(caller, permission(Action.TeamsRolesRead, Scope.team(id)));
    const team = await this.team(this.deps.db, caller, id);
    return this.teamRoles(caller, team, options, query);
  }

  /**
   * `listTeamRoles` for a team row already loaded (GraphQL `Team.roles`), which saves looking the
   * team up again; its organization is still checked against the caller's.
   * @throws as `listTeamRoles`.
   */
  async listRolesOfTeam(
    caller: Principal,
    team: Pick<Team, 'id' | 'orgId'>,
    options: { includeHidden?: boolean | null },
    query: RoleQuery = {},
  ): Promise<Role[]> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, permission(Action.TeamsRolesRead, Scope.team(team.id)));
    if (team.orgId !== caller.orgId) throw teamNotFound(team.id);
    return this.teamRoles(caller, team, options, query);
  }

  /**
   * Assigns a role to a team (idempotent). Needs teams.roles:add on permissions:type:delegate and
   * delegation of the role's permissions.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE (400), 401, ACCESS_DENIED (403),
   *   TEAM_NOT_FOUND / ROLE_NOT_FOUND (404), 404 in oss.
   */
  async addTeamRole(caller: Principal, teamId: unknown, rawInput: unknown): Promise<Message> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('teamId', teamId);
    const input = parseInput(addTeamRoleInput, rawInput);
    await this.deps.access.check(caller, permission(Action.TeamsRolesAdd, Scope.Delegate));
    await this.write(caller, async (tx, index) => {
      const team = await this.team(tx, caller, id);
      const role = await this.assignableRole(tx, caller, input.roleUid, team.orgId);
      requireCoverage(index, role.permissions);
      const key = { teamId: id, roleId: role.id };
      if (!(await tx.teamRole.findUnique({ where: { teamId_roleId: key } }))) {
        await tx.teamRole.create({ data: { ...key, orgId: team.orgId } });
      }
    });
    return { message: MESSAGES.teamRoleAdded };
  }

  /**
   * Removes a role from a team; not assigned: success, nothing changes. Needs teams.roles:delete
   * on permissions:type:delegate and delegation of the role's permissions.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE (400), 401, ACCESS_DENIED (403),
   *   TEAM_NOT_FOUND / ROLE_NOT_FOUND (404), 404 in oss.
   */
  async removeTeamRole(caller: Principal, teamId: unknown, roleUid: unknown): Promise<Message> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('teamId', teamId);
    const uid = parseInput(roleUidParam, roleUid);
    await this.deps.access.check(caller, permission(Action.TeamsRolesDelete, Scope.Delegate));
    await this.write(caller, async (tx, index) => {
      const team = await this.team(tx, caller, id);
      const role = await this.assignableRole(tx, caller, uid, team.orgId);
      requireCoverage(index, role.permissions);
      await tx.teamRole.deleteMany({ where: { teamId: id, roleId: role.id } });
    });
    return { message: MESSAGES.teamRoleRemoved };
  }

  /**
   * Replaces a team's assignments by exactly `roleUids` in one transaction (hidden ones kept
   * without includeHidden, see `planSet`). Needs teams.roles:add and teams.roles:delete on
   * permissions:type:delegate and delegation of every role added or removed.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE (400), 401, ACCESS_DENIED (403),
   *   TEAM_NOT_FOUND / ROLE_NOT_FOUND (404; nothing is changed), 404 in oss.
   */
  async setTeamRoles(caller: Principal, teamId: unknown, rawInput: unknown): Promise<Message> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('teamId', teamId);
    const input = parseInput(setTeamRolesInput, rawInput);
    await this.deps.access.check(
      caller,
      all(permission(Action.TeamsRolesAdd, Scope.Delegate), permission(Action.TeamsRolesDelete, Scope.Delegate)),
    );
    await this.write(caller, async (tx, index) => {
      const team = await this.team(tx, caller, id);
      const wanted = await this.assignableRoles(tx, caller, input.roleUids, team.orgId);
      const rows = await tx.teamRole.findMany({
        where: { teamId: id, role: { orgId: { in: [0, team.orgId] }, NOT: { name: { startsWith: BASIC_PREFIX } } } },
        include: { role: { include: { permissions: { select: { action: true, scope: true } } } } },
      });
      const plan = planSet(
        rows.map((r) => r.role),
        wanted,
        input.includeHidden ?? false,
      );
      requireCoverage(
        index,
        [...plan.add, ...plan.remove].flatMap((r) => r.permissions),
      );
      if (plan.remove.length > 0) await tx.teamRole.deleteMany({ where: { teamId: id, roleId: { in: plan.remove.map((r) => r.id) } } });
      if (plan.add.length > 0)
        await tx.teamRole.createMany({ data: plan.add.map((r) => ({ teamId: id, orgId: team.orgId, roleId: r.id })) });
    });
    return { message: MESSAGES.teamRolesSet };
  }

  /**
   * Teams of the caller in the organization it acts in, by name (GraphQL `viewer.teams`). Any
   * signed-in caller may see its own teams; an API key belongs to none.
   * @throws DomainError UNAUTHENTICATED (401).
   */
  async teamsOfCaller(caller: Principal, query: TeamQuery = {}): Promise<Team[]> {
    requireSignedIn(caller);
    if (caller.kind === 'apiKey') return [];
    return this.deps.db.team.findMany({
      ...query,
      where: { orgId: caller.orgId, members: { some: { userId: caller.id } } },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
  }

  // ---- permission listings ---------------------------------------------------------------------

  /**
   * The caller's effective permissions as a map action -> sorted scopes (GET
   * /api/access-control/user/permissions). `reloadCache` drops the caller's cached index first,
   * so the answer is read from the database. Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownPermissions(caller: Principal, options: { reloadCache?: boolean | null }): Promise<Record<string, string[]>> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    if (options.reloadCache) this.deps.access.invalidatePrincipal(caller);
    return (await this.deps.access.permissionsOf(caller)).toScopeMap();
  }

  /**
   * The caller's effective permissions as sorted `{action, scope}` pairs (GraphQL
   * `viewer.permissions`). Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownPermissionList(caller: Principal): Promise<PermissionPair[]> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    return (await this.deps.access.permissionsOf(caller)).list();
  }

  /**
   * Every role behind the caller's permissions: basic, direct (org and global) and its teams'
   * roles (GraphQL `viewer.roles`). Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownRoles(caller: Principal, query: RoleQuery = {}): Promise<Role[]> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    return this.deps.access.heldRoles(caller, query);
  }

  /**
   * Effective permissions of a user or service account in the caller's organization, as
   * `{action, scope}` pairs sorted by action then scope: its direct roles there and global ones,
   * its teams' roles there, the basic role of its org role there, and basic:service_admin for a
   * Service Admin (AccessService). Needs users.permissions:read on users:id:<userId>.
   * @throws DomainError VALIDATION_FAILED (400: userId), 401, ACCESS_DENIED (403),
   *   USER_NOT_FOUND (404: not a member of the caller's organization), 404 in oss.
   */
  async userPermissions(caller: Principal, userId: unknown): Promise<PermissionPair[]> {
    this.deps.availability.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    await this.deps.access.check(caller, permission(Action.UsersPermissionsRead, Scope.user(id)));
    const membership = await this.member(this.deps.db, caller, id);
    const principal = principalOfMember(membership.user, caller.orgId, membership.role);
    return (await this.deps.access.permissionsOf(principal)).list();
  }

  // ---- helpers --------------------------------------------------------------------------------

  /** Organization id of a user assignment: 0 for global (Service Admin only), else the caller's. */
  private assignmentOrg(caller: SignedIn, global: boolean | null | undefined): number {
    if (!global) return caller.orgId;
    requireServiceAdmin(caller, 'assign or remove a role globally');
    return 0;
  }

  /**
   * Runs `fn` in one transaction and then drops the permission cache, also after a failure (the
   * rule in access.ts). The caller's index is loaded first and handed to `fn`, so delegation
   * checks inside the transaction (requireCoverage) read no database.
   */
  private async write(caller: SignedIn, fn: (tx: Tx, index: PermissionIndex) => Promise<void>): Promise<void> {
    const index = await this.deps.access.permissionsOf(caller);
    try {
      await this.deps.db.$transaction((tx) => fn(tx, index));
    } finally {
      this.deps.access.invalidate();
    }
  }

  /** The OrgUser row (with its user) of `userId` in the caller's organization. */
  private async member(db: Db | Tx, caller: SignedIn, userId: number): Promise<{ role: string; user: User }> {
    const row = await db.orgUser.findUnique({
      where: { orgId_userId: { orgId: caller.orgId, userId } },
      select: { role: true, user: true },
    });
    if (!row) throw new DomainError('USER_NOT_FOUND', `user ${userId} not found`, { userId });
    return row;
  }

  /** The team `teamId` of the caller's organization. */
  private async team(db: Db | Tx, caller: SignedIn, teamId: number): Promise<Team> {
    const team = await db.team.findFirst({ where: { id: teamId, orgId: caller.orgId } });
    if (!team) throw teamNotFound(teamId);
    return team;
  }

  private teamRoles(
    caller: SignedIn,
    team: Pick<Team, 'id'>,
    options: { includeHidden?: boolean | null },
    query: RoleQuery,
  ): Promise<Role[]> {
    return this.deps.db.role.findMany({
      ...query,
      where: { ...listableRoles(caller.orgId, options.includeHidden), teamRoles: { some: { teamId: team.id } } },
      orderBy: [{ name: 'asc' }],
    });
  }

  /** The one role named by `uid`, assignable in `orgId`. @throws as `assignableRoles`. */
  private async assignableRole(tx: Tx, caller: SignedIn, uid: string, orgId: number): Promise<AssignableRole> {
    const [role] = await this.assignableRoles(tx, caller, [uid], orgId);
    if (!role) throw roleNotFound(uid); // unreachable: assignableRoles answers one role per uid or throws
    return role;
  }

  /**
   * The roles named by `uids` (in that order) with their permissions, each assignable in
   * `orgId` (0 = global).
   * @throws DomainError ROLE_NOT_FOUND (404) for the first uid naming no role the caller can see
   *   (global or of its organization), ROLE_NOT_ASSIGNABLE (400) for a basic role or, when
   *   `orgId` is 0, an organization's role.
   */
  private async assignableRoles(tx: Tx, caller: SignedIn, uids: readonly string[], orgId: number): Promise<AssignableRole[]> {
    if (uids.length === 0) return [];
    const rows = await tx.role.findMany({
      where: { uid: { in: [...uids] }, orgId: { in: [0, caller.orgId] } },
      include: { permissions: { select: { action: true, scope: true } } },
    });
    const byUid = new Map(rows.map((r) => [r.uid, r]));
    return uids.map((uid) => {
      const role = byUid.get(uid);
      if (!role) throw roleNotFound(uid);
      if (isBasicRoleName(role.name)) {
        throw new DomainError('ROLE_NOT_ASSIGNABLE', `role "${uid}" is a basic role: it is held through an org role, not assigned`, {
          uid,
        });
      }
      if (orgId === 0 && role.orgId !== 0) {
        throw new DomainError('ROLE_NOT_ASSIGNABLE', `global: role "${uid}" belongs to one organization and cannot be assigned globally`, {
          uid,
        });
      }
      return role;
    });
  }
}

/** 404 TEAM_NOT_FOUND for `teamId`. */
function teamNotFound(teamId: number): DomainError {
  return new DomainError('TEAM_NOT_FOUND', `team ${teamId} not found`, { teamId });
}
