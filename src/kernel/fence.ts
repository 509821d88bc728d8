/**
 * Request fences: what one request decided its caller may do, so a write acknowledged while the
 * request was in flight cannot be outrun.
 *
 * A fence is opened when a request starts authenticating and remembers the revision of its
 * caller's permissions (freshness.ts `revisionOf`) of that moment, and later the permission index
 * the request's checks used. When that revision has moved since (any write that
 * can reach the caller: this process's, the CLI's, another server's), the
 * caller's facts are read again (org role, Service Admin flag, disabled flag, API key row) and
 * its permissions recomputed; if either differs from what the request already relied on, the
 * request stops with 409 CREDENTIALS_CHANGED instead of answering or writing on stale grounds.
 * Writes run this check inside their transaction, after SQLite's write lock is taken, so no
 * commit can slip between the check and the write.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Tx } from '../platform/database.js';
import { DomainError } from './errors.js';
import type { PermissionIndex } from './evaluator.js';
import { asOrgRole, isLocalOperator, type SignedInPrincipal } from './principal.js';

/** Where a request came from, recorded with each change it makes (kernel/audit.ts). */
export interface RequestOrigin {
  /** The client address (socket, or the trusted proxy's X-Forwarded-For); "unknown" when not recorded. */
  readonly clientAddress: string;
  /** The request id answered in X-Request-Id. */
  readonly requestId: string;
}

/**
 * The request's caller, the revision of its permissions it was authenticated at (freshness.ts
 * `revisionOf`: moved by every change to everyone and every change targeted at its user), the
 * index its checks used, and where the request came from.
 */
export interface RequestFence {
  readonly principal: SignedInPrincipal;
  revision: number;
  index: PermissionIndex | undefined;
  readonly origin: RequestOrigin | undefined;
  /** The change-feed revision of the request's last committed write (changes.ts), for its answer (read-your-writes). */
  committed?: number;
}

/** The fence of the request running now (REST handler or GraphQL execution), if any. */
export const currentFence = new AsyncLocalStorage<RequestFence>();

/** 409 CREDENTIALS_CHANGED: the caller's permissions changed while its request was in flight. */
export function credentialsChanged(): DomainError {
  return new DomainError(
    'CREDENTIALS_CHANGED',
    'Your permissions changed while this request was in flight; nothing was done, send it again',
  );
}

/** Reads on which fact checks run: the Prisma client or a transaction. */
type Reader = Pick<Tx, 'user' | 'apiKey'>;

/**
 * True when the stored facts behind `principal` are still those it was built from: the user or
 * service account exists, is enabled, has the same Service Admin flag and the same org role in
 * `principal.orgId` ("None" when not a member); an API key still exists with the same role.
 * The CLI's local operator has no row and always passes. One SQL statement.
 */
export async function factsHold(principal: SignedInPrincipal, db: Reader): Promise<boolean> {
  if (isLocalOperator(principal)) return true;
  if (principal.kind === 'apiKey') {
    const key = await db.apiKey.findUnique({ where: { id: principal.id }, select: { role: true, orgId: true } });
    return key !== null && key.orgId === principal.orgId && asOrgRole(key.role) === principal.orgRole;
  }
  const user = await db.user.findUnique({
    where: { id: principal.id },
    select: { isServiceAdmin: true, isDisabled: true, orgs: { where: { orgId: principal.orgId }, select: { role: true } } },
  });
  if (!user || user.isDisabled || user.isServiceAdmin !== principal.isServiceAdmin) return false;
  return asOrgRole(user.orgs[0]?.role ?? 'None') === principal.orgRole;
}

/** True when two indexes hold the same permissions. */
export function sameIndex(a: PermissionIndex, b: PermissionIndex): boolean {
  const left = a.list();
  const right = b.list();
  if (left.length !== right.length) return false;
  const keys = new Set(left.map((p) => `${p.action}\u0000${p.scope}`));
  return right.every((p) => keys.has(`${p.action}\u0000${p.scope}`));
}
