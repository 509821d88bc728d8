/**
 * Signing in: password checks (local users and the directory), the principal of a signed-in
 * user, users that come from an identity provider (LDAP, OAuth), and the signed-in user's own
 * account (`/api/user*`: profile, organizations, password, organization switch).
 *
 * Rules: Grafana's login, `/api/user` routes and external user sync, and
 * SECURITY.md "Sign-in": password checks reserved on counters per typed name,
 * per account (the user a login or email resolves to) and per client address before they run
 * (throttle.ts); unknown logins are verified against
 * a dummy argon2 hash (platform/passwords.ts) so they cost the time of a known one; the answer
 * for an unknown login, a wrong password and a disabled user is the same 401. Every change made
 * here is in the audit log: a user created or synced by a sign-in (actor: that
 * user, auth method `ldap` or `oauth`), its own password change and organization switch.
 *
 * This file is the module's public entry and holds the password check and the principal; the
 * external-user sync is in external-users.ts, the own-account operations in own-account.ts (a
 * service of its own, OwnAccountService, composed beside this one in modules/services.ts), the
 * throttle in throttle.ts.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import { AUTH_MODULE } from '../../kernel/auth-module.js';
import { DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import type { RequestOrigin } from '../../kernel/fence.js';
import { type AuthMethod, principalOf, type UserPrincipal } from '../../kernel/principal.js';
import { type Clock, systemClock } from '../../platform/clock.js';
import type { PasswordVerifier } from '../../platform/passwords.js';
import { type DirectoryAuthenticator, type ExternalIdentity, invalidCredentials, syncExternalUser } from './external-users.js';
import type { LoginSubject, LoginThrottle } from './throttle.js';
import { VerifiedPasswords } from './verified-passwords.js';

export type { DirectoryAuthenticator, ExternalIdentity } from './external-users.js';
export { changePasswordInput, type SignedInUser } from './own-account.js';

/**
 * What SignInService uses: the database, the write path, the login throttle (shared with
 * OwnAccountService), the password verifier and the directory, null when LDAP is off.
 */
export interface SignInDeps extends FeatureDeps {
  throttle: LoginThrottle;
  verifyPassword: PasswordVerifier;
  directory: DirectoryAuthenticator | null;
  /** AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP (external-match.ts). */
  allowInsecureEmailLookup: boolean;
  /** Basic-auth credentials that passed a check (verified-passwords.ts); default 60 s. */
  verifiedPasswords?: VerifiedPasswords<UserWithOrgs>;
}

/** A password sign-in that succeeded: the user, and whether the directory (LDAP) vouched for it (the session's auth module). */
export interface PasswordSignIn {
  userId: number;
  viaDirectory: boolean;
}

/** The user row with its memberships, as `principalFor` reads it. */
const USER_ORGS = { orgs: { select: { orgId: true, role: true } } } as const;
/** A password check's outcome with the local argon2 hash verified (null for the directory). */
type CheckedPassword = PasswordSignIn & { passwordHash: string | null };

/** A user row with its memberships (what a remembered Basic credential keeps: verified-passwords.ts). */
export type UserWithOrgs = Prisma.UserGetPayload<{ include: typeof USER_ORGS }>;

/** A sign-in's request origin: a bare client address (no request id) or the whole origin. */
function originOf(from: string | RequestOrigin): RequestOrigin {
  return typeof from === 'string' ? { clientAddress: from, requestId: '' } : from;
}

/** Signing in: password checks, external users and the principal (`services.signIn`); rules in the module comment. */
export class SignInService {
  private readonly verified: VerifiedPasswords<UserWithOrgs>;
  private readonly clock: Clock;
  /** Basic checks running now, by credential, address and access revision (`checkOnce`). */
  private readonly inFlight = new Map<string, Promise<{ checked: CheckedPassword; user: UserWithOrgs }>>();
  /** Basic requests that shared a check already running (`checkOnce`) since start: a count, for tests. */
  joinedChecks = 0;

  constructor(private readonly deps: SignInDeps) {
    this.verified = deps.verifiedPasswords ?? new VerifiedPasswords(deps.access.freshness);
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * The principal of a Basic-auth request (`Authorization: Basic login:password`): a credential
   * that passed a check at the current access revision, less than the TTL ago, is honoured
   * without a new argon2 check and without reading the user's row again, when the throttle holds
   * no lock for the name, the account or the address (verified-passwords.ts); anything else is a
   * full `checkPassword`, counted by the throttle, then the row is read; identical credentials
   * arriving while one is checked share that check (`checkOnce`). Rules of the cache:
   * verified-passwords.ts.
   * @throws as `checkPassword` and `principalFor`.
   */
  async basicPrincipal(
    login: string,
    password: string,
    options: { orgHeader: number | null; origin: RequestOrigin },
  ): Promise<UserPrincipal> {
    const key = this.verified.keyOf(login, password);
    const revision = this.verified.stamp();
    const hit = this.verified.get(key, this.clock.now().getTime());
    if (hit) {
      // A lock is no change (failed attempts write nothing): asked on every hit.
      const blocked = await this.deps.throttle.blocked({ typed: login, userId: hit.userId }, options.origin.clientAddress);
      if (!blocked) return this.principalOfRow(hit.user, { orgHeader: options.orgHeader, authMethod: 'basic' });
      this.verified.delete(key);
    }
    const { checked, user } = await this.checkOnce(key, revision, login, password, options.origin);
    const principal = await this.principalOfRow(user, { orgHeader: options.orgHeader, authMethod: 'basic' });
    if (this.verified.enabled && checked.passwordHash !== null && user.passwordHash === checked.passwordHash) {
      this.verified.set(key, { userId: checked.userId, user, verifiedAt: this.clock.now().getTime() }, revision);
    }
    return principal;
  }

  /**
   * One full check of a Basic credential per (keyed hash of login and password, client address,
   * access revision) at a time: requests that arrive while the same credential from the same
   * address is being checked share that check's outcome (its user row, or its error) instead of
   * each reserving a throttle point and running argon2. Without this, a client sending more
   * parallel requests than the attempt limit right after any write (which drops remembered
   * credentials) was refused with its correct password. Brute force is not helped: only
   * identical guesses share a check, and repeating a guess teaches nothing new, so counting it
   * once loses nothing; different passwords each reserve their own point (throttle.ts). The map
   * holds a flight only while its check runs (bounded by the requests in flight), and the
   * revision in its key means a check started before a write is never joined after it.
   * The user's row is read after the check, at `revision` (so a write in between moves the
   * revision, and the remembered entry is never stored).
   * @throws as `checkPassword` and `enabledUser`.
   */
  private checkOnce(
    key: string,
    revision: number,
    login: string,
    password: string,
    origin: RequestOrigin,
  ): Promise<{ checked: CheckedPassword; user: UserWithOrgs }> {
    const flightKey = `${revision}\u0000${origin.clientAddress}\u0000${key}`;
    const joined = this.inFlight.get(flightKey);
    if (joined) {
      this.joinedChecks++;
      return joined;
    }
    const flight = (async () => {
      const checked = await this.check(login, password, origin);
      return { checked, user: await this.enabledUser(checked.userId) };
    })();
    this.inFlight.set(flightKey, flight);
    const done = () => this.inFlight.delete(flightKey);
    flight.then(done, done);
    return flight;
  }

  /**
   * Checks `login` (login or email) and `password`, locally or against the directory, and
   * returns the user and whether the directory vouched for it. A check is reserved on the
   * throttle's counters before it runs (the address, the typed name and the user the name resolves
   * to: throttle.ts), so no more than the limit run per window whatever the concurrency. `from`
   * is the client address, or the request's origin (the audit log's, for a directory user this
   * sign-in creates or syncs).
   * @throws DomainError LOGIN_BLOCKED (429: the address or the typed name is out of attempts),
   *   INVALID_CREDENTIALS (401, same for unknown login, wrong password, disabled user, and an
   *   account out of attempts through another of its names), IDENTITY_PROVIDER_UNAVAILABLE (401:
   *   directory down; not counted).
   */
  async checkPassword(login: string, password: string, from: string | RequestOrigin): Promise<PasswordSignIn> {
    const { userId, viaDirectory } = await this.check(login, password, from);
    return { userId, viaDirectory };
  }

  /** `checkPassword`, also returning the local argon2 hash verified (null for the directory). */
  private async check(login: string, password: string, from: string | RequestOrigin): Promise<CheckedPassword> {
    const { throttle, directory, db, verifyPassword } = this.deps;
    const origin = originOf(from);
    // Looked up before the throttle is asked, for known and unknown names alike (same cost).
    const user = await db.user.findFirst({
      where: { OR: [{ login }, { email: login }], isServiceAccount: false },
      select: { id: true, passwordHash: true, isDisabled: true, authModule: true },
    });
    const subject: LoginSubject = { typed: login, userId: user?.id ?? null };
    // The point is taken before any password is checked (throttle.ts): concurrent guesses cannot pass together.
    const attempt = await throttle.reserve(subject, origin.clientAddress);
    if (attempt.accountLocked) {
      // Answered as a wrong password, at its cost, checking nothing real (throttle.ts: no email oracle).
      await verifyPassword(null, password);
      throw invalidCredentials();
    }
    if (directory?.enabled && (!user || user.authModule === AUTH_MODULE.ldap)) {
      let identity: ExternalIdentity | null;
      try {
        identity = await directory.authenticate(login, password);
      } catch (error) {
        await attempt.cancel(); // the directory was not asked: no guess was made
        throw error;
      }
      if (!identity || user?.isDisabled) throw invalidCredentials();
      // The directory accepted the password: what follows is no guess, whatever its outcome.
      const id = await this.syncExternalUser(identity, AUTH_MODULE.ldap, true, origin).catch(async (error: unknown) => {
        await attempt.cancel();
        throw error;
      });
      await attempt.succeeded(id);
      return { userId: id, viaDirectory: true, passwordHash: null };
    }
    const usable = user && user.authModule === AUTH_MODULE.local ? user.passwordHash : null;
    const ok = await verifyPassword(usable, password);
    if (!ok || !user || user.isDisabled) throw invalidCredentials();
    await attempt.succeeded(user.id);
    return { userId: user.id, viaDirectory: false, passwordHash: usable };
  }

  /**
   * Finds (by the provider's bound subject, or by login for the directory: external-match.ts) or
   * creates the user of an external identity and syncs its name, email, Service Admin flag and
   * org roles: mapped organizations get the mapped role, memberships in other organizations are
   * removed; a new subject is bound to the user it creates or is linked to. Returns the user id.
   * Every change is in the audit log as made by that user (auth method `ldap` or `oauth`);
   * `origin` names the request (else the request's fence does, when there is one). The sync
   * itself: external-users.ts.
   * @throws DomainError SIGN_UP_DISABLED (401: unknown user and `allowSignUp` false),
   *   INVALID_CREDENTIALS (401: a disabled user), EXTERNAL_IDENTITY_CONFLICT (409: the login or
   *   email belongs to another user, who is neither signed into nor changed).
   */
  syncExternalUser(identity: ExternalIdentity, authModule: string, allowSignUp: boolean, origin?: RequestOrigin): Promise<number> {
    return syncExternalUser(this.deps, identity, authModule, allowSignUp, origin);
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
    return this.principalOfRow(await this.enabledUser(userId), options);
  }

  /** The row of user `userId` with its memberships. @throws DomainError INVALID_CREDENTIALS (401: gone, disabled or a service account). */
  private async enabledUser(userId: number): Promise<UserWithOrgs> {
    const user = await this.deps.db.user.findUnique({ where: { id: userId }, include: USER_ORGS });
    if (!user || user.isDisabled || user.isServiceAccount) throw invalidCredentials();
    return user;
  }

  /** `principalFor` of a row already read and found enabled. @throws DomainError ORG_NOT_ACCESSIBLE (401). */
  private async principalOfRow(
    user: UserWithOrgs,
    options: { orgHeader: number | null; preferredOrgId?: number | null; authMethod: AuthMethod; sessionId?: number },
  ): Promise<UserPrincipal> {
    const { db } = this.deps;
    const preferred = options.preferredOrgId ?? null;
    const orgId = options.orgHeader ?? (preferred !== null && user.orgs.some((m) => m.orgId === preferred) ? preferred : user.orgId);
    const membership = user.orgs.find((m) => m.orgId === orgId);
    if (!membership && !(user.isServiceAdmin && (await db.org.count({ where: { id: orgId } })) > 0)) {
      throw new DomainError('ORG_NOT_ACCESSIBLE', `user is not a member of organization ${orgId}`);
    }
    return principalOf(user, orgId, membership?.role ?? 'None', options.authMethod, options.sessionId);
  }
}
