/**
 * Which roles a principal holds in its organization (upstream-behaviour.md "Permission
 * evaluation"): the basic roles of its org role and Service Admin flag, roles assigned to it in
 * that organization or globally, and the roles of its teams there; an API key holds only the
 * basic role of its own role.
 *
 * The rule is written once, as one filter per way a role is held (heldRoleSources); the checks
 * load permissions through heldRolesWhere and a check's reason (modules/permissions/explain.ts)
 * loads the rows that make each role held through heldRoleReasons, so the two cannot disagree.
 * The listings of assigned roles (GraphQL `users { roles }`, REST .../roles) read the same
 * assignment filters for many subjects at once (directAssignments, teamAssignments).
 */
import type { Prisma } from '../generated/prisma/client.js';
import type { PermissionPair } from './catalogue.js';
import type { HeldAccess } from './permission-cache.js';
import { type BasicRoleName, type Principal, SERVICE_ADMIN, type SignedInPrincipal } from './principal.js';

/** Basic roles whose permissions `principal` holds. */
export function basicRolesOf(principal: Principal): BasicRoleName[] {
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

/** The tables heldRoleIds reads: the client or a transaction. */
export type HeldRoleTables = Pick<Prisma.TransactionClient, 'basicRoleGrant' | 'userRole' | 'teamMember' | 'teamRole'>;

/**
 * The ids of the roles `principal` holds (heldRoleSources, any of them), read from the
 * assignment side: its basic grants, its own assignments, its team memberships in its
 * organization and those teams' assignments, each an index lookup (BasicRoleGrant
 * (basicRole, orgId, roleId), UserRole (userId), TeamMember (userId, orgId), TeamRole (teamId,
 * roleId)). Issue 20: `role.findMany({ where: heldRolesWhere })` walked every Role row and probed
 * the assignment tables for each (33 ms at 10k roles, 0.28 ms at 100); this costs the same on
 * both. At most 4 statements, whatever the data size. Ids in no order, each once.
 */
export async function heldRoleIds(db: HeldRoleTables, principal: SignedInPrincipal): Promise<number[]> {
  const { basicGrants, userRoles } = heldRoleSources(principal);
  const ids = new Set<number>();
  for (const row of await db.basicRoleGrant.findMany({ where: basicGrants, select: { roleId: true } })) ids.add(row.roleId);
  if (userRoles === null || principal.kind === 'apiKey') return [...ids];
  for (const row of await db.userRole.findMany({ where: userRoles, select: { roleId: true } })) ids.add(row.roleId);
  // heldRoleSources' teamRoles (its teams' assignments in its organization), by the teams' ids.
  const teams = await db.teamMember.findMany({ where: { userId: principal.id, orgId: principal.orgId }, select: { teamId: true } });
  if (teams.length > 0) {
    const teamIds = teams.map((t) => t.teamId);
    for (const row of await db.teamRole.findMany({
      where: { orgId: principal.orgId, teamId: { in: teamIds } },
      select: { roleId: true },
    })) {
      ids.add(row.roleId);
    }
  }
  return [...ids];
}

/** Role ids bound in one statement: well under SQLite's parameter limit. */
export const ROLE_ID_SLICE = 500;
const BY_NAME_THEN_ID: Prisma.RoleOrderByWithRelationInput[] = [{ name: 'asc' }, { id: 'asc' }];

/** The tables loadHeldAccess reads: the client or a transaction. */
export type HeldAccessTables = HeldRoleTables & Pick<Prisma.TransactionClient, 'role'>;

/**
 * Loads the permissions behind `principal` and the rows of the roles holding them through `db`
 * (default the client; a write's own transaction for the fence recheck): the held roles' ids
 * from the assignment side (heldRoleIds), then those roles with their permissions, by name then
 * id, in slices of ROLE_ID_SLICE ids (SQLite's bound-parameter limit). Statements constant in
 * data size (the rule: this module's comment).
 */
export async function loadHeldAccess(db: HeldAccessTables, principal: SignedInPrincipal): Promise<HeldAccess> {
  const ids = await heldRoleIds(db, principal);
  const rows = [];
  for (let i = 0; i < ids.length; i += ROLE_ID_SLICE) {
    rows.push(
      ...(await db.role.findMany({
        where: { id: { in: ids.slice(i, i + ROLE_ID_SLICE) } },
        include: { permissions: { select: { action: true, scope: true } } },
        orderBy: BY_NAME_THEN_ID,
      })),
    );
  }
  // Slices are each in order; more than one (over ROLE_ID_SLICE held roles) are merged here.
  if (ids.length > ROLE_ID_SLICE) rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
  const permissions: PermissionPair[] = [];
  // The rows are kept without their permissions: a GraphQL `permissions` field of a role must
  // not mistake this partial list (no ids, no order) for the relation it loads itself.
  const roles = rows.map(({ permissions: own, ...role }) => {
    for (const p of own) permissions.push(p);
    return role;
  });
  return { permissions, roles };
}

/** Prisma filter for the roles a signed-in principal holds in its organization (heldRoleSources, any of them). */
export function heldRolesWhere(principal: SignedInPrincipal): Prisma.RoleWhereInput {
  const { basicGrants, userRoles, teamRoles } = heldRoleSources(principal);
  const sources: Prisma.RoleWhereInput[] = [{ basicGrants: { some: basicGrants } }];
  if (userRoles) sources.push({ userRoles: { some: userRoles } });
  if (teamRoles) sources.push({ teamRoles: { some: teamRoles } });
  return { OR: sources };
}

/** Matches no row: the filter of a way a principal has not (ids are positive). */
const NO_ROW = { id: -1 } as const;

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
