/**
 * The access rules every feature shares, apart from permission checks (access.ts) and the one
 * delegation rule (delegation.ts, re-exported here): who must be signed in, the Service Admin gate
 * of global objects, the organization wall and list filtering by held scopes.
 *
 * The organization wall: a principal acts in one organization (caller.orgId).
 * Objects are looked up within that organization only, so an id of another organization answers
 * 404 exactly like an id that does not exist. Permission checks come first and never depend on
 * the object, so a 403 says nothing about existence either. Operations naming an organization
 * explicitly need the caller to act in it, unless it is a Service Admin (Grafana: AuthorizeInOrg).
 */
import type { Prisma } from '../generated/prisma/client.js';
import { accessDenied, unauthenticated } from './errors.js';
import type { PermissionIndex } from './evaluator.js';
import { idFromText } from './inputs.js';
import type { Principal, SignedInPrincipal } from './principal.js';

/** Delegation, escalation and the org-role ceiling: the one rule, in delegation.ts. */
export { canEscalate, mayDelegate, requireDelegation, requireRoleWithin, roleManagement } from './delegation.js';

/**
 * @throws DomainError UNAUTHENTICATED (401, "Unauthorized") when no credentials were sent.
 */
export function requireSignedIn(principal: Principal): asserts principal is SignedInPrincipal {
  if (principal.kind === 'anonymous') throw unauthenticated();
}

/**
 * Global roles and global assignments act in every organization, so only a Service Admin may
 * write them: the organization wall holds for org Admins.
 * @throws DomainError ACCESS_DENIED (403) naming `what`.
 */
export function requireServiceAdmin(caller: Principal, what: string): void {
  if (!caller.isServiceAdmin) throw accessDenied(`Service Admin to ${what}`);
}

/**
 * Operations that name an organization need the caller to act in it (X-Service-Org-Id), unless
 * it is a Service Admin. The answer does not depend on whether that organization exists.
 * @throws DomainError ACCESS_DENIED (403).
 */
export function requireActingIn(caller: Principal, orgId: number): void {
  if (orgId === caller.orgId || caller.isServiceAdmin) return;
  throw accessDenied(`acting in organization ${orgId} (send X-Service-Org-Id: ${orgId})`);
}

/**
 * Which ids of an area (`teams:id:`, `users:id:`, ...) `index` lets the caller `action` on:
 * 'all' when a wildcard covers every id, otherwise the ids of exact scopes held (maybe none).
 * Grafana filters its list endpoints the same way after checking the action alone.
 */
export function permittedIds(index: PermissionIndex, action: string, idScopePrefix: string): 'all' | number[] {
  if (index.matches(action, `${idScopePrefix}*`)) return 'all';
  const ids: number[] = [];
  for (const p of index.list()) {
    if (p.action !== action || !p.scope.startsWith(idScopePrefix)) continue;
    const rest = p.scope.slice(idScopePrefix.length);
    const id = idFromText(rest);
    if (id !== null) ids.push(id);
  }
  return ids;
}

/** Prisma `where` on an id column for the result of permittedIds. */
export function idFilter(ids: 'all' | number[]): { id?: { in: number[] } } {
  return ids === 'all' ? {} : { id: { in: ids } };
}

/**
 * The memberships of other users the caller may see: all of them for a Service Admin, the
 * current organization's otherwise (the wall: org 1 never learns who is in org 2).
 */
export function visibleMemberships(caller: Principal): Prisma.OrgUserWhereInput {
  return caller.isServiceAdmin ? {} : { orgId: caller.orgId };
}
