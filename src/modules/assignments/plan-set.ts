/**
 * The plan of a set of roles (PUT .../roles, `setUserRoles` and the like): a pure rule, tested
 * by its table (plan-set.test.ts) and used by the assignment core (core.ts).
 */

/**
 * What a set changes: the wanted roles not yet assigned are added; the assigned roles not wanted
 * are removed, except hidden ones unless `includeHidden` (service-interface.md "Set roles": set
 * without includeHidden leaves hidden assignments untouched). A hidden role named in the request
 * is added either way: the client asked for it by uid.
 */
export function planSet<R extends { id: number; hidden: boolean }>(
  current: readonly R[],
  wanted: readonly R[],
  includeHidden: boolean,
): { add: R[]; remove: R[] } {
  const wantedIds = new Set(wanted.map((r) => r.id));
  const currentIds = new Set(current.map((r) => r.id));
  return {
    add: wanted.filter((r) => !currentIds.has(r.id)),
    remove: current.filter((r) => !wantedIds.has(r.id) && (includeHidden || !r.hidden)),
  };
}
