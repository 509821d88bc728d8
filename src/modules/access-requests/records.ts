/**
 * What the access-request services share: how a request row is read (with its role and
 * requester), its status at an instant (a pending request past its expiry is expired, whatever
 * its row says until a replica notes it: expiry.ts), the filter of a status, the audit snapshot,
 * and the one conditional update that moves a pending request to its next status, so a request
 * is decided, cancelled or expired once, whoever comes first, on any replica.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import type { Db, Tx } from '../../platform/database.js';
import type { AccessRequestStatus } from './inputs.js';

/** The relations every read of a request includes. */
export const REQUEST_INCLUDE = {
  role: { select: { uid: true, name: true, displayName: true } },
  requester: { select: { id: true, login: true, name: true } },
} as const satisfies Prisma.AccessRequestInclude;

/** A request row with its role and requester. */
export type AccessRequestRow = Prisma.AccessRequestGetPayload<{ include: typeof REQUEST_INCLUDE }>;

/** A request as both doors show it: its row and its status at the moment it was read. */
export type AccessRequestView = AccessRequestRow & { state: AccessRequestStatus };

/** The status of `row` at `now` (module comment). */
export function statusAt(row: { status: string; expiresAt: Date }, now: Date): AccessRequestStatus {
  if (row.status === 'pending' && row.expiresAt.getTime() <= now.getTime()) return 'expired';
  return row.status as AccessRequestStatus;
}

/** `row` with its status at `now`. */
export function viewAt(row: AccessRequestRow, now: Date): AccessRequestView {
  return { ...row, state: statusAt(row, now) };
}

/** Requests still awaiting an answer at `now`. */
export const pendingAt = (now: Date) => ({ status: 'pending', expiresAt: { gt: now } }) satisfies Prisma.AccessRequestWhereInput;

/** Requests in `status` at `now` (statusAt as a filter). */
export function statusWhere(status: AccessRequestStatus, now: Date): Prisma.AccessRequestWhereInput {
  if (status === 'pending') return pendingAt(now);
  if (status === 'expired') return { OR: [{ status: 'expired' }, { status: 'pending', expiresAt: { lte: now } }] };
  return { status };
}

/**
 * Request `id` of organization `orgId` (the organization wall: another organization's request is
 * not found, so its existence never leaks).
 * @throws DomainError ACCESS_REQUEST_NOT_FOUND (404).
 */
export async function requestIn(db: Db | Tx, orgId: number, id: number): Promise<AccessRequestRow> {
  const row = await db.accessRequest.findFirst({ where: { id, orgId }, include: REQUEST_INCLUDE });
  if (!row) throw notFound('ACCESS_REQUEST_NOT_FOUND', 'access request', id);
  return row;
}

/** The audit log's view of a request: who asked for which role, for how long, and where it stands. */
function snapshot(row: AccessRequestRow, status: string, extra: Record<string, unknown> = {}) {
  return {
    id: row.id,
    requesterId: row.requesterId,
    roleUid: row.role.uid,
    durationSeconds: row.durationSeconds,
    justification: row.justification,
    expiresAt: row.expiresAt.toISOString(),
    status,
    ...extra,
  };
}

/** Records `access_request.<verb>` of `row`: created (after only) or moved from pending to `status`. */
export async function auditRequest(
  tx: Tx,
  actor: Principal,
  row: AccessRequestRow,
  verb: 'create' | 'approve' | 'deny' | 'cancel' | 'expire',
  status: AccessRequestStatus,
  extra: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(tx, actor, {
    action: `access_request.${verb}`,
    orgId: row.orgId,
    resource: { kind: 'access_request', id: row.id },
    ...(verb !== 'create' && { before: snapshot(row, 'pending') }),
    after: snapshot(row, status, extra),
  });
}

/** The columns an answer (approve, deny, cancel) writes beside its status. */
export interface Answer {
  by: SignedInPrincipal;
  comment: string;
  grant?: { notBefore: Date; expiresAt: Date };
}

/**
 * Moves `row` from pending (at `now`) to `status`, once: a conditional update that only a request
 * still pending and unexpired matches, inside the caller's write (its transaction holds the write
 * lock, so two answers are never both applied). Records the audit event.
 * @throws DomainError ACCESS_REQUEST_NOT_PENDING (409, details.status: where it stands) when it
 *   was answered, cancelled or expired first.
 */
export async function settle(
  tx: Tx,
  row: AccessRequestRow,
  status: 'approved' | 'denied' | 'cancelled',
  answer: Answer,
  now: Date,
): Promise<void> {
  const { by, comment, grant } = answer;
  const { count } = await tx.accessRequest.updateMany({
    where: { id: row.id, ...pendingAt(now) },
    data: {
      status,
      decidedById: by.id,
      decidedByLogin: 'login' in by ? by.login : by.name,
      decidedAt: now,
      decisionComment: comment,
      ...(grant && { grantNotBefore: grant.notBefore, grantExpiresAt: grant.expiresAt }),
    },
  });
  if (count === 0) {
    const current = await tx.accessRequest.findUniqueOrThrow({ where: { id: row.id }, select: { status: true, expiresAt: true } });
    throw notPending(row.id, statusAt(current, now));
  }
  const verb = status === 'approved' ? 'approve' : status === 'denied' ? 'deny' : 'cancel';
  const extra = {
    ...(comment && { comment }),
    ...(grant && { grant: { notBefore: grant.notBefore.toISOString(), expiresAt: grant.expiresAt.toISOString() } }),
  };
  await auditRequest(tx, by, row, verb, status, extra);
}

/** 409 ACCESS_REQUEST_NOT_PENDING for request `id`, now `status`. */
export function notPending(id: number, status: AccessRequestStatus): DomainError {
  return new DomainError('ACCESS_REQUEST_NOT_PENDING', `access request ${id} is ${status}, no longer pending`, { id, status });
}

/**
 * True when user `userId` holds role `roleId` for good through a direct assignment in `orgId` or
 * globally: a request for it would grant nothing, and its approval would shorten that assignment.
 */
export async function heldForGood(db: Db | Tx, userId: number, orgId: number, roleId: number): Promise<boolean> {
  const found = await db.userRole.findFirst({
    where: { userId, roleId, orgId: { in: [0, orgId] }, expiresAt: null },
    select: { id: true },
  });
  return found !== null;
}

/** 409 ACCESS_REQUEST_ROLE_HELD. */
export function roleHeld(uid: string): DomainError {
  return new DomainError('ACCESS_REQUEST_ROLE_HELD', `the requester already holds role "${uid}" for good`, { uid });
}
