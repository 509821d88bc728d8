/**
 * The listing of the roles assigned to subjects (users and service accounts, or teams), for one
 * subject or many at once (GraphQL `users { roles }`), on the subject's store (core.ts
 * SubjectStore). Rules: service-interface.md "List roles of ...".
 */
import type { Prisma, Role } from '../../generated/prisma/client.js';
import { BASIC_PREFIX } from '../../kernel/builtin-roles.js';
import { accessDenied, DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { parseId } from '../../kernel/inputs.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import { type RoleQuery, rolesByIds } from '../roles/service.js';
import type { SubjectStore } from './subject-store.js';
import type { AssignmentWindow } from './window.js';

/**
 * The roles of `assigned`, each once, in order (a role assigned both in the organization and
 * globally is one role): what `roles` listings show.
 */
export function distinctRoles(assigned: readonly AssignedRole[]): Role[] {
  const roles = new Map<number, Role>();
  for (const { role } of assigned) if (!roles.has(role.id)) roles.set(role.id, role);
  return [...roles.values()];
}

/** Options of a role listing. */
export interface ListOptions {
  includeHidden?: boolean | null;
}

/** Filter for roles a list may show in `orgId`: visible there, never basic, hidden on request. */
function listableRoles(orgId: number, includeHidden: boolean | null | undefined): Prisma.RoleWhereInput {
  return { orgId: { in: [0, orgId] }, NOT: { name: { startsWith: BASIC_PREFIX } }, ...(includeHidden ? {} : { hidden: false }) };
}

/** One assignment as listings show it: the role, whether it is global (users only), its window. */
export interface AssignedRole {
  role: Role;
  global: boolean;
  window: AssignmentWindow;
}

/**
 * The roles assigned to each of subjects `rawIds` in the caller's organization and globally, by
 * name then id, each with its assignments (a role assigned both there and globally has two), in
 * force or pending at `now` (ended ones are not shown); never basic roles, never roles held another way; hidden ones only with
 * includeHidden. Per subject: a VALIDATION_FAILED for a bad id; ACCESS_DENIED unless the caller
 * meets the store's `read` requirement on it or it is the caller's own (`readsOwn`: a member
 * reads its team's); the store's 404 behind the organization wall. A fixed
 * number of statements for any number of subjects: the wall, the assignments (ordered by role
 * name in SQL, as every role listing) and the roles with what `query` loads, each in slices of
 * MAX_IDS_PER_QUERY (SQLite's bound-value limit; roles/listing.ts rolesByIds).
 */
export async function listAssignedRoles(
  deps: FeatureDeps,
  store: SubjectStore,
  caller: SignedInPrincipal,
  rawIds: readonly unknown[],
  options: ListOptions,
  query: RoleQuery,
): Promise<(AssignedRole[] | DomainError)[]> {
  const answers = new Map<number, AssignedRole[] | DomainError>();
  const ids: number[] = [];
  const parsed = rawIds.map((raw) => {
    try {
      const id = parseId(store.idField, raw);
      ids.push(id);
      return id;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  });
  const denied: number[] = [];
  for (const id of new Set(ids)) if (!(await deps.access.can(caller, store.requirements.read.for({ id })))) denied.push(id);
  const own = denied.length > 0 && store.readsOwn ? await store.readsOwn(deps.db, caller, denied) : new Set<number>();
  for (const id of denied) if (!own.has(id)) answers.set(id, accessDenied(store.requirements.read.for({ id }).describe()));
  const readable = [...new Set(ids)].filter((id) => !answers.has(id));
  const inOrg = await store.inOrg(deps.db, caller, readable);
  for (const id of readable) if (!inOrg.has(id)) answers.set(id, store.notFound(id));
  const found = readable.filter((id) => inOrg.has(id));
  const now = deps.clock.now();
  const assignments = await store.assignments(deps.db, caller, found, listableRoles(caller.orgId, options.includeHidden), now);
  // The rows are matched to their assignments by id, also when the caller's query selects fields.
  const withId: RoleQuery = query.select ? { select: { ...query.select, id: true } } : query;
  const roles = new Map((await rolesByIds(deps.db, [...new Set(assignments.map((a) => a.roleId))], withId)).map((r) => [r.id, r]));
  const bySubject = new Map<number, AssignedRole[]>(found.map((id) => [id, []]));
  for (const { subjectId, roleId, global, window } of assignments) {
    const role = roles.get(roleId); // absent: deleted between the two reads, left out
    if (role) bySubject.get(subjectId)?.push({ role, global, window });
  }
  for (const [id, held] of bySubject) answers.set(id, held);
  return parsed.map((id) => (id instanceof DomainError ? id : (answers.get(id) ?? store.notFound(id))));
}
