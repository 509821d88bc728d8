/**
 * Organizations themselves (Grafana's pkg/api/org.go): create, list, search, read (by id or by
 * name), rename and delete them. Their members are another service, OrgMemberService (members.ts,
 * `services.orgMembers`); the rows a deletion takes with it are in deletion.ts, and who may do
 * what is in requirements.ts.
 *
 * The wall (kernel/guards.ts): an operation naming an organization needs the caller to act in it
 * unless it is a Service Admin; reading another organization answers 404 as if it did not exist.
 * Every change goes through `access.write()` and is recorded in the audit log (org.create,
 * org.update, org.delete).
 */
import type { Org, Prisma } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { alreadyExists, DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireActingIn, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { MAX_NAME_LENGTH, parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isLocalOperator } from '../../kernel/principal.js';
import { isUniqueViolation } from '../../platform/database.js';
import { startsWithText } from '../../platform/database-dialect.js';
import { deleteOrganizationCascade } from './deletion.js';
import { createOrganizationInput, orgSearchInput, updateOrganizationInput } from './inputs.js';
import { orgNotFound, orgRequirements } from './requirements.js';

export { orgRequirements } from './requirements.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each organization. */
export type OrgQuery = { include?: Prisma.OrgInclude; select?: Prisma.OrgSelect };

/** Organizations (`services.orgs`); every method authorizes its caller (rules in requirements.ts). */
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
   * prefix) and `name` (exact), `perpage` per page (default 1000, at most 1000: shared/paging.ts), skipping
   * `perpage * page` (page 0-based, as Grafana's store). Needs orgs:read on orgs:*.
   * @throws DomainError 401, ACCESS_DENIED (403), VALIDATION_FAILED (400: perpage above 1000).
   */
  async search(caller: Principal, rawOptions: unknown, query: OrgQuery = {}): Promise<Org[]> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, orgRequirements.readAll.for({}));
    const options = parseInput(orgSearchInput, rawOptions ?? {});
    const { perpage: perPage, page } = options;
    const prefix = options.query?.trim();
    return this.deps.db.org.findMany({
      ...query,
      where: { AND: [prefix ? { name: startsWithText(this.deps.db, prefix) } : {}, options.name ? { name: options.name } : {}] },
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
   * Deletes an organization with everything that lives in it, in one transaction (deletion.ts
   * lists what goes with it). Needs orgs:delete on orgs:id:<id> and a Service Admin; never the
   * organization the request acts in (Grafana: "Can not delete org for current user"). Audited
   * as org.delete, with the counts of what went with it.
   * @throws DomainError 400 (bad id), CANNOT_DELETE_ACTIVE_ORG (400), 401, ACCESS_DENIED (403),
   *   ORG_NOT_FOUND (404 "Failed to delete organization. ID not found").
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, orgRequirements.delete.for({ id }));
    if (id === caller.orgId) {
      // Grafana's text (pkg/api/org.go DeleteOrgByID); switch to another organization first.
      throw new DomainError('CANNOT_DELETE_ACTIVE_ORG', 'Can not delete org for current user', { id });
    }
    requireServiceAdmin(caller, 'delete another organization');
    await this.deps.access.write(async (tx) => {
      const org = await tx.org.findUnique({ where: { id } });
      if (!org) throw new DomainError('ORG_NOT_FOUND', 'Failed to delete organization. ID not found', { id });
      const contents = await deleteOrganizationCascade(tx, id);
      await recordAudit(tx, caller, { action: 'org.delete', orgId: 0, resource: { kind: 'org', id }, before: { ...org, ...contents } });
    });
    return { message: 'Organization deleted' };
  }
}

/** Organizations the caller belongs to (an API key: its own). */
function ownOrgs(caller: Exclude<Principal, { kind: 'anonymous' }>): Prisma.OrgWhereInput {
  return caller.kind === 'apiKey' ? { id: caller.orgId } : { members: { some: { userId: caller.id } } };
}
