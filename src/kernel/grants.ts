/**
 * The reason of a check (modules/permissions) and of an access review's answer
 * (modules/access-review): which roles grant an action and how each reached the principal. The
 * roles come from the access service (`heldRoles`, the same filter its checks load permissions
 * with), each with the rows that make it held (held-roles.ts heldRoleReasons, built from the same
 * rule), so the reason and the answer always agree.
 */
import type { Role } from '../generated/prisma/client.js';
import type { AccessService } from './access.js';
import type { PermissionPair } from './catalogue.js';
import { PermissionIndex } from './evaluator.js';
import { type HeldRoleReasons, heldRoleReasons } from './held-roles.js';
import { SERVICE_ADMIN, type SignedInPrincipal } from './principal.js';

/** One way the checked permission is granted. */
export interface AccessGrant {
  /** The role row (REST shows its uid and name). */
  role: Role;
  /** `direct`, `team:<name>`, `basic:<viewer|editor|admin>`, `service-admin` or `api-key`. */
  source: string;
  permission: PermissionPair;
}

/** How a basic role reaches a principal, as a source string. */
function basicSource(principal: SignedInPrincipal, basicRole: string): string {
  if (principal.kind === 'apiKey') return 'api-key';
  if (basicRole === SERVICE_ADMIN) return 'service-admin';
  return `basic:${basicRole.toLowerCase()}`;
}

/** Does holding `held` pass the check (action, scopes)? The evaluator's rule, one permission at a time. */
export function grantMatches(held: PermissionPair, action: string | null, scopes: readonly string[]): boolean {
  if (action === null) return true;
  if (held.action !== action) return false;
  if (scopes.length === 0) return true;
  const index = PermissionIndex.from([held]);
  return scopes.some((s) => index.matches(action, s));
}

/**
 * Every (role, source, permission) behind `principal` that grants `action` on one of `scopes`
 * (any scope when none is given), sorted by role name then source. `action` null: every
 * permission the principal holds, each with where it comes from (the console's effective
 * permissions).
 */
export async function grantsOf(
  access: AccessService,
  principal: SignedInPrincipal,
  action: string | null,
  scopes: readonly string[],
): Promise<AccessGrant[]> {
  const roles = await access.heldRoles(principal, {
    include: {
      permissions: { ...(action !== null && { where: { action } }), select: { action: true, scope: true } },
      ...heldRoleReasons(principal),
    },
  });
  const out: AccessGrant[] = [];
  for (const held of roles as unknown as HeldRole[]) {
    const { permissions, basicGrants, userRoles, teamRoles, ...role } = held;
    const sources = [
      ...(userRoles.length > 0 ? ['direct'] : []),
      ...teamRoles.map((t) => `team:${t.team.name}`),
      ...new Set(basicGrants.map((g) => basicSource(principal, g.basicRole))),
    ];
    for (const permission of permissions) {
      if (!grantMatches(permission, action, scopes)) continue;
      for (const source of sources) out.push({ role, source, permission: { action: permission.action, scope: permission.scope } });
    }
  }
  return out;
}

/** A held role as loaded above: its permissions and the rows that make it held (kernel/held-roles.ts). */
interface HeldRole extends Role, HeldRoleReasons {
  permissions: PermissionPair[];
}
