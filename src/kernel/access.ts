/**
 * The access service: effective permissions of a principal, the checks every operation makes,
 * and the one write path that keeps the permission cache honest.
 *
 * Effective permissions in an organization (upstream-behaviour.md "Permission evaluation"):
 * - users and service accounts: roles assigned to them in that org or globally, roles of their
 *   teams in that org, the basic role of their org role, and `basic:service_admin` for a
 *   Service Admin;
 * - API keys: the basic role of the key's role.
 *
 * Cache: each (organization, principal, org role, Service Admin flag) index is cached in an LRU
 * bounded in bytes and in time (lru-cache). Every write that can change anyone's permissions goes
 * through `write()`: one transaction, then a generation bump that drops every cached index. A
 * load stamps the generation it started in and is stored only if no write finished meanwhile,
 * so an in-flight request can never put back a stale entry after a write was acknowledged
 * (issue #10 "revocation race"). Forgetting to invalidate is impossible: there is no other
 * write path into the tables permissions derive from (roles, permissions, grants, assignments,
 * team members, org members, users).
 */
import { LRUCache } from 'lru-cache';
import type { Prisma, Role } from '../generated/prisma/client.js';
import type { Db, Tx } from '../platform/database.js';
import type { PermissionPair } from './catalogue.js';
import type { EditionGuard } from './edition.js';
import { accessDenied } from './errors.js';
import { type Evaluator, PermissionIndex } from './evaluator.js';
import { requireCoverage, requireSignedIn } from './guards.js';
import { type BasicRoleName, type Principal, principalKey, SERVICE_ADMIN, type SignedInPrincipal } from './principal.js';

/** Bounds of the permission cache. */
export interface PermissionCacheLimits {
  /** Bytes of cached permissions kept at most (estimated from action and scope lengths). */
  maxBytes: number;
  /** Milliseconds a cached index may be served; a safety net, writes invalidate at once. */
  ttlMs: number;
}

/** 32 MiB and 5 minutes. */
export const DEFAULT_CACHE_LIMITS: PermissionCacheLimits = { maxBytes: 32 * 1024 * 1024, ttlMs: 5 * 60_000 };

/** Estimated bytes of an index: two UTF-16 strings per permission plus Map/Set overhead. */
function estimateBytes(permissions: readonly PermissionPair[]): number {
  let bytes = 256;
  for (const p of permissions) bytes += 2 * (p.action.length + p.scope.length) + 96;
  return bytes;
}

export class AccessService {
  private readonly cache: LRUCache<string, PermissionIndex>;
  /** In-flight loads by cache key, so concurrent requests of one principal load once. */
  private readonly loading = new Map<string, Promise<PermissionIndex>>();
  private generation = 0;

  constructor(
    private readonly db: Db,
    limits: PermissionCacheLimits = DEFAULT_CACHE_LIMITS,
  ) {
    this.cache = new LRUCache<string, PermissionIndex>({
      maxSize: limits.maxBytes,
      ttl: limits.ttlMs,
      sizeCalculation: (index) => estimateBytes(index.list()),
    });
  }

  /** Basic roles whose permissions `principal` holds. */
  static basicRolesOf(principal: Principal): BasicRoleName[] {
    const roles: BasicRoleName[] = [];
    if (principal.orgRole !== 'None') roles.push(principal.orgRole);
    if (principal.isServiceAdmin) roles.push(SERVICE_ADMIN);
    return roles;
  }

  /**
   * The principal's permission index, from cache when present. Anonymous principals hold
   * nothing. Costs two SQL statements on a miss. The key holds the org role and the Service
   * Admin flag too, so a principal re-authenticated with a lower role never meets its old index.
   */
  permissionsOf(principal: Principal): Promise<PermissionIndex> {
    if (principal.kind === 'anonymous') return Promise.resolve(PermissionIndex.EMPTY);
    const key = `${principalKey(principal)}:${principal.orgRole}:${principal.isServiceAdmin ? 1 : 0}`;
    const cached = this.cache.get(key);
    if (cached) return Promise.resolve(cached);
    const pending = this.loading.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const load = this.load(principal)
      .then((permissions) => {
        const index = PermissionIndex.from(permissions);
        if (generation === this.generation) this.cache.set(key, index);
        return index;
      })
      .finally(() => {
        if (this.loading.get(key) === load) this.loading.delete(key);
      });
    this.loading.set(key, load);
    return load;
  }

  /**
   * The one write path of every feature: runs `work` in one transaction, then (committed or not)
   * drops every cached index and every in-flight load, so the next request sees the change.
   * `grantsNothing: true` skips the invalidation for writes that cannot change anyone's
   * permissions (a new, unassigned role; a new API key, whose index is built on first use).
   * Returns what `work` returns.
   * @throws whatever `work` throws (the transaction is rolled back).
   */
  async write<T>(work: (tx: Tx) => Promise<T>, options: { grantsNothing?: boolean } = {}): Promise<T> {
    try {
      return await this.db.$transaction(work);
    } finally {
      if (!options.grantsNothing) this.invalidate();
    }
  }

  /**
   * Drops every cached index and forgets in-flight loads (they finish but are not stored).
   * Called by `write()`; public for changes made outside this process (another server, the CLI).
   */
  invalidate(): void {
    this.generation++;
    this.cache.clear();
    this.loading.clear();
  }

  /**
   * Drops the cached index of one principal, so its next check reloads it
   * (GET /api/access-control/user/permissions?reloadcache=true).
   */
  invalidatePrincipal(principal: Principal): void {
    const prefix = `${principalKey(principal)}:`;
    for (const key of [...this.cache.keys()]) if (key.startsWith(prefix)) this.cache.delete(key);
    for (const key of [...this.loading.keys()]) if (key.startsWith(prefix)) this.loading.delete(key);
  }

  /** Number of cached principals (for tests and metrics). */
  get cachedPrincipals(): number {
    return this.cache.size;
  }

  /** Estimated bytes held by the cache (for tests and metrics). */
  get cachedBytes(): number {
    return this.cache.calculatedSize;
  }

  /**
   * Throws unless the principal passes `evaluator`; returns the caller's index for delegation
   * checks made later inside a transaction.
   * @throws DomainError UNAUTHENTICATED (401) for an anonymous caller, ACCESS_DENIED (403) naming
   *   what was needed (`evaluator.describe()`) otherwise.
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
  private async load(principal: SignedInPrincipal): Promise<PermissionPair[]> {
    const roles = await this.db.role.findMany({
      where: heldRolesWhere(principal),
      select: { permissions: { select: { action: true, scope: true } } },
    });
    return roles.flatMap((r) => r.permissions);
  }
}

/** Prisma filter for the roles a signed-in principal holds in its organization. */
function heldRolesWhere(principal: SignedInPrincipal): Prisma.RoleWhereInput {
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
 * What every feature service is built on: the database for reads, the access service for
 * checks and for writes (`access.write`), and the edition guard.
 */
export interface FeatureDeps {
  db: Db;
  access: AccessService;
  edition: EditionGuard;
}
