/**
 * Effective permissions of a principal and the checks every operation makes.
 *
 * Effective permissions in an organization (upstream-behaviour.md "Permission evaluation"):
 * - users and service accounts: roles assigned to them in that org or globally, roles of their
 *   teams in that org, the basic role of their org role, and `basic:service_admin` for a
 *   Service Admin;
 * - API keys: the basic role of the key's role.
 *
 * The index of each (organization, principal) is cached, so a check reads no database. Every
 * write that can change any principal's permissions MUST call `invalidate()` once its
 * transaction has committed (in a `finally`, so a failed write cannot leave a stale entry
 * either), so the very next request on this process sees the change. The writes that must do so:
 * - a role's permissions change: role update (basic roles included), role delete, basic role reset;
 * - an assignment changes: user / service account role add, remove, set; team role add, remove, set;
 * - a team's membership changes (member added or removed, team deleted);
 * - an org role changes (user added to or removed from an organization, role changed), a user's
 *   Service Admin flag changes, a user or organization is deleted.
 * test/api/permission-cache.test.ts proves no stale answer after each of them. The cache key
 * holds no org role, so forgetting to invalidate after an org role change serves the old role.
 */
import type { Db } from '../platform/database.js';
import type { Prisma, Role } from '../generated/prisma/client.js';
import { accessDenied, DomainError } from './errors.js';
import { type Evaluator, PermissionIndex } from './evaluator.js';
import type { PermissionPair } from './catalogue.js';
import { type BasicRoleName, type Principal, principalKey, SERVICE_ADMIN } from './principal.js';

/** Cached indexes kept at most; the oldest entry is dropped past this. */
const CACHE_LIMIT = 10_000;

export class AccessService {
  private readonly cache = new Map<string, Promise<PermissionIndex>>();

  constructor(private readonly db: Db) {}

  /** Basic roles whose permissions `principal` holds. */
  static basicRolesOf(principal: Principal): BasicRoleName[] {
    const roles: BasicRoleName[] = [];
    if (principal.orgRole !== 'None') roles.push(principal.orgRole);
    if (principal.isServiceAdmin) roles.push(SERVICE_ADMIN);
    return roles;
  }

  /**
   * The principal's permission index, from cache when present.
   * Anonymous principals hold nothing. Costs two SQL statements on a miss.
   */
  permissionsOf(principal: Principal): Promise<PermissionIndex> {
    if (principal.kind === 'anonymous') return Promise.resolve(PermissionIndex.EMPTY);
    const key = principalKey(principal);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const loading = this.load(principal).then((perms) => PermissionIndex.from(perms));
    // invalidate() runs after a write commits and clears this entry, so a load that raced
    // with the write is never served afterwards.
    loading.catch(() => this.cache.get(key) === loading && this.cache.delete(key));
    if (this.cache.size >= CACHE_LIMIT) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, loading);
    return loading;
  }

  /** Drops every cached index (call after any write that can change permissions). */
  invalidate(): void {
    this.cache.clear();
  }

  /**
   * Drops the cached index of one principal in its organization, so its next check reloads it
   * (GET /api/access-control/user/permissions?reloadcache=true). Not a substitute for
   * `invalidate()` after a write: a write can change the permissions of many principals.
   */
  invalidatePrincipal(principal: Principal): void {
    this.cache.delete(principalKey(principal));
  }

  /** Number of cached principals (for tests and metrics). */
  get cachedPrincipals(): number {
    return this.cache.size;
  }

  /**
   * Throws unless the principal passes `evaluator`.
   * @throws DomainError UNAUTHENTICATED (401) for an anonymous caller, ACCESS_DENIED (403) naming
   *   what was needed otherwise.
   */
  async check(principal: Principal, evaluator: Evaluator): Promise<PermissionIndex> {
    requireSignedIn(principal);
    const index = await this.permissionsOf(principal);
    if (!evaluator.evaluate(index)) throw accessDenied(evaluator.describe());
    return index;
  }

  /** True when the principal passes `evaluator`; never throws for a denial. */
  async can(principal: Principal, evaluator: Evaluator): Promise<boolean> {
    if (principal.kind === 'anonymous') return false;
    return evaluator.evaluate(await this.permissionsOf(principal));
  }

  /**
   * Delegation (`permissions:type:delegate`): throws unless the caller holds every permission
   * in `wanted`. Source: service-interface.md "Required permissions".
   * @throws DomainError ACCESS_DENIED listing the permissions the caller lacks.
   */
  async checkDelegation(principal: Principal, wanted: Iterable<PermissionPair>): Promise<void> {
    requireCoverage(await this.permissionsOf(principal), wanted);
  }

  /**
   * Every role behind the principal's permissions: basic roles, direct roles (org and global)
   * and team roles of its organization, by name. `query` passes a Pothos selection through.
   */
  async heldRoles(principal: Principal, query: { include?: Prisma.RoleInclude; select?: Prisma.RoleSelect } = {}): Promise<Role[]> {
    if (principal.kind === 'anonymous') return [];
    return this.db.role.findMany({ ...query, where: heldRolesWhere(principal), orderBy: [{ name: 'asc' }] });
  }

  /** Loads the permissions behind `principal` from the database (rules in the module comment). */
  private async load(principal: Exclude<Principal, { kind: 'anonymous' }>): Promise<PermissionPair[]> {
    const roles = await this.db.role.findMany({
      where: heldRolesWhere(principal),
      select: { permissions: { select: { action: true, scope: true } } },
    });
    return roles.flatMap((r) => r.permissions);
  }
}

/** Prisma filter for the roles a signed-in principal holds in its organization. */
function heldRolesWhere(principal: Exclude<Principal, { kind: 'anonymous' }>): Prisma.RoleWhereInput {
  const { orgId } = principal;
  const basic = AccessService.basicRolesOf(principal);
  const sources: Prisma.RoleWhereInput[] = [{ basicGrants: { some: { basicRole: { in: basic }, orgId: { in: [0, orgId] } } } }];
  if (principal.kind !== 'apiKey') {
    sources.push({ userRoles: { some: { userId: principal.id, orgId: { in: [0, orgId] } } } });
    sources.push({ teamRoles: { some: { orgId, team: { members: { some: { userId: principal.id } } } } } });
  }
  return { OR: sources };
}

/**
 * @throws DomainError UNAUTHENTICATED (401, "Unauthorized") when no credentials were sent.
 */
export function requireSignedIn(principal: Principal): asserts principal is Exclude<Principal, { kind: 'anonymous' }> {
  if (principal.kind === 'anonymous') throw new DomainError('UNAUTHENTICATED', 'Unauthorized');
}

/**
 * Delegation against an index already loaded: throws unless `index` covers every permission in
 * `wanted` (PermissionIndex.covers). Use it inside a transaction, where the caller's index must
 * not be loaded through another connection.
 * @throws DomainError ACCESS_DENIED (403) listing the permissions the caller lacks.
 */
export function requireCoverage(index: PermissionIndex, wanted: Iterable<PermissionPair>): void {
  const missing = index.uncovered(wanted);
  if (missing.length > 0) {
    const list = missing.map((m) => (m.scope ? `${m.action} on ${m.scope}` : m.action)).join(', ');
    throw accessDenied(`delegation of ${list}`);
  }
}
