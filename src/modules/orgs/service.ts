/**
 * Organizations and their members: create and read organizations; add a user to an
 * organization with an org role, change that role, remove the user.
 *
 * Permissions (Grafana): orgs:create (Service Admin); orgs:read on orgs:id:<id> to read an
 * organization one does not belong to; org.users:add, org.users:write and org.users:remove on
 * users:id:<userId> (org Admin, and Service Admin everywhere); adding also needs users:read on
 * global.users:id:<userId> (see addUser). Membership operations name an
 * organization: the caller must act in it unless it is a Service Admin (kernel/guards.ts, the wall),
 * and may not give a role above its own (Grafana: "Cannot assign a role higher than user's role").
 * An organization keeps at least one Admin (Grafana: "Cannot remove last organization admin").
 * Every membership change can change permissions, so it goes through `access.write()`.
 */
import type { Org, OrgUser, Prisma } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError, notFound } from '../../kernel/errors.js';
import { all, permission } from '../../kernel/evaluator.js';
import { requireActingIn, requireRoleWithin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isLocalOperator } from '../../kernel/principal.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { createOrganizationInput, membershipInput, orgUserRoleInput } from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each organization / membership. */
export type OrgQuery = { include?: Prisma.OrgInclude; select?: Prisma.OrgSelect };
export type OrgUserQuery = { include?: Prisma.OrgUserInclude; select?: Prisma.OrgUserSelect };

/** removeOrgUser arguments. */

const LAST_ADMIN_MESSAGE = 'Cannot remove last organization admin';

/** 400 LAST_ORG_ADMIN when `userId` is the only Admin (a person, not a service account) of `orgId`. */
async function assertAnotherAdmin(tx: Tx, orgId: number, userId: number): Promise<void> {
  const others = await tx.orgUser.count({ where: { orgId, role: 'Admin', userId: { not: userId }, user: { isServiceAccount: false } } });
  if (others === 0) throw new DomainError('LAST_ORG_ADMIN', LAST_ADMIN_MESSAGE, { id: orgId });
}

/** The membership of a person (not a service account) in `orgId`, or 404. */
async function findMembership(tx: Tx, orgId: number, userId: number): Promise<OrgUser> {
  const membership = await tx.orgUser.findFirst({ where: { orgId, userId, user: { isServiceAccount: false } } });
  if (!membership) throw notFound('USER_NOT_FOUND', 'user', userId, ` in organization ${orgId}`);
  return membership;
}

/** Organizations and their memberships; every method authorizes its caller (rules in the module comment). */
export class OrgService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates an organization; the calling user becomes its Admin (the CLI's local operator has
   * no user row and becomes nothing). Needs orgs:create; only users create organizations
   * (Grafana: "Only users can create organizations").
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), ALREADY_EXISTS (409: name taken).
   */
  async create(caller: Principal, rawInput: unknown, query: OrgQuery = {}): Promise<Org> {
    requireSignedIn(caller);
    const input = parseInput(createOrganizationInput, rawInput);
    await this.deps.access.check(caller, permission(Action.OrgsCreate));
    if (caller.kind !== 'user') throw new DomainError('ACCESS_DENIED', 'Only users can create organizations');
    const { db } = this.deps;
    try {
      const org = await db.org.create({
        data: {
          name: input.name,
          ...(!isLocalOperator(caller) && { members: { create: { userId: caller.id, role: 'Admin' } } }),
        },
        select: { id: true },
      });
      return await db.org.findUniqueOrThrow({ ...query, where: { id: org.id } });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`an organization named "${input.name}" already exists`);
      throw error;
    }
  }

  /**
   * Organizations by id: all of them with orgs:read on orgs:*, otherwise those the caller is a
   * member of (an API key: its own).
   * @throws DomainError UNAUTHENTICATED (401).
   */
  async list(caller: Principal, query: OrgQuery = {}): Promise<Org[]> {
    requireSignedIn(caller);
    const all = await this.deps.access.can(caller, permission(Action.OrgsRead, Scope.OrgsAll));
    return this.deps.db.org.findMany({ ...query, where: all ? {} : ownOrgs(caller), orderBy: [{ id: 'asc' }] });
  }

  /**
   * One organization: with orgs:read on orgs:id:<id>, or when the caller belongs to it.
   * @throws DomainError 400, 401, ORG_NOT_FOUND (404: unknown or not visible).
   */
  async get(caller: Principal, rawId: unknown, query: OrgQuery = {}): Promise<Org> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const readsAny = await this.deps.access.can(caller, permission(Action.OrgsRead, Scope.org(id)));
    const org = await this.deps.db.org.findFirst({ ...query, where: readsAny ? { id } : { AND: [{ id }, ownOrgs(caller)] } });
    if (!org) throw notFound('ORG_NOT_FOUND', 'organization', id);
    return org;
  }

  /**
   * Adds an existing user (not a service account) to an organization with an org role.
   * Needs org.users:add on users:id:<userId>, acting in `orgId` (or Service Admin), and a role
   * no higher than the caller's. Ids are easy to guess and the new membership shows the user's
   * profile to the organization, so the caller must also be able to read that user globally
   * (users:read on global.users:id:<userId>, a Service Admin's): otherwise an org Admin could
   * pull any user of another organization into its own and read it (the wall).
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), ORG_NOT_FOUND (404),
   *   USER_NOT_FOUND (404), ALREADY_EXISTS (409: already a member).
   */
  async addUser(caller: Principal, rawInput: unknown, query: OrgUserQuery = {}): Promise<OrgUser> {
    requireSignedIn(caller);
    const { orgId, userId, role } = parseInput(orgUserRoleInput, rawInput);
    requireActingIn(caller, orgId);
    await this.deps.access.check(
      caller,
      all(permission(Action.OrgUsersAdd, Scope.user(userId)), permission(Action.UsersRead, Scope.globalUser(userId))),
    );
    requireRoleWithin(caller, role);
    const { db } = this.deps;
    try {
      await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        const user = await tx.user.findFirst({ where: { id: userId, isServiceAccount: false }, select: { id: true } });
        if (!user) throw notFound('USER_NOT_FOUND', 'user', userId);
        if (await tx.orgUser.findUnique({ where: { orgId_userId: { orgId, userId } }, select: { userId: true } })) {
          throw alreadyExists(`user ${userId} is already a member of organization ${orgId}`);
        }
        await tx.orgUser.create({ data: { orgId, userId, role } });
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw alreadyExists(`user ${userId} is already a member of organization ${orgId}`);
      throw error;
    }
    return db.orgUser.findUniqueOrThrow({ ...query, where: { orgId_userId: { orgId, userId } } });
  }

  /**
   * Changes a member's org role. Needs org.users:write on users:id:<userId>, acting in `orgId`
   * (or Service Admin), and a role no higher than the caller's; the last Admin stays Admin.
   * @throws DomainError VALIDATION_FAILED (400), LAST_ORG_ADMIN (400), 401, 403,
   *   USER_NOT_FOUND (404: not a member of that organization).
   */
  async updateUserRole(caller: Principal, rawInput: unknown, query: OrgUserQuery = {}): Promise<OrgUser> {
    requireSignedIn(caller);
    const { orgId, userId, role } = parseInput(orgUserRoleInput, rawInput);
    requireActingIn(caller, orgId);
    await this.deps.access.check(caller, permission(Action.OrgUsersWrite, Scope.user(userId)));
    requireRoleWithin(caller, role);
    const { db } = this.deps;
    await this.deps.access.write(async (tx) => {
      const membership = await findMembership(tx, orgId, userId);
      if (membership.role === 'Admin' && role !== 'Admin') await assertAnotherAdmin(tx, orgId, userId);
      await tx.orgUser.update({ where: { orgId_userId: { orgId, userId } }, data: { role } });
    });
    return db.orgUser.findUniqueOrThrow({ ...query, where: { orgId_userId: { orgId, userId } } });
  }

  /**
   * Removes a member from an organization, with its team memberships and org-local role
   * assignments there (Grafana removes both); when it was the user's default organization,
   * another membership becomes the default. Needs org.users:remove on users:id:<userId>, acting
   * in `orgId` (or Service Admin); the last Admin cannot be removed.
   * @throws DomainError VALIDATION_FAILED (400), LAST_ORG_ADMIN (400), 401, 403, USER_NOT_FOUND (404).
   */
  async removeUser(caller: Principal, rawInput: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const { orgId, userId } = parseInput(membershipInput, rawInput);
    requireActingIn(caller, orgId);
    await this.deps.access.check(caller, permission(Action.OrgUsersRemove, Scope.user(userId)));
    await this.deps.access.write(async (tx) => {
      const membership = await findMembership(tx, orgId, userId);
      if (membership.role === 'Admin') await assertAnotherAdmin(tx, orgId, userId);
      await tx.orgUser.delete({ where: { orgId_userId: { orgId, userId } } });
      await tx.teamMember.deleteMany({ where: { userId, orgId } });
      await tx.userRole.deleteMany({ where: { userId, orgId } });
      const user = await tx.user.findUniqueOrThrow({ where: { id: userId }, select: { orgId: true } });
      if (user.orgId === orgId) {
        const next = await tx.orgUser.findFirst({ where: { userId }, orderBy: [{ orgId: 'asc' }], select: { orgId: true } });
        if (next) await tx.user.update({ where: { id: userId }, data: { orgId: next.orgId } });
      }
    });
    return { message: 'User removed from organization' };
  }
}

/** Organizations the caller belongs to (an API key: its own). */
function ownOrgs(caller: Exclude<Principal, { kind: 'anonymous' }>): Prisma.OrgWhereInput {
  return caller.kind === 'apiKey' ? { id: caller.orgId } : { members: { some: { userId: caller.id } } };
}
