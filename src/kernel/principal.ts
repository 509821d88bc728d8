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
