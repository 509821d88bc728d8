/**
 * Service accounts of the caller's organization: User rows with isServiceAccount, one org
 * membership (their org role) and no password; their tokens live in service-account-tokens.
 *
 * Permissions (Grafana's service account routes): serviceaccounts:create;
 * serviceaccounts:read, serviceaccounts:write, serviceaccounts:delete on serviceaccounts:id:<id>,
 * each checked before the body is validated; an org role above the caller's own is refused
 * (Grafana: "Cannot assign a role higher than user's role"), and so is one whose basic role holds
 * what the caller could not grant (the one delegation rule, kernel/delegation.ts). Accounts are looked up within the
 * caller's organization only: another organization's account, or a user's id, is 404 (the wall).
 * Every change goes through `access.write()` and is recorded in the audit log
 * (service_account.create, service_account.update, service_account.delete).
 */
import type { Prisma, User } from '../../generated/prisma/client.js';
import { recordAudit } from '../../kernel/audit.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { authorizeGrant } from '../../kernel/delegation.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { PRINCIPAL_GRANT_ACTION as action, DELEGATION_NOTES, orgRoleGain } from '../../kernel/gains.js';
import { idFilter, permittedIds, requireRoleWithin, requireSignedIn } from '../../kernel/guards.js';
import { MAX_NAME_LENGTH, parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { containsText } from '../../platform/database-dialect.js';
import { accessControlMetadata, type SearchPage, searchPage } from '../shared/directory.js';
import { pageOffset } from '../shared/paging.js';
import { createServiceAccountInput, serviceAccountSearchInput, updateServiceAccountInput } from './inputs.js';

/** What a Pothos `query` (or any caller) may ask Prisma to load with each account. */
export type ServiceAccountQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };

/** The permission each service account operation needs; `id` is the account's id. */
export const serviceAccountRequirements = {
  create: requirement([], () => permission(Action.ServiceAccountsCreate), DELEGATION_NOTES.role),
  search: requirement([], () => permission(Action.ServiceAccountsRead)),
  read: requirement(['id'], ({ id }) => permission(Action.ServiceAccountsRead, Scope.serviceAccount(id))),
  write: requirement(['id'], ({ id }) => permission(Action.ServiceAccountsWrite, Scope.serviceAccount(id)), DELEGATION_NOTES.role),
  delete: requirement(['id'], ({ id }) => permission(Action.ServiceAccountsDelete, Scope.serviceAccount(id))),
};

/**
 * Grafana's generated login: `sa-<orgId>-<name>` lower-cased, runs of anything but letters,
 * digits, `.`, `_` and `-` turned into one `-`.
 * @throws DomainError VALIDATION_FAILED when the name has no usable character.
 */
export function serviceAccountLogin(orgId: number, name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '');
  if (slug === '') throw new DomainError('VALIDATION_FAILED', 'name must contain a letter or a digit');
  return `sa-${orgId}-${slug}`.slice(0, MAX_NAME_LENGTH);
}

/** Rows that are service accounts of the caller's organization. */
function inOrg(caller: Principal, id?: number): Prisma.UserWhereInput {
  return { isServiceAccount: true, orgId: caller.orgId, ...(id !== undefined && { id }) };
}

/** What the audit log keeps of an account: its fields and its org role. */
const SNAPSHOT = {
  id: true,
  login: true,
  name: true,
  orgId: true,
  isDisabled: true,
  orgs: { select: { orgId: true, role: true } },
} satisfies Prisma.UserSelect;

type Snapshot = Prisma.UserGetPayload<{ select: typeof SNAPSHOT }>;

/** `{id, login, name, orgId, isDisabled, role}` of a SNAPSHOT row. */
function snapshot(account: Snapshot) {
  const { orgs, ...fields } = account;
  return { ...fields, role: orgs.find((m) => m.orgId === account.orgId)?.role ?? 'None' };
}

/**
 * 404 SERVICE_ACCOUNT_NOT_FOUND with Grafana's public text, "service account not found"
 * (pkg/services/serviceaccounts ErrServiceAccountNotFound); the id is in the details.
 */
const accountNotFound = (id: number) => new DomainError('SERVICE_ACCOUNT_NOT_FOUND', 'service account not found', { id });

/**
 * 400 SERVICE_ACCOUNT_ALREADY_EXISTS with Grafana's public text, "service account already exists"
 * (ErrServiceAccountAlreadyExists is a BadRequest error in Grafana, and its OpenAPI lists 400, not
 * 409, for POST /api/serviceaccounts); the name is in the details.
 */
const accountExists = (name: string) => new DomainError('SERVICE_ACCOUNT_ALREADY_EXISTS', 'service account already exists', { name });

async function findServiceAccount(tx: Tx, caller: Principal, id: number): Promise<Snapshot> {
  const account = await tx.user.findFirst({ where: inOrg(caller, id), select: SNAPSHOT });
  if (!account) throw accountNotFound(id);
  return account;
}

async function assertNameFree(tx: Tx, orgId: number, name: string, exceptId?: number): Promise<void> {
  const taken = await tx.user.findFirst({
    where: { isServiceAccount: true, orgId, name, ...(exceptId !== undefined && { id: { not: exceptId } }) },
    select: { id: true },
  });
  if (taken) throw accountExists(name);
}

/** Service accounts; every method authorizes its caller (rules in the module comment). */
export class ServiceAccountService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates a service account in the caller's organization with org role `role` (Viewer when
   * omitted), disabled when `isDisabled`. Needs serviceaccounts:create and a role no higher than
   * the caller's.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, ORG_NOT_FOUND (404),
   *   SERVICE_ACCOUNT_ALREADY_EXISTS (400: name, or the login derived from it, taken in the organization).
   */
  async create(caller: Principal, rawInput: unknown, query: ServiceAccountQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, serviceAccountRequirements.create.for({}));
    const input = parseInput(createServiceAccountInput, rawInput);
    const role = input.role ?? 'Viewer';
    requireRoleWithin(caller, role);
    const orgId = caller.orgId;
    const login = serviceAccountLogin(orgId, input.name);
    const { db } = this.deps;
    const taken = () => accountExists(input.name);
    try {
      const id = await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        await assertNameFree(tx, orgId, input.name);
        if (await tx.user.findFirst({ where: { OR: [{ login }, { email: login }] }, select: { id: true } })) throw taken();
        const gains = [await orgRoleGain(tx, orgId, role)];
        await authorizeGrant(
          tx,
          caller,
          index,
          { what: `create a service account with role ${role}`, action, gains },
          this.deps.clock.now(),
        );
        const account = await tx.user.create({
          data: {
            login,
            email: login, // Grafana stores the login as email; user emails contain "@", so no clash
            name: input.name,
            isServiceAccount: true,
            isDisabled: input.isDisabled ?? false,
            orgId,
            orgs: { create: { orgId, role } },
          },
          select: SNAPSHOT,
        });
        await recordAudit(tx, caller, {
          action: 'service_account.create',
          orgId,
          resource: { kind: 'service_account', id: account.id },
          after: snapshot(account),
        });
        return account.id;
      });
      return await db.user.findUniqueOrThrow({ ...query, where: { id } });
    } catch (error) {
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
  }

  /**
   * Service accounts of the caller's organization by name: those whose
   * serviceaccounts:id:<id> it may read. Needs serviceaccounts:read. @throws DomainError 401, 403.
   */
  async list(caller: Principal, query: ServiceAccountQuery = {}): Promise<User[]> {
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, serviceAccountRequirements.search.for({}));
    const ids = permittedIds(index, Action.ServiceAccountsRead, 'serviceaccounts:id:');
    return this.deps.db.user.findMany({ ...query, where: { ...inOrg(caller), ...idFilter(ids) }, orderBy: [{ name: 'asc' }] });
  }

  /**
   * One page of the service accounts of the caller's organization it may read (Grafana's
   * service account search): `query` is part of the name or login (any case), `disabled` keeps
   * disabled accounts only; `page` (from 1) of `perPage` (default 1000) rows by name, then id;
   * `totalCount` counts every match. Needs serviceaccounts:read; rows are filtered by
   * serviceaccounts:id:<id> as in `list`.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403.
   */
  async search(caller: Principal, rawParams: unknown, query: ServiceAccountQuery = {}): Promise<SearchPage<User>> {
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, serviceAccountRequirements.search.for({}));
    const params = parseInput(serviceAccountSearchInput, rawParams ?? {});
    const ids = permittedIds(index, Action.ServiceAccountsRead, 'serviceaccounts:id:');
    const where: Prisma.UserWhereInput = {
      ...inOrg(caller),
      AND: [
        idFilter(ids),
        params.query
          ? { OR: [{ name: containsText(this.deps.db, params.query) }, { login: containsText(this.deps.db, params.query) }] }
          : {},
        params.disabled ? { isDisabled: true } : {},
      ],
    };
    const { db } = this.deps;
    const [totalCount, rows] = await Promise.all([
      db.user.count({ where }),
      db.user.findMany({
        ...query,
        where,
        orderBy: [{ name: 'asc' }, { id: 'asc' }],
        skip: pageOffset(params.page, params.perPage),
        take: params.perPage,
      }),
    ]);
    return searchPage(params, totalCount, rows, index, Scope.serviceAccount);
  }

  /**
   * One service account of the caller's organization. Needs serviceaccounts:read on
   * serviceaccounts:id:<id>. With `accessControl`, the row carries the caller's actions on it.
   * @throws DomainError 400, 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404: unknown, a user's id or of another organization).
   */
  async get(
    caller: Principal,
    rawId: unknown,
    query: ServiceAccountQuery = {},
    options: { accessControl?: boolean } = {},
  ): Promise<User & { accessControl?: Record<string, boolean> }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, serviceAccountRequirements.read.for({ id }));
    const account = await this.deps.db.user.findFirst({ ...query, where: inOrg(caller, id) });
    if (!account) throw accountNotFound(id);
    return options.accessControl ? { ...account, accessControl: accessControlMetadata(index, Scope.serviceAccount(id)) } : account;
  }

  /**
   * Renames, changes the org role of, disables or enables a service account. Needs
   * serviceaccounts:write on serviceaccounts:id:<id>, and a role no higher than the caller's.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404),
   *   SERVICE_ACCOUNT_ALREADY_EXISTS (400: the new name is taken).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: ServiceAccountQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, serviceAccountRequirements.write.for({ id }));
    const input = parseInput(updateServiceAccountInput, rawInput);
    const role = input.role;
    if (role != null) requireRoleWithin(caller, role);
    const { db } = this.deps;
    await this.deps.access.write(async (tx) => {
      const before = await findServiceAccount(tx, caller, id);
      if (role != null) {
        const gains = [await orgRoleGain(tx, before.orgId, role)];
        await authorizeGrant(tx, caller, index, { what: `make service account ${id} ${role}`, action, gains }, this.deps.clock.now());
      }
      if (input.name != null) await assertNameFree(tx, before.orgId, input.name, id);
      await tx.user.update({
        where: { id },
        data: { ...(input.name != null && { name: input.name }), ...(input.isDisabled != null && { isDisabled: input.isDisabled }) },
      });
      if (role != null) await tx.orgUser.update({ where: { orgId_userId: { orgId: before.orgId, userId: id } }, data: { role } });
      const after = await findServiceAccount(tx, caller, id);
      await recordAudit(tx, caller, {
        action: 'service_account.update',
        orgId: before.orgId,
        resource: { kind: 'service_account', id },
        before: snapshot(before),
        after: snapshot(after),
      });
    });
    return db.user.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * Deletes a service account with its membership, tokens and role assignments.
   * Needs serviceaccounts:delete on serviceaccounts:id:<id>.
   * @throws DomainError 400, 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, serviceAccountRequirements.delete.for({ id }));
    await this.deps.access.write(async (tx) => {
      const before = await findServiceAccount(tx, caller, id);
      await tx.user.delete({ where: { id } });
      await recordAudit(tx, caller, {
        action: 'service_account.delete',
        orgId: before.orgId,
        resource: { kind: 'service_account', id },
        before: snapshot(before),
      });
    });
    return { message: 'Service account deleted' };
  }
}
