/**
 * Organizations and their members: create, read, search, rename and delete organizations; list
 * the members of one, add a user to it with an org role, change that role, remove the user.
 *
 * Permissions (Grafana's route table, pkg/api/api.go, declared in `orgRequirements`): orgs:create;
 * orgs:read on orgs:* to search or find by name (Service Admin); orgs:read / orgs:write /
 * orgs:delete on orgs:id:<id> for one organization (Viewer reads and Admin renames the one they
 * act in, a Service Admin any); org.users:read to list members (only those whose users:id:<id> it
 * covers); org.users:add, org.users:write and org.users:remove on users:id:<userId> (org Admin,
 * and Service Admin everywhere); adding also needs users:read on global.users (see addUser).
 *
 * The wall (kernel/guards.ts): an operation naming an organization needs the caller to act in it
 * unless it is a Service Admin; reading another organization answers 404 as if it did not exist.
 * No role above the caller's own may be given (Grafana: "Cannot assign a role higher than user's
 * role"). An organization keeps at least one Admin person (Grafana: "Cannot remove last
 * organization admin"). Every change goes through `access.write()` (it can change permissions)
 * and is recorded in the audit log (org.*, org_user.*).
 */
import type { Org, OrgUser, Prisma } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError } from '../../kernel/errors.js';
import { all, permission } from '../../kernel/evaluator.js';
import { permittedIds, requireActingIn, requireRoleWithin, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { MAX_NAME_LENGTH, parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isLocalOperator } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import {
  addOrgUserByLoginBody,
  createOrganizationInput,
  membershipInput,
  orgSearchInput,
  orgUserRoleInput,
  orgUsersInput,
  updateOrganizationInput,
} from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each organization / membership. */
export type OrgQuery = { include?: Prisma.OrgInclude; select?: Prisma.OrgSelect };
export type OrgUserQuery = { include?: Prisma.OrgUserInclude; select?: Prisma.OrgUserSelect };

const WALL = 'acting in that organization unless a Service Admin';

/** What each operation needs (Grafana's route table); services check exactly these. */
export const orgRequirements = {
  read: requirement(['id'], ({ id }) => permission(Action.OrgsRead, Scope.org(id)), WALL),
  /** Search every organization, or find one by name: Grafana's "needs to be assigned globally". */
  readAll: requirement([], () => permission(Action.OrgsRead, Scope.OrgsAll)),
  create: requirement([], () => permission(Action.OrgsCreate), 'and a user (not a key or service account)'),
  write: requirement(['id'], ({ id }) => permission(Action.OrgsWrite, Scope.org(id)), WALL),
  delete: requirement(
    ['id'],
    ({ id }) => permission(Action.OrgsDelete, Scope.org(id)),
    'and a Service Admin; never the organization the request acts in',
  ),
  readUsers: requirement([], () => permission(Action.OrgUsersRead), `lists the users:id:<id> it covers; ${WALL}`),
  addUser: requirement(
    ['userId'],
    ({ userId }) => all(permission(Action.OrgUsersAdd, Scope.user(userId)), permission(Action.UsersRead, Scope.globalUser(userId))),
    `a role at most your own; ${WALL}`,
  ),
  /** By login or email: the search reaches every user of the service, hence global.users:*. */
  addUserByLogin: requirement(
    [],
    () => all(permission(Action.OrgUsersAdd, Scope.UsersAll), permission(Action.UsersRead, Scope.GlobalUsersAll)),
    `a role at most your own; ${WALL}`,
  ),
  writeUser: requirement(
    ['userId'],
    ({ userId }) => permission(Action.OrgUsersWrite, Scope.user(userId)),
    `a role at most your own; ${WALL}`,
  ),
  removeUser: requirement(['userId'], ({ userId }) => permission(Action.OrgUsersRemove, Scope.user(userId)), WALL),
};

/** One page of an organization's members, as Grafana's SearchOrgUsersQueryResult. */
export interface OrgMembersPage<T> {
  /** Members matching the filter, before paging. */
  totalCount: number;
  members: T[];
  /** 1-based page; 1 when not paged. */
  page: number;
  /** Page size; 0 when not paged (everything, or the first `limit`). */
  perPage: number;
}

/** Grafana's default page size of the organization and member searches. */
const DEFAULT_PER_PAGE = 1000;
const PEOPLE = { isServiceAccount: false } as const;

/** 404 ORG_NOT_FOUND with Grafana's text "Organization not found". */
function orgNotFound(id: number | string): DomainError {
  return new DomainError('ORG_NOT_FOUND', 'Organization not found', typeof id === 'number' ? { id } : { name: id });
}

/** 404 USER_NOT_FOUND with Grafana's text "User not found". */
function userNotFound(id: number | string, where = ''): DomainError {
  return new DomainError('USER_NOT_FOUND', `User not found${where}`, typeof id === 'number' ? { id } : { name: id });
}

/** 400 LAST_ORG_ADMIN when `userId` is the only Admin (a person, not a service account) of `orgId`. */
async function assertAnotherAdmin(tx: Tx, orgId: number, userId: number, message: string): Promise<void> {
  const others = await tx.orgUser.count({ where: { orgId, role: 'Admin', userId: { not: userId }, user: PEOPLE } });
  if (others === 0) throw new DomainError('LAST_ORG_ADMIN', message, { id: orgId });
}

/** The membership of a person (not a service account) in `orgId`, or 404. */
async function findMembership(tx: Tx, orgId: number, userId: number): Promise<OrgUser> {
  const membership = await tx.orgUser.findFirst({ where: { orgId, userId, user: PEOPLE } });
  if (!membership) throw userNotFound(userId, ` in organization ${orgId}`);
  return membership;
}

/** The audit resource of a membership: "<orgId>:<userId>". */
const memberResource = (orgId: number, userId: number) => ({ kind: 'org_user', id: `${orgId}:${userId}` });

/** Organizations and their memberships; every method authorizes its caller (rules in the module comment). */
export class OrgService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates an organization; the calling user becomes its Admin (the CLI's local operator has
   * no user row and becomes nothing). Needs orgs:create; only users create organizations
   * (Grafana: "Only users can create organizations"). Audited as org.create.
   * @throws DomainError 401, ACCESS_DENIED (403), VALIDATION_FAILED (400), ALREADY_EXISTS (409
   *   "Organization name taken", Grafana's CreateOrg).
   */
  async create(caller: Principal, rawInput: unknown, query: OrgQuery = {}): Promise<Org> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, orgRequirements.create.for({}));
    if (caller.kind !== 'user') throw new DomainError('ACCESS_DENIED', 'Only users can create organizations');
    const input = parseInput(createOrganizationInput, rawInput);
    try {
      const id = await this.deps.access.write(async (tx) => {
        const admin = isLocalOperator(caller) ? undefined : caller.id;
        const org = await tx.org.create({
          data: { name: input.name, ...(admin !== undefined && { members: { create: { userId: admin, role: 'Admin' } } }) },
        });
        await recordAudit(tx, caller, { action: 'org.create', orgId: 0, resource: { kind: 'org', id: org.id }, after: { ...org, admin } });
        return org.id;
      });
      return await this.deps.db.org.findUniqueOrThrow({ ...query, where: { id } });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists('Organization name taken');
      throw error;
    }
  }

  /**
   * Organizations by id: all of them with orgs:read on orgs:*, otherwise those the caller is a
   * member of (an API key: its own). The GraphQL `organizations` list.
   * @throws DomainError UNAUTHENTICATED (401).
   */
  async list(caller: Principal, query: OrgQuery = {}): Promise<Org[]> {
    requireSignedIn(caller);
    const everything = await this.deps.access.can(caller, orgRequirements.readAll.for({}));
    return this.deps.db.org.findMany({ ...query, where: everything ? {} : ownOrgs(caller), orderBy: [{ id: 'asc' }] });
  }

  /**
   * Grafana's SearchOrgs (`GET /api/orgs`): every organization, by id, filtered by `query` (name
   * prefix) and `name` (exact), `perpage` per page (absent or <= 0: 1000), skipping
   * `perpage * page` (page 0-based, as Grafana's store). Needs orgs:read on orgs:*.
   * @throws DomainError 401, ACCESS_DENIED (403), VALIDATION_FAILED (400: a non-numeric page).
   */
  async search(caller: Principal, rawOptions: unknown, query: OrgQuery = {}): Promise<Org[]> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, orgRequirements.readAll.for({}));
    const options = parseInput(orgSearchInput, rawOptions ?? {});
    const perPage = options.perpage !== undefined && options.perpage > 0 ? options.perpage : DEFAULT_PER_PAGE;
    const page = Math.max(0, options.page ?? 0);
    const prefix = options.query?.trim();
    return this.deps.db.org.findMany({
      ...query,
      where: { AND: [prefix ? { name: { startsWith: prefix } } : {}, options.name ? { name: options.name } : {}] },
      orderBy: [{ id: 'asc' }],
      skip: perPage * page,
      take: perPage,
    });
  }

  /**
   * One organization: needs orgs:read on orgs:id:<id> (Viewer and above), and the caller must act
   * in it unless it is a Service Admin; any other organization answers 404 as if it did not exist.
   * `GET /api/org` passes the caller's own organization.
   * @throws DomainError 400, 401, 403, ORG_NOT_FOUND (404 "Organization not found").
   */
  async get(caller: Principal, rawId: unknown, query: OrgQuery = {}): Promise<Org> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, orgRequirements.read.for({ id }));
    if (id !== caller.orgId && !caller.isServiceAdmin) throw orgNotFound(id);
    const org = await this.deps.db.org.findUnique({ ...query, where: { id } });
    if (!org) throw orgNotFound(id);
    return org;
  }

  /**
   * Grafana's GetOrgByName (`GET /api/orgs/name/:name`): the organization with exactly that name.
   * Needs orgs:read on orgs:*.
   * @throws DomainError 400, 401, 403, ORG_NOT_FOUND (404 "Organization not found").
   */
  async getByName(caller: Principal, rawName: unknown, query: OrgQuery = {}): Promise<Org> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, orgRequirements.readAll.for({}));
    if (typeof rawName !== 'string' || rawName.length === 0 || rawName.length > MAX_NAME_LENGTH) {
      throw new DomainError('VALIDATION_FAILED', `name must be 1 to ${MAX_NAME_LENGTH} characters`);
    }
    const org = await this.deps.db.org.findUnique({ ...query, where: { name: rawName } });
    if (!org) throw orgNotFound(rawName);
    return org;
  }

  /**
   * Renames an organization (Grafana's UpdateOrg). Needs orgs:write on orgs:id:<id> (org Admin)
   * and acting in it unless a Service Admin. Audited as org.update.
   * @throws DomainError VALIDATION_FAILED (400), ORG_NAME_TAKEN (400 "Organization name taken",
   *   as Grafana answers an update), 401, ACCESS_DENIED (403), ORG_NOT_FOUND (404).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: OrgQuery = {}): Promise<Org> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, orgRequirements.write.for({ id }));
    requireActingIn(caller, id);
    const input = parseInput(updateOrganizationInput, rawInput);
    const taken = () => new DomainError('ORG_NAME_TAKEN', 'Organization name taken', { name: input.name });
    try {
      // Renaming changes no permission: the cache stays.
      await this.deps.access.write(
        async (tx) => {
          const before = await tx.org.findUnique({ where: { id } });
          if (!before) throw orgNotFound(id);
          if (await tx.org.findFirst({ where: { name: input.name, id: { not: id } }, select: { id: true } })) throw taken();
          const after = await tx.org.update({ where: { id }, data: { name: input.name } });
          await recordAudit(tx, caller, { action: 'org.update', orgId: 0, resource: { kind: 'org', id }, before, after });
        },
        { grantsNothing: true },
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
    return this.deps.db.org.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * Deletes an organization with everything that lives in it, in one transaction: memberships,
   * teams (their members and roles), API keys and service accounts (with their tokens), its
   * org-local roles (their permissions, grants and assignments), role assignments and basic-role
   * grants made in it; sessions acting in it fall back to their user's default. Users whose
   * default organization it was get their first remaining membership, or the first remaining
   * organization (Grafana moves a user's default the same way when removing it from an org).
   * Needs orgs:delete on orgs:id:<id> and a Service Admin; never the organization the request
   * acts in (Grafana: "Can not delete org for current user"). Audited as org.delete.
   * @throws DomainError 400 (bad id), CANNOT_DELETE_ACTIVE_ORG (400), 401, ACCESS_DENIED (403),
   *   ORG_NOT_FOUND (404 "Failed to delete organization. ID not found").
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, orgRequirements.delete.for({ id }));
    if (id === caller.orgId) {
      throw new DomainError(
        'CANNOT_DELETE_ACTIVE_ORG',
        'Cannot delete your active organization (Can not delete org for current user): switch to another one first',
        { id },
      );
    }
    requireServiceAdmin(caller, 'delete another organization');
    await this.deps.access.write(async (tx) => {
      const org = await tx.org.findUnique({ where: { id } });
      if (!org) throw new DomainError('ORG_NOT_FOUND', 'Failed to delete organization. ID not found', { id });
      const members = await tx.orgUser.count({ where: { orgId: id, user: PEOPLE } });
      const teams = await tx.team.count({ where: { orgId: id } });
      // Rows keyed by orgId without a foreign key to Org (0 means global, so it cannot be one).
      const roles = await tx.role.deleteMany({ where: { orgId: id } });
      await tx.userRole.deleteMany({ where: { orgId: id } });
      await tx.teamRole.deleteMany({ where: { orgId: id } });
      await tx.basicRoleGrant.deleteMany({ where: { orgId: id } });
      await tx.teamMember.deleteMany({ where: { orgId: id } });
      await tx.session.updateMany({ where: { orgId: id }, data: { orgId: null } });
      // A service account belongs to one organization: it goes with it, tokens included.
      const serviceAccounts = await tx.user.deleteMany({ where: { isServiceAccount: true, orgId: id } });
      // Memberships, teams and API keys: ON DELETE CASCADE.
      await tx.org.delete({ where: { id } });
      await moveDefaultOrgs(tx, id);
      await recordAudit(tx, caller, {
        action: 'org.delete',
        orgId: 0,
        resource: { kind: 'org', id },
        before: { ...org, members, teams, serviceAccounts: serviceAccounts.count, roles: roles.count },
      });
    });
    return { message: 'Organization deleted' };
  }

  /**
   * Members (people) of organization `orgId`, by login then email (Grafana's SearchOrgUsers):
   * `query` filters on login, email or name; `limit` > 0 keeps the first ones; `page` / `perpage`
   * page them (page from 1, perpage <= 0 means 1000; given either, the answer is paged).
   * Needs org.users:read; only members whose users:id:<id> the caller covers are listed. The
   * caller must act in `orgId` unless it is a Service Admin.
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), ORG_NOT_FOUND (404).
   */
  async listUsers(caller: Principal, rawOrgId: unknown, rawOptions: unknown, query: OrgUserQuery = {}): Promise<OrgMembersPage<OrgUser>> {
    requireSignedIn(caller);
    const orgId = parseId('orgId', rawOrgId);
    const index = await this.deps.access.check(caller, orgRequirements.readUsers.for({}));
    requireActingIn(caller, orgId);
    const options = parseInput(orgUsersInput, rawOptions ?? {});
    const { db } = this.deps;
    if ((await db.org.count({ where: { id: orgId } })) === 0) throw orgNotFound(orgId);
    const ids = permittedIds(index, Action.OrgUsersRead, 'users:id:');
    const text = options.query?.trim();
    const where: Prisma.OrgUserWhereInput = {
      orgId,
      ...(ids !== 'all' && { userId: { in: ids } }),
      user: {
        ...PEOPLE,
        ...(text && { OR: [{ login: { contains: text } }, { email: { contains: text } }, { name: { contains: text } }] }),
      },
    };
    const paged = options.page !== undefined || options.perpage !== undefined;
    const perPage = paged ? (options.perpage !== undefined && options.perpage > 0 ? options.perpage : DEFAULT_PER_PAGE) : 0;
    const page = paged ? Math.max(1, options.page ?? 1) : 1;
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const window: { skip?: number; take?: number } = paged ? { skip: (page - 1) * perPage, take: perPage } : { take: limit };
    const [members, totalCount] = await Promise.all([
      db.orgUser.findMany({ ...query, where, orderBy: [{ user: { login: 'asc' } }, { user: { email: 'asc' } }], ...window }),
      db.orgUser.count({ where }),
    ]);
    return { totalCount, members, page, perPage };
  }

  /**
   * Adds an existing user (not a service account) to an organization with an org role.
   * Needs org.users:add on users:id:<userId>, acting in `orgId` (or Service Admin), and a role
   * no higher than the caller's. Ids are easy to guess and the new membership shows the user's
   * profile to the organization, so the caller must also be able to read that user globally
   * (users:read on global.users:id:<userId>, a Service Admin's): otherwise an org Admin could
   * pull any user of another organization into its own and read it (the wall). Audited as
   * org_user.add.
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), ORG_NOT_FOUND (404),
   *   USER_NOT_FOUND (404), ALREADY_EXISTS (409: already a member).
   */
  async addUser(caller: Principal, rawInput: unknown, query: OrgUserQuery = {}): Promise<OrgUser> {
    requireSignedIn(caller);
    const { orgId, userId } = parseInput(membershipInput, rawInput);
    await this.deps.access.check(caller, orgRequirements.addUser.for({ userId }));
    requireActingIn(caller, orgId);
    const { role } = parseInput(orgUserRoleInput, rawInput);
    requireRoleWithin(caller, role);
    await this.insertMember(caller, orgId, { id: userId }, role);
    return this.deps.db.orgUser.findUniqueOrThrow({ ...query, where: { orgId_userId: { orgId, userId } } });
  }

  /**
   * Grafana's AddOrgUser (`POST /api/org/users`, `POST /api/orgs/:orgId/users`): adds the user
   * whose login or email is `loginOrEmail` (a person, not a service account). Finding a user by
   * login reaches every user of the service, so it needs org.users:add on users:* and users:read
   * on global.users:* (a Service Admin's), besides acting in `orgId` and a role at most the
   * caller's own. Audited as org_user.add.
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), ORG_NOT_FOUND (404),
   *   USER_NOT_FOUND (404 "User not found"), ALREADY_EXISTS (409 "User is already member of
   *   this organization").
   */
  async addUserByLogin(caller: Principal, rawOrgId: unknown, rawBody: unknown, query: OrgUserQuery = {}): Promise<OrgUser> {
    requireSignedIn(caller);
    const orgId = parseId('orgId', rawOrgId);
    await this.deps.access.check(caller, orgRequirements.addUserByLogin.for({}));
    requireActingIn(caller, orgId);
    const { loginOrEmail, role } = parseInput(addOrgUserByLoginBody, rawBody);
    requireRoleWithin(caller, role);
    const userId = await this.insertMember(caller, orgId, { loginOrEmail }, role);
    return this.deps.db.orgUser.findUniqueOrThrow({ ...query, where: { orgId_userId: { orgId, userId } } });
  }

  /**
   * Inserts the membership once the caller is authorized; a user whose default organization it
   * no longer belongs to gets this one (Grafana's AddOrgUser). Returns the user's id.
   */
  private async insertMember(
    caller: Principal,
    orgId: number,
    who: { id: number } | { loginOrEmail: string },
    role: string,
  ): Promise<number> {
    const conflict = () => alreadyExists('User is already member of this organization');
    try {
      return await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw orgNotFound(orgId);
        const where: Prisma.UserWhereInput =
          'id' in who ? { id: who.id } : { OR: [{ login: who.loginOrEmail }, { email: who.loginOrEmail }] };
        const user = await tx.user.findFirst({ where: { ...where, ...PEOPLE }, select: { id: true, orgId: true }, orderBy: { id: 'asc' } });
        if (!user) throw userNotFound('id' in who ? who.id : who.loginOrEmail);
        if (await tx.orgUser.findUnique({ where: { orgId_userId: { orgId, userId: user.id } }, select: { userId: true } }))
          throw conflict();
        const membership = await tx.orgUser.create({ data: { orgId, userId: user.id, role } });
        const keepsDefault = await tx.orgUser.count({ where: { orgId: user.orgId, userId: user.id } });
        if (keepsDefault === 0) await tx.user.update({ where: { id: user.id }, data: { orgId } });
        await recordAudit(tx, caller, { action: 'org_user.add', orgId, resource: memberResource(orgId, user.id), after: membership });
        return user.id;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict();
      throw error;
    }
  }

  /**
   * Changes a member's org role. Needs org.users:write on users:id:<userId>, acting in `orgId`
   * (or Service Admin), and a role no higher than the caller's; the last Admin stays Admin
   * (Grafana: "Cannot change role so that there is no organization admin left"). Audited as
   * org_user.update.
   * @throws DomainError VALIDATION_FAILED (400), LAST_ORG_ADMIN (400), 401, 403,
   *   USER_NOT_FOUND (404: not a member of that organization).
   */
  async updateUserRole(caller: Principal, rawInput: unknown, query: OrgUserQuery = {}): Promise<OrgUser> {
    requireSignedIn(caller);
    const { orgId, userId } = parseInput(membershipInput, rawInput);
    await this.deps.access.check(caller, orgRequirements.writeUser.for({ userId }));
    requireActingIn(caller, orgId);
    const { role } = parseInput(orgUserRoleInput, rawInput);
    requireRoleWithin(caller, role);
    await this.deps.access.write(async (tx) => {
      const before = await findMembership(tx, orgId, userId);
      if (before.role === 'Admin' && role !== 'Admin') {
        await assertAnotherAdmin(tx, orgId, userId, 'Cannot change role so that there is no organization admin left');
      }
      const after = await tx.orgUser.update({ where: { orgId_userId: { orgId, userId } }, data: { role } });
      await recordAudit(tx, caller, { action: 'org_user.update', orgId, resource: memberResource(orgId, userId), before, after });
    });
    return this.deps.db.orgUser.findUniqueOrThrow({ ...query, where: { orgId_userId: { orgId, userId } } });
  }

  /**
   * Removes a member from an organization, with its team memberships and org-local role
   * assignments there (Grafana removes both); when it was the user's default organization,
   * another membership becomes the default. Needs org.users:remove on users:id:<userId>, acting
   * in `orgId` (or Service Admin); the last Admin cannot be removed. Audited as org_user.remove.
   * @throws DomainError VALIDATION_FAILED (400), LAST_ORG_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async removeUser(caller: Principal, rawInput: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const { orgId, userId } = parseInput(membershipInput, rawInput);
    await this.deps.access.check(caller, orgRequirements.removeUser.for({ userId }));
    requireActingIn(caller, orgId);
    await this.deps.access.write(async (tx) => {
      const before = await findMembership(tx, orgId, userId);
      if (before.role === 'Admin') await assertAnotherAdmin(tx, orgId, userId, 'Cannot remove last organization admin');
      await tx.orgUser.delete({ where: { orgId_userId: { orgId, userId } } });
      await tx.teamMember.deleteMany({ where: { userId, orgId } });
      await tx.userRole.deleteMany({ where: { userId, orgId } });
      const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { orgId: true } });
      if (user.orgId === orgId) {
        const next = await tx.orgUser.findFirst({ where: { userId }, orderBy: [{ orgId: 'asc' }], select: { orgId: true } });
        if (next) await tx.user.update({ where: { id: userId }, data: { orgId: next.orgId } });
      }
      await recordAudit(tx, caller, { action: 'org_user.remove', orgId, resource: memberResource(orgId, userId), before });
    });
    return { message: 'User removed from organization' };
  }
}

/**
 * After organization `deletedId` is gone: every user whose default it was gets its first
 * remaining membership, or, with none, the first remaining organization (so a Service Admin can
 * still act somewhere; anyone else is refused there until added to an organization).
 */
async function moveDefaultOrgs(tx: Tx, deletedId: number): Promise<void> {
  const stranded = await tx.user.findMany({
    where: { orgId: deletedId },
    select: { id: true, orgs: { select: { orgId: true }, orderBy: { orgId: 'asc' }, take: 1 } },
  });
  if (stranded.length === 0) return;
  const fallback = (await tx.org.findFirst({ orderBy: { id: 'asc' }, select: { id: true } }))?.id ?? 0;
  const byTarget = new Map<number, number[]>();
  for (const user of stranded) {
    const target = user.orgs[0]?.orgId ?? fallback;
    byTarget.set(target, [...(byTarget.get(target) ?? []), user.id]);
  }
  for (const [orgId, ids] of byTarget) await tx.user.updateMany({ where: { id: { in: ids } }, data: { orgId } });
}

/** Organizations the caller belongs to (an API key: its own). */
function ownOrgs(caller: Exclude<Principal, { kind: 'anonymous' }>): Prisma.OrgWhereInput {
  return caller.kind === 'apiKey' ? { id: caller.orgId } : { members: { some: { userId: caller.id } } };
}
