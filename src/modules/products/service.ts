/**
 * Product role registration (Grafana's plugin role registration): a product
 * declares fixed roles `plugins:<productId>:<name>` and the basic roles they are granted to.
 *
 * What is stored: each registered role as a global role (uid `plugins_` + base64url(sha1(name)),
 * group = the product id, read-only through the role API like `fixed:` roles) and one global
 * BasicRoleGrant row per basic role it reaches. A grant to Viewer reaches Editor and Admin too,
 * a grant to Editor reaches Admin (Grafana's basic role inheritance); Service Admin only when
 * named. Grants are rows of their own, so a hard reset, which rewrites the basic roles' own
 * permissions only, leaves them in place: reset = built-in defaults + registered grants.
 *
 * Registering again replaces the product's registration: roles no longer declared are deleted
 * with their assignments and grants, permissions and grants no longer declared are withdrawn.
 * An unchanged role is not written at all, so registering the same roles twice changes nothing.
 */
import type { Role } from '../../generated/prisma/client.js';
import { type RoleSnapshot, recordAudit, snapshotRole } from '../../kernel/audit.js';
import { PRODUCT_PREFIX, productRoleUid } from '../../kernel/builtin-roles.js';
import { Action, type PermissionPair, Scope } from '../../kernel/catalogue.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireDelegation, requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { type BasicRoleName, localOperator, type Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { bumpedVersion } from '../../kernel/role-version.js';
import type { Tx } from '../../platform/database.js';
import type { RoleQuery } from '../roles/service.js';
import { grantAdditions, reachedBasicRoles } from './grants.js';
import { type ProductRoleInput, productIdInput, productRolesInput } from './inputs.js';

/** What registration needs: a product's roles may hold anything, so escalate. */
export const productRequirements = {
  register: requirement([], () => permission(Action.RolesWrite, Scope.Escalate)),
};

/** What one registration changed, by role name. */
export interface RegistrationResult {
  created: string[];
  updated: string[];
  deleted: string[];
}

const key = (p: PermissionPair) => `${p.action}\u0000${p.scope}`;
function sameSet(a: Iterable<string>, b: Iterable<string>): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...right].every((x) => left.has(x));
}

/** The roles registered for `productId`, with their permissions and global grants. */
async function storedProductRoles(tx: Tx, productId: string) {
  const prefix = `${PRODUCT_PREFIX}${productId}:`;
  const rows = await tx.role.findMany({
    where: { orgId: 0, name: { startsWith: prefix } },
    include: { permissions: { select: { action: true, scope: true } }, basicGrants: { where: { orgId: 0 } } },
  });
  // SQLite's LIKE (startsWith) ignores ASCII case: keep the exact prefix only.
  return rows.filter((r) => r.name.startsWith(prefix));
}

/**
 * Replaces the registration of `productId` with `roles` inside `tx` (rules in the module
 * comment). Inputs must already be parsed with productRolesInput(productId). Each role created,
 * updated or deleted is logged (`product_role.create|update|delete`, with its permissions and
 * grants before and after) as done by `actor`: the API's caller, or for provisioning files the
 * local operator whose files they are.
 * @returns the names of the roles created, updated and deleted.
 */
export async function applyProductRoles(
  tx: Tx,
  productId: string,
  roles: readonly ProductRoleInput[],
  actor: Principal = localOperator(0),
): Promise<RegistrationResult> {
  const result: RegistrationResult = { created: [], updated: [], deleted: [] };
  const stored = await storedProductRoles(tx, productId);
  const declared = new Set(roles.map((r) => r.role.name));

  for (const old of stored) {
    if (declared.has(old.name)) continue;
    const before = await snapshotRole(tx, old.id);
    await tx.role.delete({ where: { id: old.id } }); // assignments, grants and permissions cascade
    await recordAudit(tx, actor, { action: 'product_role.delete', orgId: 0, resource: { kind: 'role', id: old.uid }, before });
    result.deleted.push(old.name);
  }

  for (const { role, grants } of roles) {
    const permissions = role.permissions ?? [];
    const fields = { displayName: role.displayName ?? '', description: role.description ?? '', group: productId, hidden: false };
    const wantedGrants = reachedBasicRoles(grants);
    const old = stored.find((r) => r.name === role.name);
    let roleId: number;
    let changed = true;
    let before: RoleSnapshot | null = null;
    if (!old) {
      const created = await tx.role.create({
        data: { ...fields, uid: productRoleUid(role.name), orgId: 0, name: role.name, version: 1, permissions: { create: permissions } },
        select: { id: true },
      });
      roleId = created.id;
      result.created.push(role.name);
    } else {
      roleId = old.id;
      const samePermissions = sameSet(old.permissions.map(key), permissions.map(key));
      const sameFields = (Object.keys(fields) as (keyof typeof fields)[]).every((f) => old[f] === fields[f]);
      const sameGrants = sameSet(
        old.basicGrants.map((g) => g.basicRole),
        wantedGrants,
      );
      changed = !samePermissions || !sameFields || !sameGrants;
      if (changed) {
        before = await snapshotRole(tx, roleId);
        await tx.role.update({ where: { id: roleId }, data: { ...fields, version: bumpedVersion(old.version) } });
        result.updated.push(role.name);
      }
      if (!samePermissions) {
        await tx.permission.deleteMany({ where: { roleId } });
        await tx.permission.createMany({ data: permissions.map((p) => ({ ...p, roleId })) });
      }
      const withdrawn = old.basicGrants.filter((g) => !wantedGrants.has(g.basicRole as BasicRoleName)).map((g) => g.id);
      if (withdrawn.length > 0) await tx.basicRoleGrant.deleteMany({ where: { id: { in: withdrawn } } });
      for (const g of old.basicGrants) wantedGrants.delete(g.basicRole as BasicRoleName);
    }
    if (wantedGrants.size > 0) {
      await tx.basicRoleGrant.createMany({ data: [...wantedGrants].map((basicRole) => ({ basicRole, orgId: 0, roleId })) });
    }
    if (changed) {
      await recordAudit(tx, actor, {
        action: before ? 'product_role.update' : 'product_role.create',
        orgId: 0,
        resource: { kind: 'role', id: old?.uid ?? productRoleUid(role.name) },
        ...(before && { before }),
        after: await snapshotRole(tx, roleId),
      });
    }
  }
  return result;
}

export class ProductService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * PUT /api/access-control/plugins/:productId/roles and `registerProductRoles`: replaces the
   * product's registered roles with `rawRoles` (the `roles` array of a Grafana plugin.json) in
   * one transaction; caches see it on the next request. Needs roles:write on
   * permissions:type:escalate, and the grants may add to basic roles only permissions the
   * caller could grant with roles:write (guards.requireDelegation; products/grants.ts).
   * @returns the product's roles after the change, by name.
   * @throws DomainError VALIDATION_FAILED (400: bad product id, a product id that is a namespace
   *   of this service (`users`, `teams`, `org`, ...), role name not `plugins:<productId>:<name>`,
   *   action without the `<productId>.`/`<productId>:` prefix, bad scope, unknown grant),
   *   UNAUTHENTICATED (401), ACCESS_DENIED (403: no escalate, or a grant the caller could not
   *   make), 404 in oss.
   */
  async register(caller: Principal, rawProductId: unknown, rawRoles: unknown, query: RoleQuery = {}): Promise<Role[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, productRequirements.register.for({}));
    const productId = parseInput(productIdInput, rawProductId);
    const roles = parseInput(productRolesInput(productId), rawRoles);
    await this.deps.access.write(async (tx) => {
      // A grant puts the role's permissions in every holder of a basic role, the caller's peers
      // and the caller included: only what the caller could grant with roles:write.
      requireDelegation(index, Action.RolesWrite, grantAdditions(await storedProductRoles(tx, productId), roles));
      await applyProductRoles(tx, productId, roles, caller);
    });
    const prefix = `${PRODUCT_PREFIX}${productId}:`;
    const rows = await this.deps.db.role.findMany({
      ...query,
      where: { orgId: 0, name: { startsWith: prefix } },
      orderBy: [{ name: 'asc' }],
    });
    return rows.filter((r) => r.name.startsWith(prefix));
  }
}
