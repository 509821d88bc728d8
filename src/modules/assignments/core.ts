/**
 * The one subject-assignment core: list, add, remove and set the roles of a subject (a user or
 * service account, or a team), with the organization wall, delegation and the Service Admin gate
 * of global assignments written once. What differs per subject (where its assignments are
 * stored, how it is found, its requirements and messages) is a `SubjectStore` adapter
 * (stores.ts).
 *
 * Rules: service-interface.md "Required permissions", "List roles of ...", "Add role to ...",
 * "Remove role from ...", "Set roles of ...", "Team role operations"; upstream-behaviour.md
 * "Permission evaluation" (delegation). Only roles the caller can see (global or of its
 * organization) can be assigned; basic roles never (they are held through the org role), and an
 * organization's role never globally.
 */
import type { z } from 'zod';
import type { Prisma, Role } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { recordAudit } from '../../kernel/audit.js';
import { BASIC_PREFIX } from '../../kernel/builtin-roles.js';
import { accessDenied, DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { requireDelegation, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Message } from '../../kernel/message.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import type { Requirement } from '../../kernel/requirements.js';
import type { Db, Tx } from '../../platform/database.js';
import { type RoleQuery, rolesByIds } from '../roles/service.js';
import { type AssignableRole, assignableRole, assignableRoles } from './assignable.js';
import { roleUidParam } from './inputs.js';
import { planSet } from './plan-set.js';

/** One assignment row: role `roleId` assigned to subject `subjectId`. */
export interface Assignment {
  subjectId: number;
  roleId: number;
}

/** What the core needs to know about one kind of subject. */
export interface SubjectStore {
  /** Name of the id in paths and 400s: `userId` or `teamId`. */
  readonly idField: string;
  readonly requirements: { read: Requirement<'id'>; add: Requirement; remove: Requirement; set: Requirement };
  /** The role-management actions whose delegation (or escalation) add and remove check. */
  readonly actions: { add: string; remove: string };
  /** Bodies of add and set (users take `global`, teams do not). */
  readonly inputs: {
    add: z.ZodType<{ roleUid: string; global?: boolean | null }>;
    set: z.ZodType<{ roleUids: string[]; global?: boolean | null; includeHidden?: boolean | null }>;
  };
  /** Grafana's success texts. */
  readonly messages: { added: string; removed: string; set: string };
  /** The audit log's names: actions `<action>.add|remove|set` on the subject's resource kind. */
  readonly audit: { action: string; resourceKind: string };
  /**
   * Which of subjects `ids` are in the caller's organization (the organization wall). One query
   * per MAX_IDS_PER_QUERY ids (platform/database.ts loadInChunks).
   */
  inOrg(db: Db | Tx, caller: SignedInPrincipal, ids: readonly number[]): Promise<Set<number>>;
  /** The 404 of a subject behind the wall or unknown: USER_NOT_FOUND or TEAM_NOT_FOUND. */
  notFound(id: number): DomainError;
  /**
   * Which of subjects `ids` the caller may list the roles of without the `read` requirement
   * because they are its own (a team's member reading its team's); absent: none.
   */
  readsOwn?(db: Db, caller: SignedInPrincipal, ids: readonly number[]): Promise<Set<number>>;
  /**
   * The assignments of subjects `ids` visible in the caller's organization whose role matches
   * `roles`, as (subject, role) pairs ordered by role name then role id (a role assigned both in
   * the organization and globally comes twice). Filters of kernel/held-roles.ts, the rule the
   * checks read.
   */
  assignments(db: Db, caller: SignedInPrincipal, ids: readonly number[], roles: Prisma.RoleWhereInput): Promise<Assignment[]>;
  /** Roles (with permissions) assigned to `id` in assignment scope `orgId` (0 = global). */
  current(tx: Tx, caller: SignedInPrincipal, id: number, orgId: number): Promise<AssignableRole[]>;
  /** Adds assignments of `roleIds` (none of them assigned yet) in scope `orgId`. */
  assign(tx: Tx, id: number, orgId: number, roleIds: number[]): Promise<void>;
  /** Removes assignments of `roleIds` in scope `orgId`; absent ones are ignored. */
  unassign(tx: Tx, id: number, orgId: number, roleIds: number[]): Promise<void>;
}

/** Options of a role listing. */
export interface ListOptions {
  includeHidden?: boolean | null;
}

/** Filter for roles a list may show in `orgId`: visible there, never basic, hidden on request. */
function listableRoles(orgId: number, includeHidden: boolean | null | undefined): Prisma.RoleWhereInput {
  return { orgId: { in: [0, orgId] }, NOT: { name: { startsWith: BASIC_PREFIX } }, ...(includeHidden ? {} : { hidden: false }) };
}

/**
 * The roles assigned to each of subjects `rawIds` in the caller's organization and globally, by
 * name then id; never basic roles, never roles held another way; hidden ones only with
 * includeHidden. Per subject: a VALIDATION_FAILED for a bad id; ACCESS_DENIED unless the caller
 * meets the store's `read` requirement on it or it is the caller's own (`readsOwn`: a member
 * reads its team's, issue 18 item 9); the store's 404 behind the organization wall. A fixed
 * number of statements for any number of subjects: the wall, the assignments (ordered by role
 * name in SQL, as every role listing) and the roles with what `query` loads, each in slices of
 * MAX_IDS_PER_QUERY (SQLite's bound-value limit; roles/listing.ts rolesByIds).
 */
async function listAssignedRoles(
  deps: FeatureDeps,
  store: SubjectStore,
  caller: SignedInPrincipal,
  rawIds: readonly unknown[],
  options: ListOptions,
  query: RoleQuery,
): Promise<(Role[] | DomainError)[]> {
  const answers = new Map<number, Role[] | DomainError>();
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
  const assignments = await store.assignments(deps.db, caller, found, listableRoles(caller.orgId, options.includeHidden));
  // The rows are matched to their assignments by id, also when the caller's query selects fields.
  const withId: RoleQuery = query.select ? { select: { ...query.select, id: true } } : query;
  const roles = new Map((await rolesByIds(deps.db, [...new Set(assignments.map((a) => a.roleId))], withId)).map((r) => [r.id, r]));
  const bySubject = new Map<number, Map<number, Role>>(found.map((id) => [id, new Map()]));
  for (const { subjectId, roleId } of assignments) {
    const role = roles.get(roleId); // absent: deleted between the two reads, left out
    if (role) bySubject.get(subjectId)?.set(roleId, role);
  }
  for (const [id, held] of bySubject) answers.set(id, [...held.values()]);
  return parsed.map((id) => (id instanceof DomainError ? id : (answers.get(id) ?? store.notFound(id))));
}

/** Assignments of one kind of subject, built on its store. */
export class SubjectAssignments {
  constructor(
    private readonly deps: FeatureDeps,
    private readonly store: SubjectStore,
  ) {}

  /**
   * Roles assigned to the subject in the caller's organization and globally, by name (rules:
   * listing.ts listAssignedRoles, which answers for many subjects at once).
   * @throws DomainError VALIDATION_FAILED (400: id), 401, ACCESS_DENIED (403), 404 (subject not in
   *   the caller's organization), 404 in oss.
   */
  async list(caller: Principal, rawId: unknown, options: ListOptions, query: RoleQuery = {}): Promise<Role[]> {
    const [roles] = await this.listMany(caller, [rawId], options, query);
    if (roles instanceof Error || roles === undefined) throw roles;
    return roles;
  }

  /**
   * `list` for many subjects at once (GraphQL `users { roles }`): one answer per id, in order,
   * each its roles or the DomainError `list` would throw for it alone. A fixed number of SQL
   * statements whatever the number of ids (listing.ts).
   * @throws DomainError 401, 404 in oss (for every id at once).
   */
  async listMany(
    caller: Principal,
    rawIds: readonly unknown[],
    options: ListOptions,
    query: RoleQuery = {},
  ): Promise<(Role[] | DomainError)[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return listAssignedRoles(this.deps, this.store, caller, rawIds, options, query);
  }

  /**
   * Assigns a role (idempotent: an assigned role succeeds unchanged, as in Grafana), in the
   * caller's organization or, with `global`, in every one. Body: the store's `add` input. Needs
   * the store's `add` requirement and every permission of the role (delegation), unless the add
   * action is held on permissions:type:escalate; global needs a Service Admin.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE (400), 401, ACCESS_DENIED (403),
   *   subject or ROLE_NOT_FOUND (404), 404 in oss.
   */
  async add(caller: Principal, rawId: unknown, rawInput: unknown): Promise<Message> {
    const parse = () => parseInput(this.store.inputs.add, rawInput);
    return this.change(caller, rawId, 'add', parse, this.store.requirements.add, async (tx, id, orgId, index, input, signedIn) => {
      const role = await assignableRole(tx, signedIn, input.roleUid, orgId);
      requireDelegation(index, this.store.actions.add, role.permissions);
      const current = await this.store.current(tx, signedIn, id, orgId);
      if (!current.some((r) => r.id === role.id)) await this.store.assign(tx, id, orgId, [role.id]);
      return this.store.messages.added;
    });
  }

  /**
   * Removes a role; one that is not assigned succeeds unchanged (Grafana). An unknown uid is 404,
   * since delegation needs the role's permissions. Requirement and errors as `add`.
   */
  async remove(caller: Principal, rawId: unknown, rawUid: unknown, options: { global?: boolean | null }): Promise<Message> {
    const parse = () => ({ roleUid: parseInput(roleUidParam, rawUid), global: options.global });
    return this.change(caller, rawId, 'remove', parse, this.store.requirements.remove, async (tx, id, orgId, index, input, signedIn) => {
      const role = await assignableRole(tx, signedIn, input.roleUid, orgId);
      requireDelegation(index, this.store.actions.remove, role.permissions);
      await this.store.unassign(tx, id, orgId, [role.id]);
      return this.store.messages.removed;
    });
  }

  /**
   * Makes the assignments in scope exactly the body's `roleUids`, in one transaction (hidden ones
   * kept without includeHidden, see planSet). Needs both `add` and `remove` requirements and
   * delegation of every role added or removed (roles kept need none).
   * @throws as `add`; the first unknown uid is 404 and nothing changes.
   */
  async set(caller: Principal, rawId: unknown, rawInput: unknown): Promise<Message> {
    const parse = () => parseInput(this.store.inputs.set, rawInput);
    return this.change(caller, rawId, 'set', parse, this.store.requirements.set, async (tx, id, orgId, index, input, signedIn) => {
      const wanted = await assignableRoles(tx, signedIn, input.roleUids, orgId);
      const plan = planSet(await this.store.current(tx, signedIn, id, orgId), wanted, input.includeHidden ?? false);
      requireDelegation(
        index,
        this.store.actions.add,
        plan.add.flatMap((r) => r.permissions),
      );
      requireDelegation(
        index,
        this.store.actions.remove,
        plan.remove.flatMap((r) => r.permissions),
      );
      if (plan.remove.length > 0)
        await this.store.unassign(
          tx,
          id,
          orgId,
          plan.remove.map((r) => r.id),
        );
      if (plan.add.length > 0)
        await this.store.assign(
          tx,
          id,
          orgId,
          plan.add.map((r) => r.id),
        );
      return this.store.messages.set;
    });
  }

  /**
   * The preamble every change shares, then `work` inside the one write path: edition, sign-in,
   * id, body, the requirement, the assignment scope (0 for global, Service Admin only), the
   * caller's index loaded before the transaction (delegation reads no database inside it), the
   * subject's organization wall. A change that changed something is logged as
   * `<store.audit.action>.<verb>` with the subject's roles in scope before and after (an
   * idempotent no-op, such as adding a role already assigned, logs nothing).
   */
  private async change<B extends { global?: boolean | null }>(
    caller: Principal,
    rawId: unknown,
    verb: 'add' | 'remove' | 'set',
    parse: () => B,
    needed: Requirement,
    work: (tx: Tx, id: number, orgId: number, index: PermissionIndex, input: B, caller: SignedInPrincipal) => Promise<string>,
  ): Promise<Message> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId(this.store.idField, rawId);
    const input = parse();
    const index = await this.deps.access.check(caller, needed.for({}));
    if (input.global) requireServiceAdmin(caller, 'assign or remove a role globally');
    const orgId = input.global ? 0 : caller.orgId;
    const message = await this.deps.access.write(async (tx) => {
      if (!(await this.store.inOrg(tx, caller, [id])).has(id)) throw this.store.notFound(id);
      const before = await this.snapshot(tx, caller, id, orgId);
      const done = await work(tx, id, orgId, index, input, caller);
      const after = await this.snapshot(tx, caller, id, orgId);
      if (before.roleUids.join('\u0000') !== after.roleUids.join('\u0000')) {
        const { action, resourceKind } = this.store.audit;
        await recordAudit(tx, caller, { action: `${action}.${verb}`, orgId, resource: { kind: resourceKind, id }, before, after });
      }
      return done;
    });
    return { message };
  }

  /** The audit log's view of subject `id`'s assignments in scope `orgId`: `{<idField>, orgId, roleUids}`, uids sorted. */
  private async snapshot(tx: Tx, caller: SignedInPrincipal, id: number, orgId: number) {
    const roleUids = (await this.store.current(tx, caller, id, orgId)).map((r) => r.uid).sort();
    return { [this.store.idField]: id, orgId, roleUids };
  }
}
