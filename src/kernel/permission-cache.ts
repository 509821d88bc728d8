/**
 * The permission cache behind AccessService (access.ts): each (organization, principal, org
 * role, Service Admin flag) index in an LRU bounded in bytes and in time (lru-cache), loads of
 * one key coalesced, and a generation that every invalidation bumps. A load stamps the
 * generation it started in and is neither stored nor returned if an invalidation happened
 * meanwhile, so no in-flight request can put back or use a stale entry after a write was
 * acknowledged (issue #10 "revocation race").
 *
 * An entry also holds the rows of the roles the index was built from (issue 20: `viewer { roles }`
 * read them again on every request), loaded by the same statement, so the two always agree and
 * are dropped together by the same generation.
 */
import { LRUCache } from 'lru-cache';
import type { Role } from '../generated/prisma/client.js';
import type { PermissionPair } from './catalogue.js';
import { PermissionIndex } from './evaluator.js';
import { type Principal, principalKey, type SignedInPrincipal } from './principal.js';

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

/** What a load reads for a principal: its permissions and the rows of the roles holding them (by name, then id). */
export interface HeldAccess {
  permissions: PermissionPair[];
  roles: Role[];
}

/** A cached entry: the index and the held roles' rows (never mutated: callers copy the list). */
export interface HeldEntry {
  index: PermissionIndex;
  roles: readonly Role[];
}

/**
 * Estimated bytes of an entry: two UTF-16 strings per permission plus Map/Set overhead, the JSON
 * the REST door may keep of its two listings (http/answer-cache.ts: the pairs and the scope map,
 * each at most about the strings plus 32 bytes of punctuation per permission), and each role's
 * strings plus the row object's overhead.
 */
function estimateBytes(entry: HeldEntry): number {
  let bytes = 256;
  for (const p of entry.index.pairs()) bytes += 4 * (p.action.length + p.scope.length) + 96 + 64;
  for (const r of entry.roles)
    bytes += 2 * (r.uid.length + r.name.length + r.displayName.length + r.description.length + r.group.length) + 256;
  return bytes;
}

/** Cached permission indexes (and held roles) by principal, invalidated all at once by generation. */
export class PermissionCache {
  private readonly cache: LRUCache<string, HeldEntry>;
  /** In-flight loads by cache key, so concurrent requests of one principal load once. */
  private readonly loading = new Map<string, Promise<HeldEntry>>();
  private current = 0;
  private observer: PermissionCacheObserver | undefined;

  /**
   * @param load reads a principal's permissions and held roles from the database.
   * @param catchUp called after each load: may invalidate (other connections' commits).
   */
  constructor(
    limits: PermissionCacheLimits,
    private readonly load: (principal: SignedInPrincipal) => Promise<HeldAccess>,
    private readonly catchUp: () => void,
  ) {
    this.cache = new LRUCache<string, HeldEntry>({
      maxSize: limits.maxBytes,
      ttl: limits.ttlMs,
      sizeCalculation: estimateBytes,
    });
  }

  /** Bumped by every invalidation; loads and request fences stamp it. */
  get generation(): number {
    return this.current;
  }

  /**
   * The index of `principal`, cached or loaded; a load that overlapped an invalidation is
   * loaded again, up to MAX_LOAD_ATTEMPTS times. Under a steady stream of commits (another
   * process writing without pause) the last load is returned uncached: its reads began after
   * every write acknowledged before it started, so it is a consistent read within the request.
   * The key holds the org role and the Service Admin flag too, so a principal re-authenticated
   * with a lower role never meets its old index.
   */
  async indexOf(principal: SignedInPrincipal): Promise<PermissionIndex> {
    return (await this.entryOf(principal)).index;
  }

  /** `indexOf`'s entry: the index with the rows of the roles it was built from. */
  async entryOf(principal: SignedInPrincipal): Promise<HeldEntry> {
    const key = `${principalKey(principal)}:${principal.orgRole}:${principal.isServiceAdmin ? 1 : 0}`;
    let entry: HeldEntry = { index: PermissionIndex.EMPTY, roles: [] };
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
      const cached = this.cache.get(key);
      // One event per lookup: a load retried after a write is still the same miss.
      if (attempt === 0) this.observer?.permissionCache(cached ? 'hit' : 'miss');
      if (cached) return cached;
      const generation = this.current;
      const load: Promise<HeldEntry> =
        this.loading.get(key) ??
        this.load(principal)
          .then(({ permissions, roles }) => {
            const loaded: HeldEntry = { index: PermissionIndex.from(permissions), roles };
            if (generation === this.current) this.cache.set(key, loaded);
            return loaded;
          })
          .finally(() => {
            if (this.loading.get(key) === load) this.loading.delete(key);
          });
      if (!this.loading.has(key)) this.loading.set(key, load);
      entry = await load;
      this.catchUp();
      if (generation === this.current) return entry;
    }
    return entry;
  }

  /** Drops every cached index and forgets in-flight loads (they finish but are not stored). */
  invalidate(): void {
    this.current++;
    this.cache.clear();
    this.loading.clear();
  }

  /** Drops the cached index of one principal, so its next lookup reloads it. */
  invalidatePrincipal(principal: Principal): void {
    const prefix = `${principalKey(principal)}:`;
    for (const key of [...this.cache.keys()]) if (key.startsWith(prefix)) this.cache.delete(key);
    for (const key of [...this.loading.keys()]) if (key.startsWith(prefix)) this.loading.delete(key);
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
    return this.cache.calculatedSize;
  }
}
