/**
 * The one delegation rule (SECURITY.md "One delegation rule for every path to a permission"):
 * whatever makes a principal hold more than before, or hands the caller control of an account,
 * is checked here, inside the write's transaction and before anything is written.
 *
 * A change is described as a Grant: in each organization where its subject would hold something
 * through it, the permissions it attaches and the org role it gives (a Gain), and whether the
 * subject is or becomes a Service Admin. The caller may make it only when
 *  1. the subject is no Service Admin, or the caller is one (Grafana: only a Grafana server admin
 *     grants the flag or administers a server admin's account);
 *  2. every org role given is within the caller's own org role in that organization, unless the
 *     caller is a Service Admin (Grafana: "Cannot assign a role higher than user's role");
 *  3. every permission attached is covered by what the caller holds in that organization
 *     (PermissionIndex.covers: delegably), or the caller holds the grant's escalation right
 *     there: its role-management action on `permissions:type:escalate` (canEscalate).
 * Escalation exempts step 3 only; steps 1 and 2 are Grafana's and have no exemption but the flag.
 *
 * Step 3 knows time: a permission the caller holds only through time-bound assignments ending at
 * T covers a grant only when the grant ends by T (`Grant.until`; PermissionIndex `through`). A
 * grant without end (every path but a time-bound assignment) is covered only by what the caller
 * holds for good. The escalation right is read at the moment of the grant, as before.
 *
 * Escalation rights, one per kind of subject (`Grant.action`): a role's permissions:
 * roles:write / roles:delete; a team's roles: teams.roles:add / teams.roles:delete; a user or
 * service account and every credential acting as one: users.roles:add. So users.roles:add on
 * escalate exempts a direct assignment, joining a team, an org role or membership, a service
 * account's role, a service-account token, an API key, and control of another account
 * (password, login, email, disabling, deleting, ending its sessions). A caller holding it may
 * already give any role to anyone, itself included, so these paths give it nothing more; the
 * org role and the Service Admin flag, which it cannot assign, stay under steps 1 and 2.
 *
 * What a subject would hold is computed by gains.ts; the paths are listed in SECURITY.md.
 */
import type { Tx } from '../platform/database.js';
import { type PermissionPair, Scope } from './catalogue.js';
import { accessDenied, DomainError } from './errors.js';
import { type Evaluator, PermissionIndex, permission } from './evaluator.js';
import { loadHeldAccess } from './held-roles.js';
import { asOrgRole, type OrgRole, orgRoleIncludes, type Principal, principalOf, type SignedInPrincipal } from './principal.js';

/** What a change would make its subject hold in one organization. */
export interface Gain {
  orgId: number;
  /** Every permission the change attaches there (not only those the subject lacks: a grant outlives the subject's other sources). */
  permissions: readonly PermissionPair[];
  /** The org role the subject would have there, when the change gives or keeps one. */
  orgRole?: OrgRole;
}

/** A change to authorize (rules in the module comment). */
export interface Grant {
  /** What is done, for the 403 text: "add user 7 to team 3". */
  what: string;
  /** The role-management action whose escalation right exempts step 3. */
  action: string;
  gains: readonly Gain[];
  /** The subject is, or would become, a Service Admin. */
  serviceAdmin?: boolean;
  /** When what the grant gives ends (a time-bound assignment's expiresAt); absent or null: for good. */
  until?: Date | null;
}

/** What the caller holds in one organization: its permissions there and its org role there. */
export interface Standing {
  index: PermissionIndex;
  orgRole: OrgRole;
}

/** The 403 lists at most this many missing permissions, then how many more. */
const MAX_LISTED = 8;

/**
 * Escalation (`permissions:type:escalate`, upstream-behaviour.md "Escalation and provisioning"):
 * true when `index` holds role-management `action` on a scope covering escalate (that scope,
 * `permissions:type:*`, `permissions:*` or `*`). Such a caller may grant beyond its own
 * permissions with that action, and only that one.
 */
export function canEscalate(index: PermissionIndex, action: string): boolean {
  return index.matches(action, Scope.Escalate);
}

/**
 * What a role-management `action` needs: the action on `permissions:type:delegate` or on
 * `permissions:type:escalate` (escalate implies delegate). The 403 text names both scopes.
 */
export function roleManagement(action: string): Evaluator {
  return permission(action, Scope.Delegate, Scope.Escalate);
}

/** "a on s, b, ..." for a 403, at most MAX_LISTED entries. */
function listed(missing: readonly PermissionPair[]): string {
  const shown = missing.slice(0, MAX_LISTED).map((m) => (m.scope ? `${m.action} on ${m.scope}` : m.action));
  if (missing.length > MAX_LISTED) shown.push(`and ${missing.length - MAX_LISTED} more`);
  return shown.join(', ');
}

/**
 * Step 3 alone: the permissions of `wanted` the caller may not give with `action` until `until`
 * (null: for good), [] when it may escalate with that action or covers every one through then.
 */
function undelegable(index: PermissionIndex, action: string, wanted: Iterable<PermissionPair>, until: Date | null): PermissionPair[] {
  return canEscalate(index, action) ? [] : index.through(until?.getTime() ?? null).uncovered(wanted);
}

/**
 * The 403's words for permissions `missing` when time is the reason (the caller holds them now,
 * but its own hold ends before `until`): " until <until> (...)" or " for good (...)"; "" otherwise.
 */
function timeReason(index: PermissionIndex, missing: readonly PermissionPair[], until: Date | null): string {
  if (index.uncovered(missing).length > 0) return '';
  return until ? ` until ${until.toISOString()} (your own hold ends before)` : ' for good (your own hold ends)';
}

/**
 * True when the caller may use role-management `action` on a role holding `wanted`: it holds the
 * action (roleManagement) and step 3 passes. The boolean twin of requireDelegation, for listings
 * (`roles?delegatable=true`).
 */
export function mayDelegate(index: PermissionIndex, action: string, wanted: Iterable<PermissionPair>): boolean {
  return roleManagement(action).evaluate(index) && undelegable(index, action, wanted, null).length === 0;
}

/**
 * Step 3 for a role's permissions in the organization the caller acts in (role create, update and
 * delete; role assignments): throws unless the caller may escalate with `action` or `index` (the
 * caller's, loaded before any transaction) covers every permission of `wanted` until `until` (a
 * time-bound assignment's end; null, the default: for good).
 * @throws DomainError ACCESS_DENIED (403) "... Permissions needed: delegation of <missing>".
 */
export function requireDelegation(
  index: PermissionIndex,
  action: string,
  wanted: Iterable<PermissionPair>,
  until: Date | null = null,
): void {
  const missing = undelegable(index, action, wanted, until);
  if (missing.length > 0) throw accessDenied(`delegation of ${listed(missing)}${timeReason(index, missing, until)}`);
}

/** Step 2's refusal, or undefined: `role` above `own` for a caller that is not a Service Admin. */
function ceilingRefusal(caller: Pick<Principal, 'isServiceAdmin'>, own: OrgRole, role: OrgRole, context = ''): DomainError | undefined {
  if (caller.isServiceAdmin || orgRoleIncludes(own, role)) return undefined;
  return new DomainError('ACCESS_DENIED', `Cannot assign a role higher than user's role (${role} is above ${own}${context})`, {
    needed: `org role ${role}`,
  });
}

/**
 * Step 2 where the caller acts: a caller may not give anyone an org role above its own, unless it
 * is a Service Admin (Grafana: "Cannot assign a role higher than user's role": org users, service
 * accounts). Checked early by the paths that take a role; the Grant checks it again.
 * @throws DomainError ACCESS_DENIED (403).
 */
export function requireRoleWithin(caller: Principal, role: OrgRole): void {
  const refusal = ceilingRefusal(caller, caller.orgRole, role);
  if (refusal) throw refusal;
}

/**
 * The one rule (module comment), pure: the refusal for `grant`, or undefined when `caller` may
 * make it. `standingIn(orgId)` is the caller's standing in each organization a gain names.
 */
export function grantRefusal(
  caller: Pick<Principal, 'isServiceAdmin'>,
  standingIn: (orgId: number) => Standing,
  grant: Grant,
): DomainError | undefined {
  if (grant.serviceAdmin && !caller.isServiceAdmin) {
    return accessDenied(`Service Admin to ${grant.what} (the account is a Service Admin; only a Service Admin may grant or control one)`);
  }
  for (const gain of grant.gains) {
    const standing = standingIn(gain.orgId);
    const context = ` in organization ${gain.orgId}: ${grant.what}`;
    const ceiling = gain.orgRole ? ceilingRefusal(caller, standing.orgRole, gain.orgRole, context) : undefined;
    if (ceiling) return ceiling;
    const until = grant.until ?? null;
    const missing = undelegable(standing.index, grant.action, gain.permissions, until);
    if (missing.length > 0) {
      const where = `${timeReason(standing.index, missing, until)} in organization ${gain.orgId}`;
      return accessDenied(`delegation of ${listed(missing)}${where} (to ${grant.what}; or ${grant.action} on ${Scope.Escalate})`);
    }
  }
  return undefined;
}

/** grantRefusal, thrown. @throws DomainError ACCESS_DENIED (403) naming what is missing. */
export function requireGrant(caller: Pick<Principal, 'isServiceAdmin'>, standingIn: (orgId: number) => Standing, grant: Grant): void {
  const refusal = grantRefusal(caller, standingIn, grant);
  if (refusal) throw refusal;
}

/**
 * The caller's standing in `orgId` at `now`, read through `tx`: its permissions (with their ends)
 * and org role there as if it acted there. An API key acts in its own organization only, so
 * elsewhere it holds nothing.
 */
async function standingThrough(tx: Tx, caller: SignedInPrincipal, orgId: number, now: Date): Promise<Standing> {
  if (caller.kind === 'apiKey') return { index: PermissionIndex.EMPTY, orgRole: 'None' };
  const membership = await tx.orgUser.findUnique({ where: { orgId_userId: { orgId, userId: caller.id } }, select: { role: true } });
  const user = {
    id: caller.id,
    login: caller.login,
    isServiceAccount: caller.kind === 'serviceAccount',
    isServiceAdmin: caller.isServiceAdmin,
  };
  const there = principalOf(user, orgId, membership?.role ?? 'None', caller.authMethod);
  const held = await loadHeldAccess(tx, there, now);
  return { index: PermissionIndex.from(held.permissions, held.ending), orgRole: asOrgRole(there.orgRole) };
}

/**
 * The one rule inside a write: loads the caller's standing in every organization `grant` names
 * (`index`, the caller's loaded before the transaction, where it acts; through `tx` elsewhere),
 * at `now`, the services' clock), then applies it. Call it before the transaction's first write, so
 * a refusal rolls back nothing.
 * @throws DomainError ACCESS_DENIED (403) naming what is missing.
 */
export async function authorizeGrant(tx: Tx, caller: SignedInPrincipal, index: PermissionIndex, grant: Grant, now: Date): Promise<void> {
  const standings = new Map<number, Standing>([[caller.orgId, { index, orgRole: caller.orgRole }]]);
  for (const { orgId } of grant.gains) {
    if (!standings.has(orgId)) standings.set(orgId, await standingThrough(tx, caller, orgId, now));
  }
  requireGrant(caller, (orgId) => standings.get(orgId) as Standing, grant);
}
