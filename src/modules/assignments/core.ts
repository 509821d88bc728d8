/**
 * The one subject-assignment core: list, add, remove and set the roles of a subject (a user or
 * service account, or a team), with the organization wall, delegation and the Service Admin gate
 * of global assignments written once. What differs per subject (where its assignments are
 * stored, how it is found, its requirements and messages) is a `SubjectStore` adapter
 * (subject-store.ts, stores.ts); the listing of assigned roles is listing.ts.
 *
 * Rules: service-interface.md "Required permissions", "List roles of ...", "Add role to ...",
 * "Remove role from ...", "Set roles of ...", "Team role operations"; upstream-behaviour.md
 * "Permission evaluation" (delegation). Only roles the caller can see (global or of its
 * organization) can be assigned; basic roles never (they are held through the org role), and an
 * organization's role never globally.
 */
import type { Role } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { BASIC_PREFIX } from '../../kernel/builtin-roles.js';
import { DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireDelegation, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Message } from '../../kernel/message.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import type { Requirement } from '../../kernel/requirements.js';
import type { Tx } from '../../platform/database.js';
import type { RoleQuery } from '../roles/service.js';
import { assignableRole, assignableRoles } from './assignable.js';
import { roleUidParam } from './inputs.js';
import { type AssignedRole, distinctRoles, type ListOptions, listAssignedRoles } from './listing.js';
import { planSet } from './plan-set.js';
import type { HeldAssignment, SubjectStore } from './subject-store.js';
import { checkWindow, sameWindow, windowJson, windowOf } from './window.js';

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
    return distinctRoles(await this.listAssignments(caller, rawId, options, query));
  }

  /**
   * `list` with each assignment's scope and window (a role assigned both in the organization and
   * globally comes twice): REST's listing fields `notBefore`/`expiresAt`, GraphQL's RoleAssignment.
   * @throws as `list`.
   */
  async listAssignments(caller: Principal, rawId: unknown, options: ListOptions, query: RoleQuery = {}): Promise<AssignedRole[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const [assigned] = await listAssignedRoles(this.deps, this.store, caller, [rawId], options, query);
    if (assigned instanceof Error || assigned === undefined) throw assigned;
    return assigned;
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
    const answers = await this.listAssignmentsMany(caller, rawIds, options, query);
    return answers.map((a) => (a instanceof DomainError ? a : distinctRoles(a)));
  }

  /** `listAssignments` for many subjects at once (GraphQL `roleAssignments`), as `listMany`. */
  async listAssignmentsMany(
    caller: Principal,
    rawIds: readonly unknown[],
    options: ListOptions,
    query: RoleQuery = {},
  ): Promise<(AssignedRole[] | DomainError)[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    return listAssignedRoles(this.deps, this.store, caller, rawIds, options, query);
  }

  /**
   * Assigns a role (idempotent: an assigned role with the same window succeeds unchanged, as in
   * Grafana), in the caller's organization or, with `global`, in every one, held within the body's
   * window (window.ts; none: for good). A role already assigned with another window gets this one.
   * Body: the store's `add` input. Needs the store's `add` requirement and every permission of the
   * role until the window's end (delegation in time), unless the add action is held on
   * permissions:type:escalate; global needs a Service Admin.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE / ASSIGNMENT_WINDOW_INVALID /
   *   ASSIGNMENT_WINDOW_PAST / ASSIGNMENT_TOO_LONG (400), 401, ACCESS_DENIED (403), subject or
   *   ROLE_NOT_FOUND (404), 404 in oss.
   * `also` runs first in the same transaction (an approved access request's status and event,
   * modules/access-requests): what it throws rolls everything back, and a failure of the
   * assignment rolls back what it wrote.
   */
  async add(caller: Principal, rawId: unknown, rawInput: unknown, also?: (tx: Tx) => Promise<void>): Promise<Message> {
    const parse = () => parseInput(this.store.inputs.add, rawInput);
    return this.change(caller, rawId, 'add', parse, this.store.requirements.add, async (tx, id, orgId, index, input, signedIn, held) => {
      await also?.(tx);
      const role = await assignableRole(tx, signedIn, input.roleUid, orgId);
      const window = windowOf(input);
      checkWindow(role, window, this.deps.clock.now());
      // `held`: read in this transaction, under the write lock (uids are unique).
      const existing = held.find((h) => h.uid === role.uid);
      if (existing && sameWindow(existing.window, window)) return { message: this.store.messages.added, after: held };
      requireDelegation(index, this.store.actions.add, role.permissions, window.expiresAt);
      if (existing) await this.store.rewindow(tx, id, orgId, [role.id], window);
      else await this.store.assign(tx, id, orgId, [role.id], window);
      // currentHolds lists the role added (assignable: visible, not basic) unless its name reads as
      // basic to SQLite's case-insensitive LIKE: then read them (custom names cannot, lookalikes.ts).
      if (role.name.slice(0, BASIC_PREFIX.length).toLowerCase() === BASIC_PREFIX) return { message: this.store.messages.added };
      return { message: this.store.messages.added, after: [...held.filter((h) => h.uid !== role.uid), { uid: role.uid, window }] };
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
      return { message: this.store.messages.removed };
    });
  }

  /**
   * Makes the assignments in scope exactly the body's `roleUids`, in one transaction (hidden ones
   * kept without includeHidden, see planSet), each held within the body's window (window.ts; none:
   * for good): roles added get it, roles kept with another window get it too. Needs both `add`
   * and `remove` requirements, delegation until the window's end of every role added or given
   * the window, and delegation of every role removed (roles kept unchanged need none).
   * @throws as `add`; the first unknown uid is 404 and nothing changes.
   */
  async set(caller: Principal, rawId: unknown, rawInput: unknown): Promise<Message> {
    const parse = () => parseInput(this.store.inputs.set, rawInput);
    return this.change(caller, rawId, 'set', parse, this.store.requirements.set, async (tx, id, orgId, index, input, signedIn, held) => {
      const wanted = await assignableRoles(tx, signedIn, input.roleUids, orgId);
      const window = windowOf(input);
      const now = this.deps.clock.now();
      for (const role of wanted) checkWindow(role, window, now);
      const plan = planSet(await this.store.current(tx, signedIn, id, orgId), wanted, input.includeHidden ?? false);
      const added = new Set(plan.add.map((r) => r.id));
      const windows = new Map(held.map((h) => [h.uid, h.window]));
      const rewindowed = wanted.filter((r) => !added.has(r.id) && !sameWindow(windows.get(r.uid) ?? window, window));
      const granted = [...plan.add, ...rewindowed];
      requireDelegation(
        index,
        this.store.actions.add,
        granted.flatMap((r) => r.permissions),
        window.expiresAt,
      );
      requireDelegation(
        index,
        this.store.actions.remove,
        plan.remove.flatMap((r) => r.permissions),
      );
      const ids = (roles: readonly { id: number }[]) => roles.map((r) => r.id);
      if (plan.remove.length > 0) await this.store.unassign(tx, id, orgId, ids(plan.remove));
      if (rewindowed.length > 0) await this.store.rewindow(tx, id, orgId, ids(rewindowed), window);
      if (plan.add.length > 0) await this.store.assign(tx, id, orgId, ids(plan.add), window);
      return { message: this.store.messages.set };
    });
  }

  /**
   * The preamble every change shares, then `work` inside the one write path: edition, sign-in,
   * id, body, the requirement, the assignment scope (0 for global, Service Admin only), the
   * caller's index loaded before the transaction (delegation reads no database inside it), the
   * subject's organization wall. `work` gets the uids of the roles assigned in scope before it,
   * read in its transaction (the audit's `before`), and may return those after it (`after`: add
   * knows them) instead of their being read again. A change that changed something is logged as
   * `<store.audit.action>.<verb>` with the subject's roles in scope before and after (an
   * idempotent no-op, such as adding a role already assigned, logs nothing).
   */
  private async change<B extends { global?: boolean | null }>(
    caller: Principal,
    rawId: unknown,
    verb: 'add' | 'remove' | 'set',
    parse: () => B,
    needed: Requirement,
    work: (
      tx: Tx,
      id: number,
      orgId: number,
      index: PermissionIndex,
      input: B,
      caller: SignedInPrincipal,
      held: readonly HeldAssignment[],
    ) => Promise<{ message: string; after?: readonly HeldAssignment[] }>,
  ): Promise<Message> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId(this.store.idField, rawId);
    const input = parse();
    const index = await this.deps.access.check(caller, needed.for({}));
    if (input.global) requireServiceAdmin(caller, 'assign or remove a role globally');
    const orgId = input.global ? 0 : caller.orgId;
    const message = await this.deps.access.write(
      async (tx) => {
        if (!(await this.store.inOrg(tx, caller, [id])).has(id)) throw this.store.notFound(id);
        const held = await this.store.currentHolds(tx, caller, id, orgId);
        const now = this.deps.clock.now();
        const before = this.snapshot(id, orgId, held, now);
        const done = await work(tx, id, orgId, index, input, caller, held);
        const after = this.snapshot(id, orgId, done.after ?? (await this.store.currentHolds(tx, caller, id, orgId)), now);
        if (JSON.stringify(before) !== JSON.stringify(after)) {
          const { action, resourceKind } = this.store.audit;
          await recordAudit(tx, caller, { action: `${action}.${verb}`, orgId, resource: { kind: resourceKind, id }, before, after });
        }
        return done.message;
      },
      { reach: this.store.reach?.(id) },
    );
    return { message };
  }

  /**
   * The audit log's view of subject `id`'s assignments in scope `orgId` at `now`: `{<idField>,
   * orgId, roleUids}`, uids sorted, of the assignments not ended (in force or pending), from
   * `holds` (store.currentHolds, or what `work` knows it left); with `windows` (uid -> ISO
   * `notBefore`/`expiresAt`) when one of them is time-bound. Uids only (reading the roles'
   * permissions here too would cost an assignment to a 50-role user two loads of 250 permissions).
   */
  private snapshot(id: number, orgId: number, holds: readonly HeldAssignment[], now: Date) {
    const kept = holds.filter((h) => h.window.expiresAt === null || h.window.expiresAt > now).sort((a, b) => (a.uid < b.uid ? -1 : 1));
    const roleUids = kept.map((h) => h.uid);
    const bounded = kept.filter((h) => h.window.notBefore !== null || h.window.expiresAt !== null);
    if (bounded.length === 0) return { [this.store.idField]: id, orgId, roleUids };
    const windows = Object.fromEntries(bounded.map((h) => [h.uid, windowJson(h.window)]));
    return { [this.store.idField]: id, orgId, roleUids, windows };
  }
}
