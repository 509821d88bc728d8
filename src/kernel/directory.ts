/**
 * What the directory services (users.ts, orgs.ts, teams.ts, service-accounts.ts) share: input
 * shapes, the organization wall, the org-role ceiling, list filtering by scope, and the errors.
 *
 * The organization wall (issue #3 item 5): a principal acts in one organization (caller.orgId).
 * Teams, service accounts and memberships are looked up within that organization only, so an
 * id of another organization answers 404 exactly like an id that does not exist: existence does
 * not leak. Permission checks come first and never depend on the object, so a 403 says nothing
 * about existence either. Operations naming an organization explicitly need the caller to act
 * in it, unless it is a Service Admin (Grafana: AuthorizeInOrg).
 */
import { z } from 'zod';
import type { Db } from '../platform/database.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { AccessService } from './access.js';
import { accessDenied, DomainError } from './errors.js';
import type { PermissionIndex } from './evaluator.js';
import { isOrgRole, ORG_ROLES, type OrgRole, orgRoleIncludes, type Principal } from './principal.js';

/** What every directory service is built on. */
export interface DirectoryDeps {
  db: Db;
  access: AccessService;
}

/** Longest login, email, name or team name stored (Grafana's column limit is 190). */
export const MAX_NAME_LENGTH = 190;

/** An org role: Viewer, Editor, Admin or None. */
export const orgRoleInput = z.enum(ORG_ROLES, { error: `role must be one of ${ORG_ROLES.join(', ')}` });

/** A positive row id; `field` names it in the 400. */
export const idInput = (field: string) =>
  z
    .number({ error: `${field} is required and must be a number` })
    .int(`${field} must be a whole number`)
    .positive(`${field} must be a positive id`)
    .max(2_147_483_647, `${field} is too large`);

/** A required display name (trimmed, 1..190 characters). */
export const nameInput = (field: string) =>
  z
    .string({ error: `${field} is required and must be a string` })
    .trim()
    .min(1, `${field} is required`)
    .max(MAX_NAME_LENGTH, `${field} is longer than ${MAX_NAME_LENGTH} characters`);

/** An email address: something@something, no white space, at most 190 characters. */
export const emailInput = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .max(MAX_NAME_LENGTH, `${field} is longer than ${MAX_NAME_LENGTH} characters`)
    .regex(/^[^\s@]+@[^\s@]+$/, `${field} must be an email address`);

/**
 * The org-role ceiling: a caller may not give anyone an org role above its own, unless it is a
 * Service Admin. Grafana: "Cannot assign a role higher than user's role" (org users, service
 * accounts, API keys).
 * @throws DomainError ACCESS_DENIED (403).
 */
export function requireRoleWithin(caller: Principal, role: OrgRole): void {
  if (caller.isServiceAdmin || orgRoleIncludes(caller.orgRole, role)) return;
  throw new DomainError('ACCESS_DENIED', `Cannot assign a role higher than user's role (${role} is above ${caller.orgRole})`, {
    needed: `org role ${role}`,
  });
}

/**
 * Operations that name an organization need the caller to act in it (X-Service-Org-Id), unless
 * it is a Service Admin. The answer does not depend on whether that organization exists.
 * @throws DomainError ACCESS_DENIED (403).
 */
export function requireActingIn(caller: Principal, orgId: number): void {
  if (orgId === caller.orgId || caller.isServiceAdmin) return;
  throw accessDenied(`acting in organization ${orgId} (send X-Service-Org-Id: ${orgId})`);
}

/**
 * Which ids of an area (`teams:id:`, `users:id:`, ...) `index` lets the caller `action` on:
 * 'all' when a wildcard covers every id, otherwise the ids of exact scopes held (maybe none).
 * Grafana filters its list endpoints the same way after checking the action alone.
 */
export function permittedIds(index: PermissionIndex, action: string, idScopePrefix: string): 'all' | number[] {
  if (index.matches(action, `${idScopePrefix}*`)) return 'all';
  const ids: number[] = [];
  for (const p of index.list()) {
    if (p.action !== action || !p.scope.startsWith(idScopePrefix)) continue;
    const rest = p.scope.slice(idScopePrefix.length);
    if (/^\d{1,10}$/.test(rest)) ids.push(Number(rest));
  }
  return ids;
}

/** Prisma `where` on an id column for the result of permittedIds. */
export function idFilter(ids: 'all' | number[]): { id?: { in: number[] } } {
  return ids === 'all' ? {} : { id: { in: ids } };
}

/**
 * The memberships of other users the caller may see: all of them for a Service Admin, the
 * current organization's otherwise (the wall: org 1 never learns who is in org 2).
 */
export function visibleMemberships(caller: Principal): Prisma.OrgUserWhereInput {
  return caller.isServiceAdmin ? {} : { orgId: caller.orgId };
}

/** 404 USER_NOT_FOUND. */
export function userNotFound(id: number, where = ''): DomainError {
  return new DomainError('USER_NOT_FOUND', `user ${id} not found${where}`, { id });
}

/** 404 TEAM_NOT_FOUND. */
export function teamNotFound(id: number): DomainError {
  return new DomainError('TEAM_NOT_FOUND', `team ${id} not found`, { id });
}

/** 404 ORG_NOT_FOUND. */
export function orgNotFound(id: number): DomainError {
  return new DomainError('ORG_NOT_FOUND', `organization ${id} not found`, { id });
}

/** 404 SERVICE_ACCOUNT_NOT_FOUND. */
export function serviceAccountNotFound(id: number): DomainError {
  return new DomainError('SERVICE_ACCOUNT_NOT_FOUND', `service account ${id} not found`, { id });
}

/** 409 ALREADY_EXISTS. */
export function alreadyExists(message: string): DomainError {
  return new DomainError('ALREADY_EXISTS', message);
}

/** The stored org role string as an OrgRole ("None" for anything unexpected). */
export function asOrgRole(value: string): OrgRole {
  return isOrgRole(value) ? value : 'None';
}
