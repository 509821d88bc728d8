/**
 * Permission listings: the caller's own effective permissions and roles, and those of a user or
 * service account of the caller's organization. Effective permissions come from the access
 * service (kernel/access.ts), so these listings and every check agree by construction.
 *
 * Rules: service-interface.md "List own permissions", "List permissions of a user or service
 * account", "Required permissions"; upstream-behaviour.md "Permission evaluation".
 */
import type { Role } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { Action, type PermissionPair, Scope } from '../../kernel/catalogue.js';
import { notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId } from '../../kernel/inputs.js';
import { type Principal, principalOf } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { RoleQuery } from '../roles/service.js';

/** What the listings need (service-interface.md "Required permissions"). */
export const permissionRequirements = {
  readUser: requirement(['userId'], ({ userId }) => permission(Action.UsersPermissionsRead, Scope.user(userId))),
};

export class PermissionService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * The caller's effective permissions as a map action -> sorted scopes (GET
   * /api/access-control/user/permissions). `reloadCache` drops the caller's cached index first,
   * so the answer is read from the database. Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async own(caller: Principal, options: { reloadCache?: boolean | null }): Promise<Record<string, string[]>> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    if (options.reloadCache) this.deps.access.invalidatePrincipal(caller);
    return (await this.deps.access.permissionsOf(caller)).toScopeMap();
  }

  /**
   * The caller's effective permissions as `{action, scope}` pairs sorted by action then scope
   * (GraphQL `viewer.permissions`). Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownList(caller: Principal): Promise<PermissionPair[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return (await this.deps.access.permissionsOf(caller)).list();
  }

  /**
   * Every role behind the caller's permissions: basic, direct (org and global) and its teams'
   * roles (GraphQL `viewer.roles`). Needs only credentials.
   * @throws DomainError UNAUTHENTICATED (401), 404 in oss.
   */
  async ownRoles(caller: Principal, query: RoleQuery = {}): Promise<Role[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return this.deps.access.heldRoles(caller, query);
  }

  /**
   * Effective permissions of a user or service account in the caller's organization, as sorted
   * `{action, scope}` pairs: its direct roles there and global ones, its teams' roles there, the
   * basic role of its org role there, and basic:service_admin for a Service Admin. Needs
   * users.permissions:read on users:id:<userId>.
   * @throws DomainError VALIDATION_FAILED (400: userId), 401, ACCESS_DENIED (403),
   *   USER_NOT_FOUND (404: not a member of the caller's organization), 404 in oss.
   */
  async ofUser(caller: Principal, userId: unknown): Promise<PermissionPair[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('userId', userId);
    await this.deps.access.check(caller, permissionRequirements.readUser.for({ userId: id }));
    const membership = await this.deps.db.orgUser.findUnique({
      where: { orgId_userId: { orgId: caller.orgId, userId: id } },
      select: { role: true, user: true },
    });
    if (!membership) throw notFound('USER_NOT_FOUND', 'user', id);
    const principal = principalOf(membership.user, caller.orgId, membership.role, 'none');
    return (await this.deps.access.permissionsOf(principal)).list();
  }
}
