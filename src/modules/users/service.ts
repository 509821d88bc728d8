/**
 * Users (people; service accounts share the table and have their own module): create, read,
 * list, update, delete, and a user's organizations and teams. The administrator's account
 * operations (password, Service Admin flag, disable and enable, default organization) are in
 * admin.ts; search and lookup in search.ts; the requirements and the invariants of every user
 * write (unique identity, external users, the last Service Admin, sessions) in rules.ts.
 *
 * Permissions (Grafana's pkg/api/api.go route table, scope global.users:id:<id> unless noted):
 * users:read to read one (or, on the GraphQL default path, org.users:read on users:id:<id> for a
 * member of the organization acted in), users:create, users:write, users:delete; changing a
 * password or the Service Admin flag through updateUser also needs what admin.ts needs for it; every
 * change of another account passes the one delegation rule (admin.ts), and so does a new user's org
 * role. The Service Admin's basic role holds them all. Each is checked before the body is validated, so a
 * 403 says nothing about the input.
 */
import type { OrgUser, Prisma, Team, User } from '../../generated/prisma/client.js';
import { recordAudit, userSnapshot } from '../../kernel/audit.js';
import { Action } from '../../kernel/catalogue.js';
import { authorizeGrant } from '../../kernel/delegation.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { type PermissionIndex, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { authorizeAccountControl, orgRoleGain, PRINCIPAL_GRANT_ACTION } from '../../kernel/gains.js';
import { idFilter, permittedIds, requireActingIn, requireRoleWithin, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Message } from '../../kernel/message.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { isUniqueViolation } from '../../platform/database.js';
import { hashPassword } from '../../platform/passwords.js';
import { adminCreateUserForm, type CreateUserInput, createUserInput, updateUserInput, updateUserProfileForm } from './inputs.js';
import {
  assertAnotherServiceAdmin,
  assertIdentityFree,
  authorizeServiceAdminChange,
  changeUser,
  findPerson,
  PEOPLE,
  readableWhere,
  readsGlobally,
  userNotFound,
  userRequirements,
} from './rules.js';
import { type TeamQuery, teamsOfUsers } from './teams-of.js';

export { userRequirements } from './rules.js';
export type { TeamQuery } from './teams-of.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each user. */
export type UserQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };

/** A membership with its organization's name (`GET /api/users/:id/orgs`). */
export type MembershipWithOrg = OrgUser & { org: { name: string } };

/** Grafana's answer to a taken login or email on user creation (AdminCreateUser), on both doors: 412. */
const loginTaken = (login: string, email: string) =>
  new DomainError('USER_ALREADY_EXISTS', `User with email '${email}' or username '${login}' already exists`);

/** Users: every method authorizes its caller (rules in the module comment). */
export class UserService {
  constructor(private readonly deps: FeatureDeps) {}

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
    const index = await this.deps.access.check(caller, userRequirements.create.for({}));
    const id = await this.insert(caller, index, parseInput(createUserInput, rawInput));
    return this.deps.db.user.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * `POST /api/admin/users` (Grafana's AdminCreateUser): `{name, email, login, password, OrgId}`;
   * login falls back to the email and the email to the login; the user joins `OrgId` (default:
   * the organization acted in) as Viewer. Same rules and errors as `create`. Answers
   * `{id, message: "User created"}`.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, ORG_NOT_FOUND (404),
   *   USER_ALREADY_EXISTS (412).
   */
  async adminCreate(caller: Principal, rawBody: unknown): Promise<{ id: number; message: string }> {
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, userRequirements.create.for({}));
    const id = await this.insert(caller, index, parseInput(adminCreateUserForm, rawBody));
    return { id, message: 'User created' };
  }

  /**
   * The write of `create` and `adminCreate`, after the permission check; returns the new id. The
   * new account's org role (and flag) pass the one delegation rule: its creator knows its password.
   */
  private async insert(caller: SignedInPrincipal, index: PermissionIndex, input: CreateUserInput): Promise<number> {
    if (input.isServiceAdmin) requireServiceAdmin(caller, 'create a Service Admin');
    const explicitOrg = input.orgId ?? null;
    if (explicitOrg !== null) requireActingIn(caller, explicitOrg);
    const orgId = explicitOrg ?? caller.orgId;
    const orgRole = input.orgRole ?? 'Viewer';
    requireRoleWithin(caller, orgRole);
    // Hash outside the transaction: it is slow on purpose and needs no lock.
    const passwordHash = await hashPassword(input.password);
    const taken = () => loginTaken(input.login, input.email);
    try {
      return await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) {
          if (explicitOrg !== null) throw new DomainError('VALIDATION_FAILED', `orgId: organization ${orgId} not found`);
          throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        }
        await assertIdentityFree(tx, [...new Set([input.login, input.email])], taken);
        const what = `create user "${input.login}" as ${orgRole} of organization ${orgId}`;
        const gains = [await orgRoleGain(tx, orgId, orgRole)];
        await authorizeGrant(
          tx,
          caller,
          index,
          {
            what,
            action: PRINCIPAL_GRANT_ACTION,
            gains,
            serviceAdmin: input.isServiceAdmin ?? false,
          },
          this.deps.clock.now(),
        );
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
   * setServiceAdmin, admin.ts). LDAP and OAuth users keep the profile and password their provider gives.
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
    if (input.isServiceAdmin != null) await authorizeServiceAdminChange(access, caller, id);
    const passwordHash = input.password != null ? await hashPassword(input.password) : undefined;
    await changeUser(access, caller, id, { ...input, ...(passwordHash !== undefined && { passwordHash }) }, this.deps.clock.now());
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
    await changeUser(this.deps.access, caller, id, parseInput(updateUserProfileForm, rawBody), this.deps.clock.now());
    return { message: 'User updated' };
  }

  /**
   * `DELETE /api/admin/users/:id` and deleteUser: deletes a user with its memberships, team
   * memberships, role assignments and sessions. Needs users:delete on global.users:id:<id> and the
   * one delegation rule on the account (admin.ts); the last enabled Service Admin cannot be deleted.
   * @throws DomainError VALIDATION_FAILED (400), LAST_SERVICE_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown): Promise<Message> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, userRequirements.delete.for({ id }));
    await this.deps.access.write(async (tx) => {
      const user = await findPerson(tx, id);
      await authorizeAccountControl(tx, caller, index, id, `delete user ${id}`, this.deps.clock.now());
      if (user.isServiceAdmin) await assertAnotherServiceAdmin(tx, id);
      await tx.user.delete({ where: { id } }); // memberships, roles, sessions: ON DELETE CASCADE
      await recordAudit(tx, caller, { action: 'user.delete', orgId: 0, resource: { kind: 'user', id }, before: userSnapshot(user) });
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
    if (!user) throw userNotFound(id);
    return user;
  }

  /**
   * Checks that `caller` may read user `id` (see `get`) and returns the `where` that finds it
   * behind the organization wall.
   */
  private async readable(caller: SignedInPrincipal, id: number, global: boolean): Promise<Prisma.UserWhereInput> {
    return readableWhere(caller, [id], await readsGlobally(this.deps.access, caller, id, global));
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
   * the user follows `get`. @throws DomainError 400, 401, 403, USER_NOT_FOUND (404).
   */
  async teamsOf(caller: Principal, rawId: unknown, query: TeamQuery = {}, options: { global?: boolean | null } = {}): Promise<Team[]> {
    const [teams] = await this.teamsOfMany(caller, [rawId], query, options);
    if (teams instanceof Error || teams === undefined) throw teams;
    return teams;
  }

  /**
   * `teamsOf` for many users at once (User.teams over a list): one answer per id, in order, each
   * its teams or the DomainError `teamsOf` would throw for it alone; a fixed number of statements
   * (teams-of.ts). @throws DomainError 401 (for every id at once).
   */
  async teamsOfMany(caller: Principal, rawIds: readonly unknown[], query: TeamQuery, options: { global?: boolean | null } = {}) {
    requireSignedIn(caller);
    return teamsOfUsers(this.deps, caller, rawIds, query, options.global ?? false);
  }
}
