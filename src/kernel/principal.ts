/**
 * Who is calling. Authentication (src/auth) produces exactly one Principal per request; the
 * domain services take it as the caller. A principal always acts in one organization.
 */

/** Org roles, lowest to highest. Source: Grafana's org roles; "None" grants nothing. */
export const ORG_ROLES = ['None', 'Viewer', 'Editor', 'Admin'] as const;
export type OrgRole = (typeof ORG_ROLES)[number];

/** Basic roles a grant can target: the org roles plus the server-wide Service Admin. */
export const SERVICE_ADMIN = 'Service Admin' as const;
export type BasicRoleName = Exclude<OrgRole, 'None'> | typeof SERVICE_ADMIN;

export function isOrgRole(value: unknown): value is OrgRole {
  return typeof value === 'string' && (ORG_ROLES as readonly string[]).includes(value);
}

/** True when `role` is at least `other` in the order None < Viewer < Editor < Admin. */
export function orgRoleIncludes(role: OrgRole, other: OrgRole): boolean {
  return ORG_ROLES.indexOf(role) >= ORG_ROLES.indexOf(other);
}

/** How the principal proved who it is; `local` is the operator at the machine (the CLI). */
export type AuthMethod = 'basic' | 'api_key' | 'session' | 'ldap' | 'oauth' | 'local' | 'none';

/** A user or a service account (same id space, as in Grafana). */
export interface UserPrincipal {
  kind: 'user' | 'serviceAccount';
  /** users.id */
  id: number;
  login: string;
  /** The organization this request acts in. */
  orgId: number;
  /** Org role in `orgId`. */
  orgRole: OrgRole;
  isServiceAdmin: boolean;
  authMethod: AuthMethod;
  /** The login session behind the request (cookie), when there is one. */
  sessionId?: number;
}

/** An API key: acts only in its own organization, with its role's basic role. */
export interface ApiKeyPrincipal {
  kind: 'apiKey';
  /** api_keys.id */
  id: number;
  name: string;
  orgId: number;
  orgRole: OrgRole;
  isServiceAdmin: false;
  authMethod: 'api_key';
}

/** No credentials were sent. Holds no permissions. */
export interface AnonymousPrincipal {
  kind: 'anonymous';
  id: 0;
  orgId: 0;
  orgRole: 'None';
  isServiceAdmin: false;
  authMethod: 'none';
}

export type Principal = UserPrincipal | ApiKeyPrincipal | AnonymousPrincipal;

/** A principal that sent credentials. */
export type SignedInPrincipal = Exclude<Principal, { kind: 'anonymous' }>;

export const ANONYMOUS: AnonymousPrincipal = Object.freeze({
  kind: 'anonymous',
  id: 0,
  orgId: 0,
  orgRole: 'None',
  isServiceAdmin: false,
  authMethod: 'none',
});

/** Stable key of a principal within its organization, for caches: "<orgId>:<kind>:<id>". */
export function principalKey(p: Principal): string {
  return `${p.orgId}:${p.kind}:${p.id}`;
}

/** The stored org role string as an OrgRole ("None" for anything unexpected). */
export function asOrgRole(value: string): OrgRole {
  return isOrgRole(value) ? value : 'None';
}

/** What the one principal builder needs of a users row (a user or a service account). */
export interface PrincipalUser {
  id: number;
  login: string;
  isServiceAccount: boolean;
  isServiceAdmin: boolean;
}

/**
 * The one builder of user and service-account principals: `user` acting in `orgId` with the org
 * role of its membership there (`orgRole` as stored; anything unknown counts as "None").
 * Authentication uses it for the caller, listings for the member whose effective permissions
 * they compute (authMethod "none": nobody signed in). Both get the same cache key, so they share
 * one cached permission index.
 */
export function principalOf(
  user: PrincipalUser,
  orgId: number,
  orgRole: string,
  authMethod: AuthMethod,
  sessionId?: number,
): UserPrincipal {
  return {
    ...(sessionId !== undefined && { sessionId }),
    kind: user.isServiceAccount ? 'serviceAccount' : 'user',
    id: user.id,
    login: user.login,
    orgId,
    orgRole: asOrgRole(orgRole),
    isServiceAdmin: user.isServiceAdmin,
    authMethod,
  };
}

/** Principal id of the local operator (the CLI): no users row has id 0. */
export const LOCAL_OPERATOR_ID = 0;

/**
 * The local operator: whoever runs the CLI on the machine that holds the database. Having the
 * database file already gives full control, so the CLI acts as a Service Admin and org Admin of
 * `orgId` without credentials, through the same module services as both doors.
 */
export function localOperator(orgId: number): UserPrincipal {
  const operator = { id: LOCAL_OPERATOR_ID, login: 'local-operator', isServiceAccount: false, isServiceAdmin: true };
  return principalOf(operator, orgId, 'Admin', 'local');
}

/** True for the CLI's principal, which has no users row (so it cannot become a member of anything). */
export function isLocalOperator(principal: Principal): boolean {
  return principal.kind === 'user' && principal.id === LOCAL_OPERATOR_ID && principal.authMethod === 'local';
}
