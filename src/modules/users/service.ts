import type { Prisma, User } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError, notFound } from '../../kernel/errors.js';
import { any, permission } from '../../kernel/evaluator.js';
import { idFilter, permittedIds, requireRoleWithin, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { hashPassword } from '../../platform/passwords.js';
import { createUserInput, updateUserInput } from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each user. */
export type UserQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };

/** Rows that are people, not service accounts. */
const PEOPLE = { isServiceAccount: false } as const;

/**
 * 409 unless no other user has `login` or `email` as its login or email: basic auth accepts
 * either, so a login equal to someone's email would make the two ambiguous (Grafana checks both).
 */
async function assertIdentityFree(tx: Tx, values: string[], exceptId?: number): Promise<void> {
  if (values.length === 0) return;
  const taken = await tx.user.findFirst({
    where: { OR: [{ login: { in: values } }, { email: { in: values } }], ...(exceptId !== undefined && { id: { not: exceptId } }) },
    select: { id: true },
  });
  if (taken) throw alreadyExists(`a user with login or email ${values.map((v) => `"${v}"`).join(' or ')} already exists`);
}

/** 400 when `userId` is the last enabled Service Admin (someone must stay able to administer the service). */
async function assertAnotherServiceAdmin(tx: Tx, userId: number): Promise<void> {
  const others = await tx.user.count({ where: { isServiceAdmin: true, isDisabled: false, id: { not: userId }, ...PEOPLE } });
  if (others === 0) throw new DomainError('LAST_SERVICE_ADMIN', 'cannot remove the last Service Admin');
}

export class UserService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates a user with a password; it joins the caller's organization with `orgRole` (Viewer
   * when omitted), which also becomes its default organization.
   * Needs users:create; `isServiceAdmin: true` needs a Service Admin; `orgRole` at most the
   * caller's own (unless Service Admin).
   * @throws DomainError VALIDATION_FAILED (400), UNAUTHENTICATED (401), ACCESS_DENIED (403),
   *   ORG_NOT_FOUND (404: the caller's organization is gone), ALREADY_EXISTS (409: login or email taken).
   */
  async create(caller: Principal, rawInput: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const input = parseInput(createUserInput, rawInput);
    await this.deps.access.check(caller, permission(Action.UsersCreate));
    if (input.isServiceAdmin) requireServiceAdmin(caller, 'create a Service Admin');
    const orgRole = input.orgRole ?? 'Viewer';
    requireRoleWithin(caller, orgRole);
    // Hash outside the transaction: it is slow on purpose and needs no lock.
    const passwordHash = await hashPassword(input.password);
    const { db } = this.deps;
    const orgId = caller.orgId;
    try {
      const id = await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        await assertIdentityFree(tx, [...new Set([input.login, input.email])]);
        const user = await tx.user.create({
          data: {
            login: input.login,
            email: input.email,
            name: input.name ?? '',
            passwordHash,
            isServiceAdmin: input.isServiceAdmin ?? false,
            orgId,
            orgs: { create: { orgId, role: orgRole } },
          },
          select: { id: true },
        });
        return user.id;
      });
      return await db.user.findUniqueOrThrow({ ...query, where: { id } });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`a user with login "${input.login}" or email "${input.email}" already exists`);
      throw error;
    }
  }

  /**
   * Updates a user's login, email, name, password or Service Admin flag; omitted fields are kept.
   * A new password ends the user's sessions; LDAP and OAuth users have none (400
   * PASSWORD_MANAGED_EXTERNALLY). Needs users:write on global.users:id:<id>;
   * `isServiceAdmin` needs a Service Admin and the last Service Admin cannot lose the flag.
   * @throws DomainError VALIDATION_FAILED (400), LAST_SERVICE_ADMIN (400), 401, 403,
   *   USER_NOT_FOUND (404), ALREADY_EXISTS (409).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const input = parseInput(updateUserInput, rawInput);
    await this.deps.access.check(caller, permission(Action.UsersWrite, Scope.globalUser(id)));
    if (input.isServiceAdmin != null) requireServiceAdmin(caller, 'grant or revoke Service Admin');
    const passwordHash = input.password != null ? await hashPassword(input.password) : undefined;
    const { db } = this.deps;
    try {
      await this.deps.access.write(async (tx) => {
        const user = await tx.user.findFirst({ where: { id, ...PEOPLE }, select: { id: true, isServiceAdmin: true, authModule: true } });
        if (!user) throw notFound('USER_NOT_FOUND', 'user', id);
        if (passwordHash !== undefined && user.authModule !== '') {
          throw new DomainError('PASSWORD_MANAGED_EXTERNALLY', 'Cannot set a local password for a user managed by LDAP or OAuth');
        }
        await assertIdentityFree(
          tx,
          [input.login, input.email].filter((v): v is string => v != null),
          id,
        );
        if (input.isServiceAdmin === false && user.isServiceAdmin) await assertAnotherServiceAdmin(tx, id);
        await tx.user.update({
          where: { id },
          data: {
            ...(input.login != null && { login: input.login }),
            ...(input.email != null && { email: input.email }),
            ...(input.name != null && { name: input.name }),
            ...(input.isServiceAdmin != null && { isServiceAdmin: input.isServiceAdmin }),
            ...(passwordHash !== undefined && { passwordHash }),
          },
        });
        if (passwordHash !== undefined) await tx.session.deleteMany({ where: { userId: id } });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists('login or email already taken');
      throw error;
    }
    return db.user.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * Deletes a user with its memberships, team memberships, role assignments and sessions.
   * Needs users:delete on global.users:id:<id>; the last Service Admin cannot be deleted.
   * @throws DomainError VALIDATION_FAILED (400), LAST_SERVICE_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, permission(Action.UsersDelete, Scope.globalUser(id)));
    await this.deps.access.write(async (tx) => {
      const user = await tx.user.findFirst({ where: { id, ...PEOPLE }, select: { isServiceAdmin: true } });
      if (!user) throw notFound('USER_NOT_FOUND', 'user', id);
      if (user.isServiceAdmin) await assertAnotherServiceAdmin(tx, id);
      await tx.user.delete({ where: { id } }); // memberships, roles, sessions: ON DELETE CASCADE
    });
    return { message: 'User deleted' };
  }

  /**
   * Users ordered by login. By default the members of the caller's organization (needs
   * org.users:read; only ids whose users:id:<id> it may read); with `global` every user of the
   * service (needs users:read on global.users:*).
   * @throws DomainError 401, 403.
   */
  async list(caller: Principal, options: { global?: boolean | null } = {}, query: UserQuery = {}): Promise<User[]> {
    requireSignedIn(caller);
    const { db, access } = this.deps;
    if (options.global) {
      await access.check(caller, permission(Action.UsersRead, Scope.GlobalUsersAll));
      return db.user.findMany({ ...query, where: { ...PEOPLE }, orderBy: [{ login: 'asc' }] });
    }
    const index = await access.check(caller, permission(Action.OrgUsersRead));
    const ids = permittedIds(index, Action.OrgUsersRead, 'users:id:');
    return db.user.findMany({
      ...query,
      where: { ...PEOPLE, ...idFilter(ids), orgs: { some: { orgId: caller.orgId } } },
      orderBy: [{ login: 'asc' }],
    });
  }

  /**
   * One user: any user with users:read on global.users:id:<id>, otherwise only a member of the
   * caller's organization with org.users:read on users:id:<id>.
   * @throws DomainError 400, 401, 403 (neither permission), USER_NOT_FOUND (404: unknown, a
   *   service account, or not visible from the caller's organization).
   */
  async get(caller: Principal, rawId: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const globalRead = permission(Action.UsersRead, Scope.globalUser(id));
    const index = await this.deps.access.check(caller, any(globalRead, permission(Action.OrgUsersRead, Scope.user(id))));
    const where: Prisma.UserWhereInput = globalRead.evaluate(index)
      ? { id, ...PEOPLE }
      : { id, ...PEOPLE, orgs: { some: { orgId: caller.orgId } } };
    const user = await this.deps.db.user.findFirst({ ...query, where });
    if (!user) throw notFound('USER_NOT_FOUND', 'user', id);
    return user;
  }
}
