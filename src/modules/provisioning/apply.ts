/**
 * Applying parsed access-control files inside one transaction (Grafana's RBAC provisioning,
 * apiVersion 2; upstream-behaviour.md "Escalation and provisioning"). Every problem throws with
 * the file, line and path, and the caller's transaction rolls everything back.
 *
 * Roles: found by uid, else by name, in their organization only (`global: true` -> 0, else
 * `orgId`, default 1), and only when provisioning created them (match.ts: a uid or name held
 * elsewhere or by a hand-made role is a conflict). Missing: created with
 * `version` (default 0), marked provisioned. Present: updated only when `version`
 * is higher than the stored one (the API's rule), so applying the same files again changes
 * nothing. A provisioned role's permissions are what `from` copies plus its `permissions`, minus
 * those marked `state: absent`. `state: absent` deletes the role (refused while assigned unless
 * `force`); a missing role is already absent. Basic roles are edited by uid (`basic_editor`) or
 * name; fixed and product roles cannot be changed.
 * Teams: found by name in `orgId` (default 1); each listed role is assigned when missing, or
 * revoked with `state: absent`.
 */
import { createHash } from 'node:crypto';
import { recordAudit, roleAssignments, snapshotRole } from '../../kernel/audit.js';
import { isBasicRoleName, isFixedRoleName } from '../../kernel/builtin-roles.js';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { MAX_ROLE_PERMISSIONS } from '../../kernel/inputs.js';
import { localOperator } from '../../kernel/principal.js';
import { acceptsVersion } from '../../kernel/role-version.js';
import type { Tx } from '../../platform/database.js';
import { type DocPath, problemAt, type SourceFile } from './files.js';
import type { FileRole, FileTeam } from './inputs.js';
import { declaredRole, referencedRole, refOrg, requireCopyable, show } from './match.js';

/** What a run changed (for the log and the reload answer). */
export interface ApplySummary {
  rolesCreated: number;
  rolesUpdated: number;
  rolesDeleted: number;
  assignmentsAdded: number;
  assignmentsRemoved: number;
}

/** A summary with every count 0. */
export const emptySummary = (): ApplySummary => ({
  rolesCreated: 0,
  rolesUpdated: 0,
  rolesDeleted: 0,
  assignmentsAdded: 0,
  assignmentsRemoved: 0,
});

/** Who the audit log names for provisioned changes: the files are the operator's. */
const OPERATOR = localOperator(0);

type Located<T> = { file: SourceFile; path: DocPath; value: T };

/**
 * The permissions a provisioned role of organization `orgId` ends with: `from`'s and its own,
 * minus absent ones.
 */
async function permissionsOf(tx: Tx, { file, path, value }: Located<FileRole>, orgId: number): Promise<PermissionPair[]> {
  const out = new Map<string, PermissionPair>();
  const key = (p: PermissionPair) => `${p.action}\u0000${p.scope}`;
  for (const [i, ref] of (value.from ?? []).entries()) {
    const at = [...path, 'from', i];
    const source = await referencedRole(tx, file, at, ref);
    if (!source) throw problemAt(file, at, `role ${show(ref)} to copy permissions from does not exist`);
    requireCopyable(file, at, source, orgId);
    for (const p of source.permissions) out.set(key(p), { action: p.action, scope: p.scope });
  }
  for (const p of value.permissions ?? []) if (!p.absent) out.set(key(p), { action: p.action, scope: p.scope });
  for (const p of value.permissions ?? []) if (p.absent) out.delete(key(p));
  // The API's bound (kernel/inputs.ts) holds for files too: GraphQL's cost limit counts on it.
  if (out.size > MAX_ROLE_PERMISSIONS) {
    throw problemAt(
      file,
      [...path, 'permissions'],
      `a role holds at most ${MAX_ROLE_PERMISSIONS} permissions, this one would hold ${out.size}`,
    );
  }
  return [...out.values()];
}

/** Applies one role entry. */
export async function applyRole(tx: Tx, entry: Located<FileRole>, summary: ApplySummary): Promise<void> {
  const { file, path, value: role } = entry;
  const existing = await declaredRole(tx, file, path, role);
  const name = role.name ?? existing?.name ?? '';
  if (isFixedRoleName(name) || (existing && isFixedRoleName(existing.name))) {
    throw problemAt(file, [...path, 'name'], `fixed role "${existing?.name ?? name}" cannot be changed`);
  }
  if (role.state === 'absent') {
    if (!existing) return;
    if (isBasicRoleName(existing.name)) throw problemAt(file, path, `basic role "${existing.name}" cannot be deleted`);
    const assigned =
      (await tx.userRole.count({ where: { roleId: existing.id } })) + (await tx.teamRole.count({ where: { roleId: existing.id } }));
    if (assigned > 0 && !role.force) {
      throw problemAt(
        file,
        path,
        `role "${existing.name}" is assigned ${assigned} time(s); add force: true to delete it with its assignments`,
      );
    }
    const before = { ...(await snapshotRole(tx, existing.id)), ...(await roleAssignments(tx, existing.id)) };
    await tx.role.delete({ where: { id: existing.id } });
    await recordAudit(tx, OPERATOR, { action: 'role.delete', orgId: existing.orgId, resource: { kind: 'role', id: existing.uid }, before });
    summary.rolesDeleted++;
    return;
  }
  const permissions = await permissionsOf(tx, entry, existing?.orgId ?? refOrg(role));
  const fields = {
    ...(role.displayName != null && { displayName: role.displayName }),
    ...(role.description != null && { description: role.description }),
    ...(role.group != null && { group: role.group }),
    ...(role.hidden != null && { hidden: role.hidden }),
  };
  if (!existing) {
    if (!role.name) throw problemAt(file, [...path, 'uid'], `role uid "${role.uid}" does not exist; a new role needs a name`);
    if (isBasicRoleName(role.name)) throw problemAt(file, [...path, 'name'], `basic role "${role.name}" does not exist`);
    if (role.uid !== undefined && role.uid !== null && !/^[a-zA-Z0-9_-]{1,40}$/.test(role.uid)) {
      throw problemAt(file, [...path, 'uid'], 'uid must be 1-40 letters, digits, "_" or "-"');
    }
    const orgId = refOrg(role);
    if (orgId !== 0 && !(await tx.org.findUnique({ where: { id: orgId }, select: { id: true } }))) {
      throw problemAt(file, [...path, 'orgId'], `organization ${orgId} does not exist`);
    }
    const created = await tx.role.create({
      data: {
        ...fields,
        uid: role.uid ?? `prov_${createHash('sha1').update(`${orgId}:${role.name}`).digest('base64url')}`,
        orgId,
        name: role.name,
        version: role.version ?? 0,
        provisioned: true,
        permissions: { create: permissions },
      },
    });
    const after = await snapshotRole(tx, created.id);
    await recordAudit(tx, OPERATOR, { action: 'role.create', orgId, resource: { kind: 'role', id: created.uid }, after });
    summary.rolesCreated++;
    return;
  }
  if (isBasicRoleName(existing.name) && role.name && role.name !== existing.name) {
    throw problemAt(file, [...path, 'name'], `basic role "${existing.name}" cannot be renamed`);
  }
  if (role.version == null || !acceptsVersion(role.version, existing.version)) return; // the API's version rule
  const before = await snapshotRole(tx, existing.id);
  await tx.role.update({ where: { id: existing.id }, data: { ...fields, ...(role.name && { name: role.name }), version: role.version } });
  await tx.permission.deleteMany({ where: { roleId: existing.id } });
  await tx.permission.createMany({ data: permissions.map((p) => ({ ...p, roleId: existing.id })) });
  const after = await snapshotRole(tx, existing.id);
  await recordAudit(tx, OPERATOR, {
    action: 'role.update',
    orgId: existing.orgId,
    resource: { kind: 'role', id: existing.uid },
    before,
    after,
  });
  summary.rolesUpdated++;
}

/** Applies one team entry: assigns or revokes each listed role. */
export async function applyTeam(tx: Tx, { file, path, value: team }: Located<FileTeam>, summary: ApplySummary): Promise<void> {
  const orgId = team.orgId ?? 1;
  const row = await tx.team.findFirst({ where: { name: team.name, orgId }, select: { id: true } });
  if (!row) throw problemAt(file, [...path, 'name'], `team "${team.name}" does not exist in organization ${orgId}`);
  for (const [i, ref] of (team.roles ?? []).entries()) {
    const at = [...path, 'roles', i];
    const role = await referencedRole(tx, file, at, ref, orgId);
    if (!role) {
      if (ref.state === 'absent') continue;
      throw problemAt(file, at, `role ${show(ref)} does not exist`);
    }
    if (isBasicRoleName(role.name)) throw problemAt(file, at, `basic role "${role.name}" is held through an org role, not assigned`);
    if (role.orgId !== 0 && role.orgId !== orgId) throw problemAt(file, at, `role ${show(ref)} belongs to another organization`);
    const where = { teamId_roleId: { teamId: row.id, roleId: role.id } };
    const assigned = await tx.teamRole.findUnique({ where, select: { id: true } });
    const removing = ref.state === 'absent';
    if (removing ? !assigned : assigned) continue;
    const before = await teamRolesSnapshot(tx, row.id, orgId);
    if (removing) {
      await tx.teamRole.delete({ where });
      summary.assignmentsRemoved++;
    } else {
      await tx.teamRole.create({ data: { teamId: row.id, roleId: role.id, orgId } });
      summary.assignmentsAdded++;
    }
    const after = await teamRolesSnapshot(tx, row.id, orgId);
    const action = removing ? 'team_role.remove' : 'team_role.add';
    await recordAudit(tx, OPERATOR, { action, orgId, resource: { kind: 'team', id: row.id }, before, after });
  }
}

/** A team's assignments as the audit log keeps them (as the assignment API does): `{teamId, orgId, roleUids}`, uids sorted. */
async function teamRolesSnapshot(tx: Tx, teamId: number, orgId: number) {
  const rows = await tx.teamRole.findMany({ where: { teamId }, select: { role: { select: { uid: true } } } });
  return { teamId, orgId, roleUids: rows.map((r) => r.role.uid).sort() };
}
