/**
 * The roles an assignment names: looked up by uid and checked assignable in a scope (add, set),
 * and the roles a subject holds in a scope (the stores' `current`), each with the permissions
 * delegation compares.
 */
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { BASIC_PREFIX, isBasicRoleName } from '../../kernel/builtin-roles.js';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { permissionsByRole } from '../../kernel/held-roles.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import type { Tx } from '../../platform/database.js';
import { roleNotFound } from '../roles/service.js';

/** A role with the permissions delegation needs. */
export type AssignableRole = Role & { permissions: PermissionPair[] };

/** The one role named by `uid`, assignable in `orgId`. @throws as `assignableRoles`. */
export async function assignableRole(tx: Tx, caller: SignedInPrincipal, uid: string, orgId: number): Promise<AssignableRole> {
  const [role] = await assignableRoles(tx, caller, [uid], orgId);
  if (!role) throw roleNotFound(uid); // unreachable: assignableRoles answers one role per uid or throws
  return role;
}

/**
 * The roles named by `uids` (in that order) with their permissions (kernel/held-roles.ts
 * permissionsByRole: the checks' own read), each assignable in `orgId` (0 = global).
 * @throws DomainError ROLE_NOT_FOUND (404) for the first uid naming no role the caller can see,
 *   ROLE_NOT_ASSIGNABLE (400) for a basic role or, when `orgId` is 0, an organization's role.
 */
export async function assignableRoles(
  tx: Tx,
  caller: SignedInPrincipal,
  uids: readonly string[],
  orgId: number,
): Promise<AssignableRole[]> {
  if (uids.length === 0) return [];
  const found = await tx.role.findMany({ where: { uid: { in: [...uids] }, orgId: { in: [0, caller.orgId] } } });
  const permissions = await permissionsByRole(
    tx,
    found.map((r) => r.id),
  );
  const byUid = new Map(found.map((r) => [r.uid, { ...r, permissions: permissions.get(r.id) ?? [] }]));
  return uids.map((uid) => {
    const role = byUid.get(uid);
    if (!role) throw roleNotFound(uid);
    if (isBasicRoleName(role.name)) {
      throw new DomainError('ROLE_NOT_ASSIGNABLE', `role "${uid}" is a basic role: it is held through an org role, not assigned`, { uid });
    }
    if (orgId === 0 && role.orgId !== 0) {
      throw new DomainError('ROLE_NOT_ASSIGNABLE', `global: role "${uid}" belongs to one organization and cannot be assigned globally`, {
        uid,
      });
    }
    return role;
  });
}

/** The non-basic roles of assignment rows, visible in `orgId`, with their permissions. */
export function currentRoleSelect(orgId: number) {
  return {
    where: { orgId: { in: [0, orgId] }, NOT: { name: { startsWith: BASIC_PREFIX } } } satisfies Prisma.RoleWhereInput,
    include: { permissions: { select: { action: true, scope: true } } } satisfies Prisma.RoleInclude,
  };
}
