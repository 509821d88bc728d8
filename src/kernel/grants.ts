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
  /** When this way ends (a time-bound assignment's expiresAt); null: for good. */
  until: Date | null;
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

/** The latest of the ends of `rows` (assignment rows): null when one of them has none. */
function latestEnd(rows: readonly { expiresAt: Date | null }[]): Date | null {
  let latest: Date | null = null;
  for (const { expiresAt } of rows) {
    if (expiresAt === null) return null;
    if (latest === null || expiresAt > latest) latest = expiresAt;
  }
  return latest;
}

/** The end of the longest of `grants`; null when one holds for good, or there is none. */
export function allowedUntil(grants: readonly AccessGrant[]): Date | null {
  return grants.length === 0 ? null : latestEnd(grants.map((g) => ({ expiresAt: g.until })));
}

/**
 * Every (role, source, permission) behind `principal` at `now` that grants `action` on one of
 * `scopes` (any scope when none is given), sorted by role name then source, each with when it
 * ends (`until`). `action` null: every permission the principal holds, each with where it comes
 * from (the console's effective permissions).
 */
export async function grantsOf(
  access: AccessService,
  principal: SignedInPrincipal,
  action: string | null,
  scopes: readonly string[],
  now: Date,
): Promise<AccessGrant[]> {
  const roles = await access.heldRoles(principal, {
    include: {
      permissions: { ...(action !== null && { where: { action } }), select: { action: true, scope: true } },
      ...heldRoleReasons(principal, now),
    },
  });
  const out: AccessGrant[] = [];
  for (const held of roles as unknown as HeldRole[]) {
    const { permissions, basicGrants, userRoles, teamRoles, ...role } = held;
    const sources: { source: string; until: Date | null }[] = [
      ...(userRoles.length > 0 ? [{ source: 'direct', until: latestEnd(userRoles) }] : []),
      ...teamRoles.map((t) => ({ source: `team:${t.team.name}`, until: t.expiresAt })),
      ...[...new Set(basicGrants.map((g) => basicSource(principal, g.basicRole)))].map((source) => ({ source, until: null })),
    ];
    for (const permission of permissions) {
      if (!grantMatches(permission, action, scopes)) continue;
      for (const { source, until } of sources)
        out.push({ role, source, permission: { action: permission.action, scope: permission.scope }, until });
    }
  }
  return out;
}

/** A held role as loaded above: its permissions and the rows that make it held (kernel/held-roles.ts). */
interface HeldRole extends Role, HeldRoleReasons {
  permissions: PermissionPair[];
}
