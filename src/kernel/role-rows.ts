/**
 * The rows of held roles with their own permissions, as `viewer { roles { name permissions {
 * action scope } } }` shows them, cached once for every principal that holds them.
 *
 * A role's row and permissions change only through writes that apply a change to everyone
 * (freshness.ts: role updates, deletions, resets, product registration); which roles a principal
 * holds is its permission entry's business (permission-cache.ts, `roleIds`). So the rows live in
 * one RevisionCache (revision-cache.ts) by role id, stamped with the revision of changes to
 * everyone, shared by every principal: a warm request reads no SQL, and memory grows with the
 * number of distinct roles held, not with the number of principals. Missing rows are read in one
 * statement per ROLE_ID_SLICE ids, stored only when no change overlapped the read.
 */
import type { Permission, Role } from '../generated/prisma/client.js';
import type { Db } from '../platform/database.js';
import type { Freshness } from './freshness.js';
import { ROLE_ID_SLICE } from './held-roles.js';
import { RevisionCache } from './revision-cache.js';

/** A role's row with its own permissions, by action then scope. Frozen: shared by every request. */
export type RoleWithPermissions = Role & { readonly permissions: readonly Permission[] };

/** Distinct roles kept at most (a basic role with its ~200 permissions is about 40 KB). */
const MAX_ROLE_BYTES = 16 * 1024 * 1024;
/** Milliseconds a row may be served: a safety net, changes drop rows at once. */
const TTL_MS = 5 * 60_000;

/** Estimated bytes of a row: its strings (UTF-16), each permission's, and object overhead. */
function estimateBytes(role: RoleWithPermissions): number {
  let bytes = 2 * (role.uid.length + role.name.length + role.displayName.length + role.description.length + role.group.length) + 256;
  for (const p of role.permissions) bytes += 2 * (p.action.length + p.scope.length) + 128;
  return bytes;
}

/** Byte order, the order JavaScript and a "C" collation agree on. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Held roles' rows with their permissions, by role id (module comment). */
export class RoleRows {
  private readonly rows: RevisionCache<number, RoleWithPermissions>;

  constructor(
    private readonly db: Pick<Db, 'role'>,
    private readonly freshness: Freshness,
  ) {
    this.rows = new RevisionCache(freshness, { maxBytes: MAX_ROLE_BYTES, sizeOf: estimateBytes, ttlMs: TTL_MS });
  }

  /**
   * The rows of roles `ids` with their permissions, by name then id (a role deleted since is
   * absent); cached rows are served, the others read (one statement per ROLE_ID_SLICE ids) and
   * kept unless a change overlapped the read. Callers must not change them.
   */
  async of(ids: readonly number[]): Promise<RoleWithPermissions[]> {
    const found: RoleWithPermissions[] = [];
    const missing: number[] = [];
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row) found.push(row);
      else missing.push(id);
    }
    if (missing.length > 0) {
      const stamp = this.rows.stamp();
      for (let i = 0; i < missing.length; i += ROLE_ID_SLICE) {
        const read = await this.db.role.findMany({
          where: { id: { in: missing.slice(i, i + ROLE_ID_SLICE) } },
          include: { permissions: { orderBy: [{ action: 'asc' }, { scope: 'asc' }] } },
        });
        for (const role of read)
          found.push(Object.freeze({ ...role, permissions: Object.freeze(role.permissions.map((p) => Object.freeze(p))) }));
      }
      this.freshness.sync();
      for (const row of found) this.rows.set(row.id, row, stamp);
    }
    return found.sort((a, b) => compare(a.name, b.name) || a.id - b.id);
  }
}
