/**
 * The role listing of each organization, cached (issue 20: `GET /api/access-control/roles` read
 * every role through Prisma and shaped it again on every request).
 *
 * An entry is every role an organization's members can list (the global ones and the
 * organization's own, hidden ones too) as frozen rows in listing order (BY_NAME, the database's
 * own collation), loaded by one query. It is served only while nothing may have changed roles:
 * it is stamped with the access generation (kernel/access.ts, moved by every write through
 * `access.write` and by every commit of another connection: the CLI, another server, a replica
 * on PostgreSQL through its change feed) and with this cache's own epoch, which the role service
 * moves after the one role write that skips the generation (a new role, `grantsNothing`). The
 * stamp is read before the load, and a load that overlapped a change is returned to its request
 * but not stored, so no request can put back a listing older than a write acknowledged before
 * it (the permission cache's rule, kernel/permission-cache.ts).
 *
 * What a caller sees is still decided per request by the role service: the check of roles:read,
 * hidden roles only when asked, delegation against the caller's own index.
 */
import { LRUCache } from 'lru-cache';
import type { Role } from '../../generated/prisma/client.js';
import type { Db } from '../../platform/database.js';
import { BY_NAME } from './listing.js';

/** Organizations whose listing is kept at once (least recently listed go first). */
const MAX_CACHED_ORGS = 64;
/** Estimated bytes kept at most over every organization: a listing larger than this is served uncached. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** Milliseconds an entry may be served: a safety net, changes drop entries at once. */
const TTL_MS = 5 * 60_000;

/** Estimated bytes of a listing: its strings (UTF-16) and each row's fixed fields and overhead. */
function estimateBytes(rows: readonly Role[]): number {
  let bytes = 64;
  for (const r of rows) bytes += 2 * (r.uid.length + r.name.length + r.displayName.length + r.description.length + r.group.length) + 200;
  return bytes;
}

/** A listing and the stamp it was loaded under. */
interface Entry {
  stamp: string;
  rows: readonly Role[];
}

/** Cached role listings by organization id (module comment). */
export class RoleListingCache {
  private readonly entries = new LRUCache<number, Entry>({
    max: MAX_CACHED_ORGS,
    maxSize: MAX_CACHED_BYTES,
    ttl: TTL_MS,
    sizeCalculation: (entry) => estimateBytes(entry.rows),
  });
  /** In-flight loads by organization, so concurrent listings under one stamp load once. */
  private readonly loading = new Map<number, Entry & { promise: Promise<readonly Role[]> }>();
  private epoch = 0;

  /**
   * @param db where listings are read.
   * @param generation the access generation now (AccessService.currentGeneration: it first
   *   catches up with other connections' commits).
   */
  constructor(
    private readonly db: Db,
    private readonly generation: () => number,
  ) {}

  /**
   * Every global role and every role of organization `orgId`, hidden ones too, by name then id,
   * as frozen rows (never change them: other requests share them). One SQL statement on a miss,
   * none on a hit. @throws DomainError DATABASE_UNAVAILABLE (503) from the generation while
   * PostgreSQL's change feed is reconnecting.
   */
  async rolesOf(orgId: number): Promise<readonly Role[]> {
    const stamp = `${this.generation()}:${this.epoch}`;
    const cached = this.entries.get(orgId);
    if (cached?.stamp === stamp) return cached.rows;
    const inFlight = this.loading.get(orgId);
    if (inFlight?.stamp === stamp) return inFlight.promise;
    const promise = this.load(orgId);
    const entry = { stamp, promise, rows: [] as readonly Role[] };
    this.loading.set(orgId, entry);
    try {
      const rows = await promise;
      // Stored only when nothing changed while loading (module comment).
      if (`${this.generation()}:${this.epoch}` === stamp) this.entries.set(orgId, { stamp, rows });
      return rows;
    } finally {
      if (this.loading.get(orgId) === entry) this.loading.delete(orgId);
    }
  }

  /** The listing of `orgId` when one is cached and current, else undefined; never loads. */
  fresh(orgId: number): readonly Role[] | undefined {
    const cached = this.entries.get(orgId);
    return cached?.stamp === `${this.generation()}:${this.epoch}` ? cached.rows : undefined;
  }

  /** Drops every listing: called after a role write that does not move the access generation. */
  invalidate(): void {
    this.epoch++;
    this.entries.clear();
    this.loading.clear();
  }

  /** One read: scalar fields only, two bound values whatever the number of roles. */
  private async load(orgId: number): Promise<readonly Role[]> {
    const rows = await this.db.role.findMany({ where: { orgId: { in: [0, orgId] } }, orderBy: BY_NAME });
    return Object.freeze(rows.map((r) => Object.freeze(r)));
  }
}
