/**
 * Role management: list, read, create, update and delete roles, and the access-control status.
 * Both doors (GraphQL and REST) call these functions; each one validates its input, checks the
 * caller's permissions (including delegation), writes in one transaction and returns rows.
 *
 * Rules: service-interface.md "Create role" / "Update role" / "Delete role" / "Required
 * permissions"; upstream-behaviour.md "Roles" (limits, stale version message, global org 0).
 */
import { randomBytes } from 'node:crypto';
import type { Role } from '../../generated/prisma/client.js';
import { recordAudit, roleAssignments, roleSnapshotOf, snapshotRole } from '../../kernel/audit.js';
import { isBasicRoleName, isFixedRoleName } from '../../kernel/builtin-roles.js';
import { Action } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireDelegation, requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { isReservedRoleName, RESERVED_NAME_MESSAGE } from '../../kernel/lookalikes.js';
import type { Principal } from '../../kernel/principal.js';
import { acceptsVersion } from '../../kernel/role-version.js';
import { isUniqueViolation } from '../../platform/database.js';
import type { ConnectionArgs } from '../shared/connection-args.js';
import { createRoleInput, updateRoleInput } from './inputs.js';
import { grantedRolesByBasicRole, knownActions, permissionsOfRole, ROLE_WITH_PERMISSIONS, type RoleQuery, roleTaken } from './listing.js';
import { RoleListingCache } from './listing-cache.js';
import { cursorWindow, listRoles, type RoleListOptions, type RoleSlice, type RoleWindow, restWindow } from './listing-page.js';
import { roleNotFound, roleRequirements } from './requirements.js';

export { ROLE_WITH_PERMISSIONS, type RoleQuery, rolesByIds } from './listing.js';
export { roleNotFound, roleRequirements } from './requirements.js';

/** Grafana-style short uid: 14 characters of [a-zA-Z0-9_-] from a CSPRNG. */
const generateUid = (): string => randomBytes(11).toString('base64url').slice(0, 14);

type RolePage = RoleSlice & { page: number; perPage: number };

export class RoleService {
  /** Role listings by organization, stamped with the access revision (listing-cache.ts). */
  private readonly listings: RoleListingCache;

  constructor(private readonly deps: FeatureDeps) {
    this.listings = new RoleListingCache(deps.db, deps.access.freshness);
  }

  private assertAvailable(): void {
    this.deps.edition.assertAvailable();
  }

  /**
   * GET /api/access-control/status: `{enabled: true}`.
   * Needs status:accesscontrol on services:accesscontrol. @throws 404 in oss, 401, 403.
   */
  async status(caller: Principal): Promise<{ enabled: boolean }> {
    this.assertAvailable();
    await this.deps.access.check(caller, roleRequirements.status.for({}));
    return { enabled: true };
  }

  /**
   * All global roles and the roles of the caller's organization, by name then id; hidden ones
   * only with includeHidden; with `delegatable` only those the caller may assign (Grafana's,
   * listing-page.listRoles). Needs roles:read on roles:*. Without relations, the listing cache's
   * frozen rows, shared with other requests. @throws 404 in oss, 401, 403.
   */
  async list(caller: Principal, options: RoleListOptions, query: RoleQuery = {}): Promise<readonly Role[]> {
    return (await this.slice(caller, options, null, query)).rows;
  }

  /** REST `page`/`perpage` of `list` (listing-page.restWindow). @throws as `list`; VALIDATION_FAILED (400). */
  async page(caller: Principal, options: RoleListOptions, raw: { page: unknown; perpage: unknown }): Promise<RolePage> {
    const window = restWindow(raw);
    return { ...(await this.slice(caller, options, window)), page: window.page, perPage: window.perPage };
  }

  /** GraphQL `first`/`after` or `last`/`before` of `list` (listing-page.cursorWindow). @throws as `list`; VALIDATION_FAILED (400). */
  async window(caller: Principal, options: RoleListOptions, raw: ConnectionArgs, query: RoleQuery = {}) {
    return this.slice(caller, options, cursorWindow(raw), query);
  }

  private async slice(caller: Principal, options: RoleListOptions, window: RoleWindow | null, query?: RoleQuery): Promise<RoleSlice> {
    this.assertAvailable();
    const index = await this.deps.access.check(caller, roleRequirements.read.for({}));
    return listRoles(this.deps.db, this.listings, { orgId: caller.orgId, index }, options, window, query);
  }

  /**
   * GraphQL `actions(prefix)`, for role editors: every known action starting with `prefix` (the
   * catalogue's, registered products', and any held by a role the caller can see) with the fixed
   * roles (`fixed:` and registered `plugins:`) that carry it, sorted by action. Needs roles:read
   * on roles:*. @throws 404 in oss, 401, 403.
   */
  async actions(caller: Principal, prefix: string | null | undefined): Promise<{ action: string; fixedRoles: Role[] }[]> {
    this.assertAvailable();
    await this.deps.access.check(caller, roleRequirements.read.for({}));
    return knownActions(this.deps.db, caller.orgId, prefix ?? '');
  }

  /**
   * GraphQL `Role.grantedRoles`: for every basic role, by its name (`basic:viewer` -> roles), the
   * roles products granted it (registered fixed roles, inheritance Viewer -> Editor -> Admin
   * included; listing.grantedRolesByBasicRole), each with what `query` loads. Kept apart from the
   * basic role's own permissions, as Grafana Enterprise assigns plugin roles to basic roles: an
   * edit of the basic role neither copies nor drops them, and re-registration withdraws them.
   * Needs only credentials: it answers about basic roles the caller already reached (through
   * roles:read, or as roles it holds itself), as their `permissions` do. @throws 401, 404 in oss.
   */
  async grantedRoles(caller: Principal, query: RoleQuery = {}): Promise<Map<string, Role[]>> {
    this.assertAvailable();
    requireSignedIn(caller);
    return grantedRolesByBasicRole(this.deps.db, caller.orgId, query);
  }

  /**
   * One role with (when the query asks) its permissions. Needs roles:read on roles:*.
   * @throws DomainError ROLE_NOT_FOUND (404) when the uid names no global role and no role of the
   *   caller's organization; 404 in oss; 401; 403.
   */
  async get(caller: Principal, uid: string, query: RoleQuery = {}): Promise<Role> {
    this.assertAvailable();
    await this.deps.access.check(caller, roleRequirements.read.for({}));
    const role = await this.deps.db.role.findFirst({ ...query, where: { uid, orgId: { in: [0, caller.orgId] } } });
    if (!role) throw roleNotFound(uid);
    return role;
  }

  /**
   * Creates a custom role. Needs roles:write on permissions:type:delegate and every permission of
   * the new role (delegation), or roles:write on permissions:type:escalate; a global role also
   * needs a Service Admin, since it acts in every organization. Names are stored NFC-normalized.
   * @throws DomainError VALIDATION_FAILED (400: bad field; a name that is or reads as `fixed:`,
   *   `basic:`, `plugins:` or `managed:` (kernel/lookalikes.ts: NFKC, case, white space, look-alike
   *   letters and colons); a uid beginning with `fixed_`, `basic_`, `plugins_`, `prov_` or
   *   `managed_`; a version above 2147483646, which would leave no higher version for an update,
   *   kernel/role-version.ts), ROLE_ALREADY_EXISTS (409: uid or name taken), 401, 403, 404 in oss.
   */
  async create(caller: Principal, rawInput: unknown, query: RoleQuery = {}): Promise<Role> {
    this.assertAvailable();
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, roleRequirements.write.for({}));
    const input = parseInput(createRoleInput, rawInput);
    const global = input.global ?? false;
    if (global) requireServiceAdmin(caller, 'create a global role');
    const permissions = input.permissions ?? [];
    requireDelegation(index, Action.RolesWrite, permissions);

    const uid = input.uid ?? generateUid();
    const orgId = global ? 0 : caller.orgId;
    try {
      const role = await this.deps.access.write(
        async (tx) => {
          const created = await tx.role.create({
            data: {
              uid,
              orgId,
              name: input.name,
              displayName: input.displayName ?? '',
              description: input.description ?? '',
              group: input.group ?? '',
              hidden: input.hidden ?? false,
              maxAssignmentSeconds: input.maxAssignmentSeconds ?? null,
              version: input.version ?? 0,
              permissions: { create: permissions },
            },
            ...ROLE_WITH_PERMISSIONS,
          });
          // Its own row as just written (a new role is granted to no basic role): not read again.
          const snapshotPermissions = created.permissions.map(({ action, scope }) => ({ action, scope }));
          const after = roleSnapshotOf({ ...created, permissions: snapshotPermissions }, []);
          await recordAudit(tx, caller, { action: 'role.create', orgId, resource: { kind: 'role', id: uid }, after });
          return created;
        },
        { grantsNothing: true },
      );
      // The one role write that applies no change: listings must drop theirs themselves.
      this.listings.invalidate();
      // Any other selection (GraphQL's) is read now, committed.
      if (query === ROLE_WITH_PERMISSIONS) return role;
      return await this.deps.db.role.findUniqueOrThrow({ ...query, where: { id: role.id } });
    } catch (error) {
      if (isUniqueViolation(error)) throw await roleTaken(this.deps.db, { orgId, name: input.name, uid });
      throw error;
    }
  }

  /**
   * Updates a custom or basic role; permissions, when sent, replace the old ones wholesale.
   * Needs roles:write on permissions:type:delegate and delegation of both the role's current
   * and its new permissions (none with roles:write on permissions:type:escalate); a global role
   * needs a Service Admin.
   * The version must be higher than the stored one; a role stored at the ceiling (2147483647)
   * accepts the ceiling again (kernel/role-version.ts, the rule of every version write).
   * @throws DomainError ROLE_NOT_FOUND (404), ROLE_IS_FIXED (400), ROLE_VERSION_CONFLICT (400:
   *   "the provided role version is smaller than or equal to stored role"),
   *   VALIDATION_FAILED (400), ROLE_ALREADY_EXISTS (409: name taken), 401, 403, 404 in oss.
   */
  async update(caller: Principal, uid: string, rawInput: unknown, query: RoleQuery = {}): Promise<Role> {
    this.assertAvailable();
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, roleRequirements.write.for({}));
    const input = parseInput(updateRoleInput, rawInput);
    const { db, access } = this.deps;

    try {
      await access.write(async (tx) => {
        const role = await tx.role.findFirst({ where: { uid, orgId: { in: [0, caller.orgId] } } });
        if (!role) throw roleNotFound(uid);
        if (isFixedRoleName(role.name)) throw new DomainError('ROLE_IS_FIXED', `fixed role "${role.name}" cannot be updated`);
        const basic = isBasicRoleName(role.name);
        if (basic && input.name !== role.name)
          throw new DomainError('VALIDATION_FAILED', `name: basic role "${role.name}" cannot be renamed`);
        if (!basic && isReservedRoleName(input.name)) throw new DomainError('VALIDATION_FAILED', `name: ${RESERVED_NAME_MESSAGE}`);
        if (role.orgId === 0) requireServiceAdmin(caller, 'update a global role');
        if (!acceptsVersion(input.version, role.version)) {
          throw new DomainError('ROLE_VERSION_CONFLICT', 'the provided role version is smaller than or equal to stored role', {
            storedVersion: role.version,
          });
        }
        const current = await permissionsOfRole(tx, role.id);
        requireDelegation(index, Action.RolesWrite, input.permissions ? [...current, ...input.permissions] : current);
        const before = await snapshotRole(tx, role.id);

        await tx.role.update({
          where: { id: role.id },
          data: {
            name: input.name,
            version: input.version,
            ...(input.displayName != null && { displayName: input.displayName }),
            ...(input.description != null && { description: input.description }),
            ...(input.group != null && { group: input.group }),
            ...(input.hidden != null && { hidden: input.hidden }),
            // Omitted: unchanged; null: no limit any more.
            ...(input.maxAssignmentSeconds !== undefined && { maxAssignmentSeconds: input.maxAssignmentSeconds }),
          },
        });
        if (input.permissions) {
          await tx.permission.deleteMany({ where: { roleId: role.id } });
          await tx.permission.createMany({ data: input.permissions.map((p) => ({ ...p, roleId: role.id })) });
        }
        const after = await snapshotRole(tx, role.id);
        await recordAudit(tx, caller, { action: 'role.update', orgId: role.orgId, resource: { kind: 'role', id: uid }, before, after });
      });
    } catch (error) {
      if (isUniqueViolation(error)) {
        const role = await db.role.findUnique({ where: { uid }, select: { orgId: true } });
        throw await roleTaken(db, { orgId: role?.orgId ?? caller.orgId, name: input.name });
      }
      throw error;
    }
    return db.role.findUniqueOrThrow({ ...query, where: { uid } });
  }

  /**
   * Deletes a custom role of the caller's organization (`global` false/absent) or a global role
   * (`global` true). Without `force` a role that is still assigned is refused; with it, its
   * assignments go too. Needs roles:delete on permissions:type:delegate and delegation of the
   * role's permissions (none on permissions:type:escalate); a global role needs a Service Admin.
   * @throws DomainError ROLE_NOT_FOUND (404), ROLE_IS_FIXED (400: fixed or basic role),
   *   ROLE_ASSIGNED (400), 401, 403, 404 in oss.
   */
  async delete(caller: Principal, uid: string, options: { force?: boolean | null; global?: boolean | null }): Promise<{ message: string }> {
    this.assertAvailable();
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, roleRequirements.delete.for({}));
    const orgId = options.global ? 0 : caller.orgId;
    await this.deps.access.write(async (tx) => {
      const role = await tx.role.findFirst({ where: { uid, orgId } });
      if (!role) throw roleNotFound(uid);
      if (isFixedRoleName(role.name) || isBasicRoleName(role.name)) {
        throw new DomainError('ROLE_IS_FIXED', `role "${role.name}" is defined by the service and cannot be deleted`);
      }
      if (role.orgId === 0) requireServiceAdmin(caller, 'delete a global role');
      requireDelegation(index, Action.RolesDelete, await permissionsOfRole(tx, role.id));
      if (!options.force) {
        const [users, teams] = await Promise.all([
          tx.userRole.count({ where: { roleId: role.id } }),
          tx.teamRole.count({ where: { roleId: role.id } }),
        ]);
        if (users + teams > 0) {
          throw new DomainError(
            'ROLE_ASSIGNED',
            `role "${role.name}" is assigned ${users + teams} time(s); delete it with force=true to remove its assignments too`,
          );
        }
      }
      const before = { ...(await snapshotRole(tx, role.id)), ...(await roleAssignments(tx, role.id)) };
      // Assignments and permissions go with the role (ON DELETE CASCADE).
      await tx.role.delete({ where: { id: role.id } });
      await recordAudit(tx, caller, { action: 'role.delete', orgId: role.orgId, resource: { kind: 'role', id: uid }, before });
    });
    return { message: 'Role deleted' };
  }
}
