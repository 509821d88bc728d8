/**
 * The permission cache behind AccessService (access.ts): each (organization, principal, org
 * role, Service Admin flag) index in a RevisionCache (revision-cache.ts) bounded in bytes and in
 * time, loads of one key coalesced, each entry stamped with the revision of the last change that
 * can reach its principal (freshness.ts `revisionOf`) and served only while it is current. A load
 * that overlapped a change is neither stored nor returned: it is loaded again, so no in-flight
 * request can put back or use a stale entry after a write was acknowledged.
 *
 * An entry also holds the ids of the roles the index was built from: their rows, with their
 * permissions, are cached once for every principal (role-rows.ts).
 *
 * Time: an entry carries the earliest moment one of its principal's time-bound assignments
 * begins or ends (`until`, held-roles.ts `changesAt`) and is never served from that moment on,
 * by the clock the load read windows with: a grant that expires is refused, and one that starts
 * is granted, at the next request after the moment, on every replica, with no write.
 */
import type { Clock } from '../platform/clock.js';
import type { PermissionPair } from './catalogue.js';
import { type EndingPermission, PermissionIndex } from './evaluator.js';
import type { Freshness } from './freshness.js';
import { type Principal, principalKey, type SignedInPrincipal } from './principal.js';
import { RevisionCache } from './revision-cache.js';

/** Bounds of the permission cache. */
export interface PermissionCacheLimits {
  /** Bytes of cached permissions kept at most (estimated from action and scope lengths). */
  maxBytes: number;
  /** Milliseconds a cached index may be served; a safety net, writes invalidate at once. */
  ttlMs: number;
}

/** 32 MiB and 5 minutes. */
export const DEFAULT_CACHE_LIMITS: PermissionCacheLimits = { maxBytes: 32 * 1024 * 1024, ttlMs: 5 * 60_000 };

/** Told of each permission-index lookup, `hit` (served from the cache) or `miss` (loaded): metrics. */
export interface PermissionCacheObserver {
  permissionCache(result: 'hit' | 'miss'): void;
}

/** Loads of one index that may overlap invalidations (see `indexOf`). */
export const MAX_LOAD_ATTEMPTS = 8;

/** The cache key of a principal: the org role and the Service Admin flag are part of it (`entryOf`). */
function cacheKey(principal: SignedInPrincipal): string {
  return `${principalKey(principal)}:${principal.orgRole}:${principal.isServiceAdmin ? 1 : 0}`;
}

/**
 * What a load reads for a principal: its permissions and the ids of the roles holding them, those
 * held only until a moment (`ending`), and the next moment one of its grants begins or ends
 * (`changesAt`, ms since the epoch; null or absent: none).
 */
export interface HeldAccess {
  permissions: PermissionPair[];
  roleIds: readonly number[];
  ending?: readonly EndingPermission[];
  changesAt?: number | null;
}

/**
 * An entry: the index, the held roles' ids, the principal's revision when its load started
 * (freshness.ts `revisionOf`), and the moment (ms) from which it is never served (null: none).
 */
export interface HeldEntry {
  readonly index: PermissionIndex;
  readonly roleIds: readonly number[];
  readonly revision: number;
  readonly until: number | null;
}

/**
 * Estimated bytes of an entry: two UTF-16 strings per permission plus Map/Set overhead, the JSON
 * the REST door may keep of its two listings (http/answer-cache.ts: the pairs and the scope map,
 * each at most about the strings plus 32 bytes of punctuation per permission), and the role ids.
 */
function estimateBytes(entry: HeldEntry): number {
  let bytes = 256;
  for (const p of entry.index.pairs()) bytes += 4 * (p.action.length + p.scope.length) + 96 + 64;
  bytes += 8 * entry.roleIds.length;
  return bytes;
}

/** Cached permission indexes (and held roles) by principal, each fresh at its principal's revision (module comment). */
export class PermissionCache {
  private readonly cache: RevisionCache<string, HeldEntry>;
  private observer: PermissionCacheObserver | undefined;

  /**
   * @param freshness the revisions entries are stamped with.
   * @param load reads a principal's permissions and held roles' ids from the database.
   * @param clock the clock `load` reads windows with (entries' `until`).
   */
  constructor(
    private readonly freshness: Freshness,
    limits: PermissionCacheLimits,
    private readonly load: (principal: SignedInPrincipal) => Promise<HeldAccess>,
    private readonly clock: Clock,
  ) {
    this.cache = new RevisionCache(freshness, { maxBytes: limits.maxBytes, ttlMs: limits.ttlMs, sizeOf: estimateBytes });
  }

  /**
   * The index of `principal`, cached or loaded; a load that overlapped a change that can reach
   * the principal is loaded again, up to MAX_LOAD_ATTEMPTS times. Under a steady stream of
   * commits (another process writing without pause) the last load is returned uncached: its reads
   * began after every write acknowledged before it started, so it is a consistent read within the
   * request. The key holds the org role and the Service Admin flag too, so a principal
   * re-authenticated with a lower role never meets its old index.
   */
  async indexOf(principal: SignedInPrincipal): Promise<PermissionIndex> {
    return (await this.entryOf(principal)).index;
  }

  /** `indexOf`'s entry: the index with the ids of the roles it was built from. */
  async entryOf(principal: SignedInPrincipal): Promise<HeldEntry> {
    const key = cacheKey(principal);
    const cached = this.cache.get(key, principal);
    const current = cached && !this.ended(cached) ? cached : undefined;
    this.observer?.permissionCache(current ? 'hit' : 'miss');
    if (current) return current;
    let entry: HeldEntry = { index: PermissionIndex.EMPTY, roleIds: [], revision: -1, until: null };
    // An entry at the current revision but past its moment (module comment, "Time"): never served again.
    let ended = cached !== undefined;
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
      if (ended) this.cache.delete(key);
      const revision = this.cache.stamp(principal);
      const loader = async (): Promise<HeldEntry> => {
        const { permissions, roleIds, ending = [], changesAt = null } = await this.load(principal);
        return { index: PermissionIndex.from(permissions, ending), roleIds, revision, until: changesAt };
      };
      entry = (await this.cache.load(key, loader, principal)).value;
      ended = this.ended(entry);
      if (entry.revision === this.freshness.revisionOf(principal) && !ended) return entry;
    }
    return entry;
  }

  /** True from the moment `entry` must no longer be served. */
  private ended(entry: HeldEntry): boolean {
    return entry.until !== null && this.clock.now().getTime() >= entry.until;
  }

  /** Drops the cached index of one principal, so its next lookup reloads it. */
  invalidatePrincipal(principal: Principal): void {
    const prefix = `${principalKey(principal)}:`;
    this.cache.deleteWhere((key) => key.startsWith(prefix));
  }

  /** Reports every later lookup to `observer`; replaces an earlier one. */
  observe(observer: PermissionCacheObserver): void {
    this.observer = observer;
  }

  /** Number of cached principals. */
  get size(): number {
    return this.cache.size;
  }

  /** Estimated bytes held. */
  get bytes(): number {
    return this.cache.bytes;
  }
}
