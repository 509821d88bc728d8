/**
 * The permission cache behind AccessService (access.ts): each (organization, principal, org
 * role, Service Admin flag) index in an LRU bounded in bytes and in time (lru-cache), loads of
 * one key coalesced, and a generation that every invalidation bumps. A load stamps the
 * generation it started in and is neither stored nor returned if an invalidation happened
 * meanwhile, so no in-flight request can put back or use a stale entry after a write was
 * acknowledged (issue #10 "revocation race").
 *
 * An entry also holds the ids of the roles the index was built from, and their rows once asked
 * for (`rowsOf`; issue 20: `viewer { roles }` read them again on every request, and loading them
 * with every index cost a cold REST listing a fifth of its time for rows it never shows). Rows
 * read after the index are kept only while the principal's version is the one the index was
 * loaded in, so the two always agree, and are dropped with the entry.
 *
 * Targeted invalidation (issue 20, "only the principals a change can affect"): a write that can
 * change the permissions of named users only (a role assigned to or removed from one user) calls
 * `invalidateUsers` instead of `invalidate`. Every invalidation, global or targeted, takes the
 * next tick of one counter; a global one records its tick as `generation` and forgets every
 * targeted one, a targeted one records its tick for each user named. A principal's `versionOf`
 * is the later of the two, so it moves with every change that can reach it and with no other.
 * Entries and loads are stamped with the version of their principal and served or stored only
 * while it is unchanged: the generation fence of issue #10 per principal, with the same
 * guarantee (no load that overlapped a change is stored, no stamp survives a change). At most
 * MAX_TARGETED_USERS users are remembered; past that a targeted invalidation turns global.
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

/**
 * Users whose targeted invalidation is remembered at most (a number and a short key each: about
 * 100 bytes). One more turns the invalidation global, which forgets them all.
 */
export const MAX_TARGETED_USERS = 50_000;

/**
 * The key of the user behind a principal for targeted invalidation: a user or a service account
 * (also signed in through one of its tokens) is its users row, in every organization; an API key
 * has no users row and is never named by a targeted invalidation.
 */
function subjectOf(principal: Principal): number | undefined {
  return principal.kind === 'user' || principal.kind === 'serviceAccount' ? principal.id : undefined;
}

/** The cache key of a principal: the org role and the Service Admin flag are part of it (`entryOf`). */
function cacheKey(principal: SignedInPrincipal): string {
  return `${principalKey(principal)}:${principal.orgRole}:${principal.isServiceAdmin ? 1 : 0}`;
}

/** What a load reads for a principal: its permissions and the ids of the roles holding them. */
export interface HeldAccess {
  permissions: PermissionPair[];
  roleIds: readonly number[];
}

/**
 * An entry: the index, the held roles' ids, the principal's version when its load started
 * (`PermissionCache.versionOf`), and the held roles' rows once `rowsOf` read them (set once,
 * never changed after; callers copy the list).
 */
export interface HeldEntry {
  readonly index: PermissionIndex;
  readonly roleIds: readonly number[];
  readonly version: number;
  rows?: readonly Role[];
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
  bytes += 8 * entry.roleIds.length;
  for (const r of entry.rows ?? [])
    bytes += 2 * (r.uid.length + r.name.length + r.displayName.length + r.description.length + r.group.length) + 256;
  return bytes;
}

/**
 * Cached permission indexes (and held roles) by principal, invalidated all at once by generation
 * or per user (module comment).
 */
export class PermissionCache {
  private readonly cache: LRUCache<string, HeldEntry>;
  /** In-flight loads by cache key and principal version, so concurrent requests of one principal load once. */
  private readonly loading = new Map<string, Promise<HeldEntry>>();
  /** Tick of the latest invalidation, global or targeted. */
  private tick = 0;
  /** Tick of the latest global invalidation. */
  private current = 0;
  /** Tick of the latest targeted invalidation naming each user, when later than `current`. */
  private readonly targeted = new Map<number, number>();
  private observer: PermissionCacheObserver | undefined;

  /**
   * @param load reads a principal's permissions and held roles' ids from the database.
   * @param catchUp called after each load: may invalidate (other connections' commits).
   * @param loadRows reads the rows of roles by id, by name then id.
   */
  constructor(
    limits: PermissionCacheLimits,
    private readonly load: (principal: SignedInPrincipal) => Promise<HeldAccess>,
    private readonly catchUp: () => void,
    private readonly loadRows: (ids: readonly number[]) => Promise<Role[]>,
  ) {
    this.cache = new LRUCache<string, HeldEntry>({
      maxSize: limits.maxBytes,
      ttl: limits.ttlMs,
      sizeCalculation: estimateBytes,
    });
  }

  /**
   * Moved by every global invalidation, not by targeted ones: caches of facts that no targeted
   * write changes (verified credentials, members, role listings) stamp it.
   */
  get generation(): number {
    return this.current;
  }

  /** The tick of the latest invalidation, global or targeted: no version is later. */
  get latestTick(): number {
    return this.tick;
  }

  /**
   * The version of `principal`'s permissions: moved by every global invalidation and by every
   * targeted one naming its user; loads, entries and request fences stamp it.
   */
  versionOf(principal: Principal): number {
    const user = subjectOf(principal);
    const targeted = user === undefined ? undefined : this.targeted.get(user);
    return targeted === undefined ? this.current : targeted;
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
    const key = cacheKey(principal);
    let entry: HeldEntry = { index: PermissionIndex.EMPTY, roleIds: [], version: -1 };
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
      const version = this.versionOf(principal);
      const stored = this.cache.get(key);
      const cached = stored?.version === version ? stored : undefined;
      // One event per lookup: a load retried after a write is still the same miss.
      if (attempt === 0) this.observer?.permissionCache(cached ? 'hit' : 'miss');
      if (cached) return cached;
      // Loads are shared only within one version: one begun before a change is never handed out after it.
      const flight = `${key}@${version}`;
      const load: Promise<HeldEntry> =
        this.loading.get(flight) ??
        this.load(principal)
          .then(({ permissions, roleIds }) => {
            const loaded: HeldEntry = { index: PermissionIndex.from(permissions), roleIds, version };
            if (version === this.versionOf(principal)) this.cache.set(key, loaded);
            return loaded;
          })
          .finally(() => {
            if (this.loading.get(flight) === load) this.loading.delete(flight);
          });
      if (!this.loading.has(flight)) this.loading.set(flight, load);
      entry = await load;
      this.catchUp();
      if (version === this.versionOf(principal)) return entry;
    }
    return entry;
  }

  /**
   * The rows of the roles behind `entry` (an entry `entryOf` returned for `principal`), by name
   * then id: read once, then kept with the entry. Undefined when the principal's version moved
   * since the entry was loaded (the rows might not be those of its index): the caller asks
   * `entryOf` again. With `lastAttempt` the rows are returned anyway, not kept (`entryOf`'s rule
   * under a steady stream of commits).
   */
  async rowsOf(principal: SignedInPrincipal, entry: HeldEntry, lastAttempt = false): Promise<readonly Role[] | undefined> {
    if (entry.rows) return entry.rows;
    const rows = Object.freeze(await this.loadRows(entry.roleIds));
    this.catchUp();
    if (entry.version !== this.versionOf(principal)) return lastAttempt ? rows : undefined;
    entry.rows = rows;
    // Stored again so its size counts the rows (lru-cache measures on set).
    const key = cacheKey(principal);
    if (this.cache.peek(key) === entry) this.cache.set(key, entry);
    return rows;
  }

  /** Drops every cached index and forgets in-flight loads (they finish but are not stored). */
  invalidate(): void {
    this.tick++;
    this.current = this.tick;
    this.targeted.clear();
    this.cache.clear();
    this.loading.clear();
  }

  /**
   * Moves the version of every principal of users `userIds` (users and service accounts, in every
   * organization), so their entries and in-flight loads are neither served nor stored again;
   * others keep theirs. Past MAX_TARGETED_USERS remembered users, invalidates globally instead.
   */
  invalidateUsers(userIds: readonly number[]): void {
    if (this.targeted.size + userIds.length > MAX_TARGETED_USERS) {
      this.invalidate();
      return;
    }
    this.tick++;
    for (const id of userIds) this.targeted.set(id, this.tick);
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
