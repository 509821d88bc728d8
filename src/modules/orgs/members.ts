/**
 * Members of organizations (Grafana's pkg/api/org_users.go): list the people of one, add a user
 * to it with an org role (by id or by login / email), change that role, remove the user. A
 * service of its own beside OrgService (service.ts); both are composed in modules/services.ts
 * (`services.orgMembers`).
 *
 * Rules besides the permissions (requirements.ts): members are people, never service accounts;
 * no role above the caller's own may be given (Grafana: "Cannot assign a role higher than user's
 * role"); what a membership or a new org role gives passes the one delegation rule
 * (kernel/delegation.ts); an organization keeps at least one Admin person (Grafana: "Cannot remove
 * last organization admin"). Every change goes through `access.write()` (it changes permissions) and
 * is audited as org_user.add / org_user.update / org_user.remove.
 */
import type { OrgUser, Prisma } from '../../generated/prisma/client.js';
import { memberResource, recordAudit } from '../../kernel/audit.js';
import { Action } from '../../kernel/catalogue.js';
import { authorizeGrant } from '../../kernel/delegation.js';
import { alreadyExists, DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { PRINCIPAL_GRANT_ACTION as action, memberGain, orgRoleGain } from '../../kernel/gains.js';
import { permittedIds, requireActingIn, requireRoleWithin, requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { OrgRole, Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { containsText } from '../../platform/database-dialect.js';
import { DEFAULT_PER_PAGE } from '../shared/paging.js';
import { addOrgUserByLoginBody, membershipInput, orgUserRoleBody, orgUsersInput } from './inputs.js';
import { orgNotFound, orgRequirements } from './requirements.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each membership. */
export type OrgUserQuery = { include?: Prisma.OrgUserInclude; select?: Prisma.OrgUserSelect };

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

/** Members are people: a service account's own membership is not one (Grafana's org users). */
export const PEOPLE = { isServiceAccount: false } as const;

/** What the one delegation rule needs of a person (kernel/gains.ts memberGain), and its default organization. */
const PERSON = { id: true, login: true, isServiceAccount: true, isServiceAdmin: true, orgId: true } as const;

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

/** Memberships of organizations (`services.orgMembers`); every method authorizes its caller (module comment). */
export class OrgMemberService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Members (people) of organization `orgId`, by login then email (Grafana's SearchOrgUsers):
   * `query` filters on login, email or name; `limit` > 0 keeps the first ones; `page` / `perpage`
   * page them (page from 1, perpage default 1000, at most 1000; given either, the answer is paged).
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
        ...(text && { OR: [{ login: containsText(db, text) }, { email: containsText(db, text) }, { name: containsText(db, text) }] }),
      },
    };
    const paged = options.page != null || options.perpage != null;
    const perPage = paged ? (options.perpage ?? DEFAULT_PER_PAGE) : 0;
    const page = options.page ?? 1;
    const limit = options.limit > 0 ? options.limit : undefined;
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
    const index = await this.deps.access.check(caller, orgRequirements.addUser.for({ userId }));
    requireActingIn(caller, orgId);
    const { role } = parseInput(orgUserRoleBody, rawInput);
    requireRoleWithin(caller, role);
    await this.insertMember(caller, index, orgId, { id: userId }, role);
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
    const index = await this.deps.access.check(caller, orgRequirements.addUserByLogin.for({}));
    requireActingIn(caller, orgId);
    const { loginOrEmail, role } = parseInput(addOrgUserByLoginBody, rawBody);
    requireRoleWithin(caller, role);
    const userId = await this.insertMember(caller, index, orgId, { loginOrEmail }, role);
    return this.deps.db.orgUser.findUniqueOrThrow({ ...query, where: { orgId_userId: { orgId, userId } } });
  }

  /**
   * Inserts the membership once the caller is authorized; a user whose default organization it
   * no longer belongs to gets this one (Grafana's AddOrgUser). Joining makes the user hold, in
   * `orgId`, its org role's basic role, its global roles and anything left assigned there: the
   * one delegation rule (kernel/delegation.ts) checks all of it before the row is written.
   * Returns the user's id.
   */
  private async insertMember(
    caller: SignedInPrincipal,
    index: PermissionIndex,
    orgId: number,
    who: { id: number } | { loginOrEmail: string },
    role: OrgRole,
  ): Promise<number> {
    const conflict = () => alreadyExists('User is already member of this organization');
    try {
      return await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw orgNotFound(orgId);
        const where: Prisma.UserWhereInput =
          'id' in who ? { id: who.id } : { OR: [{ login: who.loginOrEmail }, { email: who.loginOrEmail }] };
        const user = await tx.user.findFirst({ where: { ...where, ...PEOPLE }, select: PERSON, orderBy: { id: 'asc' } });
        if (!user) throw userNotFound('id' in who ? who.id : who.loginOrEmail);
        if (await tx.orgUser.findUnique({ where: { orgId_userId: { orgId, userId: user.id } }, select: { userId: true } }))
          throw conflict();
        const gains = [await memberGain(tx, user, orgId, role)];
        await authorizeGrant(
          tx,
          caller,
          index,
          { what: `add user ${user.id} to organization ${orgId} as ${role}`, action, gains },
          this.deps.clock.now(),
        );
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
   * (or Service Admin), a role no higher than the caller's and the permissions of its basic role
   * (the one delegation rule, kernel/delegation.ts); the last Admin stays Admin
   * (Grafana: "Cannot change role so that there is no organization admin left"). Audited as
   * org_user.update.
   * @throws DomainError VALIDATION_FAILED (400), LAST_ORG_ADMIN (400), 401, 403,
   *   USER_NOT_FOUND (404: not a member of that organization).
   */
  async updateUserRole(caller: Principal, rawInput: unknown, query: OrgUserQuery = {}): Promise<OrgUser> {
    requireSignedIn(caller);
    const { orgId, userId } = parseInput(membershipInput, rawInput);
    const index = await this.deps.access.check(caller, orgRequirements.writeUser.for({ userId }));
    requireActingIn(caller, orgId);
    const { role } = parseInput(orgUserRoleBody, rawInput);
    requireRoleWithin(caller, role);
    await this.deps.access.write(async (tx) => {
      const before = await findMembership(tx, orgId, userId);
      const gains = [await orgRoleGain(tx, orgId, role)];
      await authorizeGrant(
        tx,
        caller,
        index,
        { what: `make user ${userId} ${role} of organization ${orgId}`, action, gains },
        this.deps.clock.now(),
      );
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
