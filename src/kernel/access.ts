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
 * Freshness (freshness.ts): every write that can change anyone's permissions goes through
 * `write()`: one transaction, then the change is applied (a new revision, for everyone or for the
 * users it can reach), so every cached entry it can reach is stale and no in-flight request can
 * use or put back one after the write was acknowledged. Commits of other connections (the CLI, a
 * second server or replica) are applied too: every request first catches up with the database's
 * change counter (platform/database.ts: SQLite's `PRAGMA data_version`, PostgreSQL's change
 * version read after the request arrived). While that counter cannot know (PostgreSQL listener
 * reconnecting), requests answer 503 DATABASE_UNAVAILABLE instead of trusting a cache. A
 * request's own caller is fenced (fence.ts): a demotion acknowledged while the request was in
 * flight makes it stop with 409.
 */
import type { Prisma, Role } from '../generated/prisma/client.js';
import { type Clock, systemClock } from '../platform/clock.js';
import { announceReach, catchUpOf, changeCounterOf, type Db, isDatabaseBusy, type Tx, targetedChangesOf } from '../platform/database.js';
import { CommitSignal, collectChanges } from './changes.js';
import { accessDenied, DomainError } from './errors.js';
import { type Evaluator, PermissionIndex } from './evaluator.js';
import { credentialsChanged, currentFence, factsHold, type RequestFence, type RequestOrigin, sameIndex } from './fence.js';
import { ForeignCommits } from './foreign-commits.js';
import { Freshness } from './freshness.js';
import { requireSignedIn } from './guards.js';
import { type HeldAccessTables, heldRolesWhere, loadHeldAccess, ROLE_ID_SLICE } from './held-roles.js';
import {
  DEFAULT_CACHE_LIMITS,
  type HeldAccess,
  type HeldEntry,
  MAX_LOAD_ATTEMPTS,
  PermissionCache,
  type PermissionCacheLimits,
  type PermissionCacheObserver,
} from './permission-cache.js';
import type { Principal, SignedInPrincipal } from './principal.js';
import { RoleRows } from './role-rows.js';
import type { WriteOptions } from './write-options.js';

/** Order of held roles: by name, then id (a global and a local role may share a name). */
const BY_NAME_THEN_ID: Prisma.RoleOrderByWithRelationInput[] = [{ name: 'asc' }, { id: 'asc' }];

/** A Pothos selection of Role rows. */
type RoleSelection = { include?: Prisma.RoleInclude; select?: Prisma.RoleSelect };

/** The role permissions' order of the GraphQL `Role.permissions` field, the one role-rows.ts reads. */
const PERMISSIONS_IN_ORDER = JSON.stringify({ orderBy: [{ action: 'asc' }, { scope: 'asc' }] });

/** True when `query` asks for scalar fields and at most the roles' own permissions, in their order: what role-rows.ts caches. */
function servedByRoleRows(query: RoleSelection): boolean {
  if (query.select !== undefined) return false;
  const include = query.include ?? {};
  for (const [relation, selection] of Object.entries(include)) {
    if (relation !== 'permissions' || (selection !== true && JSON.stringify(selection) !== PERMISSIONS_IN_ORDER)) return false;
  }
  return true;
}

/** Permissions, checks and the one write path (rules in the module comment). */
export class AccessService {
  private readonly cache: PermissionCache;
  /** Fences of requests in flight, by their principal (a per-request copy). */
  private readonly fences = new WeakMap<Principal, RequestFence>();
  /** The revision of the last change applied (freshness.ts): every cache of the process is stamped with it. */
  readonly freshness: Freshness;
  /** Held roles' rows with their permissions, shared by every principal (role-rows.ts). */
  private readonly roleRows: RoleRows;
  /** Told after each write of this process that committed a change record (the change feed's streams wake on it). */
  readonly commits = new CommitSignal();

  constructor(
    private readonly db: Db,
    limits: PermissionCacheLimits = DEFAULT_CACHE_LIMITS,
    private readonly clock: Clock = systemClock,
  ) {
    this.freshness = new Freshness(new ForeignCommits(changeCounterOf(db), catchUpOf(db), targetedChangesOf(db)));
    this.cache = new PermissionCache(this.freshness, limits, (principal) => this.load(principal), clock);
    this.roleRows = new RoleRows(db, this.freshness);
  }

  /**
   * The principal's permission index, from cache when present. Anonymous principals hold
   * nothing. Costs one SQL statement on a miss (permission-cache.ts). An index whose load
   * overlapped a write is never returned: it is loaded again. For the
   * request's own caller the fence is checked first (fence.ts).
   * @throws DomainError CREDENTIALS_CHANGED (409) when the caller's facts or permissions changed
   *   while its request was in flight.
   */
  async permissionsOf(principal: Principal): Promise<PermissionIndex> {
    if (principal.kind === 'anonymous') return PermissionIndex.EMPTY;
    return (await this.entryOf(principal)).index;
  }

  /** The cached entry of a signed-in principal (index and held roles), behind its fence as `permissionsOf` says. */
  private async entryOf(principal: SignedInPrincipal): Promise<HeldEntry> {
    const fence = this.fences.get(principal);
    if (!fence) {
      // Outside a request (a stream, the CLI): no authentication synced for it.
      this.freshness.sync();
      return this.cache.entryOf(principal);
    }
    // The principal's own facts (org role, flag) may be what a write changed: check them again
    // whenever its revision moved, also while the index was loading.
    let entry: HeldEntry = { index: PermissionIndex.EMPTY, roleIds: [], revision: -1, until: null };
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
      if (fence.revision !== this.freshness.revisionOf(principal)) await this.recheck(fence, this.db);
      entry = await this.cache.entryOf(principal);
      if (fence.revision === this.freshness.revisionOf(principal)) break;
    }
    fence.index = entry.index;
    return entry;
  }

  /**
   * The one write path of every feature: runs `work` in one transaction, then (committed or not)
   * drops every cached index and every in-flight load, so the next request sees the change.
   * `grantsNothing: true` skips the invalidation for writes that cannot change anyone's
   * permissions (a new, unassigned role; a new API key). `reach: { users }` narrows it to the
   * permissions of those users, here and on other replicas (freshness.ts): only for writes
   * whose every change is to the role assignments of those users (assignments/core.ts, users and
   * service accounts); a write that changes anything else (a row, a membership, an org role, a
   * team's roles, a credential) must invalidate globally, the default. Inside the transaction,
   * once SQLite's write lock is held, the request's fence is checked (fence.ts). The audit events
   * `work` records are summarized in one change record appended at its end (changes.ts), whose
   * revision the request's fence keeps for its answer (`committedRevision`). Returns what `work`
   * returns.
   * @throws whatever `work` throws (the transaction is rolled back); DomainError
   *   CREDENTIALS_CHANGED (409) from the fence; DATABASE_BUSY (503) when the write lock stayed
   *   taken past the busy timeout.
   */
  async write<T>(work: (tx: Tx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const fence = currentFence.getStore();
    let committed = false;
    try {
      return await this.db.$transaction(async (tx) => {
        this.freshness.sync();
        if (fence && fence.revision !== this.freshness.revisionOf(fence.principal)) await this.recheck(fence, tx);
        if (options.reach) await announceReach(this.db, tx, options.reach.users);
        const changes = collectChanges(tx);
        const result = await work(tx);
        const revision = await changes.append(tx);
        if (fence && revision !== undefined) fence.committed = revision;
        if (revision !== undefined) committed = true;
        return result;
      });
    } catch (error) {
      if (isDatabaseBusy(error)) throw new DomainError('DATABASE_BUSY', 'the database is busy; try again');
      throw error;
    } finally {
      if (options.reach) this.freshness.applyToUsers(options.reach.users);
      else if (!options.grantsNothing) this.freshness.applyToEveryone();
      if (committed) this.commits.notify();
    }
  }

  /**
   * Authenticates a request under a new fence: first applies every commit of another connection
   * made before the request arrived (ForeignCommits `catchUp`: on PostgreSQL one read of the
   * change version, shared by the requests arriving together), so no cache consulted from here
   * on (permissions, verified credentials, members, listings) predates a revocation acknowledged
   * by any replica; then reads the latest invalidation's tick and runs `authenticate`. Returns a
   * copy of its principal that carries the fence; pass it to `run` and to the services. `origin`
   * (client address, request id) is kept on the fence for the audit log.
   * @throws DomainError DATABASE_UNAVAILABLE (503) when the change version cannot be read; what
   *   `authenticate` throws.
   */
  async authenticate<P extends Principal>(authenticate: () => Promise<P>, origin?: RequestOrigin): Promise<P> {
    await this.freshness.catchUp();
    // The principal is known only once `authenticate` returns: a revision of its later than the
    // latest of this moment moved meanwhile, and the fence keeps that older one so its first
    // check rechecks.
    const before = this.freshness.latest;
    const principal = await authenticate();
    if (principal.kind === 'anonymous') return principal;
    const own = { ...principal };
    const revision = Math.min(this.freshness.revisionOf(own), before);
    this.fences.set(own, { principal: own as SignedInPrincipal, revision, index: undefined, origin });
    return own;
  }

  /**
   * The revision of the last change record written by the request of `principal` (a fenced copy
   * from `authenticate`), undefined when it wrote none: the answer's read-your-writes token.
   */
  committedRevision(principal: Principal): number | undefined {
    return this.fences.get(principal)?.committed;
  }

  /** Runs `fn` (a REST handler, a GraphQL execution) as the request of `principal`'s fence. */
  run<T>(principal: Principal, fn: () => T): T {
    const fence = this.fences.get(principal);
    return fence ? currentFence.run(fence, fn) : fn();
  }

  /**
   * The fence's revision moved: the caller's facts and, when its checks used one, its index
   * must be what they were. Reads through `tx`, the write's transaction, and only through it:
   * it holds the write lock and one pooled connection, and on PostgreSQL a read on another
   * connection (the cache's load) could wait for the pool while every other pooled connection
   * waits for this lock, stalling every write of the replica until lock timeouts (503
   * DATABASE_BUSY) freed one (test/security/replica-writes.test.ts). The index read here is not
   * cached: the write invalidates anyway.
   */
  private async recheck(fence: RequestFence, tx: Pick<Tx, 'user' | 'apiKey'> & HeldAccessTables): Promise<void> {
    const revision = this.freshness.revisionOf(fence.principal);
    if (!(await factsHold(fence.principal, tx))) throw credentialsChanged();
    if (fence.index && !sameIndex(fence.index, PermissionIndex.from((await this.load(fence.principal, tx)).permissions)))
      throw credentialsChanged();
    fence.revision = revision;
  }

  /**
   * Applies a change to everyone (freshness.ts): every cached entry is stale. For a write made
   * past the one write path, such as expiring sessions.
   */
  invalidate(): void {
    this.freshness.applyToEveryone();
  }

  /**
   * Drops the cached index of one principal, so its next check reloads it
   * (GET /api/access-control/user/permissions?reloadcache=true).
   */
  invalidatePrincipal(principal: Principal): void {
    this.cache.invalidatePrincipal(principal);
  }

  /** Reports every later lookup to `observer` (the app's metrics); replaces an earlier one. */
  observeCache(observer: PermissionCacheObserver): void {
    this.cache.observe(observer);
  }

  /** Number of cached principals (for tests and metrics). */
  get cachedPrincipals(): number {
    return this.cache.size;
  }

  /** Estimated bytes held by the cache (for tests and metrics). */
  get cachedBytes(): number {
    return this.cache.bytes;
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
   * Every role behind the principal's permissions: basic roles, direct roles (org and global)
   * and team roles of its organization, by name then id. `query` passes a Pothos selection
   * through. Scalar fields and the roles' own `permissions` (the frontend's one round-trip,
   * `viewer { roles { name permissions { action scope } } }`) come from the rows cached for every
   * principal (role-rows.ts) of the cached entry's role ids, fenced as `permissionsOf`, and agree
   * with its index: rows read while the principal's revision moved are read again with a new
   * entry (at most MAX_LOAD_ATTEMPTS times). Any other selection reads them from the database.
   * @throws DomainError CREDENTIALS_CHANGED (409) as `permissionsOf`.
   */
  async heldRoles(principal: Principal, query: RoleSelection = {}): Promise<Role[]> {
    if (principal.kind === 'anonymous') return [];
    if (servedByRoleRows(query)) {
      let rows: Role[] = [];
      for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
        const entry = await this.entryOf(principal);
        rows = await this.roleRows.of(entry.roleIds);
        if (entry.revision === this.freshness.revisionOf(principal)) break;
      }
      return rows;
    }
    // The role ids of the entry the request's checks use (fenced, cached: no statement of their
    // own); past one slice, the filter form (rarer, slower).
    const ids = (await this.entryOf(principal)).roleIds;
    const where = ids.length <= ROLE_ID_SLICE ? { id: { in: [...ids] } } : heldRolesWhere(principal, this.clock.now());
    return this.db.role.findMany({ ...query, where, orderBy: BY_NAME_THEN_ID });
  }

  /** Loads the permissions behind `principal` and its held roles' ids through `db` at `clock`'s time (the database's on PostgreSQL). */
  private load(principal: SignedInPrincipal, db: HeldAccessTables = this.db): Promise<HeldAccess> {
    return loadHeldAccess(db, principal, this.clock.now());
  }
}
