/**
 * The roles that always exist: basic roles (one per org role plus Service Admin) with their
 * default permissions, and fixed roles. Seeding writes them; "reset basic roles" restores the
 * basic roles' defaults from here.
 *
 * Sources: upstream-behaviour.md "Roles" (names, uids, group, inheritance Viewer -> Editor ->
 * Admin, fixed role contents and uid derivation) and Grafana's default basic role grants for
 * the areas this service manages.
 */
import { createHash } from 'node:crypto';
import { Action as A, type PermissionPair, ROLE_MANAGEMENT_ACTIONS, Scope as S } from './catalogue.js';
import { type BasicRoleName, SERVICE_ADMIN } from './principal.js';

/** A role defined by the service itself. */
export interface BuiltinRole {
  uid: string;
  name: string;
  displayName: string;
  description: string;
  group: string;
  hidden: boolean;
  permissions: PermissionPair[];
}

/** A basic role: the permissions everyone holding `basicRole` gets. */
export interface BasicRoleDefinition extends BuiltinRole {
  basicRole: BasicRoleName;
}

const p = (action: string, scope = ''): PermissionPair => ({ action, scope });

const ROLES_READER = [
  p(A.RolesRead, S.RolesAll),
  p(A.UsersRolesRead, S.UsersAll),
  p(A.TeamsRolesRead, S.TeamsAll),
  p(A.UsersPermissionsRead, S.UsersAll),
];
const ROLES_WRITER = [...ROLES_READER, ...ROLE_MANAGEMENT_ACTIONS.map((a) => p(a, S.Delegate))];
const ORG_USERS_READER = [p(A.OrgUsersRead, S.UsersAll)];
const ORG_USERS_WRITER = [...ORG_USERS_READER, ...[A.OrgUsersAdd, A.OrgUsersWrite, A.OrgUsersRemove].map((a) => p(a, S.UsersAll))];
const TEAMS_READER = [p(A.TeamsRead, S.TeamsAll)];
const TEAMS_WRITER = [p(A.TeamsCreate), ...[A.TeamsRead, A.TeamsWrite, A.TeamsDelete].map((a) => p(a, S.TeamsAll))];
const SERVICE_ACCOUNTS_READER = [p(A.ServiceAccountsRead, S.ServiceAccountsAll)];
const SERVICE_ACCOUNTS_WRITER = [
  p(A.ServiceAccountsCreate),
  ...[A.ServiceAccountsRead, A.ServiceAccountsWrite, A.ServiceAccountsDelete].map((a) => p(a, S.ServiceAccountsAll)),
];
const API_KEYS_READER = [p(A.ApiKeyRead, S.ApiKeysAll)];
const API_KEYS_WRITER = [...API_KEYS_READER, p(A.ApiKeyCreate), p(A.ApiKeyDelete, S.ApiKeysAll)];
const ACCESS_REQUESTS_APPROVER = [p(A.AccessRequestsRead), p(A.AccessRequestsApprove)];
const USERS_READER = [p(A.UsersRead, S.GlobalUsersAll)];
// Grafana's fixed:users:writer: also passwords, the Server Admin flag, disabling and enabling.
const USERS_WRITER = [
  p(A.UsersCreate),
  ...[A.UsersRead, A.UsersWrite, A.UsersDelete, A.UsersPasswordWrite, A.UsersPermissionsWrite, A.UsersDisable, A.UsersEnable].map((a) =>
    p(a, S.GlobalUsersAll),
  ),
];

/** Grafana's uid for a fixed role: `fixed_` + base64url-nopad(sha1(name)). */
export function fixedRoleUid(name: string): string {
  return `fixed_${createHash('sha1').update(name).digest('base64url')}`;
}

/**
 * Grafana's uid of a registered product role (PrefixedRoleUID): `plugins_` + base64url-nopad(
 * sha1(name)), 35 characters, for `plugins:<productId>:<name>`.
 */
export function productRoleUid(name: string): string {
  return `plugins_${createHash('sha1').update(name).digest('base64url')}`;
}

function fixed(name: string, displayName: string, description: string, group: string, permissions: PermissionPair[]): BuiltinRole {
  return { uid: fixedRoleUid(name), name, displayName, description, group, hidden: false, permissions };
}

/** Fixed roles: global, never updatable, assignable like any role. */
export const FIXED_ROLES: readonly BuiltinRole[] = [
  fixed('fixed:roles:reader', 'Role reader', 'Read all roles, role assignments and permissions.', 'Roles', ROLES_READER),
  fixed('fixed:roles:writer', 'Role writer', 'Create, update, delete and assign roles the holder may delegate.', 'Roles', ROLES_WRITER),
  fixed('fixed:roles:resetter', 'Role resetter', 'Reset basic roles to their default permissions.', 'Roles', [p(A.RolesWrite, S.Escalate)]),
  fixed('fixed:apikeys:reader', 'API key reader', 'List API keys.', 'API keys', API_KEYS_READER),
  fixed('fixed:apikeys:writer', 'API key writer', 'Create, list and delete API keys.', 'API keys', API_KEYS_WRITER),
  fixed('fixed:users:reader', 'User reader', 'Read all users.', 'Users', USERS_READER),
  fixed('fixed:users:writer', 'User writer', 'Create, read, update and delete users.', 'Users', USERS_WRITER),
  fixed('fixed:org.users:reader', 'Organization user reader', 'Read the users of an organization.', 'Users', ORG_USERS_READER),
  fixed(
    'fixed:org.users:writer',
    'Organization user writer',
    'Add, update and remove the users of an organization.',
    'Users',
    ORG_USERS_WRITER,
  ),
  fixed('fixed:teams:reader', 'Team reader', 'Read teams.', 'Teams', TEAMS_READER),
  fixed('fixed:teams:writer', 'Team writer', 'Create, read, update and delete teams.', 'Teams', TEAMS_WRITER),
  fixed('fixed:serviceaccounts:reader', 'Service account reader', 'Read service accounts.', 'Service accounts', SERVICE_ACCOUNTS_READER),
  fixed(
    'fixed:serviceaccounts:writer',
    'Service account writer',
    'Create, read, update and delete service accounts.',
    'Service accounts',
    SERVICE_ACCOUNTS_WRITER,
  ),
  fixed('fixed:audit:reader', 'Audit log reader', 'Read the audit log of the organization.', 'Audit', [p(A.AuditRead)]),
  fixed(
    'fixed:accesschanges:reader',
    'Change feed reader',
    'Follow the changes to who may do what in the organization (a product keeping its own permission cache).',
    'Access control',
    [p(A.AccessChangesRead)],
  ),
  fixed(
    'fixed:access.review:reader',
    'Access reviewer',
    'See who holds each permission in the organization and through what, everything one member can do and why, and export it (an auditor).',
    'Access control',
    [p(A.AccessReviewRead)],
  ),
  fixed('fixed:access.requests:requester', 'Access requester', 'Ask for a role for a while, with a justification.', 'Access control', [
    p(A.AccessRequestsCreate),
  ]),
  fixed(
    'fixed:access.requests:approver',
    'Access request approver',
    'Read the access requests of the organization and approve or deny those for roles the holder may assign.',
    'Access control',
    ACCESS_REQUESTS_APPROVER,
  ),
  fixed(
    'fixed:access:simulator',
    'Access change simulator',
    'Preview who would gain and lose which permissions through proposed role, assignment, team and org role changes.',
    'Access control',
    [p(A.AccessSimulate)],
  ),
];

// Grafana's fixed:organization:reader (Viewer) and :writer (Admin): read and rename the organization
// one acts in. orgs:id:* reaches no other organization: the org routes also need the caller to act
// in the organization it names (kernel/guards.ts, the wall), unless it is a Service Admin.
const ORG_READER = [p(A.OrgsRead, S.org('*'))];
// Every member may ask for a role for a while (modules/access-requests), as Grafana grants its
// basic Viewer the fixed roles everyone needs; existing databases get it through migration
// 20261128222522_access_requests_defaults.
const VIEWER = [...ORG_USERS_READER, ...TEAMS_READER, ...ORG_READER, p(A.AccessRequestsCreate)];
const EDITOR = [...VIEWER, ...SERVICE_ACCOUNTS_READER];
const ADMIN = [
  ...EDITOR,
  p(A.StatusAccessControl, S.ServicesAccessControl),
  ...ROLES_WRITER,
  ...ORG_USERS_WRITER,
  ...TEAMS_WRITER,
  ...SERVICE_ACCOUNTS_WRITER,
  ...API_KEYS_WRITER,
  p(A.OrgsWrite, S.org('*')),
  // The preview of a change before it is saved (modules/simulation): the role editor's; existing
  // databases get it through migration 20261128200000_access_simulate.
  p(A.AccessSimulate),
  // The approvers' queue of access requests (same migration as Viewer's).
  ...ACCESS_REQUESTS_APPROVER,
];
// Grafana grants fixed:org.users:writer to Grafana Admins too: a Service Admin manages the
// members of every organization (the org wall holds for org Admins, not for Service Admins).
// Escalation: Grafana provisions escalate to nobody; this service guards other
// products, so its top administrator defines their permissions: the six role-management actions
// on permissions:type:* (delegate and escalate). Admin/Editor/Viewer keep delegate only.
// Existing databases get these through migration 20261123110600_service_admin_escalate.
const SERVICE_ADMIN_PERMISSIONS = [
  p(A.StatusAccessControl, S.ServicesAccessControl),
  ...USERS_WRITER,
  ...ORG_USERS_WRITER,
  p(A.OrgsCreate),
  ...[A.OrgsRead, A.OrgsWrite, A.OrgsDelete].map((a) => p(a, S.OrgsAll)),
  ...ROLE_MANAGEMENT_ACTIONS.map((a) => p(a, S.PermissionTypesAll)),
  p(A.ProvisioningReload, S.ProvisionersAccessControl),
  // The audit log is the server administrators' (Grafana Enterprise writes it for them); existing
  // databases get it through migration 20261123140000_audit_read.
  p(A.AuditRead),
  // So is the change feed; existing databases get it through migration 20261128170746_access_changes_read.
  p(A.AccessChangesRead),
  // And the preview of a change; existing databases get it through migration 20261128200000_access_simulate.
  p(A.AccessSimulate),
  ...ACCESS_REQUESTS_APPROVER,
];

function dedupe(perms: PermissionPair[]): PermissionPair[] {
  const seen = new Map<string, PermissionPair>();
  for (const perm of perms) seen.set(`${perm.action}\u0000${perm.scope}`, perm);
  return [...seen.values()].sort((a, b) => a.action.localeCompare(b.action) || a.scope.localeCompare(b.scope));
}

function basic(basicRole: BasicRoleName, slug: string, description: string, permissions: PermissionPair[]): BasicRoleDefinition {
  return {
    basicRole,
    uid: `basic_${slug}`,
    name: `basic:${slug}`,
    displayName: basicRole,
    description,
    group: 'Basic',
    hidden: true,
    permissions: dedupe(permissions),
  };
}

/** Basic roles with their default permissions, inheritance already expanded. */
export const BASIC_ROLES: readonly BasicRoleDefinition[] = [
  basic('Viewer', 'viewer', 'Default permissions of organization viewers.', VIEWER),
  basic('Editor', 'editor', "Default permissions of organization editors (a Viewer's and more).", EDITOR),
  basic('Admin', 'admin', "Default permissions of organization admins (an Editor's and more).", ADMIN),
  basic(SERVICE_ADMIN, 'service_admin', 'Default permissions of Service Admins, across organizations.', SERVICE_ADMIN_PERMISSIONS),
];

/** Role name prefixes reserved for roles the service defines or products register. */
export const FIXED_PREFIX = 'fixed:';
export const BASIC_PREFIX = 'basic:';
export const PRODUCT_PREFIX = 'plugins:';
/** Grafana's managed roles (`managed:users:1:permissions`): never created here, reserved so none is faked. */
export const MANAGED_PREFIX = 'managed:';
/**
 * Uid prefixes of roles no caller names by hand: fixed (`fixedRoleUid`), basic (`basic_<slug>`),
 * product (`productRoleUid`), provisioned roles without a uid in their file (`prov_` +
 * base64url(sha1(orgId:name)), provisioning/apply.ts) and Grafana's managed roles (`managed_`).
 * A custom role taking one of them could be mistaken for, or filled as, the role it imitates
 *.
 */
export const RESERVED_UID_PREFIXES = ['fixed_', 'basic_', 'plugins_', 'prov_', 'managed_'] as const;

/** Fixed roles: the service's own (`fixed:`) and registered product roles (`plugins:`), both read-only. */
export function isFixedRoleName(name: string): boolean {
  return name.startsWith(FIXED_PREFIX) || name.startsWith(PRODUCT_PREFIX);
}
export function isBasicRoleName(name: string): boolean {
  return name.startsWith(BASIC_PREFIX);
}
