/**
 * The administrator's operations on a user's account (Grafana's pkg/api/admin_users.go, and
 * UpdateUserActiveOrg of pkg/api/user.go): set a password, grant or revoke the Service Admin
 * flag, disable and enable, switch the default organization. Creating, updating and deleting
 * users is service.ts; the invariants these writes keep are in rules.ts.
 *
 * Permissions, each on global.users:id:<id> and checked before the body is validated:
 * users.password:write, users.permissions:write (and a Service Admin), users:disable,
 * users:enable (enable, and unlock the sign-in), users:write (switch organization).
 *
 * Every operation on another account passes the one delegation rule (kernel/delegation.ts):
 * the caller must be able to grant everything the account holds, in every
 * organization, or hold users.roles:add on permissions:type:escalate; a Service Admin's account
 * only a Service Admin (Grafana: only a server admin administers a server admin). So a
 * users:writer changes a weaker user's password, never a stronger one's.
 *
 * Sessions: a new password ends the user's sessions (the caller's own current one
 * stays when it sets its own), disabling ends them all; removing the Service Admin flag applies on
 * the next request of every session, since principals are rebuilt per request. A disabled user
 * cannot sign in (sign-in/service.ts) and keeps its data.
 */

import { recordAudit } from '../../kernel/audit.js';
import { DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { authorizeAccountControl } from '../../kernel/gains.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Message } from '../../kernel/message.js';
import type { Principal } from '../../kernel/principal.js';
import { hashPassword } from '../../platform/passwords.js';
import { setPasswordInput, setServiceAdminInput } from './inputs.js';
import { assertAnotherServiceAdmin, authorizeServiceAdminChange, changeUser, findPerson, userRequirements } from './rules.js';

/**
 * The failed-login counters an unlock clears (sign-in/throttle.ts LoginThrottle, composed in
 * modules/services.ts): the counters of the names `names` and of the account `userId`.
 */
export interface LoginLocks {
  /** The most failed sign-ins counted now on the names or the account (0: nothing to lift). */
  failures(names: readonly string[], userId: number): Promise<number>;
  unlock(names: readonly string[], userId: number): Promise<void>;
}

/** What the administrator's operations use: the database, the write path and the login counters. */
export interface UserAdminDeps extends FeatureDeps {
  loginLocks: LoginLocks;
}

/** Users' accounts as an administrator sees them: every method authorizes its caller (module comment). */
export class UserAdminService {
  constructor(private readonly deps: UserAdminDeps) {}

  /**
   * `PUT /api/admin/users/:id/password` `{password}` and GraphQL setUserPassword: a new local
   * password (at least 4 characters, argon2id); the user's sessions end. Needs users.password:write
   * on global.users:id:<id>.
   * @throws DomainError VALIDATION_FAILED (400), PASSWORD_MANAGED_EXTERNALLY (400: LDAP or OAuth
   *   user), 401, 403, USER_NOT_FOUND (404).
   */
  async setPassword(caller: Principal, rawId: unknown, rawBody: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, userRequirements.setPassword.for({ id }));
    const { password } = parseInput(setPasswordInput, rawBody);
    await changeUser(this.deps.access, caller, id, { passwordHash: await hashPassword(password) }, this.deps.clock.now());
    return { message: 'User password updated' };
  }

  /**
   * `PUT /api/admin/users/:id/permissions` `{isGrafanaAdmin}` and GraphQL setUserServiceAdmin:
   * grants or revokes the Service Admin flag (Grafana's Server Admin). Needs
   * users.permissions:write on global.users:id:<id> and a Service Admin; the last enabled Service
   * Admin keeps the flag.
   * @throws DomainError VALIDATION_FAILED (400), LAST_SERVICE_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async setServiceAdmin(caller: Principal, rawId: unknown, rawBody: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await authorizeServiceAdminChange(this.deps.access, caller, id);
    const { isGrafanaAdmin } = parseInput(setServiceAdminInput, rawBody);
    await changeUser(this.deps.access, caller, id, { isServiceAdmin: isGrafanaAdmin }, this.deps.clock.now());
    return { message: 'User permissions updated' };
  }

  /**
   * `POST /api/admin/users/:id/disable` and disableUser: the user can no longer sign in and every
   * session of it ends; it keeps its memberships, roles and data. Needs users:disable on
   * global.users:id:<id>; the last enabled Service Admin cannot be disabled. Disabling a disabled
   * user changes nothing and succeeds.
   * @throws DomainError VALIDATION_FAILED (400), LAST_SERVICE_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async disable(caller: Principal, rawId: unknown): Promise<Message> {
    return this.setDisabled(caller, rawId, true);
  }

  /**
   * `POST /api/admin/users/:id/enable` and enableUser: the user may sign in again. Needs
   * users:enable on global.users:id:<id>.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, USER_NOT_FOUND (404).
   */
  async enable(caller: Principal, rawId: unknown): Promise<Message> {
    return this.setDisabled(caller, rawId, false);
  }

  /**
   * `POST /api/admin/users/:id/unlock`, unlockUser and `portcullis user unlock <login>`: lifts the
   * sign-in lock that failed passwords put on the user (sign-in/throttle.ts: after
   * BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS failures its login and email answer 429 for the
   * window), so its right password is accepted at once. Clears the counters of its login, its
   * email and its account; a client address's counter stays. Needs users:enable on
   * global.users:id:<id>, as enabling does: both let the user sign in again. Recorded as
   * user.unlock `{failedSignIns}` before and after; a user with no failed sign-ins counted
   * changes nothing and records nothing, and succeeds.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, USER_NOT_FOUND (404).
   */
  async unlock(caller: Principal, rawId: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, userRequirements.unlock.for({ id }));
    const { loginLocks } = this.deps;
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
      await authorizeAccountControl(tx, caller, index, id, `unlock the sign-in of user ${id}`, this.deps.clock.now());
      const names = [user.login, user.email];
      const failedSignIns = await loginLocks.failures(names, id);
      if (failedSignIns === 0) return;
      // Cleared once authorized; the event is written in the same transaction, after the counters
      // (a store outside the database's transaction) were cleared.
      await loginLocks.unlock(names, id);
      await recordAudit(tx, caller, {
        action: 'user.unlock',
        orgId: 0,
        resource: { kind: 'user', id },
        before: { failedSignIns },
        after: { failedSignIns: 0 },
      });
    });
    return { message: 'User sign-in unlocked' };
  }

  private async setDisabled(caller: Principal, rawId: unknown, disabled: boolean): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, (disabled ? userRequirements.disable : userRequirements.enable).for({ id }));
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
      await authorizeAccountControl(tx, caller, index, id, `${disabled ? 'disable' : 'enable'} user ${id}`, this.deps.clock.now());
      if (disabled && user.isServiceAdmin && !user.isDisabled) await assertAnotherServiceAdmin(tx, id);
      await tx.user.update({ where: { id }, data: { isDisabled: disabled } });
      if (disabled) await tx.session.deleteMany({ where: { userId: id } });
      await recordAudit(tx, caller, {
        action: disabled ? 'user.disable' : 'user.enable',
        orgId: 0,
        resource: { kind: 'user', id },
        before: { isDisabled: user.isDisabled },
        after: { isDisabled: disabled },
      });
    });
    return { message: disabled ? 'User disabled' : 'User enabled' };
  }

  /**
   * `POST /api/users/:id/using/:orgId` and switchUserOrganization: the user's default
   * organization (where its requests act when they name none) becomes `orgId`, one it is a
   * member of. Needs users:write on global.users:id:<id> (Grafana's UpdateUserActiveOrg).
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, USER_NOT_FOUND (404),
   *   ORG_NOT_ACCESSIBLE (401 "Not a valid organization", as Grafana: not a member of `orgId`).
   */
  async switchOrg(caller: Principal, rawId: unknown, rawOrgId: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, userRequirements.write.for({ id }));
    const orgId = parseId('orgId', rawOrgId);
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
      await authorizeAccountControl(tx, caller, index, id, `switch the organization of user ${id}`, this.deps.clock.now());
      if ((await tx.orgUser.count({ where: { userId: id, orgId } })) === 0) {
        throw new DomainError('ORG_NOT_ACCESSIBLE', 'Not a valid organization');
      }
      await tx.user.update({ where: { id }, data: { orgId } });
      await recordAudit(tx, caller, {
        action: 'user.update',
        orgId: 0,
        resource: { kind: 'user', id },
        before: { orgId: user.orgId },
        after: { orgId },
      });
    });
    return { message: 'Active organization changed' };
  }
}
