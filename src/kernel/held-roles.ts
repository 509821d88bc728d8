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
 * The ways a role reaches `principal`, each a filter on the role's rows of that kind: a basic
 * role grant in its organization or globally (orgId 0), an assignment to it there or globally,
 * and an assignment to one of its teams in its organization. Null where the principal has no
 * such way (an API key: no assignments, no teams).
 */
export function heldRoleSources(principal: SignedInPrincipal): {
  basicGrants: Prisma.BasicRoleGrantWhereInput;
  userRoles: Prisma.UserRoleWhereInput | null;
  teamRoles: Prisma.TeamRoleWhereInput | null;
} {
  const { orgId } = principal;
  const basicGrants = { basicRole: { in: basicRolesOf(principal) }, orgId: { in: [0, orgId] } };
  if (principal.kind === 'apiKey') return { basicGrants, userRoles: null, teamRoles: null };
  return {
    basicGrants,
    userRoles: directAssignments([principal.id], orgId),
    teamRoles: teamAssignments(orgId, { members: { some: { userId: principal.id } } }),
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

/** What heldRoleIds reads through: the client or a transaction. */
export type HeldRoleTables = Pick<Prisma.TransactionClient, '$queryRaw'>;

/**
 * The ids of the roles `principal` holds (heldRoleSources, any of them), read from the
 * assignment side in one statement, a UNION of one SELECT per way a role is held: its basic
 * grants (BasicRoleGrant (basicRole, orgId, roleId)), its own assignments in its organization or
 * globally (UserRole (userId)), and its teams' assignments in its organization (TeamMember
 * (userId, orgId) joined to TeamRole (teamId, roleId)), each an index lookup. By comparison,
 * `role.findMany({ where: heldRolesWhere })` walked every Role row and probed the assignment
 * tables for each (33 ms at 10k roles, 0.28 ms at 100); four Prisma reads of the same lookups
 * cost 0.5-0.8 ms, this one 0.13-0.2 ms (bench/scale.ts database). The SQL is the filters of
 * heldRoleSources written out (quoted identifiers: the same text on SQLite and PostgreSQL); the
 * permission and explain tests hold both to the same answers. Ids in no order, each once.
 */
export async function heldRoleIds(db: HeldRoleTables, principal: SignedInPrincipal): Promise<number[]> {
  const { orgId } = principal;
  // At most two basic roles (the org role's, basic:service_admin's); '' names none.
  const [first = '', second = ''] = basicRolesOf(principal);
  // An API key holds its basic role only (heldRoleSources): its id matches no assignment.
  const userId = principal.kind === 'apiKey' ? NO_ROW.id : principal.id;
  const rows = await db.$queryRaw<{ roleId: number | bigint }[]>`SELECT "roleId" FROM "BasicRoleGrant"
    WHERE "basicRole" IN (${first}, ${second}) AND "orgId" IN (0, ${orgId})
    UNION SELECT "roleId" FROM "UserRole" WHERE "userId" = ${userId} AND "orgId" IN (0, ${orgId})
    UNION SELECT "TeamRole"."roleId" FROM "TeamRole" JOIN "TeamMember" ON "TeamMember"."teamId" = "TeamRole"."teamId"
    WHERE "TeamMember"."userId" = ${userId} AND "TeamMember"."orgId" = ${orgId} AND "TeamRole"."orgId" = ${orgId}`;
  return rows.map((row) => Number(row.roleId));
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

/**
 * Loads the permissions behind `principal` and the ids of the roles holding them through `db`
 * (default the client; a write's own transaction for the fence recheck): the held roles' ids
 * from the assignment side (heldRoleIds), then their permissions (permissionsByRole): two
 * statements whatever the data (the rule: this module's comment). The roles' rows are read only
 * when asked for (role-rows.ts).
 */
export async function loadHeldAccess(db: HeldRoleTables, principal: SignedInPrincipal): Promise<HeldAccess> {
  const roleIds = await heldRoleIds(db, principal);
  const byRole = await permissionsByRole(db, roleIds);
  const permissions: PermissionPair[] = [];
  for (const id of roleIds) for (const pair of byRole.get(id) ?? []) permissions.push(pair);
  return { permissions, roleIds };
}

/** Prisma filter for the roles a signed-in principal holds in its organization (heldRoleSources, any of them). */
export function heldRolesWhere(principal: SignedInPrincipal): Prisma.RoleWhereInput {
  const { basicGrants, userRoles, teamRoles } = heldRoleSources(principal);
  const sources: Prisma.RoleWhereInput[] = [{ basicGrants: { some: basicGrants } }];
  if (userRoles) sources.push({ userRoles: { some: userRoles } });
  if (teamRoles) sources.push({ teamRoles: { some: teamRoles } });
  return { OR: sources };
}

/**
 * Prisma `include` that loads, with each role of heldRolesWhere, the rows that make it held for
 * `principal`: its matching basic grants (basicRole), its assignment to the principal (id) and
 * the teams whose assignment it reaches the principal through (team name). Empty lists for a way
 * the principal has not.
 */
export function heldRoleReasons(principal: SignedInPrincipal) {
  const { basicGrants, userRoles, teamRoles } = heldRoleSources(principal);
  return {
    basicGrants: { where: basicGrants, select: { basicRole: true } },
    userRoles: { where: userRoles ?? NO_ROW, select: { id: true } },
    teamRoles: { where: teamRoles ?? NO_ROW, select: { team: { select: { name: true } } } },
  } satisfies Prisma.RoleInclude;
}

/** The rows heldRoleReasons loads with a role. */
export interface HeldRoleReasons {
  basicGrants: { basicRole: string }[];
  userRoles: { id: number }[];
  teamRoles: { team: { name: string } }[];
}
