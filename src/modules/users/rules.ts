/**
 * What every user operation shares (service.ts, admin.ts, search.ts): the permission each needs,
 * which rows are people, and the one write of a user's profile, password and Service Admin flag
 * with the invariants it keeps.
 *
 * Invariants (Grafana's pkg/api/user.go and admin_users.go): login and email stay
 * unique, crosswise, since basic auth accepts either; LDAP and OAuth users keep the profile and
 * password their provider gives; someone must stay able to administer the service, so the last
 * enabled Service Admin can be neither demoted, deleted nor disabled; a new password ends the
 * user's sessions except the caller's current one. Every change is audited with orgId 0, users
 * being global objects.
 */
import type { Prisma, User } from '../../generated/prisma/client.js';
import type { AccessService } from '../../kernel/access.js';
import { recordAudit } from '../../kernel/audit.js';
import { AUTH_MODULE } from '../../kernel/auth-module.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError } from '../../kernel/errors.js';
import { any, permission } from '../../kernel/evaluator.js';
import { authorizeAccountControl, DELEGATION_NOTES } from '../../kernel/gains.js';
import { requireServiceAdmin } from '../../kernel/guards.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';

/**
 * What each operation needs, declared once for the services, the REST table and the GraphQL
 * descriptions (Grafana's pkg/api/api.go: `userIDScope` is global.users:id:<id>).
 */
export const userRequirements = {
  search: requirement([], () => permission(Action.UsersRead, Scope.GlobalUsersAll)),
  read: requirement(['id'], ({ id }) => permission(Action.UsersRead, Scope.globalUser(id))),
  create: requirement(
    [],
    () => permission(Action.UsersCreate),
    'and a Service Admin for another organization than the one acted in or a new Service Admin',
  ),
  write: requirement(['id'], ({ id }) => permission(Action.UsersWrite, Scope.globalUser(id)), DELEGATION_NOTES.account),
  delete: requirement(['id'], ({ id }) => permission(Action.UsersDelete, Scope.globalUser(id)), DELEGATION_NOTES.account),
  setPassword: requirement(['id'], ({ id }) => permission(Action.UsersPasswordWrite, Scope.globalUser(id)), DELEGATION_NOTES.account),
  setServiceAdmin: requirement(['id'], ({ id }) => permission(Action.UsersPermissionsWrite, Scope.globalUser(id)), 'and a Service Admin'),
  disable: requirement(['id'], ({ id }) => permission(Action.UsersDisable, Scope.globalUser(id)), DELEGATION_NOTES.account),
  enable: requirement(['id'], ({ id }) => permission(Action.UsersEnable, Scope.globalUser(id)), DELEGATION_NOTES.account),
  unlock: requirement(['id'], ({ id }) => permission(Action.UsersEnable, Scope.globalUser(id)), DELEGATION_NOTES.account),
};

/**
 * Checks that `caller` may grant or revoke user `id`'s Service Admin flag: users.permissions:write
 * on global.users:id:<id> and being a Service Admin itself (updateUser and setServiceAdmin alike).
 * @throws DomainError ACCESS_DENIED (403).
 */
export async function authorizeServiceAdminChange(access: AccessService, caller: SignedInPrincipal, id: number): Promise<void> {
  await access.check(caller, userRequirements.setServiceAdmin.for({ id }));
  requireServiceAdmin(caller, 'grant or revoke Service Admin');
}

/** Rows that are people, not service accounts (which share the table and have their own module). */
export const PEOPLE = { isServiceAccount: false } as const;

/**
 * Checks that `caller` may read user `id` (UserService.get): with `global` (REST, Grafana's
 * rule) users:read on global.users:id:<id>; without, that or org.users:read on users:id:<id>.
 * True when it may read the user wherever it is, false when only behind the organization wall.
 * @throws DomainError ACCESS_DENIED (403) when neither.
 */
export async function readsGlobally(access: AccessService, caller: SignedInPrincipal, id: number, global: boolean): Promise<boolean> {
  const globalRead = userRequirements.read.for({ id });
  const index = await access.check(caller, global ? globalRead : any(globalRead, permission(Action.OrgUsersRead, Scope.user(id))));
  return globalRead.evaluate(index);
}

/** The `where` that finds users `ids` as `get` reads them: anywhere when `globally`, else behind the organization wall. */
export function readableWhere(caller: SignedInPrincipal, ids: readonly number[], globally: boolean): Prisma.UserWhereInput {
  const where = { id: ids.length === 1 ? ids[0] : { in: [...ids] }, ...PEOPLE };
  return globally ? where : { ...where, orgs: { some: { orgId: caller.orgId } } };
}

/**
 * 404 USER_NOT_FOUND with Grafana's text, "user not found" (pkg/services/user ErrUserNotFound,
 * which Grafana's user handlers answer as is); which user (id, or login or email) is in the details.
 */
export function userNotFound(who: number | string): DomainError {
  return new DomainError('USER_NOT_FOUND', 'user not found', typeof who === 'number' ? { id: who } : { name: who });
}

/** 404 USER_NOT_FOUND unless `id` is a person; returns its row. */
export async function findPerson(tx: Tx, id: number): Promise<User> {
  const user = await tx.user.findFirst({ where: { id, ...PEOPLE } });
  if (!user) throw userNotFound(id);
  return user;
}

/**
 * Throws `onTaken()` unless no user (other than `exceptId`) has one of `values` as its login or
 * email: basic auth accepts either, so a login equal to someone's email would make the two
 * ambiguous (Grafana checks both).
 */
export async function assertIdentityFree(tx: Tx, values: string[], onTaken: () => DomainError, exceptId?: number): Promise<void> {
  if (values.length === 0) return;
  const taken = await tx.user.findFirst({
    where: { OR: [{ login: { in: values } }, { email: { in: values } }], ...(exceptId !== undefined && { id: { not: exceptId } }) },
    select: { id: true },
  });
  if (taken) throw onTaken();
}

/** 400 LAST_SERVICE_ADMIN when `userId` is the last enabled Service Admin. */
export async function assertAnotherServiceAdmin(tx: Tx, userId: number): Promise<void> {
  const others = await tx.user.count({ where: { isServiceAdmin: true, isDisabled: false, id: { not: userId }, ...PEOPLE } });
  if (others === 0) throw new DomainError('LAST_SERVICE_ADMIN', 'cannot remove the last Service Admin');
}

/** The changes of one user write (see changeUser); undefined or null fields are kept. */
export interface UserPatch {
  login?: string | null;
  email?: string | null;
  name?: string | null;
  isServiceAdmin?: boolean | null;
  /** An argon2id hash, made by the caller outside the transaction (it is slow on purpose). */
  passwordHash?: string;
}

/**
 * The one write of a user's profile, password and flag, after the caller's permission checks,
 * keeping the module's invariants (see the module comment). Taking control of an account passes
 * the one delegation rule (kernel/gains.ts authorizeAccountControl): the caller must be able to
 * grant everything the user holds, in every organization (ACCESS_DENIED otherwise), checked in
 * the transaction before anything is written, at `now` (the services' clock). Audited as user.update (profile),
 * user.password_set (with the number of sessions ended) and user.service_admin_set.
 * @throws DomainError USER_NOT_FOUND (404), ACCESS_DENIED (403: delegation), PASSWORD_MANAGED_EXTERNALLY
 *   (400), USER_MANAGED_EXTERNALLY (403), ALREADY_EXISTS (409), LAST_SERVICE_ADMIN (400).
 */
export async function changeUser(access: AccessService, caller: SignedInPrincipal, id: number, patch: UserPatch, now: Date): Promise<void> {
  const profile = { login: patch.login ?? null, email: patch.email ?? null, name: patch.name ?? null };
  const touchesProfile = profile.login !== null || profile.email !== null || profile.name !== null;
  const flag = patch.isServiceAdmin ?? null;
  const keepSession = caller.kind === 'user' && caller.id === id ? caller.sessionId : undefined;
  const index = await access.permissionsOf(caller); // before the transaction: the one delegation rule's input
  const fields = [touchesProfile && 'profile', patch.passwordHash !== undefined && 'password', flag !== null && 'Service Admin flag'];
  const what = `change the ${fields.filter(Boolean).join(', ')} of user ${id}`;
  try {
    await access.write(async (tx) => {
      const before = await findPerson(tx, id);
      await authorizeAccountControl(tx, caller, index, id, what, now);
      const external = before.authModule !== AUTH_MODULE.local;
      if (patch.passwordHash !== undefined && external) {
        throw new DomainError('PASSWORD_MANAGED_EXTERNALLY', 'Cannot set a local password for a user managed by LDAP or OAuth');
      }
      if (touchesProfile && external) {
        throw new DomainError('USER_MANAGED_EXTERNALLY', 'User info cannot be updated for external Users');
      }
      const identity = [profile.login, profile.email].filter((v): v is string => v !== null);
      await assertIdentityFree(
        tx,
        [...new Set(identity)],
        () =>
          alreadyExists(`a user with login "${profile.login ?? before.login}" or email "${profile.email ?? before.email}" already exists`),
        id,
      );
      if (flag === false && before.isServiceAdmin) await assertAnotherServiceAdmin(tx, id);
      const after = await tx.user.update({
        where: { id },
        data: {
          ...(profile.login !== null && { login: profile.login }),
          ...(profile.email !== null && { email: profile.email }),
          ...(profile.name !== null && { name: profile.name }),
          ...(flag !== null && { isServiceAdmin: flag }),
          ...(patch.passwordHash !== undefined && { passwordHash: patch.passwordHash }),
        },
      });
      const resource = { kind: 'user', id };
      if (touchesProfile) {
        const pick = (u: User) => ({ login: u.login, email: u.email, name: u.name });
        await recordAudit(tx, caller, { action: 'user.update', orgId: 0, resource, before: pick(before), after: pick(after) });
      }
      if (patch.passwordHash !== undefined) {
        const { count } = await tx.session.deleteMany({
          where: { userId: id, ...(keepSession !== undefined && { id: { not: keepSession } }) },
        });
        await recordAudit(tx, caller, { action: 'user.password_set', orgId: 0, resource, after: { sessionsEnded: count } });
      }
      if (flag !== null) {
        await recordAudit(tx, caller, {
          action: 'user.service_admin_set',
          orgId: 0,
          resource,
          before: { isServiceAdmin: before.isServiceAdmin },
          after: { isServiceAdmin: after.isServiceAdmin },
        });
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw alreadyExists('login or email already taken');
    throw error;
  }
}
