/**
 * Role reads for the roles and assignments services (the callers check roles:read first):
 * listings of any size (the matching ids first, then the rows in slices of MAX_IDS_PER_QUERY;
 * issue #10 item 5: one query over 1,000+ roles with their permissions passed SQLite's
 * bound-variable limit and answered 500), the roles a caller may assign, and the known actions
 * for role editors.
 */
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { BASIC_PREFIX, isFixedRoleName } from '../../kernel/builtin-roles.js';
import { Action } from '../../kernel/catalogue.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { mayDelegate } from '../../kernel/guards.js';
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

/**
 * The roles matching `where` that the holder of `index` may assign (Grafana's
 * `delegatable=true`): never basic roles, and only while it holds users.roles:add or
 * teams.roles:add and covers the role's permissions or holds that action on escalate
 * (guards.mayDelegate). By name, each with what `query` loads.
 */
export async function delegatableRoles(db: Db, where: Prisma.RoleWhereInput, index: PermissionIndex, query: RoleQuery): Promise<Role[]> {
  const candidates = await db.role.findMany({
    where: { ...where, NOT: { name: { startsWith: BASIC_PREFIX } } },
    select: { id: true, permissions: { select: { action: true, scope: true } } },
    orderBy: BY_NAME,
  });
  const ids = candidates
    .filter((r) => mayDelegate(index, Action.UsersRolesAdd, r.permissions) || mayDelegate(index, Action.TeamsRolesAdd, r.permissions))
    .map((r) => r.id);
  return rolesByIds(db, ids, query);
}

/**
 * Every known action starting with `prefix` (the catalogue's, and any held by a global role or
 * a role of organization `orgId`: registered products' too) with the fixed roles that carry it,
 * sorted by action; fixed roles by name.
 */
export async function knownActions(db: Db, orgId: number, prefix: string): Promise<{ action: string; fixedRoles: Role[] }[]> {
  const rows = await db.permission.findMany({
    where: { action: { startsWith: prefix }, role: { orgId: { in: [0, orgId] } } },
    select: { action: true, role: true },
    orderBy: [{ action: 'asc' }],
  });
  const byAction = new Map<string, Map<number, Role>>();
  for (const action of Object.values(Action)) if (action.startsWith(prefix)) byAction.set(action, new Map());
  for (const row of rows) {
    if (!row.action.startsWith(prefix)) continue;
    const roles = byAction.get(row.action) ?? new Map<number, Role>();
    byAction.set(row.action, roles);
    if (isFixedRoleName(row.role.name)) roles.set(row.role.id, row.role);
  }
  return [...byAction.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([action, roles]) => ({ action, fixedRoles: [...roles.values()].sort((a, b) => a.name.localeCompare(b.name)) }));
}
