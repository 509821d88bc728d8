/**
 * The one mechanism by which every cache in the process stays fresh (freshness.ts): entries are
 * stamped with the revision read before their load and served only while it is current.
 *
 * - `load` reads the stamp, shares one load per key and stamp between concurrent callers, and
 *   stores the loaded value only when, once loaded and after applying other connections' commits
 *   (`Freshness.sync`), the stamp is still current and the cache was not cleared meanwhile: a load
 *   that overlapped a change is returned to its callers but never served to a later one.
 * - Entries stamp either the revision of changes to everyone (`Freshness.revision`: caches of
 *   facts no targeted change alters) or, given a principal, the revision of the changes that can
 *   reach it (`Freshness.revisionOf`: the permission cache).
 * - Bounded in entries or in estimated bytes, and in time (lru-cache); every change applied to
 *   everyone also empties it, so stale entries do not hold memory until evicted.
 */
import { LRUCache } from 'lru-cache';
import type { Freshness } from './freshness.js';
import type { Principal } from './principal.js';

/** Bounds of a RevisionCache. */
export interface RevisionCacheLimits<V> {
  /** Entries kept at most; 0 turns the cache off (every `load` loads, nothing is kept). */
  maxEntries?: number;
  /** Estimated bytes kept at most, measured by `sizeOf`. */
  maxBytes?: number;
  /** Estimated bytes of one value (with `maxBytes`). */
  sizeOf?: (value: V) => number;
  /** Milliseconds an entry may be served: a safety net, changes drop entries at once. */
  ttlMs: number;
}

/** A cached value and the revision it was loaded at. */
interface Stamped<V> {
  readonly value: V;
  readonly revision: number;
}

/** A value `load` returned, with the revision read before it was loaded. */
export interface Loaded<V> {
  readonly value: V;
  readonly revision: number;
}

/** Values by key, stamped with the revision they were loaded at (module comment). */
export class RevisionCache<K extends {}, V extends {}> {
  private readonly entries: LRUCache<K, Stamped<V>> | null;
  /** In-flight loads by key, with their stamp and the epoch they began in. */
  private readonly loading = new Map<K, { revision: number; epoch: number; promise: Promise<V> }>();
  /** Moved by `clear`, so a load begun before it is not stored after it. */
  private epoch = 0;

  constructor(
    private readonly freshness: Freshness,
    limits: RevisionCacheLimits<V>,
  ) {
    const off = limits.maxEntries === 0;
    this.entries = off
      ? null
      : new LRUCache<K, Stamped<V>>({
          max: limits.maxEntries,
          maxSize: limits.maxBytes,
          sizeCalculation: limits.maxBytes ? (e: Stamped<V>) => limits.sizeOf?.(e.value) ?? 1 : undefined,
          ttl: limits.ttlMs,
        } as LRUCache.Options<K, Stamped<V>, unknown>);
    if (this.entries) freshness.onChangeToEveryone(() => this.drop());
  }

  /** The revision entries for `principal` (or, without one, entries no targeted change alters) are stamped with now. */
  stamp(principal?: Principal): number {
    return principal ? this.freshness.revisionOf(principal) : this.freshness.revision;
  }

  /** The value of `key` when it was stored at the current stamp, else undefined; never loads. */
  get(key: K, principal?: Principal): V | undefined {
    const entry = this.entries?.get(key);
    return entry && entry.revision === this.stamp(principal) ? entry.value : undefined;
  }

  /**
   * The value of `key` at the current stamp: cached, or loaded by `loader` (once for concurrent
   * callers of one stamp) and stored unless a change overlapped the load (module comment).
   * @throws what `loader` throws (nothing is stored); DomainError DATABASE_UNAVAILABLE (503) from
   *   `Freshness.sync` while other connections' commits cannot be known.
   */
  async load(key: K, loader: () => Promise<V>, principal?: Principal): Promise<Loaded<V>> {
    const revision = this.stamp(principal);
    const cached = this.entries?.get(key);
    if (cached && cached.revision === revision) return cached;
    const epoch = this.epoch;
    const flight = this.loading.get(key);
    if (flight && flight.revision === revision && flight.epoch === epoch) {
      const value = await flight.promise;
      this.freshness.sync();
      return { value, revision };
    }
    const promise = loader();
    const mine = { revision, epoch, promise };
    this.loading.set(key, mine);
    try {
      const value = await promise;
      this.freshness.sync();
      if (this.epoch === epoch && this.stamp(principal) === revision) this.entries?.set(key, { value, revision });
      return { value, revision };
    } finally {
      if (this.loading.get(key) === mine) this.loading.delete(key);
    }
  }

  /**
   * Stores `value` for `key` at `revision` (a stamp read before the value was read) when that
   * stamp is still current; a later revision makes it a no-op. Also how an entry whose value
   * grew is measured again.
   */
  set(key: K, value: V, revision: number, principal?: Principal): void {
    if (revision === this.stamp(principal)) this.entries?.set(key, { value, revision });
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.entries?.delete(key);
    this.loading.delete(key);
  }

  /** Forgets every key that `matches`. */
  deleteWhere(matches: (key: K) => boolean): void {
    for (const key of [...(this.entries?.keys() ?? [])]) if (matches(key)) this.entries?.delete(key);
    for (const key of [...this.loading.keys()]) if (matches(key)) this.loading.delete(key);
  }

  /** Drops every entry, and in-flight loads are not stored: for a change the revision does not count. */
  clear(): void {
    this.epoch++;
    this.drop();
  }

  /** Number of entries. */
  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** Estimated bytes held (with `maxBytes`; 0 without). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }

  /** True when entries are kept (`maxEntries` is not 0). */
  get enabled(): boolean {
    return this.entries !== null;
  }

  private drop(): void {
    this.entries?.clear();
    this.loading.clear();
  }
}
