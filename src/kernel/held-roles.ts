/**
 * Which roles a principal holds in its organization (upstream-behaviour.md "Permission
 * evaluation"): the basic roles of its org role and Service Admin flag, roles assigned to it in
 * that organization or globally, and the roles of its teams there; an API key holds only the
 * basic role of its own role.
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

/** Prisma filter for the roles a signed-in principal holds in its organization. */
export function heldRolesWhere(principal: SignedInPrincipal): Prisma.RoleWhereInput {
  const { orgId } = principal;
  const basic = basicRolesOf(principal);
  const sources: Prisma.RoleWhereInput[] = [{ basicGrants: { some: { basicRole: { in: basic }, orgId: { in: [0, orgId] } } } }];
  if (principal.kind !== 'apiKey') {
    sources.push({ userRoles: { some: { userId: principal.id, orgId: { in: [0, orgId] } } } });
    sources.push({ teamRoles: { some: { orgId, team: { members: { some: { userId: principal.id } } } } } });
  }
  return { OR: sources };
}
