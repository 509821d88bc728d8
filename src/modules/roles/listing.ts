/**
 * Role listings of any size, for the roles and assignments services: the matching ids first,
 * then the rows in slices of MAX_IDS_PER_QUERY (issue #10 item 5: one query over 1,000+ roles
 * with their permissions passed SQLite's bound-variable limit and answered 500).
 */
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { type Db, loadInChunks } from '../../platform/database.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each role. */
export type RoleQuery = { include?: Prisma.RoleInclude; select?: Prisma.RoleSelect };

/** Listing order: by name, then id (a global and a local role may share a name). */
export const BY_NAME: Prisma.RoleOrderByWithRelationInput[] = [{ name: 'asc' }, { id: 'asc' }];

/**
 * The roles with `ids` (sorted by name then id), each with what `query` loads, in that order.
 * Loaded MAX_IDS_PER_QUERY at a time: one query over every id (or a relation loaded with
 * `orderBy` over every parent) would pass SQLite's bound-variable limit and fail (P2029).
 */
export function rolesByIds(db: Db, ids: readonly number[], query: RoleQuery): Promise<Role[]> {
  return loadInChunks(ids, (chunk) => db.role.findMany({ ...query, where: { id: { in: chunk } }, orderBy: BY_NAME }));
}

/**
 * Every role matching `where`, by name then id, each with what `query` loads (its permissions,
 * for instance), for listings of any size: the ids first, then the rows in slices
 * (`rolesByIds`). Rows deleted between the two reads are left out.
 */
export async function findRolesByName(db: Db, where: Prisma.RoleWhereInput, query: RoleQuery = {}): Promise<Role[]> {
  const ids = (await db.role.findMany({ where, select: { id: true }, orderBy: BY_NAME })).map((r) => r.id);
  return rolesByIds(db, ids, query);
}
