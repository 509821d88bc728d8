/**
 * The audit log's one write: every change to roles, assignments, basic roles, API keys,
 * service-account tokens, users, teams and organization membership is recorded by the service
 * that makes it, inside the same `access.write()` transaction, so a change and
 * its record commit or roll back together.
 *
 * Who comes from the caller's principal; the client address and request id from the request's
 * fence (fence.ts `RequestOrigin`, set when the request was authenticated); outside a request
 * (the CLI, provisioning at start) both are "". Snapshots go through `auditSnapshot`, which drops
 * every secret-bearing field, so no hash ever reaches the log; `snapshotRole` and
 * `roleAssignments` give every role change the same shape, whichever service makes it, as
 * `userSnapshot` and `memberResource` do for users and memberships. Reading the log is modules/audit.
 */
import type { User } from '../generated/prisma/client.js';
import type { Tx } from '../platform/database.js';
import { noteChange } from './changes.js';
import { currentFence, type RequestOrigin } from './fence.js';
import { isLocalOperator, type Principal } from './principal.js';

/** The changed object: its kind and id (a role's uid, a user's id, "<teamId>:<userId>", ...). */
export interface AuditResource {
  kind: string;
  id: string | number;
}

/** One change, as a service describes it. */
export interface AuditChange {
  /** "<resource>.<verb>": role.create, role.update, user_role.add, api_key.delete, ... */
  action: string;
  /** Organization of the change; 0 for global objects (global roles, users, organizations). */
  orgId: number;
  resource: AuditResource;
  /** The object before the change (omit for creations). */
  before?: unknown;
  /** The object after the change (omit for deletions). */
  after?: unknown;
}

/** Fields never written to the log, at any depth. */
const SECRET_FIELDS = new Set(['passwordHash', 'password', 'hash', 'tokenHash', 'prevTokenHash', 'key', 'secret', 'clientSecret']);

/**
 * A JSON-safe copy of `value` without secret-bearing fields (SECRET_FIELDS), dates as ISO
 * strings; undefined stays undefined.
 */
export function auditSnapshot(value: unknown): unknown {
  if (value === undefined || value === null) return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(auditSnapshot);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_FIELDS.has(k) || v === undefined) continue;
    out[k] = auditSnapshot(v);
  }
  return out;
}

const asJson = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(auditSnapshot(value)));

/** A role as the audit log keeps it: its fields, its permissions and the basic roles it is granted to. */
export interface RoleSnapshot {
  uid: string;
  orgId: number;
  name: string;
  displayName: string;
  description: string;
  group: string;
  hidden: boolean;
  version: number;
  /** Sorted by action, then scope. */
  permissions: { action: string; scope: string }[];
  /** Basic roles holding this role through a global grant (basic roles name their own). */
  grants: string[];
}

/**
 * The role with id `roleId` as a RoleSnapshot, read inside `tx` (so before and after of one
 * change are consistent); null when there is no such role. Two SQL statements at most.
 */
export async function snapshotRole(tx: Tx, roleId: number): Promise<RoleSnapshot | null> {
  const role = await tx.role.findUnique({
    where: { id: roleId },
    include: {
      permissions: { select: SNAPSHOT_PERMISSIONS.select, orderBy: SNAPSHOT_PERMISSIONS.orderBy },
      basicGrants: { where: { orgId: 0 }, select: { basicRole: true }, orderBy: { basicRole: 'asc' } },
    },
  });
  return (
    role &&
    roleSnapshotOf(
      role,
      role.basicGrants.map((g) => g.basicRole),
    )
  );
}

/** How a snapshot reads a role's permissions: action and scope, sorted (a `permissions` include). */
export const SNAPSHOT_PERMISSIONS = {
  select: { action: true, scope: true },
  orderBy: [{ action: 'asc' as const }, { scope: 'asc' as const }],
};

/**
 * The RoleSnapshot of a role row read with its permissions as SNAPSHOT_PERMISSIONS reads them, and
 * the basic roles granting it (`grants`): for a write that has just read or written the row
 * itself (a new role has no grant), so it need not be read again.
 */
export function roleSnapshotOf(
  role: Omit<RoleSnapshot, 'permissions' | 'grants'> & { permissions: { action: string; scope: string }[] },
  grants: string[],
): RoleSnapshot {
  return {
    uid: role.uid,
    orgId: role.orgId,
    name: role.name,
    displayName: role.displayName,
    description: role.description,
    group: role.group,
    hidden: role.hidden,
    version: role.version,
    permissions: role.permissions,
    grants,
  };
}

/**
 * For the log of a role's deletion: the assignments it takes with it (ON DELETE CASCADE), as
 * `{assignments: {users: [{userId, orgId}], teams: [{teamId, orgId}]}}`, or `{}` when it has none.
 */
export async function roleAssignments(tx: Tx, roleId: number) {
  const [users, teams] = await Promise.all([
    tx.userRole.findMany({ where: { roleId }, select: { userId: true, orgId: true }, orderBy: { id: 'asc' } }),
    tx.teamRole.findMany({ where: { roleId }, select: { teamId: true, orgId: true }, orderBy: { id: 'asc' } }),
  ]);
  return users.length + teams.length > 0 ? { assignments: { users, teams } } : {};
}

/**
 * What the audit log keeps of a user (users/service.ts, and the users a sign-in creates):
 * `{id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule}`; no hash
 * (auditSnapshot would drop it anyway), no timestamps.
 */
export function userSnapshot(user: User) {
  const { id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule } = user;
  return { id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule };
}

/** The audit resource of a user's membership in an organization: kind org_user, id "<orgId>:<userId>". */
export function memberResource(orgId: number, userId: number): AuditResource {
  return { kind: 'org_user', id: `${orgId}:${userId}` };
}

/** The kind stored for an actor: user, serviceAccount, apiKey, or local (CLI, provisioning). */
function actorKind(actor: Principal): string {
  return isLocalOperator(actor) ? 'local' : actor.kind;
}

/**
 * Records `change` made by `actor`, in transaction `tx` (call it inside `access.write()`), and
 * notes it for the transaction's change record (changes.ts).
 * `origin` names the request when no fence does: sign-ins (a directory or OAuth user created or
 * synced while its request is still being authenticated) pass their own.
 * @throws whatever the insert throws (the caller's transaction then rolls back).
 */
export async function recordAudit(tx: Tx, actor: Principal, change: AuditChange, origin?: RequestOrigin): Promise<void> {
  const from = origin ?? currentFence.getStore()?.origin;
  await tx.auditEvent.create({
    data: {
      orgId: change.orgId,
      action: change.action,
      actorKind: actorKind(actor),
      actorId: actor.id,
      actorLogin: 'login' in actor ? actor.login : 'name' in actor ? actor.name : '',
      authMethod: actor.authMethod,
      clientAddress: from?.clientAddress ?? '',
      requestId: from?.requestId ?? '',
      resourceKind: change.resource.kind,
      resourceId: String(change.resource.id),
      before: asJson(change.before),
      after: asJson(change.after),
    },
  });
  await noteChange(tx, actor, change);
}
