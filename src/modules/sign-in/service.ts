/**
 * Signing in: password checks (local users and the directory), the principal of a signed-in
 * user, users that come from an identity provider (LDAP, OAuth), and the signed-in user's own
 * account (`/api/user*`: profile, organizations, password, organization switch).
 *
 * Rules: issue #11 items 1-3 (Grafana's login, `/api/user` routes and external user sync) and
 * issue #10 item 4: failed checks throttled per account (the user a login or email resolves to,
 * and the typed name) and per client address (throttle.ts); unknown logins are verified against
 * a dummy argon2 hash (platform/passwords.ts) so they cost the time of a known one; the answer
 * for an unknown login, a wrong password and a disabled user is the same 401. Every change made
 * here is in the audit log (issue #12 item 5): a user created or synced by a sign-in (actor: that
 * user, auth method `ldap` or `oauth`), its own password change and organization switch.
 */
import { z } from 'zod';
import type { OrgUser, User } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { type AuditChange, recordAudit } from '../../kernel/audit.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import type { RequestOrigin } from '../../kernel/fence.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import { type AuthMethod, type OrgRole, type Principal, principalOf, type UserPrincipal } from '../../kernel/principal.js';
import type { Db, Tx } from '../../platform/database.js';
import { hashPassword, verifyPassword } from '../../platform/passwords.js';
import type { LoginSubject, LoginThrottle } from './throttle.js';

/** A user as an identity provider describes it, with the org roles its claims or groups map to. */
export interface ExternalIdentity {
  login: string;
  email: string;
  name: string;
  orgRoles: { orgId: number; role: OrgRole }[];
  isServiceAdmin: boolean;
  /** Directory groups behind the mapping, for diagnostics. */
  groups?: string[];
}

type OrgMembership = { orgId: number; role: string };

/** The directory (LDAP) seam: implemented by the ldap module. */
export interface DirectoryAuthenticator {
  readonly enabled: boolean;
  /** The identity when the password binds, null when refused. @throws DomainError 401 when unreachable. */
  authenticate(login: string, password: string): Promise<ExternalIdentity | null>;
}

/** `authModule` of users created by each provider (Grafana's user_auth.auth_module). */
export const AUTH_MODULE = { local: '', ldap: 'ldap', oauth: 'oauth_generic_oauth' } as const;

/** Grafana's auth label of a user's identity provider (login.GetAuthProviderLabel); none for local users. */
export function authLabels(authModule: string): string[] {
  if (authModule === AUTH_MODULE.local) return [];
  return [authModule === AUTH_MODULE.ldap ? 'LDAP' : 'Generic OAuth'];
}

export interface SignInDeps extends FeatureDeps {
  throttle: LoginThrottle;
  directory: DirectoryAuthenticator | null;
}

/** `PUT /api/user/password` body (Grafana's ChangeUserPasswordCommand). */
export const changePasswordInput = z.object(
  {
    oldPassword: z.string({ error: 'oldPassword is required' }).max(256),
    newPassword: z.string({ error: 'newPassword is required' }).min(4, 'newPassword must be at least 4 characters').max(256),
  },
  { error: 'input must be an object' },
);

const invalid = () => new DomainError('INVALID_CREDENTIALS', 'Invalid username or password');

/** Why a provider's user cannot sign in over an account it does not manage (issue #11 "clear message"). */
const NOT_MANAGED_HERE = 'a user with this login or email already exists and is not managed by this provider';

/**
 * The refusal of an identity whose login or email is taken by a local account (or one of another
 * provider): OAUTH_LOGIN_FAILED for OAuth (its callback shows the message on the login page),
 * INVALID_CREDENTIALS for the directory; both 401 and both saying why.
 */
function notManagedHere(authModule: string): DomainError {
  return authModule === AUTH_MODULE.oauth
    ? new DomainError('OAUTH_LOGIN_FAILED', `OAuth login failed: ${NOT_MANAGED_HERE}`)
    : new DomainError('INVALID_CREDENTIALS', `Login failed: ${NOT_MANAGED_HERE}`);
}

/** A sign-in's request origin: a bare client address (no request id) or the whole origin. */
function originOf(from: string | RequestOrigin): RequestOrigin {
  return typeof from === 'string' ? { clientAddress: from, requestId: '' } : from;
}

/** The user fields the audit log keeps of a user (as users/service.ts logs users). */
function userSnapshot(user: User) {
  const { id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule } = user;
  return { id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule };
}

/** The audit resource of a membership (as orgs/members.ts names it). */
const memberResource = (orgId: number, userId: number) => ({ kind: 'org_user', id: `${orgId}:${userId}` });

/**
 * The user an external identity names (by login, then email; never a service account) with its
 * memberships, and the org roles the identity maps to in organizations that exist (None dropped).
 */
async function externalUserPlan(db: Db | Tx, identity: ExternalIdentity) {
  const include = { orgs: true } as const;
  const existing =
    (await db.user.findFirst({ where: { login: identity.login, isServiceAccount: false }, include })) ??
    (await db.user.findFirst({ where: { email: identity.email, isServiceAccount: false }, include }));
  const orgs = await db.org.findMany({ where: { id: { in: identity.orgRoles.map((r) => r.orgId) } }, select: { id: true } });
  const roles = identity.orgRoles.filter((r) => orgs.some((o) => o.id === r.orgId) && r.role !== 'None');
  return { existing, roles };
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

/** The signed-in user of `GET /api/user`: its row, the organization the request acts in, and whether a provider manages it. */
export interface SignedInUser {
  user: User;
  /** The organization the request acts in (not necessarily the user's default one). */
  orgId: number;
  /** True for LDAP and OAuth users. */
  isExternal: boolean;
}

/** A password sign-in that succeeded: the user, and whether the directory (LDAP) vouched for it (the session's auth module). */
export interface PasswordSignIn {
  userId: number;
  viaDirectory: boolean;
}

export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  /**
   * Checks `login` (login or email) and `password`, locally or against the directory, and
   * returns the user and whether the directory vouched for it. Refused while throttled: the counters are the user the name resolves to
   * and the typed name (throttle.ts), so a login and its email share one. `from` is the client
   * address, or the request's origin (the audit log's, for a directory user this sign-in creates
   * or syncs).
   * @throws DomainError LOGIN_BLOCKED (429), INVALID_CREDENTIALS (401, same for unknown login,
   *   wrong password, disabled user), IDENTITY_PROVIDER_UNAVAILABLE (401: directory down).
   */
  async checkPassword(login: string, password: string, from: string | RequestOrigin): Promise<PasswordSignIn> {
    const { throttle, directory, db } = this.deps;
    const origin = originOf(from);
    const address = origin.clientAddress;
    // Looked up before the throttle is asked, for known and unknown names alike (same cost).
    const user = await db.user.findFirst({
      where: { OR: [{ login }, { email: login }], isServiceAccount: false },
      select: { id: true, passwordHash: true, isDisabled: true, authModule: true },
    });
    const subject: LoginSubject = { typed: login, userId: user?.id ?? null };
    await throttle.check(subject, address);
    if (directory?.enabled && (!user || user.authModule === AUTH_MODULE.ldap)) {
      const identity = await directory.authenticate(login, password);
      if (identity && !user?.isDisabled) {
        const id = await this.syncExternalUser(identity, AUTH_MODULE.ldap, true, origin);
        await throttle.succeed({ typed: login, userId: id });
        return { userId: id, viaDirectory: true };
      }
      await throttle.fail(subject, address);
      throw invalid();
    }
    const usable = user && user.authModule === AUTH_MODULE.local ? user.passwordHash : null;
    const ok = await verifyPassword(usable, password);
    if (!ok || !user || user.isDisabled) {
      await throttle.fail(subject, address);
      throw invalid();
    }
    await throttle.succeed(subject);
    return { userId: user.id, viaDirectory: false };
  }

  /**
   * Finds (by login, then email) or creates the user of an external identity and syncs its
   * name, email, Service Admin flag and org roles: mapped organizations get the mapped role,
   * memberships in other organizations are removed. Returns the user id. Every change is in the
   * audit log as made by that user (auth method `ldap` or `oauth`): user.create, user.update,
   * user.service_admin_set, org_user.add / update / remove; `origin` names the request (else
   * the request's fence does, when there is one).
   * @throws DomainError SIGN_UP_DISABLED (401: unknown user and `allowSignUp` false),
   *   INVALID_CREDENTIALS (401: a disabled user), OAUTH_LOGIN_FAILED or INVALID_CREDENTIALS
   *   (401, saying that a user with this login or email exists and is not managed by this
   *   provider: a local account, or one of another provider).
   */
  async syncExternalUser(identity: ExternalIdentity, authModule: string, allowSignUp: boolean, origin?: RequestOrigin): Promise<number> {
    // Most sign-ins (an LDAP user's every Basic request) change nothing: answered without a
    // write, since every write empties the whole permission cache.
    const current = await externalUserPlan(this.deps.db, identity);
    if (current.existing && isInSync(current.existing, current.roles, identity, authModule)) return current.existing.id;
    return this.deps.access.write(async (tx) => {
      const { existing, roles } = await externalUserPlan(tx, identity);
      if (existing?.isDisabled) throw invalid();
      if (existing && existing.authModule !== authModule) throw notManagedHere(authModule);
      if (!existing && !allowSignUp) throw new DomainError('SIGN_UP_DISABLED', 'Signup is not allowed for this adapter');
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
      await this.syncMemberships(tx, user.id, existing?.orgs ?? [], roles, audit);
      return user.id;
    });
  }

  /** Makes `held` memberships of user `userId` the `roles`, logging each change with `audit`. */
  private async syncMemberships(
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

  /**
   * The principal of user `userId` acting in `orgHeader` (X-Service-Org-Id), else
   * `preferredOrgId` (the session's choice) when still a member, else its default organization.
   * A Service Admin may act in any existing organization.
   * @throws DomainError INVALID_CREDENTIALS (401: gone or disabled), ORG_NOT_ACCESSIBLE (401).
   */
  async principalFor(
    userId: number,
    options: { orgHeader: number | null; preferredOrgId?: number | null; authMethod: AuthMethod; sessionId?: number },
  ): Promise<UserPrincipal> {
    const { db } = this.deps;
    const user = await db.user.findUnique({ where: { id: userId }, include: { orgs: { select: { orgId: true, role: true } } } });
    if (!user || user.isDisabled || user.isServiceAccount) throw invalid();
    const preferred = options.preferredOrgId ?? null;
    const orgId = options.orgHeader ?? (preferred !== null && user.orgs.some((m) => m.orgId === preferred) ? preferred : user.orgId);
    const membership = user.orgs.find((m) => m.orgId === orgId);
    if (!membership && !(user.isServiceAdmin && (await db.org.count({ where: { id: orgId } })) > 0)) {
      throw new DomainError('ORG_NOT_ACCESSIBLE', `user is not a member of organization ${orgId}`);
    }
    return principalOf(user, orgId, membership?.role ?? 'None', options.authMethod, options.sessionId);
  }

  /**
   * `GET /api/user`: the signed-in user's row, the organization the request acts in, and
   * whether a provider manages it (rest.ts answers Grafana's UserProfileDTO of it).
   * @throws DomainError UNAUTHENTICATED (401), USER_NOT_FOUND (404: an API key or service account).
   */
  async currentUser(caller: Principal): Promise<SignedInUser> {
    const user = await this.ownRow(caller);
    return { user, orgId: caller.orgId, isExternal: user.authModule !== AUTH_MODULE.local };
  }

  /** `GET /api/user/orgs`: `[{orgId, name, role}]` by org id. @throws DomainError 401, 404. */
  async ownOrgs(caller: Principal): Promise<{ orgId: number; name: string; role: string }[]> {
    const user = await this.ownRow(caller);
    const rows = await this.deps.db.orgUser.findMany({ where: { userId: user.id }, include: { org: true }, orderBy: { orgId: 'asc' } });
    return rows.map((m) => ({ orgId: m.orgId, name: m.org.name, role: m.role }));
  }

  /**
   * `POST /api/user/using/:orgId`: makes `orgId` the user's default organization and, for a
   * cookie session, the session's organization (Grafana's UserSetUsingOrg). Logged as
   * user.update `{orgId}` when the default changes.
   * @throws DomainError VALIDATION_FAILED (400), 401, ORG_NOT_ACCESSIBLE (401: not a member).
   */
  async switchOrg(caller: Principal, rawOrgId: unknown): Promise<{ message: string }> {
    const user = await this.ownRow(caller);
    const orgId = parseId('orgId', rawOrgId);
    await this.deps.access.write(async (tx) => {
      if ((await tx.orgUser.count({ where: { userId: user.id, orgId } })) === 0) {
        throw new DomainError('ORG_NOT_ACCESSIBLE', `user is not a member of organization ${orgId}`);
      }
      const before = await tx.user.findUniqueOrThrow({ where: { id: user.id }, select: { orgId: true } });
      await tx.user.update({ where: { id: user.id }, data: { orgId } });
      if (caller.kind === 'user' && caller.sessionId !== undefined) {
        await tx.session.updateMany({ where: { id: caller.sessionId }, data: { orgId } });
      }
      if (before.orgId !== orgId) {
        await recordAudit(tx, caller, {
          action: 'user.update',
          orgId: 0,
          resource: { kind: 'user', id: user.id },
          before,
          after: { orgId },
        });
      }
    });
    return { message: 'Active organization changed' };
  }

  /**
   * `PUT /api/user/password`: a local user changes its own password; every other session of
   * the user ends (logged as user.password_change with the number of sessions ended). The old
   * password is checked like a login (throttled on the same counters, constant cost).
   * @throws DomainError VALIDATION_FAILED (400), PASSWORD_MANAGED_EXTERNALLY (400: LDAP or
   *   OAuth user), INVALID_CREDENTIALS (401: wrong old password), LOGIN_BLOCKED (429).
   */
  async changePassword(caller: Principal, rawInput: unknown, address: string): Promise<{ message: string }> {
    const user = await this.ownRow(caller);
    const input = parseInput(changePasswordInput, rawInput);
    if (user.authModule !== AUTH_MODULE.local) {
      throw new DomainError('PASSWORD_MANAGED_EXTERNALLY', 'Cannot change the password of a user managed by an identity provider');
    }
    const subject: LoginSubject = { typed: user.login, userId: user.id };
    await this.deps.throttle.check(subject, address);
    if (!(await verifyPassword(user.passwordHash, input.oldPassword))) {
      await this.deps.throttle.fail(subject, address);
      throw new DomainError('INVALID_CREDENTIALS', 'Invalid old password');
    }
    const passwordHash = await hashPassword(input.newPassword);
    const keep = caller.kind === 'user' ? caller.sessionId : undefined;
    await this.deps.access.write(
      async (tx) => {
        await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
        const { count } = await tx.session.deleteMany({ where: { userId: user.id, ...(keep !== undefined && { id: { not: keep } }) } });
        await recordAudit(tx, caller, {
          action: 'user.password_change',
          orgId: 0,
          resource: { kind: 'user', id: user.id },
          after: { sessionsEnded: count },
        });
      },
      { grantsNothing: true },
    );
    return { message: 'User password changed' };
  }

  private async ownRow(caller: Principal): Promise<User> {
    requireSignedIn(caller);
    const user = caller.kind === 'user' ? await this.deps.db.user.findFirst({ where: { id: caller.id, isServiceAccount: false } }) : null;
    if (!user) throw notFound('USER_NOT_FOUND', 'user', caller.id);
    return user;
  }
}

/** The principal auth method of a provider's sign-in (its users' audit events carry it). */
function authMethodOf(authModule: string): AuthMethod {
  return authModule === AUTH_MODULE.oauth ? 'oauth' : 'ldap';
}
