/**
 * The signed-in user's own account (Grafana's `/api/user*` routes): its profile,
 * its organizations, the organization switch and its password change. A service of its own beside
 * SignInService (service.ts), sharing its login throttle; both are composed in modules/services.ts
 * (`services.ownAccount`).
 *
 * Any signed-in user; an API key or a service account has no account here (404). The password
 * change checks the old password like a login (throttle.ts counters, constant cost). Every change
 * is in the audit log: user.update for the switch, user.password_change.
 */
import { z } from 'zod';
import type { User } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { AUTH_MODULE } from '../../kernel/auth-module.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { hashPassword, type PasswordVerifier } from '../../platform/passwords.js';
import { type LoginSubject, type LoginThrottle, loginBlocked } from './throttle.js';

/** `PUT /api/user/password` body (Grafana's ChangeUserPasswordCommand). */
export const changePasswordInput = z.object(
  {
    oldPassword: z.string({ error: 'oldPassword is required' }).max(256),
    newPassword: z.string({ error: 'newPassword is required' }).min(4, 'newPassword must be at least 4 characters').max(256),
  },
  { error: 'input must be an object' },
);

/** The signed-in user of `GET /api/user`: its row, the organization the request acts in, and whether a provider manages it. */
export interface SignedInUser {
  user: User;
  /** The organization the request acts in (not necessarily the user's default one). */
  orgId: number;
  /** True for LDAP and OAuth users. */
  isExternal: boolean;
}

/**
 * What the own-account operations use: the database, the write path, the login throttle and the
 * password verifier (platform/passwords.ts verifyPassword; tests pass one that counts checks).
 */
export interface OwnAccountDeps extends FeatureDeps {
  throttle: LoginThrottle;
  verifyPassword: PasswordVerifier;
}

/** The signed-in user's own account (`services.ownAccount`); every method needs a signed-in user (module comment). */
export class OwnAccountService {
  constructor(private readonly deps: OwnAccountDeps) {}

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
   * password is checked like a login (reserved on the same counters first, throttle.ts).
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
    const attempt = await this.deps.throttle.reserve(subject, address);
    // Its own account: no oracle to hide, so a lock reached through its email answers 429 here too.
    if (attempt.accountLocked) throw loginBlocked(attempt.accountLocked.retryAfterSeconds);
    if (!(await this.deps.verifyPassword(user.passwordHash, input.oldPassword))) {
      throw new DomainError('INVALID_CREDENTIALS', 'Invalid old password');
    }
    await attempt.succeeded(user.id);
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
      // Not grantsNothing: a change must be applied so remembered Basic credentials of the old
      // password (verified-passwords.ts) stop at once.
    );
    return { message: 'User password changed' };
  }

  /** The caller's own user row. @throws DomainError UNAUTHENTICATED (401), USER_NOT_FOUND (404: an API key or service account). */
  private async ownRow(caller: Principal): Promise<User> {
    requireSignedIn(caller);
    const user = caller.kind === 'user' ? await this.deps.db.user.findFirst({ where: { id: caller.id, isServiceAccount: false } }) : null;
    if (!user) throw notFound('USER_NOT_FOUND', 'user', caller.id);
    return user;
  }
}
