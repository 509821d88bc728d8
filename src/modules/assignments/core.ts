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
import type { DomainError } from '../../kernel/errors.js';
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
import { type ListOptions, listAssignedRoles } from './listing.js';
import { planSet } from './plan-set.js';
import type { SubjectStore } from './subject-store.js';

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
    return this.change(caller, rawId, 'add', parse, this.store.requirements.add, async (tx, id, orgId, index, input, signedIn, held) => {
      const role = await assignableRole(tx, signedIn, input.roleUid, orgId);
      requireDelegation(index, this.store.actions.add, role.permissions);
      // `held`: read in this transaction, under the write lock (uids are unique).
      if (held.includes(role.uid)) return { message: this.store.messages.added, after: held };
      await this.store.assign(tx, id, orgId, [role.id]);
      // currentUids lists the role added (assignable: visible, not basic) unless its name reads as
      // basic to SQLite's case-insensitive LIKE: then read them (custom names cannot, lookalikes.ts).
      if (role.name.slice(0, BASIC_PREFIX.length).toLowerCase() === BASIC_PREFIX) return { message: this.store.messages.added };
      return { message: this.store.messages.added, after: [...held, role.uid] };
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
      held: readonly string[],
    ) => Promise<{ message: string; after?: readonly string[] }>,
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
        const before = this.snapshot(id, orgId, await this.store.currentUids(tx, caller, id, orgId));
        const done = await work(tx, id, orgId, index, input, caller, before.roleUids);
        const after = this.snapshot(id, orgId, done.after ?? (await this.store.currentUids(tx, caller, id, orgId)));
        if (before.roleUids.join('\u0000') !== after.roleUids.join('\u0000')) {
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
   * The audit log's view of subject `id`'s assignments in scope `orgId`: `{<idField>, orgId,
   * roleUids}`, uids sorted, from `uids` (store.currentUids, or what `work` knows it left).
   * Uids only (reading the roles' permissions here too would cost an assignment to a 50-role
   * user two loads of 250 permissions).
   */
  private snapshot(id: number, orgId: number, uids: readonly string[]) {
    const roleUids = [...uids].sort();
    return { [this.store.idField]: id, orgId, roleUids };
  }
}
