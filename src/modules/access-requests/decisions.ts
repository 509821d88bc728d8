/**
 * Answers to access requests: approve and deny (service.ts has the rules of who may).
 *
 * Deciding needs `access.requests:approve` and the right to assign the role asked for, exactly as
 * assigning it directly would: `users.roles:add` (on permissions:type:delegate or :escalate) and,
 * unless escalating, every permission of the role held by the approver itself until the grant's
 * end (kernel/delegation.ts, delegation in time). A denial checks the same, for good: who could
 * not grant a role does not answer for it. The requester never decides its own request, even
 * when it could assign the role (ACCESS_REQUEST_SELF_DECISION), so nobody approves themselves.
 *
 * An approval is a user assignment of the role in the request's organization, held from the
 * approval until `durationSeconds` later, written by the assignment service's own `add` (its
 * delegation check, audit event, change record and cache invalidation, and the boundary events
 * of its end: assignments/boundaries.ts) in the same transaction as the request's new status:
 * both are written or neither.
 */
import { Action } from '../../kernel/catalogue.js';
import { requireDelegation } from '../../kernel/delegation.js';
import { DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { assignableRole, type SubjectAssignments } from '../assignments/service.js';
import { decisionInput } from './inputs.js';
import {
  type AccessRequestRow,
  type AccessRequestView,
  heldForGood,
  notPending,
  requestIn,
  roleHeld,
  settle,
  statusAt,
  viewAt,
} from './records.js';
import { type AccessRequestDeps, accessRequestRequirements } from './service.js';

/** What answering needs: the access-request deps and the user assignments it approves through. */
export interface DecisionDeps extends AccessRequestDeps {
  userRoles: SubjectAssignments;
}

/** The request, the caller's index and the comment, checked before an answer is written. */
interface Prepared {
  caller: SignedInPrincipal;
  row: AccessRequestRow;
  index: PermissionIndex;
  comment: string;
}

export class AccessRequestDecisions {
  constructor(private readonly deps: DecisionDeps) {}

  /**
   * Approves a pending request; body `{comment?}`. Writes the assignment (module comment) and
   * returns the request approved, with the assignment's window (`grantNotBefore`, `grantExpiresAt`).
   * @throws DomainError VALIDATION_FAILED / ASSIGNMENT_TOO_LONG (400: the role's cap shrank since),
   *   UNAUTHENTICATED (401), ACCESS_DENIED (403: permissions or delegation in time),
   *   ACCESS_REQUEST_SELF_DECISION (403), ACCESS_REQUEST_NOT_FOUND / USER_NOT_FOUND (404: the
   *   requester left the organization), ACCESS_REQUEST_NOT_PENDING / ACCESS_REQUEST_ROLE_HELD (409), 404 in oss.
   */
  async approve(caller: Principal, rawId: unknown, rawInput: unknown): Promise<AccessRequestView> {
    const prepared = await this.prepare(caller, rawId, rawInput);
    const { row, comment } = prepared;
    const now = this.deps.clock.now();
    const grant = { notBefore: now, expiresAt: new Date(now.getTime() + row.durationSeconds * 1000) };
    // `add` checks users.roles:add and delegation until grant.expiresAt, as a direct assignment.
    await this.deps.userRoles.add(prepared.caller, row.requesterId, { roleUid: row.role.uid, expiresAt: grant.expiresAt }, async (tx) => {
      if (await heldForGood(tx, row.requesterId, row.orgId, row.roleId)) throw roleHeld(row.role.uid);
      await settle(tx, row, 'approved', { by: prepared.caller, comment, grant }, now);
    });
    return viewAt(await requestIn(this.deps.db, row.orgId, row.id), now);
  }

  /**
   * Denies a pending request; body `{comment?}`. Returns it denied.
   * @throws as `approve`, without ASSIGNMENT_TOO_LONG, USER_NOT_FOUND and ACCESS_REQUEST_ROLE_HELD.
   */
  async deny(caller: Principal, rawId: unknown, rawInput: unknown): Promise<AccessRequestView> {
    const { caller: by, row, index, comment } = await this.prepare(caller, rawId, rawInput);
    const now = this.deps.clock.now();
    await this.deps.access.write(
      async (tx) => {
        const role = await assignableRole(tx, by, row.role.uid, row.orgId);
        requireDelegation(index, Action.UsersRolesAdd, role.permissions);
        await settle(tx, row, 'denied', { by, comment }, now);
      },
      { grantsNothing: true },
    );
    return viewAt(await requestIn(this.deps.db, row.orgId, row.id), now);
  }

  /**
   * Edition, sign-in, id, body, the decide requirement, the request in the caller's organization,
   * not the caller's own, and still pending.
   */
  private async prepare(caller: Principal, rawId: unknown, rawInput: unknown): Promise<Prepared> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const input = parseInput(decisionInput, rawInput);
    const index = await this.deps.access.check(caller, accessRequestRequirements.decide.for({}));
    const row = await requestIn(this.deps.db, caller.orgId, id);
    if (caller.kind !== 'apiKey' && caller.id === row.requesterId) {
      throw new DomainError('ACCESS_REQUEST_SELF_DECISION', 'the requester cannot approve or deny its own access request', { id });
    }
    const state = statusAt(row, this.deps.clock.now());
    if (state !== 'pending') throw notPending(id, state);
    return { caller, row, index, comment: input?.comment ?? '' };
  }
}
