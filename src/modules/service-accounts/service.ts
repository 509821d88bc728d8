import type { Prisma, User } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/access.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { alreadyExists, DomainError, notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import { idFilter, permittedIds, requireRoleWithin, requireSignedIn } from '../../kernel/guards.js';
import { MAX_NAME_LENGTH, parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { isUniqueViolation, type Tx } from '../../platform/database.js';
import { createServiceAccountInput, updateServiceAccountInput } from './inputs.js';

export type ServiceAccountQuery = { include?: Prisma.UserInclude; select?: Prisma.UserSelect };

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

async function findServiceAccount(tx: Tx, caller: Principal, id: number): Promise<{ id: number; orgId: number }> {
  const account = await tx.user.findFirst({ where: inOrg(caller, id), select: { id: true, orgId: true } });
  if (!account) throw notFound('SERVICE_ACCOUNT_NOT_FOUND', 'service account', id);
  return account;
}

async function assertNameFree(tx: Tx, orgId: number, name: string, exceptId?: number): Promise<void> {
  const taken = await tx.user.findFirst({
    where: { isServiceAccount: true, orgId, name, ...(exceptId !== undefined && { id: { not: exceptId } }) },
    select: { id: true },
  });
  if (taken) throw alreadyExists(`a service account named "${name}" already exists in this organization`);
}

export class ServiceAccountService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Creates a service account in the caller's organization with org role `role` (Viewer when
   * omitted). Needs serviceaccounts:create and a role no higher than the caller's.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, ORG_NOT_FOUND (404),
   *   ALREADY_EXISTS (409: name, or the login derived from it, taken in the organization).
   */
  async create(caller: Principal, rawInput: unknown, query: ServiceAccountQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const input = parseInput(createServiceAccountInput, rawInput);
    await this.deps.access.check(caller, permission(Action.ServiceAccountsCreate));
    const role = input.role ?? 'Viewer';
    requireRoleWithin(caller, role);
    const orgId = caller.orgId;
    const login = serviceAccountLogin(orgId, input.name);
    const { db } = this.deps;
    const taken = () => alreadyExists(`a service account named "${input.name}" (login "${login}") already exists in this organization`);
    try {
      const id = await this.deps.access.write(async (tx) => {
        if ((await tx.org.count({ where: { id: orgId } })) === 0) throw notFound('ORG_NOT_FOUND', 'organization', orgId);
        await assertNameFree(tx, orgId, input.name);
        if (await tx.user.findFirst({ where: { OR: [{ login }, { email: login }] }, select: { id: true } })) throw taken();
        const account = await tx.user.create({
          data: {
            login,
            email: login, // Grafana stores the login as email; user emails contain "@", so no clash
            name: input.name,
            isServiceAccount: true,
            orgId,
            orgs: { create: { orgId, role } },
          },
          select: { id: true },
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
    const index = await this.deps.access.check(caller, permission(Action.ServiceAccountsRead));
    const ids = permittedIds(index, Action.ServiceAccountsRead, 'serviceaccounts:id:');
    return this.deps.db.user.findMany({ ...query, where: { ...inOrg(caller), ...idFilter(ids) }, orderBy: [{ name: 'asc' }] });
  }

  /**
   * One service account of the caller's organization. Needs serviceaccounts:read on serviceaccounts:id:<id>.
   * @throws DomainError 400, 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404: unknown or of another organization).
   */
  async get(caller: Principal, rawId: unknown, query: ServiceAccountQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, permission(Action.ServiceAccountsRead, Scope.serviceAccount(id)));
    const account = await this.deps.db.user.findFirst({ ...query, where: inOrg(caller, id) });
    if (!account) throw notFound('SERVICE_ACCOUNT_NOT_FOUND', 'service account', id);
    return account;
  }

  /**
   * Renames, changes the org role of, disables or enables a service account. Needs
   * serviceaccounts:write on serviceaccounts:id:<id>, and a role no higher than the caller's.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404), ALREADY_EXISTS (409).
   */
  async update(caller: Principal, rawId: unknown, rawInput: unknown, query: ServiceAccountQuery = {}): Promise<User> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const input = parseInput(updateServiceAccountInput, rawInput);
    await this.deps.access.check(caller, permission(Action.ServiceAccountsWrite, Scope.serviceAccount(id)));
    if (input.role != null) requireRoleWithin(caller, input.role);
    const { db } = this.deps;
    await this.deps.access.write(async (tx) => {
      const account = await findServiceAccount(tx, caller, id);
      if (input.name != null) await assertNameFree(tx, account.orgId, input.name, id);
      await tx.user.update({
        where: { id },
        data: { ...(input.name != null && { name: input.name }), ...(input.isDisabled != null && { isDisabled: input.isDisabled }) },
      });
      if (input.role != null) {
        await tx.orgUser.update({ where: { orgId_userId: { orgId: account.orgId, userId: id } }, data: { role: input.role } });
      }
    });
    return db.user.findUniqueOrThrow({ ...query, where: { id } });
  }

  /**
   * Deletes a service account with its membership and role assignments.
   * Needs serviceaccounts:delete on serviceaccounts:id:<id>.
   * @throws DomainError 400, 401, 403, SERVICE_ACCOUNT_NOT_FOUND (404).
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    await this.deps.access.check(caller, permission(Action.ServiceAccountsDelete, Scope.serviceAccount(id)));
    await this.deps.access.write(async (tx) => {
      await findServiceAccount(tx, caller, id);
      await tx.user.delete({ where: { id } });
    });
    return { message: 'Service account deleted' };
  }
}
