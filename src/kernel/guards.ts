/**
 * The access rules every feature shares, apart from permission checks (access.ts): who must be
 * signed in, delegation coverage, the Service Admin gate of global objects, the org-role
 * ceiling, the organization wall and list filtering by held scopes.
 *
 * The organization wall (issue #3 item 5): a principal acts in one organization (caller.orgId).
 * Objects are looked up within that organization only, so an id of another organization answers
 * 404 exactly like an id that does not exist. Permission checks come first and never depend on
 * the object, so a 403 says nothing about existence either. Operations naming an organization
 * explicitly need the caller to act in it, unless it is a Service Admin (Grafana: AuthorizeInOrg).
 */
import type { Prisma } from '../generated/prisma/client.js';
import { type PermissionPair, Scope } from './catalogue.js';
import { accessDenied, DomainError, unauthenticated } from './errors.js';
import { type Evaluator, type PermissionIndex, permission } from './evaluator.js';
import { type OrgRole, orgRoleIncludes, type Principal, type SignedInPrincipal } from './principal.js';

/**
 * @throws DomainError UNAUTHENTICATED (401, "Unauthorized") when no credentials were sent.
 */
export function requireSignedIn(principal: Principal): asserts principal is SignedInPrincipal {
  if (principal.kind === 'anonymous') throw unauthenticated();
}

/**
 * Delegation (`permissions:type:delegate`, service-interface.md "Required permissions"): throws
 * unless `index` (the caller's, loaded before any transaction) covers every permission in
 * `wanted` (PermissionIndex.uncovered).
 * @throws DomainError ACCESS_DENIED (403) listing the permissions the caller lacks.
 */
export function requireCoverage(index: PermissionIndex, wanted: Iterable<PermissionPair>): void {
  const missing = index.uncovered(wanted);
  if (missing.length > 0) {
    const list = missing.map((m) => (m.scope ? `${m.action} on ${m.scope}` : m.action)).join(', ');
    throw accessDenied(`delegation of ${list}`);
  }
}

/**
 * Escalation (`permissions:type:escalate`, upstream-behaviour.md "Escalation and provisioning"):
 * true when `index` holds role-management `action` on a scope covering escalate (that scope,
 * `permissions:type:*`, `permissions:*` or `*`). Such a caller may grant beyond its own
 * permissions with that action, and only that one.
 */
export function canEscalate(index: PermissionIndex, action: string): boolean {
  return index.matches(action, Scope.Escalate);
}

/**
 * What a role-management `action` needs: the action on `permissions:type:delegate` or on
 * `permissions:type:escalate` (escalate implies delegate). The 403 text names both scopes.
 */
export function roleManagement(action: string): Evaluator {
  return permission(action, Scope.Delegate, Scope.Escalate);
}

/**
 * True when the caller may use role-management `action` on a role holding `wanted`: it holds the
 * action (roleManagement) and either may escalate with it or covers every permission. The
 * boolean twin of requireDelegation, for listings (`roles?delegatable=true`).
 */
export function mayDelegate(index: PermissionIndex, action: string, wanted: Iterable<PermissionPair>): boolean {
  return roleManagement(action).evaluate(index) && (canEscalate(index, action) || index.uncovered(wanted).length === 0);
}

/**
 * The delegation rule of one role-management `action` (roles:write, users.roles:add, ...):
 * nothing to check when the caller may escalate with that action (canEscalate); otherwise every
 * permission of `wanted` must be covered (requireCoverage). `index` is the caller's, loaded
 * before any transaction.
 * @throws DomainError ACCESS_DENIED (403) listing the permissions the caller lacks.
 */
export function requireDelegation(index: PermissionIndex, action: string, wanted: Iterable<PermissionPair>): void {
  if (!canEscalate(index, action)) requireCoverage(index, wanted);
}

/**
 * Global roles and global assignments act in every organization, so only a Service Admin may
 * write them: the organization wall (issue #3 item 5) holds for org Admins.
 * @throws DomainError ACCESS_DENIED (403) naming `what`.
 */
export function requireServiceAdmin(caller: Principal, what: string): void {
  if (!caller.isServiceAdmin) throw accessDenied(`Service Admin to ${what}`);
}

/**
 * The org-role ceiling: a caller may not give anyone an org role above its own, unless it is a
 * Service Admin. Grafana: "Cannot assign a role higher than user's role" (org users, service
 * accounts, API keys).
 * @throws DomainError ACCESS_DENIED (403).
 */
export function requireRoleWithin(caller: Principal, role: OrgRole): void {
  if (caller.isServiceAdmin || orgRoleIncludes(caller.orgRole, role)) return;
  throw new DomainError('ACCESS_DENIED', `Cannot assign a role higher than user's role (${role} is above ${caller.orgRole})`, {
    needed: `org role ${role}`,
  });
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
    if (/^\d{1,10}$/.test(rest)) ids.push(Number(rest));
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
