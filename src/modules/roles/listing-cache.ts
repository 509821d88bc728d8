/**
 * The role listing of each organization, cached, so `GET /api/access-control/roles` neither reads
 * every role through Prisma nor shapes it again on every request.
 *
 * An entry is every role an organization's members can list (the global ones and the
 * organization's own, hidden ones too) as frozen rows in listing order (BY_NAME, the database's
 * own collation), loaded by one query, in a RevisionCache (kernel/revision-cache.ts): served only
 * while no change to everyone was applied since its load (every write through `access.write`,
 * every commit of another connection: the CLI, another server, a replica on PostgreSQL), and
 * cleared by the role service after the one role write that applies none (a new role,
 * `grantsNothing`). A load that overlapped a change is returned to its request but not stored,
 * so no request can put back a listing older than a write acknowledged before it.
 *
 * What a caller sees is still decided per request by the role service: the check of roles:read,
 * hidden roles only when asked, delegation against the caller's own index.
 */
import type { Role } from '../../generated/prisma/client.js';
import type { Freshness } from '../../kernel/freshness.js';
import { RevisionCache } from '../../kernel/revision-cache.js';
import type { Db } from '../../platform/database.js';
import { BY_NAME } from './listing.js';

/** Organizations whose listing is kept at once (least recently listed go first). */
const MAX_CACHED_ORGS = 64;
/** Estimated bytes kept at most over every organization: a listing larger than this is served uncached. */
const MAX_CACHED_BYTES = 32 * 1024 * 1024;
/** Milliseconds an entry may be served: a safety net, changes drop entries at once. */
const TTL_MS = 5 * 60_000;

/**
 * Estimated bytes of a listing: its strings (UTF-16) and each row's fixed fields and overhead,
 * twice: what lives as long as the listing does (roles/rest.ts, http/answer-cache.ts), its rows'
 * JSON and the answer's text and compressed copies, with and without hidden roles, is at most as
 * much again.
 */
function estimateBytes(rows: readonly Role[]): number {
  let bytes = 64;
  for (const r of rows) bytes += 2 * (r.uid.length + r.name.length + r.displayName.length + r.description.length + r.group.length) + 200;
  return 2 * bytes;
}

/** Cached role listings by organization id (module comment). */
export class RoleListingCache {
  private readonly entries: RevisionCache<number, readonly Role[]>;

  /**
   * @param db where listings are read.
   * @param freshness the access revisions entries are stamped with (AccessService.freshness).
   */
  constructor(
    private readonly db: Db,
    freshness: Freshness,
  ) {
    this.entries = new RevisionCache(freshness, {
      maxEntries: MAX_CACHED_ORGS,
      maxBytes: MAX_CACHED_BYTES,
      sizeOf: estimateBytes,
      ttlMs: TTL_MS,
    });
  }

  /**
   * Every global role and every role of organization `orgId`, hidden ones too, by name then id,
   * as frozen rows (never change them: other requests share them). One SQL statement on a miss,
   * none on a hit. @throws DomainError DATABASE_UNAVAILABLE (503) while PostgreSQL's change feed
   * is reconnecting.
   */
  async rolesOf(orgId: number): Promise<readonly Role[]> {
    return (await this.entries.load(orgId, () => this.load(orgId))).value;
  }

  /** The listing of `orgId` when one is cached and current, else undefined; never loads. */
  fresh(orgId: number): readonly Role[] | undefined {
    return this.entries.get(orgId);
  }

  /** Drops every listing: called after a role write that applies no change (a new role). */
  invalidate(): void {
    this.entries.clear();
  }

  /** One read: scalar fields only, two bound values whatever the number of roles. */
  private async load(orgId: number): Promise<readonly Role[]> {
    const rows = await this.db.role.findMany({ where: { orgId: { in: [0, orgId] } }, orderBy: BY_NAME });
    return Object.freeze(rows.map((r) => Object.freeze(r)));
  }
}
