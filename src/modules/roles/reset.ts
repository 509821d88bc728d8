/**
 * Reset of the basic roles (POST /api/access-control/roles/hard-reset): every basic role gets
 * back its default permissions and description from builtin-roles.ts, undoing custom edits.
 *
 * Rules: service-interface.md "Reset basic roles" (body `{BasicRoles}`, 200, 500 on failure) and
 * "Required permissions" (roles:write on permissions:type:escalate: a reset can leave a basic role
 * with more permissions than the caller holds, so delegation cannot apply).
 */
import { z } from 'zod';
import { recordAudit, snapshotRole } from '../../kernel/audit.js';
import { BASIC_ROLES, type BasicRoleDefinition } from '../../kernel/builtin-roles.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { OBJECT_ERROR, parseInput } from '../../kernel/inputs.js';
import type { Message } from '../../kernel/message.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { bumpedVersion } from '../../kernel/role-version.js';
import type { Tx } from '../../platform/database.js';

/** What the reset needs (service-interface.md "Required permissions"). */
export const resetRequirements = {
  reset: requirement([], () => permission(Action.RolesWrite, Scope.Escalate)),
};

/** Body of the reset: `{BasicRoles?: boolean}`; no body at all counts as `{}`. */
export const resetInput = z.object({ BasicRoles: z.boolean({ error: 'BasicRoles must be a boolean' }).nullish() }, OBJECT_ERROR).nullish();

export const RESET_MESSAGES = {
  performed: 'Reset performed',
  nothing: 'Nothing to reset: BasicRoles was not true',
} as const;

export class BasicRoleService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * With `BasicRoles: true`, restores every basic role (BASIC_ROLES) in ONE transaction: its
   * permissions become the defaults, its name, display name, description, group and hidden flag
   * too, its version goes up by one (never past the ceiling, kernel/role-version.ts), its global grant is ensured (a missing basic role is
   * recreated). Grants of other roles and assignments are left alone. A failure changes nothing.
   * With `BasicRoles` false or absent nothing changes. Needs roles:write on
   * permissions:type:escalate either way.
   * @throws DomainError VALIDATION_FAILED (400: body), UNAUTHENTICATED (401), ACCESS_DENIED (403),
   *   404 in oss; an unexpected database failure surfaces as 500 after the rollback.
   */
  async reset(caller: Principal, rawInput: unknown): Promise<Message> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, resetRequirements.reset.for({}));
    const input = parseInput(resetInput, rawInput);
    if (!input?.BasicRoles) return { message: RESET_MESSAGES.nothing };
    await this.deps.access.write(async (tx) => {
      for (const def of BASIC_ROLES) await restoreBasicRole(tx, caller, def);
    });
    return { message: RESET_MESSAGES.performed };
  }
}

/**
 * Writes `def` over the stored basic role with its uid (creating it when missing), inside `tx`,
 * and logs it as `basic_role.reset` by `caller`, with the role before and after.
 */
async function restoreBasicRole(tx: Tx, caller: Principal, def: BasicRoleDefinition): Promise<void> {
  const fields = { name: def.name, displayName: def.displayName, description: def.description, group: def.group, hidden: def.hidden };
  const existing = await tx.role.findUnique({ where: { uid: def.uid }, select: { id: true, version: true } });
  let roleId: number;
  const before = existing ? await snapshotRole(tx, existing.id) : null;
  if (existing) {
    roleId = existing.id;
    await tx.role.update({ where: { id: roleId }, data: { ...fields, orgId: 0, version: bumpedVersion(existing.version) } });
    await tx.permission.deleteMany({ where: { roleId } });
  } else {
    roleId = (await tx.role.create({ data: { ...fields, uid: def.uid, orgId: 0 }, select: { id: true } })).id;
  }
  await tx.permission.createMany({ data: def.permissions.map((p) => ({ ...p, roleId })) });
  await tx.basicRoleGrant.upsert({
    where: { basicRole_orgId_roleId: { basicRole: def.basicRole, orgId: 0, roleId } },
    create: { basicRole: def.basicRole, orgId: 0, roleId },
    update: {},
  });
  const after = await snapshotRole(tx, roleId);
  await recordAudit(tx, caller, {
    action: 'basic_role.reset',
    orgId: 0,
    resource: { kind: 'role', id: def.uid },
    ...(before && { before }),
    after,
  });
}
