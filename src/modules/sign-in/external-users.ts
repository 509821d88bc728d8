/**
 * Users that come from an identity provider (LDAP, OAuth): the identity a provider describes, the
 * directory seam, and the sync that finds or creates the user of an identity and makes its name,
 * email, Service Admin flag and org roles the provider's (Grafana's external
 * user sync). Which user an identity signs into: external-match.ts (bound by
 * provider and subject, never found by another user's login or email). A sign-in that would
 * change nothing writes nothing; every change it makes is in the audit log as made by that user
 *. The public entry is service.ts.
 */
import type { OrgUser, User } from '../../generated/prisma/client.js';
import { type AuditChange, memberResource, recordAudit, userSnapshot } from '../../kernel/audit.js';
import { AUTH_MODULE } from '../../kernel/auth-module.js';
import { DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import type { RequestOrigin } from '../../kernel/fence.js';
import { type AuthMethod, type OrgRole, principalOf } from '../../kernel/principal.js';
import type { Db, Tx } from '../../platform/database.js';
import { matchExternalUser, refuseTakenEmail } from './external-match.js';

/** A user as an identity provider describes it, with the org roles its claims or groups map to. */
export interface ExternalIdentity {
  login: string;
  email: string;
  name: string;
  orgRoles: { orgId: number; role: OrgRole }[];
  isServiceAdmin: boolean;
  /** Directory groups behind the mapping, for diagnostics. */
  groups?: string[];
  /**
   * The provider's stable id of the person (OpenID `sub`). When set, the identity signs into the
   * user bound to (authModule, subject) only (UserAuth, external-match.ts); LDAP sets none and is
   * matched by login.
   */
  subject?: string;
  /** The provider vouches for `email` (`email_verified: true`): the one condition, with the setting, for linking by email. */
  emailVerified?: boolean;
}

type OrgMembership = { orgId: number; role: string };

/** The directory (LDAP) seam: implemented by the ldap module. */
export interface DirectoryAuthenticator {
  readonly enabled: boolean;
  /** The identity when the password binds, null when refused. @throws DomainError 401 when unreachable. */
  authenticate(login: string, password: string): Promise<ExternalIdentity | null>;
}

/**
 * The one refusal of a sign-in (401 INVALID_CREDENTIALS "Invalid username or password"), the same
 * for an unknown login, a wrong password and a disabled user.
 */
export const invalidCredentials = () => new DomainError('INVALID_CREDENTIALS', 'Invalid username or password');

/** The principal auth method of a provider's sign-in (its users' audit events carry it). */
function authMethodOf(authModule: string): AuthMethod {
  return authModule === AUTH_MODULE.oauth ? 'oauth' : 'ldap';
}

/**
 * The user an external identity signs into (external-match.ts) and whether its subject is bound
 * now, with the org roles the identity maps to in organizations that exist (None dropped).
 */
async function externalUserPlan(db: Db | Tx, identity: ExternalIdentity, authModule: string, allowEmailLookup: boolean) {
  const match = await matchExternalUser(db, identity, authModule, allowEmailLookup);
  const orgs = await db.org.findMany({ where: { id: { in: identity.orgRoles.map((r) => r.orgId) } }, select: { id: true } });
  const roles = identity.orgRoles.filter((r) => orgs.some((o) => o.id === r.orgId) && r.role !== 'None');
  return { ...match, roles };
}

/** What the sync uses: the database and write path, and AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP. */
export interface ExternalSyncDeps extends FeatureDeps {
  allowInsecureEmailLookup: boolean;
}

/** True when syncing `identity` into `user` would write nothing (syncExternalUser's rules). */
function isInSync(
  user: {
    isDisabled: boolean;
    authModule: string;
    email: string;
    name: string;
    isServiceAdmin: boolean;
    orgId: number;
    orgs: OrgMembership[];
  },
  roles: readonly OrgMembership[],
  identity: ExternalIdentity,
  authModule: string,
): boolean {
  return (
    !user.isDisabled &&
    user.authModule === authModule &&
    user.email === identity.email &&
    user.name === identity.name &&
    user.isServiceAdmin === identity.isServiceAdmin &&
    user.orgs.length === roles.length &&
    roles.every((r) => user.orgs.some((m) => m.orgId === r.orgId && m.role === r.role)) &&
    (roles.length === 0 || roles.some((r) => r.orgId === user.orgId))
  );
}

/**
 * Finds (external-match.ts: by the bound subject, else by login for the directory) or creates
 * the user of an external identity and syncs its name, email, Service Admin flag and org roles:
 * mapped organizations get the mapped role, memberships in other organizations are removed. The
 * login is the account's own from its creation on. A subject seen for the first time is bound
 * to the user it creates or is linked to (UserAuth). Returns the user id. Every change is in the
 * audit log as made by that user (auth method `ldap` or `oauth`): user.create, user.update,
 * user.service_admin_set, user_auth.link (an existing user linked by email), org_user.add /
 * update / remove; `origin` names the request (else the request's fence does, when there is
 * one). SignInService.syncExternalUser is its door.
 * @throws DomainError SIGN_UP_DISABLED (401: unknown user and `allowSignUp` false),
 *   INVALID_CREDENTIALS (401: a disabled user), EXTERNAL_IDENTITY_CONFLICT (409: the login or
 *   email belongs to another user, who is left untouched).
 */
export async function syncExternalUser(
  deps: ExternalSyncDeps,
  identity: ExternalIdentity,
  authModule: string,
  allowSignUp: boolean,
  origin?: RequestOrigin,
): Promise<number> {
  const lookup = deps.allowInsecureEmailLookup;
  // Most sign-ins (an LDAP user's every Basic request) change nothing: answered without a
  // write, since every write empties the whole permission cache.
  const current = await externalUserPlan(deps.db, identity, authModule, lookup);
  if (current.existing && !current.bind && isInSync(current.existing, current.roles, identity, authModule)) return current.existing.id;
  return deps.access.write(async (tx) => {
    const { existing, bind, roles } = await externalUserPlan(tx, identity, authModule, lookup);
    if (existing?.isDisabled) throw invalidCredentials();
    if (!existing && !allowSignUp) throw new DomainError('SIGN_UP_DISABLED', 'Signup is not allowed for this adapter');
    if (existing && existing.email !== identity.email) await refuseTakenEmail(tx, existing.id, identity.email, authModule);
    // The default organization stays when still a member, else becomes the first mapped one.
    const keepsDefault = existing && (roles.length === 0 || roles.some((r) => r.orgId === existing.orgId));
    const orgId = existing && keepsDefault ? existing.orgId : (roles[0]?.orgId ?? 1);
    const data = { email: identity.email, name: identity.name, isServiceAdmin: identity.isServiceAdmin, authModule, orgId };
    const user = existing
      ? await tx.user.update({ where: { id: existing.id }, data })
      : await tx.user.create({ data: { ...data, login: identity.login } });
    const actor = principalOf(user, orgId, roles.find((r) => r.orgId === orgId)?.role ?? 'None', authMethodOf(authModule));
    const audit = (change: AuditChange) => recordAudit(tx, actor, change, origin);
    const resource = { kind: 'user', id: user.id };
    if (bind && identity.subject !== undefined) {
      await tx.userAuth.create({ data: { userId: user.id, authModule, authId: identity.subject } });
      if (existing) {
        const [before, after] = [{ authModule: existing.authModule }, { authModule, authId: identity.subject }];
        await audit({ action: 'user_auth.link', orgId: 0, resource, before, after });
      }
    }
    if (!existing) {
      await audit({ action: 'user.create', orgId: 0, resource, after: userSnapshot(user) });
    } else {
      const pick = (u: User) => ({ email: u.email, name: u.name, orgId: u.orgId });
      if (JSON.stringify(pick(existing)) !== JSON.stringify(pick(user))) {
        await audit({ action: 'user.update', orgId: 0, resource, before: pick(existing), after: pick(user) });
      }
      if (existing.isServiceAdmin !== user.isServiceAdmin) {
        const [before, after] = [{ isServiceAdmin: existing.isServiceAdmin }, { isServiceAdmin: user.isServiceAdmin }];
        await audit({ action: 'user.service_admin_set', orgId: 0, resource, before, after });
      }
    }
    await syncMemberships(tx, user.id, existing?.orgs ?? [], roles, audit);
    return user.id;
  });
}

/** Makes `held` memberships of user `userId` the `roles`, logging each change with `audit`. */
async function syncMemberships(
  tx: Tx,
  userId: number,
  held: readonly OrgUser[],
  roles: readonly OrgMembership[],
  audit: (change: AuditChange) => Promise<void>,
): Promise<void> {
  for (const before of held.filter((m) => !roles.some((r) => r.orgId === m.orgId))) {
    await tx.orgUser.delete({ where: { orgId_userId: { orgId: before.orgId, userId } } });
    await audit({ action: 'org_user.remove', orgId: before.orgId, resource: memberResource(before.orgId, userId), before });
  }
  for (const { orgId, role } of roles) {
    const before = held.find((m) => m.orgId === orgId);
    if (before?.role === role) continue;
    const resource = memberResource(orgId, userId);
    if (before) {
      const after = await tx.orgUser.update({ where: { orgId_userId: { orgId, userId } }, data: { role } });
      await audit({ action: 'org_user.update', orgId, resource, before, after });
    } else {
      const after = await tx.orgUser.create({ data: { orgId, userId, role } });
      await audit({ action: 'org_user.add', orgId, resource, after });
    }
  }
}
