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
