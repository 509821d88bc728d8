/**
 * Signing in: password checks (local users and the directory), the principal of a signed-in
 * user, users that come from an identity provider (LDAP, OAuth), and the signed-in user's own
 * account (`/api/user*`: profile, organizations, password, organization switch).
 *
 * Rules: issue #11 items 1-3 (Grafana's login, `/api/user` routes and external user sync) and
 * issue #10 item 4: failed checks throttled per login and per client address (throttle.ts);
 * unknown logins are verified against a dummy argon2 hash (platform/passwords.ts) so they cost
 * the time of a known one; the answer for an unknown login, a wrong password and a disabled
 * user is the same 401.
 */
import { z } from 'zod';
import type { FeatureDeps } from '../../kernel/access.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import { type AuthMethod, type OrgRole, type Principal, principalOf, type UserPrincipal } from '../../kernel/principal.js';
import type { Db, Tx } from '../../platform/database.js';
import { hashPassword, verifyPassword } from '../../platform/passwords.js';
import type { LoginThrottle } from './throttle.js';

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

/**
 * The user an external identity names (by login, then email; never a service account) with its
 * memberships, and the org roles the identity maps to in organizations that exist (None dropped).
 */
async function externalUserPlan(db: Db | Tx, identity: ExternalIdentity) {
  const include = { orgs: { select: { orgId: true, role: true } } } as const;
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

export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  /**
   * Checks `login` (login or email) and `password`, locally or against the directory, and
   * returns the user id. Refused while throttled.
   * @throws DomainError LOGIN_BLOCKED (429), INVALID_CREDENTIALS (401, same for unknown login,
   *   wrong password, disabled user), IDENTITY_PROVIDER_UNAVAILABLE (401: directory down).
   */
  async checkPassword(login: string, password: string, address: string): Promise<number> {
    const { throttle, directory, db } = this.deps;
    await throttle.check(login, address);
    const user = await db.user.findFirst({
      where: { OR: [{ login }, { email: login }], isServiceAccount: false },
      select: { id: true, passwordHash: true, isDisabled: true, authModule: true },
    });
    if (directory?.enabled && (!user || user.authModule === AUTH_MODULE.ldap)) {
      const identity = await directory.authenticate(login, password);
      if (identity && !user?.isDisabled) {
        const id = await this.syncExternalUser(identity, AUTH_MODULE.ldap, true);
        await throttle.succeed(login);
        return id;
      }
      await throttle.fail(login, address);
      throw invalid();
    }
    const usable = user && user.authModule === AUTH_MODULE.local ? user.passwordHash : null;
    const ok = await verifyPassword(usable, password);
    if (!ok || !user || user.isDisabled) {
      await throttle.fail(login, address);
      throw invalid();
    }
    await throttle.succeed(login);
    return user.id;
  }

  /**
   * Finds (by login, then email) or creates the user of an external identity and syncs its
   * name, email, Service Admin flag and org roles: mapped organizations get the mapped role,
   * memberships in other organizations are removed. Returns the user id.
   * @throws DomainError SIGN_UP_DISABLED (401: unknown user and `allowSignUp` false),
   *   INVALID_CREDENTIALS (401: a disabled user, or a local account with that login or email).
   */
  async syncExternalUser(identity: ExternalIdentity, authModule: string, allowSignUp: boolean): Promise<number> {
    // Most sign-ins (an LDAP user's every Basic request) change nothing: answered without a
    // write, since every write empties the whole permission cache.
    const current = await externalUserPlan(this.deps.db, identity);
    if (current.existing && isInSync(current.existing, current.roles, identity, authModule)) return current.existing.id;
    return this.deps.access.write(async (tx) => {
      const { existing, roles } = await externalUserPlan(tx, identity);
      if (existing && (existing.isDisabled || existing.authModule !== authModule)) throw invalid();
      if (!existing && !allowSignUp) throw new DomainError('SIGN_UP_DISABLED', 'Signup is not allowed for this adapter');
      const data = { email: identity.email, name: identity.name, isServiceAdmin: identity.isServiceAdmin, authModule };
      const user = existing
        ? await tx.user.update({ where: { id: existing.id }, data })
        : await tx.user.create({ data: { ...data, login: identity.login, orgId: roles[0]?.orgId ?? 1 } });
      await tx.orgUser.deleteMany({ where: { userId: user.id, orgId: { notIn: roles.map((r) => r.orgId) } } });
      for (const { orgId, role } of roles) {
        await tx.orgUser.upsert({
          where: { orgId_userId: { orgId, userId: user.id } },
          create: { orgId, userId: user.id, role },
          update: { role },
        });
      }
      if (roles.length > 0 && !roles.some((r) => r.orgId === user.orgId)) {
        await tx.user.update({ where: { id: user.id }, data: { orgId: (roles[0] as { orgId: number }).orgId } });
      }
      return user.id;
    });
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
   * `GET /api/user`: the signed-in user (Grafana's shape; `isGrafanaAdmin` is `isServiceAdmin`).
   * @throws DomainError UNAUTHENTICATED (401), USER_NOT_FOUND (404: an API key or service account).
   */
  async currentUser(caller: Principal) {
    const user = await this.ownRow(caller);
    return {
      id: user.id,
      login: user.login,
      email: user.email,
      name: user.name,
      orgId: caller.orgId,
      isServiceAdmin: user.isServiceAdmin,
      isDisabled: user.isDisabled,
      isExternal: user.authModule !== AUTH_MODULE.local,
      authLabels: authLabels(user.authModule),
      createdAt: user.created.toISOString(),
      updatedAt: user.updated.toISOString(),
    };
  }

  /** `GET /api/user/orgs`: `[{orgId, name, role}]` by org id. @throws DomainError 401, 404. */
  async ownOrgs(caller: Principal): Promise<{ orgId: number; name: string; role: string }[]> {
    const user = await this.ownRow(caller);
    const rows = await this.deps.db.orgUser.findMany({ where: { userId: user.id }, include: { org: true }, orderBy: { orgId: 'asc' } });
    return rows.map((m) => ({ orgId: m.orgId, name: m.org.name, role: m.role }));
  }

  /**
   * `POST /api/user/using/:orgId`: makes `orgId` the user's default organization and, for a
   * cookie session, the session's organization (Grafana's UserSetUsingOrg).
   * @throws DomainError VALIDATION_FAILED (400), 401, ORG_NOT_ACCESSIBLE (401: not a member).
   */
  async switchOrg(caller: Principal, rawOrgId: unknown): Promise<{ message: string }> {
    const user = await this.ownRow(caller);
    const orgId = parseId('orgId', rawOrgId);
    await this.deps.access.write(async (tx) => {
      if ((await tx.orgUser.count({ where: { userId: user.id, orgId } })) === 0) {
        throw new DomainError('ORG_NOT_ACCESSIBLE', `user is not a member of organization ${orgId}`);
      }
      await tx.user.update({ where: { id: user.id }, data: { orgId } });
      if (caller.kind === 'user' && caller.sessionId !== undefined) {
        await tx.session.updateMany({ where: { id: caller.sessionId }, data: { orgId } });
      }
    });
    return { message: 'Active organization changed' };
  }

  /**
   * `PUT /api/user/password`: a local user changes its own password; every other session of
   * the user ends. The old password is checked like a login (throttled, constant cost).
   * @throws DomainError VALIDATION_FAILED (400), PASSWORD_MANAGED_EXTERNALLY (400: LDAP or
   *   OAuth user), INVALID_CREDENTIALS (401: wrong old password), LOGIN_BLOCKED (429).
   */
  async changePassword(caller: Principal, rawInput: unknown, address: string): Promise<{ message: string }> {
    const user = await this.ownRow(caller);
    const input = parseInput(changePasswordInput, rawInput);
    if (user.authModule !== AUTH_MODULE.local) {
      throw new DomainError('PASSWORD_MANAGED_EXTERNALLY', 'Cannot change the password of a user managed by an identity provider');
    }
    await this.deps.throttle.check(user.login, address);
    if (!(await verifyPassword(user.passwordHash, input.oldPassword))) {
      await this.deps.throttle.fail(user.login, address);
      throw new DomainError('INVALID_CREDENTIALS', 'Invalid old password');
    }
    const passwordHash = await hashPassword(input.newPassword);
    const keep = caller.kind === 'user' ? caller.sessionId : undefined;
    await this.deps.access.write(
      async (tx) => {
        await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
        await tx.session.deleteMany({ where: { userId: user.id, ...(keep !== undefined && { id: { not: keep } }) } });
      },
      { grantsNothing: true },
    );
    return { message: 'User password changed' };
  }

  private async ownRow(caller: Principal) {
    requireSignedIn(caller);
    const user = caller.kind === 'user' ? await this.deps.db.user.findFirst({ where: { id: caller.id, isServiceAccount: false } }) : null;
    if (!user) throw notFound('USER_NOT_FOUND', 'user', caller.id);
    return user;
  }
}
