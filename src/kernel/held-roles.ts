/**
 * Which roles a principal holds in its organization (upstream-behaviour.md "Permission
 * evaluation"): the basic roles of its org role and Service Admin flag, roles assigned to it in
 * that organization or globally, and the roles of its teams there; an API key holds only the
 * basic role of its own role.
 *
 * The rule is written once, as one filter per way a role is held (heldRoleSources); the checks
 * load permissions through heldRolesWhere and a check's reason (grants.ts)
 * loads the rows that make each role held through heldRoleReasons, so the two cannot disagree.
 * The listings of assigned roles (GraphQL `users { roles }`, REST .../roles) read the same
 * assignment filters for many subjects at once (directAssignments, teamAssignments).
 */
import { Prisma } from '../generated/prisma/client.js';
import type { PermissionPair } from './catalogue.js';
import type { EndingPermission } from './evaluator.js';
import type { HeldAccess } from './permission-cache.js';
import { type BasicRoleName, type Principal, SERVICE_ADMIN, type SignedInPrincipal } from './principal.js';

/** Basic roles whose permissions `principal` holds (its org role's, and basic:service_admin for a Service Admin). */
export function basicRolesOf(principal: Pick<Principal, 'orgRole' | 'isServiceAdmin'>): BasicRoleName[] {
  const roles: BasicRoleName[] = [];
  if (principal.orgRole !== 'None') roles.push(principal.orgRole);
  if (principal.isServiceAdmin) roles.push(SERVICE_ADMIN);
  return roles;
}

/**
 * The assignment rows whose window holds at `now` (heldAt's rule as a filter): started, and not
 * yet ended.
 */
export function inForceAt(now: Date) {
  return {
    AND: [{ OR: [{ notBefore: null }, { notBefore: { lte: now } }] }, { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }],
  } satisfies Prisma.UserRoleWhereInput & Prisma.TeamRoleWhereInput;
}

/** The assignment rows not yet ended at `now` (in force or pending): what listings show. */
export function notEndedAt(now: Date) {
  return { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } satisfies Prisma.UserRoleWhereInput & Prisma.TeamRoleWhereInput;
}

/**
 * The ways a role reaches `principal`, each a filter on the role's rows of that kind: a basic
 * role grant in its organization or globally (orgId 0), an assignment to it there or globally,
 * and an assignment to one of its teams in its organization, in force at `now`. Without `now`,
 * every assignment row counts, pending and lapsed ones too (what a subject holds or may hold:
 * gains.ts, the stricter reading for delegation). Null where the principal has no such way (an
 * API key: no assignments, no teams).
 */
export function heldRoleSources(
  principal: SignedInPrincipal,
  now?: Date,
): {
  basicGrants: Prisma.BasicRoleGrantWhereInput;
  userRoles: Prisma.UserRoleWhereInput | null;
  teamRoles: Prisma.TeamRoleWhereInput | null;
} {
  const { orgId } = principal;
  const basicGrants = { basicRole: { in: basicRolesOf(principal) }, orgId: { in: [0, orgId] } };
  if (principal.kind === 'apiKey') return { basicGrants, userRoles: null, teamRoles: null };
  const inForce = now ? inForceAt(now) : {};
  return {
    basicGrants,
    userRoles: { ...directAssignments([principal.id], orgId), ...inForce },
    teamRoles: { ...teamAssignments(orgId, { members: { some: { userId: principal.id } } }), ...inForce },
  };
}

/**
 * The assignment rows through which a role reaches users or service accounts `userIds` directly
 * in organization `orgId`: assigned there or globally (orgId 0). heldRoleSources' `userRoles` for
 * one principal; for many at once, the batched listings of assigned roles
 * (modules/assignments/stores.ts, one query per batch of GraphQL rows).
 */
export function directAssignments(userIds: readonly number[], orgId: number): Prisma.UserRoleWhereInput {
  return { userId: { in: [...userIds] }, orgId: { in: [0, orgId] } };
}

/**
 * The assignment rows through which a role reaches the members of the teams matching `teams` in
 * organization `orgId`: team assignments live in the team's organization only.
 * heldRoleSources' `teamRoles` (the teams of one principal); for a batch of teams by id, the
 * batched listings of assigned roles (modules/assignments/stores.ts).
 */
export function teamAssignments(orgId: number, teams: Prisma.TeamWhereInput): Prisma.TeamRoleWhereInput {
  return { orgId, team: teams };
}

/** Matches no row: the filter of a way a principal has not (ids are positive). */
const NO_ROW = { id: -1 } as const;

/** What heldRoleHolds reads through: the client or a transaction. */
export type HeldRoleTables = Pick<Prisma.TransactionClient, '$queryRaw'>;

/** One way a role is held: the role's id and the window of the row (both null for a basic grant). */
export interface RoleHold {
  roleId: number;
  notBefore: Date | null;
  expiresAt: Date | null;
}

/** A DATETIME column of a raw read: a Date, or what the driver answers for it (ISO text, epoch ms). */
export function dateOfColumn(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  if (typeof value === 'bigint') return new Date(Number(value));
  if (typeof value === 'number') return new Date(value);
  return new Date(String(value));
}

/**
 * The ways `principal` holds roles (heldRoleSources, any of them), read from the assignment side
 * in one statement, a UNION ALL of one SELECT per way: its basic grants (BasicRoleGrant
 * (basicRole, orgId, roleId)), its own assignments in its organization or globally (UserRole
 * (userId)), and its teams' assignments in its organization (TeamMember (userId, orgId) joined to
 * TeamRole (teamId, roleId)), each an index lookup, with each assignment's window whatever the
 * time (pending and lapsed ones too: heldAt decides). By comparison, `role.findMany({ where:
 * heldRolesWhere })` walked every Role row and probed the assignment tables for each (33 ms at 10k
 * roles); this is one statement (bench/scale.ts database). The SQL is the filters of
 * heldRoleSources written out (quoted identifiers: the same text on SQLite and PostgreSQL); the
 * permission and explain tests hold both to the same answers.
 */
export async function heldRoleHolds(db: HeldRoleTables, principal: SignedInPrincipal): Promise<RoleHold[]> {
  const { orgId } = principal;
  // At most two basic roles (the org role's, basic:service_admin's); '' names none.
  const [first = '', second = ''] = basicRolesOf(principal);
  // An API key holds its basic role only (heldRoleSources): its id matches no assignment.
  const userId = principal.kind === 'apiKey' ? NO_ROW.id : principal.id;
  const rows = await db.$queryRaw<
    { roleId: number | bigint; notBefore: unknown; expiresAt: unknown }[]
  >`SELECT "roleId", "notBefore", "expiresAt" FROM "UserRole" WHERE "userId" = ${userId} AND "orgId" IN (0, ${orgId})
    UNION ALL SELECT "TeamRole"."roleId", "TeamRole"."notBefore", "TeamRole"."expiresAt" FROM "TeamRole" JOIN "TeamMember" ON "TeamMember"."teamId" = "TeamRole"."teamId"
    WHERE "TeamMember"."userId" = ${userId} AND "TeamMember"."orgId" = ${orgId} AND "TeamRole"."orgId" = ${orgId}
    UNION ALL SELECT "roleId", NULL, NULL FROM "BasicRoleGrant" WHERE "basicRole" IN (${first}, ${second}) AND "orgId" IN (0, ${orgId})`;
  return rows.map((row) => ({
    roleId: Number(row.roleId),
    notBefore: dateOfColumn(row.notBefore),
    expiresAt: dateOfColumn(row.expiresAt),
  }));
}

/** What `holds` give at one moment: the roles held, each one's end, and the next change. */
export interface HeldAt {
  /** Ids of the roles held at that moment, each once. */
  roleIds: number[];
  /** The end (ms since the epoch) of each held role held only through ending holds; absent: for good. */
  ends: Map<number, number>;
  /** The earliest later moment (ms) one of `holds` begins or ends; null when none does. */
  changesAt: number | null;
}

/**
 * The roles `holds` give at `now` (ms since the epoch): a hold counts from its notBefore (none:
 * always) until before its expiresAt (none: for good), so it is refused from the very instant
 * expiresAt. Pure; the one reading of windows that the checks, their cache and delegation share.
 */
export function heldAt(holds: readonly RoleHold[], now: number): HeldAt {
  const forGood = new Set<number>();
  const ends = new Map<number, number>();
  let changesAt: number | null = null;
  const later = (t: number) => {
    if (t > now && (changesAt === null || t < changesAt)) changesAt = t;
  };
  for (const { roleId, notBefore, expiresAt } of holds) {
    const start = notBefore?.getTime() ?? null;
    const end = expiresAt?.getTime() ?? null;
    if (start !== null) later(start);
    if (end !== null) later(end);
    if ((start !== null && start > now) || (end !== null && end <= now)) continue;
    if (end === null) forGood.add(roleId);
    else ends.set(roleId, Math.max(end, ends.get(roleId) ?? end));
  }
  for (const id of forGood) ends.delete(id);
  return { roleIds: [...new Set([...forGood, ...ends.keys()])], ends, changesAt };
}

/** Role ids bound in one statement: well under SQLite's parameter limit. */
export const ROLE_ID_SLICE = 500;

/** The tables loadHeldAccess reads: the client or a transaction. */
export type HeldAccessTables = HeldRoleTables & Pick<Prisma.TransactionClient, 'role'>;

/**
 * The action and scope of every permission of roles `ids`, by role id (a role without any is
 * absent), read by one raw statement per ROLE_ID_SLICE ids (Permission (roleId) index; quoted
 * identifiers, the same text on SQLite and PostgreSQL), in no order. Measured: with Prisma's
 * relation load, a 50-role user's whole load (250 permissions) took 1.52 ms on the scale
 * benchmark's database, with this one 1.21 ms; the permission checks (loadHeldAccess) and the
 * delegation of an assignment (assignments/assignable.ts) read them so.
 */
export async function permissionsByRole(db: HeldRoleTables, ids: readonly number[]): Promise<Map<number, PermissionPair[]>> {
  const byRole = new Map<number, PermissionPair[]>();
  for (let i = 0; i < ids.length; i += ROLE_ID_SLICE) {
    const slice = ids.slice(i, i + ROLE_ID_SLICE);
    const rows = await db.$queryRaw<{ roleId: number | bigint; action: string; scope: string }[]>`SELECT "roleId", "action", "scope"
      FROM "Permission" WHERE "roleId" IN (${Prisma.join(slice)})`;
    for (const { roleId, action, scope } of rows) {
      const id = Number(roleId);
      const own = byRole.get(id);
      if (own) own.push({ action, scope });
      else byRole.set(id, [{ action, scope }]);
    }
  }
  return byRole;
}

/** What loadHeldAccess reads: HeldAccess, with the permissions that end and when the answer changes. */
export interface TimedHeldAccess extends HeldAccess {
  /** The permissions held only through time-bound assignments, each with its latest end. */
  ending: EndingPermission[];
  /** The earliest later moment (ms since the epoch) one of the principal's holds begins or ends; null: none. */
  changesAt: number | null;
}

/**
 * Loads the permissions behind `principal` at `now` and the ids of the roles holding them through
 * `db` (default the client; a write's own transaction for the fence recheck): the ways it holds
 * roles (heldRoleHolds), read at `now` (heldAt), then the held roles' permissions
 * (permissionsByRole): two statements whatever the data (the rule: this module's comment). The
 * answer holds until `changesAt`; a cache serves it no longer. The roles' rows are read only when
 * asked for (role-rows.ts).
 */
export async function loadHeldAccess(db: HeldRoleTables, principal: SignedInPrincipal, now: Date): Promise<TimedHeldAccess> {
  const { roleIds, ends, changesAt } = heldAt(await heldRoleHolds(db, principal), now.getTime());
  const byRole = await permissionsByRole(db, roleIds);
  const permissions: PermissionPair[] = [];
  const lasting = new Set<string>();
  const ending = new Map<string, EndingPermission>();
  for (const id of roleIds) {
    const until = ends.get(id);
    for (const pair of byRole.get(id) ?? []) {
      permissions.push(pair);
      const key = `${pair.action}\u0000${pair.scope}`;
      if (until === undefined) lasting.add(key);
      else if ((ending.get(key)?.until ?? -1) < until) ending.set(key, { ...pair, until });
    }
  }
  for (const key of lasting) ending.delete(key);
  return { permissions, roleIds, ending: [...ending.values()], changesAt };
}

/**
 * Prisma filter for the roles a signed-in principal holds in its organization at `now`
 * (heldRoleSources, any of them; without `now`, through any assignment row whatever its window).
 */
export function heldRolesWhere(principal: SignedInPrincipal, now?: Date): Prisma.RoleWhereInput {
  const { basicGrants, userRoles, teamRoles } = heldRoleSources(principal, now);
  const sources: Prisma.RoleWhereInput[] = [{ basicGrants: { some: basicGrants } }];
  if (userRoles) sources.push({ userRoles: { some: userRoles } });
  if (teamRoles) sources.push({ teamRoles: { some: teamRoles } });
  return { OR: sources };
}

/**
 * Prisma `include` that loads, with each role of heldRolesWhere at `now`, the rows that make it
 * held for `principal`: its matching basic grants (basicRole), its assignment to the principal
 * (id, window) and the teams whose assignment it reaches the principal through (team name,
 * window). Empty lists for a way the principal has not.
 */
export function heldRoleReasons(principal: SignedInPrincipal, now: Date) {
  const { basicGrants, userRoles, teamRoles } = heldRoleSources(principal, now);
  return {
    basicGrants: { where: basicGrants, select: { basicRole: true } },
    userRoles: { where: userRoles ?? NO_ROW, select: { id: true, expiresAt: true } },
    teamRoles: { where: teamRoles ?? NO_ROW, select: { expiresAt: true, team: { select: { name: true } } } },
  } satisfies Prisma.RoleInclude;
}

/** The rows heldRoleReasons loads with a role. */
export interface HeldRoleReasons {
  basicGrants: { basicRole: string }[];
  userRoles: { id: number; expiresAt: Date | null }[];
  teamRoles: { expiresAt: Date | null; team: { name: string } }[];
}
