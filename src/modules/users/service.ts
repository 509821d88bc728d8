/**
 * Users (people; service accounts share the table and have their own module): create, read,
 * search, update, delete; set a password, the Service Admin flag, disable and enable.
 *
 * Permissions (Grafana's pkg/api/api.go route table, scope global.users:id:<id> unless noted):
 * users:read on global.users:* to search and look up, users:read to read one (or, on the GraphQL
 * default path, org.users:read on users:id:<id> for a member of the organization acted in),
 * users:create, users:write, users:delete, users.password:write, users.permissions:write (and
 * a Service Admin), users:disable, users:enable. The Service Admin's basic role holds them all.
 * Each is checked before the body is validated, so a 403 says nothing about the input.
 *
 * Sessions (issue #11): a new password ends the user's sessions (the caller's own current one
 * stays when it sets its own), disabling ends them all; removing the Service Admin flag applies
 * on the next request of every session, since principals are rebuilt per request. A disabled
 * user cannot sign in (sign-in/service.ts) and keeps its data. Someone must stay able to
 * administer the service: the last enabled Service Admin can be neither demoted, deleted nor
 * disabled. Every change is recorded in the audit log (kernel/audit.ts), users being global
 * objects (orgId 0).
 */
import type { OrgUser, Prisma, Team, User } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError, notFound } from '../../kernel/errors.js';
import { any, permission } from '../../kernel/evaluator.js';
import { idFilter, permittedIds, requireActingIn, requireRoleWithin, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { type Clock, systemClock } from '../../platform/clock.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { hashPassword } from '../../platform/passwords.js';
import { ageString, lastSeenAt as lastSeenOf } from '../shared/directory.js';
import {
  adminCreateUserForm,
  type CreateUserInput,
  createUserInput,
  loginOrEmailInput,
  searchUsersInput,
  setPasswordInput,
  setServiceAdminInput,
  updateUserInput,
  updateUserProfileForm,
} from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each user. */
export type UserQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };
/** The same for teams (User.teams, `GET /api/users/:id/teams`). */
export type TeamQuery = { include?: Prisma.TeamInclude; select?: Prisma.TeamSelect };

/** Rows that are people, not service accounts. */
const PEOPLE = { isServiceAccount: false } as const;

/**
 * What each operation needs, declared once for the service, the REST table and the GraphQL
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
  write: requirement(['id'], ({ id }) => permission(Action.UsersWrite, Scope.globalUser(id))),
  delete: requirement(['id'], ({ id }) => permission(Action.UsersDelete, Scope.globalUser(id))),
  setPassword: requirement(['id'], ({ id }) => permission(Action.UsersPasswordWrite, Scope.globalUser(id))),
  setServiceAdmin: requirement(['id'], ({ id }) => permission(Action.UsersPermissionsWrite, Scope.globalUser(id)), 'and a Service Admin'),
  disable: requirement(['id'], ({ id }) => permission(Action.UsersDisable, Scope.globalUser(id))),
  enable: requirement(['id'], ({ id }) => permission(Action.UsersEnable, Scope.globalUser(id))),
};

/** A user of a search page, with when it was last seen (its newest session) and Grafana's age text of that. */
export type SearchedUser = User & { lastSeenAt: Date; lastSeenAtAge: string };

/** One page of a user search (Grafana's SearchUserQueryResult). */
export interface UserSearchPage {
  totalCount: number;
  users: SearchedUser[];
  page: number;
  perPage: number;
}

/** A membership with its organization's name (`GET /api/users/:id/orgs`). */
export type MembershipWithOrg = OrgUser & { org: { name: string } };

/** `{ message }` answered by the writes, Grafana's texts. */
export interface Message {
  message: string;
}

/** The changes of one user write (see UserService.change); undefined/null fields are kept. */
interface UserPatch {
  login?: string | null;
  email?: string | null;
  name?: string | null;
  isServiceAdmin?: boolean | null;
  passwordHash?: string;
}

/**
 * The conflict of an identity check: 409 for updates; creation answers as Grafana's admin user
 * creation, 412 "User with email '<email>' or username '<login>' already exists", on every door.
 */
type Conflict = (login: string, email: string) => DomainError;
const conflict409: Conflict = (login, email) => alreadyExists(`a user with login "${login}" or email "${email}" already exists`);
/** Grafana's answer to a taken login or email on user creation (both doors): 412. */
const loginTaken: Conflict = (login, email) =>
  new DomainError('USER_ALREADY_EXISTS', `User with email '${email}' or username '${login}' already exists`);

/**
 * Throws unless no other user has `login` or `email` as its login or email: basic auth accepts
 * either, so a login equal to someone's email would make the two ambiguous (Grafana checks both).
 */
async function assertIdentityFree(tx: Tx, values: string[], onTaken: () => DomainError, exceptId?: number): Promise<void> {
  if (values.length === 0) return;
  const taken = await tx.user.findFirst({
    where: { OR: [{ login: { in: values } }, { email: { in: values } }], ...(exceptId !== undefined && { id: { not: exceptId } }) },
    select: { id: true },
  });
  if (taken) throw onTaken();
}

/** 400 when `userId` is the last enabled Service Admin (someone must stay able to administer the service). */
async function assertAnotherServiceAdmin(tx: Tx, userId: number): Promise<void> {
  const others = await tx.user.count({ where: { isServiceAdmin: true, isDisabled: false, id: { not: userId }, ...PEOPLE } });
  if (others === 0) throw new DomainError('LAST_SERVICE_ADMIN', 'cannot remove the last Service Admin');
}

/** 404 USER_NOT_FOUND unless `id` is a person; returns its row. */
async function findPerson(tx: Tx, id: number): Promise<User> {
  const user = await tx.user.findFirst({ where: { id, ...PEOPLE } });
  if (!user) throw notFound('USER_NOT_FOUND', 'user', id);
  return user;
}

/** What the audit log keeps of a user: no hash (auditSnapshot would drop it anyway), no timestamps. */
function userSnapshot(user: User) {
  const { id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule } = user;
  return { id, login, email, name, orgId, isServiceAdmin, isDisabled, authModule };
}

export interface UserServiceDeps extends FeatureDeps {
  /** For last-seen ages; the system clock when omitted. */
  clock?: Clock;
}

/** Users: every method authorizes its caller (rules in the module comment). */
export class UserService {
  private readonly clock: Clock;

  constructor(private readonly deps: UserServiceDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * createUser (GraphQL, CLI): a user with a password who joins `orgId` (default: the
   * organization acted in, which also becomes its default organization) with `orgRole` (Viewer
   * when omitted). Needs users:create; another organization than the one acted in and
   * `isServiceAdmin: true` need a Service Admin; `orgRole` at most the caller's own (unless Service Admin).
   * @throws DomainError VALIDATION_FAILED (400, also for an `orgId` that does not exist),
   *   UNAUTHENTICATED (401), ACCESS_DENIED (403), ORG_NOT_FOUND (404: the organization acted in is
   *   gone), USER_ALREADY_EXISTS (412: login or email taken).
   */
  async create(caller: Principal, rawInput: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, userRequirements.create.for({}));
    const input = parseInput(createUserInput, rawInput);
    const id = await this.insert(caller, input, loginTaken);
    return this.deps.db.user.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * `POST /api/admin/users` (Grafana's AdminCreateUser): `{name, email, login, password, OrgId}`;
   * login falls back to the email and the email to the login; the user joins `OrgId` (default:
   * the organization acted in) as Viewer. Same rules as `create`, but a taken login or email is
   * Grafana's 412. Answers `{id, message: "User created"}`.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, ORG_NOT_FOUND (404),
   *   USER_ALREADY_EXISTS (412).
   */
  async adminCreate(caller: Principal, rawBody: unknown): Promise<{ id: number; message: string }> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, userRequirements.create.for({}));
    const form = parseInput(adminCreateUserForm, rawBody);
    const id = await this.insert(caller, form, loginTaken);
    return { id, message: 'User created' };
  }

  /** The write of `create` and `adminCreate`, after the permission check; returns the new id. */
  private async insert(caller: SignedInPrincipal, input: CreateUserInput, onTaken: Conflict): Promise<number> {
    if (input.isServiceAdmin) requireServiceAdmin(caller, 'create a Service Admin');
    const explicitOrg = input.orgId ?? null;
    if (explicitOrg !== null) requireActingIn(caller, explicitOrg);
    const orgId = explicitOrg ?? caller.orgId;
    const orgRole = input.orgRole ?? 'Viewer';
    requireRoleWithin(caller, orgRole);
    // Hash outside the transaction: it is slow on purpose and needs no lock.
    const passwordHash = await hashPassword(input.password);
    const taken = () => onTaken(input.login, input.email);
    try {
      return await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) {
          if (explicitOrg !== null) throw new DomainError('VALIDATION_FAILED', `orgId: organization ${orgId} not found`);
          throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        }
        await assertIdentityFree(tx, [...new Set([input.login, input.email])], taken);
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
        });
        await recordAudit(tx, caller, {
          action: 'user.create',
          orgId: 0,
          resource: { kind: 'user', id: user.id },
          after: { ...userSnapshot(user), membership: { orgId, role: orgRole } },
        });
        return user.id;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
  }

  /**
   * updateUser (GraphQL): login, email, name, password or Service Admin flag; omitted fields are
   * kept. Needs users:write on global.users:id:<id>; a password also users.password:write, the
   * flag also users.permissions:write and a Service Admin (the rules of setPassword and
   * setServiceAdmin). LDAP and OAuth users keep the profile and password their provider gives.
   * @throws DomainError VALIDATION_FAILED (400), PASSWORD_MANAGED_EXTERNALLY (400),
   *   LAST_SERVICE_ADMIN (400), 401, ACCESS_DENIED (403), USER_MANAGED_EXTERNALLY (403: login,
   *   email or name of an LDAP or OAuth user), USER_NOT_FOUND (404), ALREADY_EXISTS (409).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const { access } = this.deps;
    await access.check(caller, userRequirements.write.for({ id }));
    const input = parseInput(updateUserInput, rawInput);
    if (input.password != null) await access.check(caller, userRequirements.setPassword.for({ id }));
    if (input.isServiceAdmin != null) {
      await access.check(caller, userRequirements.setServiceAdmin.for({ id }));
      requireServiceAdmin(caller, 'grant or revoke Service Admin');
    }
    const passwordHash = input.password != null ? await hashPassword(input.password) : undefined;
    await this.change(caller, id, { ...input, ...(passwordHash !== undefined && { passwordHash }) });
    return this.deps.db.user.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * `PUT /api/users/:id` (Grafana's UpdateUser): `{login, email, name, theme}`; a missing login
   * is the email, a missing name is kept. Needs users:write on global.users:id:<id>.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, USER_MANAGED_EXTERNALLY (403),
   *   USER_NOT_FOUND (404), ALREADY_EXISTS (409).
   */
  async updateProfile(caller: Principal, rawId: unknown, rawBody: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, userRequirements.write.for({ id }));
    const profile = parseInput(updateUserProfileForm, rawBody);
    await this.change(caller, id, profile);
    return { message: 'User updated' };
  }

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
    await this.change(caller, id, { passwordHash: await hashPassword(password) });
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
    await this.deps.access.check(caller, userRequirements.setServiceAdmin.for({ id }));
    requireServiceAdmin(caller, 'grant or revoke Service Admin');
    const { isGrafanaAdmin } = parseInput(setServiceAdminInput, rawBody);
    await this.change(caller, id, { isServiceAdmin: isGrafanaAdmin });
    return { message: 'User permissions updated' };
  }

  /**
   * The one write of a user's profile, password and flag, after the permission checks: external
   * users keep what their provider gives, login and email stay unique (crosswise), the last
   * Service Admin keeps the flag, a new password ends the user's sessions (not the caller's
   * current one). Audited as user.update, user.password_set and user.service_admin_set.
   */
  private async change(caller: SignedInPrincipal, id: number, patch: UserPatch): Promise<void> {
    const profile = { login: patch.login ?? null, email: patch.email ?? null, name: patch.name ?? null };
    const touchesProfile = profile.login !== null || profile.email !== null || profile.name !== null;
    const flag = patch.isServiceAdmin ?? null;
    const keepSession = caller.kind === 'user' && caller.id === id ? caller.sessionId : undefined;
    try {
      await this.deps.access.write(async (tx) => {
        const before = await findPerson(tx, id);
        const external = before.authModule !== '';
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
          () => conflict409(profile.login ?? before.login, profile.email ?? before.email),
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

  /**
   * `DELETE /api/admin/users/:id` and deleteUser: deletes a user with its memberships, team
   * memberships, role assignments and sessions. Needs users:delete on global.users:id:<id>; the
   * last enabled Service Admin cannot be deleted.
   * @throws DomainError VALIDATION_FAILED (400), LAST_SERVICE_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, userRequirements.delete.for({ id }));
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
      if (user.isServiceAdmin) await assertAnotherServiceAdmin(tx, id);
      await tx.user.delete({ where: { id } }); // memberships, roles, sessions: ON DELETE CASCADE
      await recordAudit(tx, caller, { action: 'user.delete', orgId: 0, resource: { kind: 'user', id }, before: userSnapshot(user) });
    });
    return { message: 'User deleted' };
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

  private async setDisabled(caller: Principal, rawId: unknown, disabled: boolean): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, (disabled ? userRequirements.disable : userRequirements.enable).for({ id }));
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
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
    await this.deps.access.check(caller, userRequirements.write.for({ id }));
    const orgId = parseId('orgId', rawOrgId);
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
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
      await access.check(caller, userRequirements.search.for({}));
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
   * `GET /api/users`, `/api/users/search` and searchUsers (Grafana's SearchUsersWithPaging): every
   * user whose login, email or name contains `query` (case-insensitive for ASCII), by login then
   * email, page `page` (from 1) of `perPage` (default 1000). Needs users:read on global.users:*.
   * @throws DomainError VALIDATION_FAILED (400: query longer than 190 characters), 401, 403.
   */
  async search(caller: Principal, rawOptions: unknown, query: UserQuery = {}): Promise<UserSearchPage> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, userRequirements.search.for({}));
    const { query: text, page, perPage } = parseInput(searchUsersInput, rawOptions ?? {});
    const where: Prisma.UserWhereInput = {
      ...PEOPLE,
      ...(text && { OR: [{ login: { contains: text } }, { email: { contains: text } }, { name: { contains: text } }] }),
    };
    const skip = (page - 1) * perPage;
    const { db } = this.deps;
    const [totalCount, users] = await Promise.all([
      db.user.count({ where }),
      // A page past any possible row is empty without asking (and without an unsafe integer).
      Number.isSafeInteger(skip)
        ? db.user.findMany({ ...query, where, orderBy: [{ login: 'asc' }, { email: 'asc' }], skip, take: perPage })
        : Promise.resolve([] as User[]),
    ]);
    return { totalCount, users: await this.withLastSeen(users), page, perPage };
  }

  /** `users` with their last-seen time (newest session, or Grafana's "created - 10 years") and its age. */
  private async withLastSeen(users: User[]): Promise<SearchedUser[]> {
    if (users.length === 0) return [];
    const seen = await this.deps.db.session.groupBy({
      by: ['userId'],
      where: { userId: { in: users.map((u) => u.id) } },
      _max: { lastSeenAt: true },
    });
    const byUser = new Map(seen.map((s) => [s.userId, s._max.lastSeenAt]));
    const now = this.clock.now();
    return users.map((u) => {
      const lastSeenAt = lastSeenOf(byUser.get(u.id), u.created);
      return { ...u, lastSeenAt, lastSeenAtAge: ageString(lastSeenAt, now) };
    });
  }

  /**
   * `GET /api/users/lookup?loginOrEmail=` and userByLoginOrEmail: the user whose login or email
   * is `loginOrEmail`. Needs users:read on global.users:*.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, USER_NOT_FOUND (404: nobody, "" included).
   */
  async lookup(caller: Principal, rawLoginOrEmail: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, userRequirements.search.for({}));
    const loginOrEmail = parseInput(loginOrEmailInput, rawLoginOrEmail ?? '');
    const user =
      loginOrEmail === ''
        ? null
        : await this.deps.db.user.findFirst({ ...query, where: { ...PEOPLE, OR: [{ login: loginOrEmail }, { email: loginOrEmail }] } });
    if (!user) throw notFound('USER_NOT_FOUND', 'user', loginOrEmail);
    return user;
  }

  /**
   * One user. With `global` (REST `GET /api/users/:id`, Grafana's rule): users:read on
   * global.users:id:<id>. Without (GraphQL default): that, or org.users:read on users:id:<id>
   * for a member of the organization acted in.
   * @throws DomainError 400, 401, 403 (neither permission), USER_NOT_FOUND (404: unknown, a
   *   service account, or not visible from the caller's organization).
   */
  async get(caller: Principal, rawId: unknown, query: UserQuery = {}, options: { global?: boolean | null } = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const where = await this.readable(caller, id, options.global ?? false);
    const user = await this.deps.db.user.findFirst({ ...query, where });
    if (!user) throw notFound('USER_NOT_FOUND', 'user', id);
    return user;
  }

  /**
   * Checks that `caller` may read user `id` (see `get`) and returns the `where` that finds it
   * behind the organization wall.
   */
  private async readable(caller: SignedInPrincipal, id: number, global: boolean): Promise<Prisma.UserWhereInput> {
    const globalRead = userRequirements.read.for({ id });
    const index = await this.deps.access.check(
      caller,
      global ? globalRead : any(globalRead, permission(Action.OrgUsersRead, Scope.user(id))),
    );
    return globalRead.evaluate(index) ? { id, ...PEOPLE } : { id, ...PEOPLE, orgs: { some: { orgId: caller.orgId } } };
  }

  /**
   * `GET /api/users/:id/orgs`: every membership of the user with its organization's name, by
   * organization id. Needs users:read on global.users:id:<id>.
   * @throws DomainError 400, 401, 403, USER_NOT_FOUND (404).
   */
  async orgsOf(caller: Principal, rawId: unknown): Promise<MembershipWithOrg[]> {
    const user = await this.get(caller, rawId, { select: { id: true } }, { global: true });
    return this.deps.db.orgUser.findMany({
      where: { userId: user.id },
      include: { org: { select: { name: true } } },
      orderBy: [{ orgId: 'asc' }],
    });
  }

  /**
   * `GET /api/users/:id/teams` (with `global`) and User.teams: the user's teams in the
   * organization acted in that the caller may read (teams:read on teams:id:<id>), by name. Reading
   * the user follows `get`.
   * @throws DomainError 400, 401, 403, USER_NOT_FOUND (404).
   */
  async teamsOf(caller: Principal, rawId: unknown, query: TeamQuery = {}, options: { global?: boolean | null } = {}): Promise<Team[]> {
    const user = await this.get(caller, rawId, { select: { id: true } }, options);
    const index = await this.deps.access.permissionsOf(caller);
    const teamIds = permittedIds(index, Action.TeamsRead, 'teams:id:');
    return this.deps.db.team.findMany({
      ...query,
      where: { orgId: caller.orgId, ...idFilter(teamIds), members: { some: { userId: user.id } } },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
  }
}
