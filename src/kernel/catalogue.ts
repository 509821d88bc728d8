/**
 * The catalogue of actions and scopes this service checks, declared once, and the syntax rules
 * of actions and scopes. Evaluation itself lives in evaluator.ts.
 *
 * Sources: service-interface.md "Required permissions" (the table), upstream-behaviour.md
 * "Permission evaluation" (scope syntax), and Grafana's action names for users, teams, service
 * accounts and API keys (pkg/services/accesscontrol/models.go).
 */

/** Every action the service itself checks. Roles may hold other actions too. */
export const Action = {
  StatusAccessControl: 'status:accesscontrol',
  RolesRead: 'roles:read',
  RolesWrite: 'roles:write',
  RolesDelete: 'roles:delete',
  UsersRolesRead: 'users.roles:read',
  UsersRolesAdd: 'users.roles:add',
  UsersRolesDelete: 'users.roles:delete',
  UsersPermissionsRead: 'users.permissions:read',
  TeamsRolesRead: 'teams.roles:read',
  TeamsRolesAdd: 'teams.roles:add',
  TeamsRolesDelete: 'teams.roles:delete',
  UsersCreate: 'users:create',
  UsersRead: 'users:read',
  UsersWrite: 'users:write',
  UsersDelete: 'users:delete',
  /** Grafana's admin user routes: set a password, the Server Admin flag, disable and enable. */
  UsersPasswordWrite: 'users.password:write',
  UsersPermissionsWrite: 'users.permissions:write',
  UsersDisable: 'users:disable',
  UsersEnable: 'users:enable',
  OrgUsersAdd: 'org.users:add',
  OrgUsersRead: 'org.users:read',
  OrgUsersWrite: 'org.users:write',
  OrgUsersRemove: 'org.users:remove',
  OrgsCreate: 'orgs:create',
  OrgsRead: 'orgs:read',
  OrgsWrite: 'orgs:write',
  OrgsDelete: 'orgs:delete',
  TeamsCreate: 'teams:create',
  TeamsRead: 'teams:read',
  TeamsWrite: 'teams:write',
  TeamsDelete: 'teams:delete',
  /** Grafana's actions of the team member routes; accepted besides teams:read / teams:write. */
  TeamsPermissionsRead: 'teams.permissions:read',
  TeamsPermissionsWrite: 'teams.permissions:write',
  ServiceAccountsCreate: 'serviceaccounts:create',
  ServiceAccountsRead: 'serviceaccounts:read',
  ServiceAccountsWrite: 'serviceaccounts:write',
  ServiceAccountsDelete: 'serviceaccounts:delete',
  ApiKeyRead: 'apikey:read',
  ApiKeyCreate: 'apikey:create',
  ApiKeyDelete: 'apikey:delete',
  ProvisioningReload: 'provisioning:reload',
  /** Read the audit log; no scope: the log is read whole, walled by organization. */
  AuditRead: 'audit:read',
  /** Read the change feed (modules/changes); no scope: walled by organization as the audit log. */
  AccessChangesRead: 'access.changes:read',
  /**
   * Review who has which access and why (modules/access-review), and export it; no scope: the
   * review covers the organization the caller acts in, walled as the audit log.
   */
  AccessReviewRead: 'access.review:read',
  /**
   * Preview what proposed changes would do to who may do what (modules/simulation); no scope: it
   * answers for the organization the caller acts in, and writes nothing.
   */
  AccessSimulate: 'access:simulate',
  /**
   * Ask for a role for a while (modules/access-requests); no scope: a request is the caller's own,
   * in the organization it acts in. Requesters always read their own requests.
   */
  AccessRequestsCreate: 'access.requests:create',
  /** Read every access request of the organization the caller acts in (an approver's queue); no scope. */
  AccessRequestsRead: 'access.requests:read',
  /**
   * Approve or deny access requests of the organization the caller acts in; no scope. Deciding
   * also needs the right to assign the role asked for (users.roles:add and delegation in time).
   */
  AccessRequestsApprove: 'access.requests:approve',
} as const;

/**
 * The six role-management actions: each is checked on `permissions:type:delegate` (the role's
 * permissions must be the caller's own) or `permissions:type:escalate` (exempt from that check).
 * Source: upstream-behaviour.md "Escalation and provisioning".
 */
export const ROLE_MANAGEMENT_ACTIONS = [
  Action.RolesWrite,
  Action.RolesDelete,
  Action.UsersRolesAdd,
  Action.UsersRolesDelete,
  Action.TeamsRolesAdd,
  Action.TeamsRolesDelete,
] as const;

/** Fixed scopes and scope builders used by checks. */
export const Scope = {
  All: '*',
  ServicesAccessControl: 'services:accesscontrol',
  RolesAll: 'roles:*',
  Delegate: 'permissions:type:delegate',
  Escalate: 'permissions:type:escalate',
  /** Covers both delegate and escalate: what basic:service_admin holds the six actions on. */
  PermissionTypesAll: 'permissions:type:*',
  ProvisionersAccessControl: 'provisioners:accesscontrol',
  UsersAll: 'users:*',
  GlobalUsersAll: 'global.users:*',
  TeamsAll: 'teams:*',
  ServiceAccountsAll: 'serviceaccounts:*',
  OrgsAll: 'orgs:*',
  ApiKeysAll: 'apikey:*',
  user: (id: number | string): string => `users:id:${id}`,
  globalUser: (id: number | string): string => `global.users:id:${id}`,
  team: (id: number | string): string => `teams:id:${id}`,
  serviceAccount: (id: number | string): string => `serviceaccounts:id:${id}`,
  org: (id: number | string): string => `orgs:id:${id}`,
  apiKey: (id: number | string): string => `apikey:id:${id}`,
  role: (uid: string): string => `roles:uid:${uid}`,
} as const;

/**
 * The namespace of an action or scope: its text before the first `.` or `:`
 * (`users.roles:add` -> `users`, `global.users:*` -> `global`, `*` -> `*`).
 */
export function namespaceOf(text: string): string {
  return text.split(/[.:]/, 1)[0] ?? '';
}

/**
 * Every namespace of this service's own actions and scopes, derived from Action and Scope (the
 * builders called with a sample id), so a new action or scope area is covered by construction:
 * `users`, `teams`, `org`, `orgs`, `roles`, `serviceaccounts`, `apikey`, `permissions`, `global`,
 * `status`, `services`, `provisioning`, `provisioners`, `audit`, ... Product registration refuses
 * these as product ids, since a product's actions start with its id.
 */
export const SERVICE_NAMESPACES: ReadonlySet<string> = new Set(
  [...Object.values(Action), ...Object.values(Scope).map((s) => (typeof s === 'string' ? s : s('1')))]
    .map(namespaceOf)
    .filter((n) => n !== '*' && n !== ''),
);

/** Limits on stored permission strings; not shown by the spec, chosen to fit any Grafana name. */
export const MAX_ACTION_LENGTH = 190;
export const MAX_SCOPE_LENGTH = 190;

const ACTION_PATTERN = /^[a-zA-Z0-9_.-]+(?::[a-zA-Z0-9_.-]+)+$/;
const SCOPE_SEGMENT = /^[^:*?\s]+$/;

/**
 * Why an action string is malformed, or null when it is well formed.
 * Rule: `<area>:<operation>` (service-interface.md "Permission"), segments of
 * letters, digits, `_`, `.`, `-`.
 */
export function actionProblem(action: string): string | null {
  if (action.length === 0) return 'action must not be empty';
  if (action.length > MAX_ACTION_LENGTH) return `action is longer than ${MAX_ACTION_LENGTH} characters`;
  if (!ACTION_PATTERN.test(action)) return `action "${action}" is not of the form <area>:<operation>`;
  return null;
}

/**
 * Why a scope string is malformed, or null when it is well formed. "" (no scope) is valid.
 * Rule (upstream-behaviour.md): `*` is valid only as the last character, right after `:` or
 * alone; every other segment is non-empty and holds no `*`, `?` or white space.
 */
export function scopeProblem(scope: string): string | null {
  if (scope === '' || scope === '*') return null;
  if (scope.length > MAX_SCOPE_LENGTH) return `scope is longer than ${MAX_SCOPE_LENGTH} characters`;
  const segments = scope.split(':');
  if (segments.length < 2) return `scope "${scope}" is not of the form <area>:<attribute>:<value> or <area>:*`;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (segment === '*' && i === segments.length - 1) continue;
    if (!SCOPE_SEGMENT.test(segment)) {
      return segment.includes('*')
        ? `scope "${scope}": a wildcard is only valid as the last segment`
        : `scope "${scope}" has an empty or malformed segment`;
    }
  }
  return null;
}

/** An (action, scope) pair; scope "" means no scope. */
export interface PermissionPair {
  action: string;
  scope: string;
}
