/**
 * Role reads for the roles and assignments services (the callers check roles:read first):
 * listings of any size (the matching ids first, then the rows in slices of MAX_IDS_PER_QUERY;
 * one query over 1,000+ roles with their permissions would pass SQLite's
 * bound-variable limit and answer 500), the roles a caller may assign, the roles granted to
 * basic roles, the known actions for role editors, a role's permissions, and who holds a taken
 * role name (for the 409's message).
 */
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { BASIC_PREFIX, BASIC_ROLES, isFixedRoleName } from '../../kernel/builtin-roles.js';
import { Action, type PermissionPair } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { mayDelegate } from '../../kernel/guards.js';
import { type Db, loadInChunks, type Tx } from '../../platform/database.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each role. */
export type RoleQuery = { include?: Prisma.RoleInclude; select?: Prisma.RoleSelect };

/**
 * A role with its permissions (every column), sorted by action then scope: the REST door's shape
 * (Grafana answers a role with its permissions) and what `create` reads as it writes, so a
 * creation asked for in this shape is answered from its own write, not read again.
 */
export const ROLE_WITH_PERMISSIONS = {
  include: { permissions: { orderBy: [{ action: 'asc' as const }, { scope: 'asc' as const }] } },
} satisfies RoleQuery;

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
 * The ids of rows `offset` to `offset + limit` of the roles listed in organization `orgId` (its
 * own and the global ones, hidden ones only with `includeHidden`), by name then id, without
 * reading the whole listing: each organization's first `offset + limit` rows are walked in the
 * order of the (orgId, name) unique index, and only those are merged and cut (so a page
 * costs the same on 100 roles and on 10,000, save for its offset). Both databases.
 */
export async function pageOfRoleIds(
  db: Db,
  orgId: number,
  includeHidden: boolean,
  window: { offset: number; limit: number },
): Promise<number[]> {
  const n = window.offset + window.limit;
  const rows = includeHidden
    ? await db.$queryRaw<{ id: number | bigint }[]>`SELECT "id" FROM (
        SELECT * FROM (SELECT "id", "name" FROM "Role" WHERE "orgId" = 0 ORDER BY "name", "id" LIMIT ${n}) AS "g"
        UNION ALL
        SELECT * FROM (SELECT "id", "name" FROM "Role" WHERE "orgId" = ${orgId} ORDER BY "name", "id" LIMIT ${n}) AS "o"
      ) AS "r" ORDER BY "name", "id" LIMIT ${window.limit} OFFSET ${window.offset}`
    : await db.$queryRaw<{ id: number | bigint }[]>`SELECT "id" FROM (
        SELECT * FROM (SELECT "id", "name" FROM "Role" WHERE "orgId" = 0 AND "hidden" = false ORDER BY "name", "id" LIMIT ${n}) AS "g"
        UNION ALL
        SELECT * FROM (SELECT "id", "name" FROM "Role" WHERE "orgId" = ${orgId} AND "hidden" = false ORDER BY "name", "id" LIMIT ${n}) AS "o"
      ) AS "r" ORDER BY "name", "id" LIMIT ${window.limit} OFFSET ${window.offset}`;
  return rows.map((r) => Number(r.id));
}

/**
 * The ids of the roles matching `where` that the holder of `index` may assign (Grafana's
 * `delegatable=true`), by name then id: never basic roles, and only while it holds
 * users.roles:add or teams.roles:add and covers the role's permissions or holds that action on
 * escalate (guards.mayDelegate). One read of the candidates with their permissions.
 */
export async function delegatableRoleIds(db: Db, where: Prisma.RoleWhereInput, index: PermissionIndex): Promise<number[]> {
  const candidates = await db.role.findMany({
    where: { ...where, NOT: { name: { startsWith: BASIC_PREFIX } } },
    select: { id: true, permissions: { select: { action: true, scope: true } } },
    orderBy: BY_NAME,
  });
  return candidates
    .filter((r) => mayDelegate(index, Action.UsersRolesAdd, r.permissions) || mayDelegate(index, Action.TeamsRolesAdd, r.permissions))
    .map((r) => r.id);
}

/** The name of the basic role (`basic:viewer`, ...) of each basic role grant name (`Viewer`, ...). */
const BASIC_ROLE_NAMES = new Map<string, string>(BASIC_ROLES.map((def) => [def.basicRole, def.name]));

/**
 * The roles granted to each basic role, by the basic role's name (`basic:viewer` -> roles): the
 * non-basic roles with a BasicRoleGrant to it, global or of organization `orgId`, by name, each
 * with what `query` loads. Today these are the fixed roles products register
 * (`plugins:<productId>:<name>`, products/service.ts; Grafana's plugin.json
 * `grants`). The rows already carry Grafana's inheritance (a grant to Viewer is stored for Editor
 * and Admin too; Service Admin only when named) and are the rows the evaluator reads
 * (kernel/held-roles.ts), so this is exactly what every holder of the basic role gets beside its
 * own permissions. One read of the grants and one of the roles (in slices, rolesByIds), whatever
 * the number of basic roles asked about.
 */
export async function grantedRolesByBasicRole(db: Db, orgId: number, query: RoleQuery): Promise<Map<string, Role[]>> {
  const grants = await db.basicRoleGrant.findMany({
    where: { orgId: { in: [0, orgId] }, role: { NOT: { name: { startsWith: BASIC_PREFIX } } } },
    select: { basicRole: true, roleId: true },
  });
  const basicOf = new Map<number, Set<string>>();
  for (const g of grants) {
    const name = BASIC_ROLE_NAMES.get(g.basicRole);
    if (name) basicOf.set(g.roleId, (basicOf.get(g.roleId) ?? new Set()).add(name));
  }
  // The grouping needs each row's id, also when the caller's query selects fields.
  const withId: RoleQuery = query.select ? { select: { ...query.select, id: true } } : query;
  const out = new Map<string, Role[]>();
  for (const role of await rolesByIds(db, [...basicOf.keys()], withId)) {
    for (const name of basicOf.get(role.id) ?? []) out.set(name, [...(out.get(name) ?? []), role]);
  }
  return out;
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

/** The permissions of a role row, as pairs. */
export async function permissionsOfRole(db: Tx, roleId: number): Promise<PermissionPair[]> {
  return db.permission.findMany({ where: { roleId }, select: { action: true, scope: true } });
}

/**
 * 409 ROLE_ALREADY_EXISTS for a create or update that hit a unique index, naming what exists:
 * the role holding `name` in `orgId` (0: global) with its uid, or else the taken `uid` (uids are
 * unique across organizations), never the uid generated for the
 * role that was never created.
 */
export async function roleTaken(db: Tx, clash: { orgId: number; name: string; uid?: string }): Promise<DomainError> {
  const holder = await db.role.findFirst({ where: { orgId: clash.orgId, name: clash.name }, select: { uid: true } });
  const scope = clash.orgId === 0 ? 'global role' : `role in organization ${clash.orgId}`;
  if (holder) return new DomainError('ROLE_ALREADY_EXISTS', `a ${scope} named "${clash.name}" already exists (uid "${holder.uid}")`);
  if (clash.uid !== undefined) return new DomainError('ROLE_ALREADY_EXISTS', `a role with uid "${clash.uid}" already exists`);
  return new DomainError('ROLE_ALREADY_EXISTS', `a ${scope} named "${clash.name}" already exists`);
}
