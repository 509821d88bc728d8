/**
 * What a product registration's grants give to basic roles: the rule that a
 * registration may not give a basic role more than its caller could grant.
 *
 * A grant to Viewer reaches Editor and Admin too, a grant to Editor reaches Admin (Grafana's
 * basic role inheritance); Service Admin only when named.
 */
import type { PermissionPair } from '../../kernel/catalogue.js';
import { type BasicRoleName, SERVICE_ADMIN } from '../../kernel/principal.js';
import type { ProductRoleInput } from './inputs.js';

/** Grafana's inheritance of grants: the basic roles a grant to `role` reaches. */
export const REACHES: Record<BasicRoleName, BasicRoleName[]> = {
  Viewer: ['Viewer', 'Editor', 'Admin'],
  Editor: ['Editor', 'Admin'],
  Admin: ['Admin'],
  [SERVICE_ADMIN]: [SERVICE_ADMIN],
};

/** The basic roles a declared role's grants reach, inheritance included. */
export function reachedBasicRoles(grants: readonly BasicRoleName[] | null | undefined): Set<BasicRoleName> {
  return new Set((grants ?? []).flatMap((g) => REACHES[g]));
}

/** A product role as stored: its name, permissions and the basic roles it is granted to. */
export interface StoredProductRole {
  name: string;
  permissions: readonly PermissionPair[];
  basicGrants: readonly { basicRole: string }[];
}

const key = (p: PermissionPair) => `${p.action}\u0000${p.scope}`;

/**
 * The permissions a registration of `declared` (replacing `stored`) adds to basic roles: for each
 * declared role and each basic role its grants reach, all its permissions when that basic role
 * was not granted the role before, else the permissions the role did not have before. Withdrawn
 * grants and permissions add nothing; registering the same again adds nothing.
 * @returns the added permissions, each once, in declaration order.
 */
export function grantAdditions(stored: readonly StoredProductRole[], declared: readonly ProductRoleInput[]): PermissionPair[] {
  const added = new Map<string, PermissionPair>();
  for (const { role, grants } of declared) {
    const reached = reachedBasicRoles(grants);
    if (reached.size === 0) continue;
    const old = stored.find((r) => r.name === role.name);
    const oldGrants = new Set(old?.basicGrants.map((g) => g.basicRole) ?? []);
    const oldPermissions = new Set(old?.permissions.map(key) ?? []);
    const newlyGranted = [...reached].some((b) => !oldGrants.has(b));
    for (const p of role.permissions ?? []) {
      if (newlyGranted || !oldPermissions.has(key(p))) added.set(key(p), p);
    }
  }
  return [...added.values()];
}
