/**
 * Pages of the role listing: which roles a caller lists, in order, and the window of
 * them a page answers, by every list's paging rule (shared/paging.ts) on both doors.
 *
 * - REST `GET /api/access-control/roles` keeps Grafana's unpaged array; with `page` or `perpage`
 *   (the parameter names of Grafana's searches: its role listing itself has no paging, only
 *   `delegatable` and `includeHidden`) it answers `{totalCount, roles, page, perPage}`, perpage
 *   1000 by default.
 * - GraphQL `rolesConnection(first, after | last, before)`: a Relay connection, 100 roles by
 *   default. Its cursors are positions in the listing, like REST's pages: a role created or
 *   deleted before a cursor meanwhile shifts the next page by one.
 *
 * Pages come from the cached listing (listing-cache.ts) while it is current; right after a write
 * a page is read alone from the database (listing.pageOfRoleIds), so it costs the same on 100
 * roles and on 10,000. `delegatable` listings are always read from the database.
 */
import { z } from 'zod';
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { parseInput, wholeNumberText } from '../../kernel/inputs.js';
import type { Db } from '../../platform/database.js';
import { type ConnectionArgs, connectionPage } from '../shared/connection-args.js';
import { DEFAULT_PER_PAGE, MAX_PAGE, pageNumberInput, pageOffset, pageSizeInput } from '../shared/paging.js';
import { delegatableRoleIds, pageOfRoleIds, type RoleQuery, rolesByIds } from './listing.js';
import type { RoleListingCache } from './listing-cache.js';

/** What a role listing is filtered by (Grafana's `includeHidden` and `delegatable`). */
export interface RoleListOptions {
  includeHidden?: boolean | null;
  delegatable?: boolean | null;
}

/** Rows `offset` to `offset + limit` (exclusive) of a listing. */
export interface RoleWindow {
  offset: number;
  limit: number;
}

/** One window of a listing and the number of roles listed on every page. */
export interface RoleSlice {
  totalCount: number;
  offset: number;
  /** Without a window and relations, the listing cache's own frozen array (shared: never change it). */
  rows: readonly Role[];
}

/** The rows of a cached listing without its hidden roles, once per listing: frozen and shared as the listing is. */
const visibleRows = new WeakMap<readonly Role[], readonly Role[]>();

function withoutHidden(all: readonly Role[]): readonly Role[] {
  let visible = visibleRows.get(all);
  if (!visible) {
    visible = Object.freeze(all.filter((r) => !r.hidden));
    visibleRows.set(all, visible);
  }
  return visible;
}

/** Default `first` of rolesConnection (the GraphQL default of every `first`: shared/builder.ts). */
export const DEFAULT_ROLES_FIRST = 100;

/** REST paging: `perpage` (default 1000, at most 1000) and `page` (from 1), as every list. */
const restPageInput = z.object({ perpage: pageSizeInput('perpage', DEFAULT_PER_PAGE), page: pageNumberInput('page') });

/**
 * The window of REST `page`/`perpage` (raw query-string values) with the page and size it read.
 * @throws DomainError VALIDATION_FAILED (400) "perpage must be at most 1000", "page must be at most 2147483647".
 */
export function restWindow(raw: { page: unknown; perpage: unknown }): RoleWindow & { page: number; perPage: number } {
  const { page, perpage } = parseInput(restPageInput, raw);
  return { offset: pageOffset(page, perpage), limit: perpage, page, perPage: perpage };
}

const CURSOR_PREFIX = 'roles:';

/** The opaque cursor of the role at `position` (from 0) of a listing: base64url("roles:<position>"). */
export function roleCursor(position: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${position}`).toString('base64url');
}

/**
 * The position (from 0) behind a cursor of roleCursor.
 * @throws DomainError VALIDATION_FAILED (400) "<field>: not a cursor of rolesConnection".
 */
function cursorPosition(field: string, cursor: string): number {
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const position = decoded.startsWith(CURSOR_PREFIX) ? wholeNumberText(decoded.slice(CURSOR_PREFIX.length)) : null;
  if (position === null || position >= MAX_PAGE) throw new DomainError('VALIDATION_FAILED', `${field}: not a cursor of rolesConnection`);
  return position;
}

/**
 * The window of GraphQL's connection arguments (shared/connection-args.ts): forwards, the `first`
 * roles after the cursor's position; backwards, the `last` roles before `before`'s position. A
 * position counts from the start, so `last` needs `before` (Pothos's offset connections' rule).
 * @throws DomainError VALIDATION_FAILED (400) "first must be at most 1000", "after: not a cursor
 *   of rolesConnection", "last needs before on rolesConnection", forward and backward arguments together.
 */
export function cursorWindow(raw: ConnectionArgs): RoleWindow {
  const page = connectionPage(raw, DEFAULT_ROLES_FIRST);
  if (page.forward)
    return page.after === null ? { offset: 0, limit: page.size } : { offset: cursorPosition('after', page.after) + 1, limit: page.size };
  if (page.before === null)
    throw new DomainError('VALIDATION_FAILED', 'last needs before on rolesConnection: positions count from the start');
  const end = cursorPosition('before', page.before);
  const offset = Math.max(0, end - page.size);
  return { offset, limit: end - offset };
}

/** Relations of Role a Pothos selection may ask for: the cached rows carry none of them. */
const RELATIONS = new Set(['permissions', 'userRoles', 'teamRoles', 'basicGrants', '_count']);

/** True when `query` loads more than a role's own fields. */
function loadsRelations(query: RoleQuery): boolean {
  return Object.keys(query.include ?? query.select ?? {}).some((key) => RELATIONS.has(key));
}

/**
 * The roles the holder of `index` lists in organization `orgId` (global ones too), by name then
 * id: from the listing cache, without hidden ones unless asked; with `delegatable`, only those
 * it may assign (listing.delegatableRoleIds, read from the database). `window` limits the rows
 * returned (the count is of every row); rows carry what `query` loads (one more read, of the
 * window only, when it asks for relations). Callers check roles:read first.
 */
export async function listRoles(
  db: Db,
  cache: RoleListingCache,
  scope: { orgId: number; index: PermissionIndex },
  options: RoleListOptions,
  window: RoleWindow | null,
  query: RoleQuery = {},
): Promise<RoleSlice> {
  const cut = <T>(all: readonly T[]): T[] => (window ? all.slice(window.offset, window.offset + window.limit) : [...all]);
  const offset = window?.offset ?? 0;
  if (options.delegatable) {
    const where: Prisma.RoleWhereInput = { orgId: { in: [0, scope.orgId] }, ...(options.includeHidden ? {} : { hidden: false }) };
    const ids = await delegatableRoleIds(db, where, scope.index);
    return { totalCount: ids.length, offset, rows: await rolesByIds(db, cut(ids), query) };
  }
  // A page while no current listing is cached (after a write): that page alone, from the
  // database. Loading the whole listing for it would cost (and block the event loop) in
  // proportion to every role: 0.3 s for 10,000 (bench/scale.ts).
  const all = window ? cache.fresh(scope.orgId) : await cache.rolesOf(scope.orgId);
  if (window && !all) return pageFromDatabase(db, scope.orgId, options.includeHidden ?? false, window, query);
  const listed = all === undefined ? [] : options.includeHidden ? all : withoutHidden(all);
  // Unwindowed: the shared frozen rows themselves, so answers made of them are made once (http/answer-cache.ts).
  const rows = window ? cut(listed) : listed;
  if (!loadsRelations(query)) return { totalCount: listed.length, offset, rows };
  return {
    totalCount: listed.length,
    offset,
    rows: await rolesByIds(
      db,
      rows.map((r) => r.id),
      query,
    ),
  };
}

/** One page read from the database (listing.pageOfRoleIds) with the count of every listed role. */
async function pageFromDatabase(db: Db, orgId: number, includeHidden: boolean, window: RoleWindow, query: RoleQuery): Promise<RoleSlice> {
  const where: Prisma.RoleWhereInput = { orgId: { in: [0, orgId] }, ...(includeHidden ? {} : { hidden: false }) };
  const [totalCount, ids] = await Promise.all([db.role.count({ where }), pageOfRoleIds(db, orgId, includeHidden, window)]);
  return { totalCount, offset: window.offset, rows: await rolesByIds(db, ids, query) };
}
