/**
 * From an OpenID provider's claims to the identity sign-in syncs (Grafana's generic OAuth
 * attribute paths): login, email, name and role from JMESPath expressions (`*_ATTRIBUTE_PATH`),
 * then the usual claims; the subject (`sub`, else a plain OAuth API's `id`) that binds the
 * identity to its user, and whether the provider verified the email.
 */
import jmespath from 'jmespath';
import { DomainError } from '../../kernel/errors.js';
import type { OrgRole } from '../../kernel/principal.js';
import type { ExternalIdentity } from '../sign-in/service.js';

/** The attribute paths of the settings (AUTH_GENERIC_OAUTH_*_ATTRIBUTE_PATH). */
export interface ClaimPaths {
  loginAttributePath: string | undefined;
  emailAttributePath: string | undefined;
  nameAttributePath: string | undefined;
  roleAttributePath: string | undefined;
}

/** OAUTH_LOGIN_FAILED (401) "OAuth login failed: <message>". */
export function oauthFailed(message: string): DomainError {
  return new DomainError('OAUTH_LOGIN_FAILED', `OAuth login failed: ${message}`);
}

function search(claims: Record<string, unknown>, path: string | undefined): unknown {
  if (!path) return undefined;
  try {
    return jmespath.search(claims as Parameters<typeof jmespath.search>[0], path);
  } catch {
    return undefined;
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Org role and Service Admin flag from a role expression's result (Grafana's role mapping). */
export function mapRole(value: unknown): { role: OrgRole; isServiceAdmin: boolean } {
  if (value === 'GrafanaAdmin' || value === 'ServiceAdmin') return { role: 'Admin', isServiceAdmin: true };
  if (value === 'Admin' || value === 'Editor' || value === 'Viewer') return { role: value, isServiceAdmin: false };
  return { role: 'Viewer', isServiceAdmin: false };
}

/**
 * The provider's stable id of the person: OpenID's `sub`, else the `id` of a plain OAuth user
 * API (a number or text), else undefined.
 */
export function subjectOf(claims: Record<string, unknown>): string | undefined {
  const id = claims.sub ?? claims.id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  return text(id);
}

/** `email_verified` as providers send it: `true`, or the text "true" (some send strings). */
function isEmailVerified(value: unknown): boolean {
  return value === true || value === 'true';
}

/**
 * The identity of merged claims: login, email, name and role from the attribute paths, then
 * the usual claims (Grafana's order); the subject and `email_verified`. Users join organization 1.
 * @throws DomainError OAUTH_LOGIN_FAILED (401) without a subject, or without a login, email or subject.
 */
export function identityOf(claims: Record<string, unknown>, paths: ClaimPaths): ExternalIdentity {
  const subject = subjectOf(claims);
  if (!subject) throw oauthFailed('the provider sent no subject (sub) for this user');
  const email = text(search(claims, paths.emailAttributePath)) ?? text(claims.email) ?? text(claims.upn);
  const login = text(search(claims, paths.loginAttributePath)) ?? text(claims.preferred_username) ?? email ?? subject;
  const name = text(search(claims, paths.nameAttributePath)) ?? text(claims.name) ?? text(claims.display_name) ?? login;
  const { role, isServiceAdmin } = mapRole(search(claims, paths.roleAttributePath));
  return {
    login,
    email: email ?? `${login}@oauth`,
    name,
    orgRoles: [{ orgId: 1, role }],
    isServiceAdmin,
    subject,
    emailVerified: email !== undefined && isEmailVerified(claims.email_verified),
  };
}
