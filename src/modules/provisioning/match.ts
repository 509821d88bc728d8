/**
 * How a provisioning file's role entries and references find stored roles (the rule:
 * no silent fill of a squatted uid).
 *
 * A declared role (an entry of `roles:`) is matched by uid, else by name, only in the scope the
 * file declares for it: `global: true` -> the global scope (organization 0), else `orgId`
 * (default 1). It matches a role that provisioning created (Role.provisioned), a basic role (the
 * files edit them by their reserved uid) or a fixed/product role (refused by the caller with its
 * own message). Anything else holding that uid or name is a conflict reported with the file,
 * line and path, and the run's one transaction changes nothing:
 * - the uid is held by a role of another organization, or a global role when the file declares
 *   an organization (or the reverse);
 * - the uid or name is held by a role made by hand (the role API), which a file never fills.
 * `state: absent` may delete a hand-made role of the declared scope (an explicit operator
 * order); a uid held elsewhere is a conflict there too, so nothing outside the scope is deleted.
 *
 * References (`from`, a team's `roles`) by uid honour the scope they declare (`global: true` ->
 * 0, `orgId` -> that organization; a uid held elsewhere is a conflict); by name they look in
 * `orgId` (default 1) or the global scope. A team's roles must be global or of the team's
 * organization (apply.ts). A `from` source made by hand must belong to the organization of the
 * role copying it, so a hand-made role never feeds a global role or another organization's.
 */
import type { Permission, Role } from '../../generated/prisma/client.js';
import { isBasicRoleName, isFixedRoleName } from '../../kernel/builtin-roles.js';
import type { Tx } from '../../platform/database.js';
import { type DocPath, problemAt, type SourceFile } from './files.js';
import type { RoleRef } from './inputs.js';

/** A stored role with its permissions. */
export type StoredRole = Role & { permissions: Permission[] };

/** The organization a reference or entry declares: `global: true` -> 0, else `orgId`, else `fallback`. */
export const refOrg = (ref: { global?: boolean | null; orgId?: number | null }, fallback = 1): number =>
  ref.global ? 0 : (ref.orgId ?? fallback);

/** `uid "x"` or `name "x"`, for messages. */
export const show = (ref: RoleRef): string => (ref.uid ? `uid "${ref.uid}"` : `name "${ref.name}"`);

const scopeName = (orgId: number) => (orgId === 0 ? 'the global scope' : `organization ${orgId}`);
/** Roles the service defines (basic, fixed) or products register: never "made by hand". */
const builtIn = (role: Role) => isBasicRoleName(role.name) || isFixedRoleName(role.name);

/**
 * The stored role a `roles:` entry declares (rules in the module comment), or null when none.
 * @throws DomainError PROVISIONING_INVALID at `path` for a conflict.
 */
export async function declaredRole(
  tx: Tx,
  file: SourceFile,
  path: DocPath,
  entry: RoleRef & { state?: string | null },
): Promise<StoredRole | null> {
  const orgId = refOrg(entry);
  const include = { permissions: true } as const;
  const byUid = entry.uid ? await tx.role.findUnique({ where: { uid: entry.uid }, include }) : null;
  if (byUid && !builtIn(byUid) && byUid.orgId !== orgId) {
    throw problemAt(
      file,
      [...path, 'uid'],
      `role uid "${entry.uid}" is held by a role of ${scopeName(byUid.orgId)}, not ${scopeName(orgId)} this file declares; nothing was matched`,
    );
  }
  // A uid names one role: no fall-back to the name, which may belong to another role.
  const found = entry.uid ? byUid : await tx.role.findFirst({ where: { name: entry.name as string, orgId }, include });
  if (!found) {
    if (entry.uid && entry.name && entry.state !== 'absent') await nameFree(tx, file, path, entry.name, orgId);
    return null;
  }
  if (builtIn(found) || found.provisioned || entry.state === 'absent') return found;
  throw problemAt(
    file,
    [...path, entry.uid ? 'uid' : 'name'],
    `${show(entry)} is held by role "${found.name}" of ${scopeName(found.orgId)}, which was not created by provisioning; a file never fills a role made by hand (rename or delete that role first)`,
  );
}

/**
 * A new role's name must be free in its organization: a hand-made role of that name is a
 * conflict, not a unique-constraint failure.
 */
async function nameFree(tx: Tx, file: SourceFile, path: DocPath, name: string, orgId: number): Promise<void> {
  const holder = await tx.role.findFirst({ where: { name, orgId }, select: { uid: true } });
  if (holder) {
    throw problemAt(
      file,
      [...path, 'name'],
      `role name "${name}" is already held in ${scopeName(orgId)} by the role of uid "${holder.uid}"`,
    );
  }
}

/**
 * The role a reference names, or null when none: by uid (in the scope it declares, if any),
 * else by name in `refOrg(ref, fallbackOrg)`.
 * @throws DomainError PROVISIONING_INVALID at `path` when the uid is held outside the declared scope.
 */
export async function referencedRole(tx: Tx, file: SourceFile, path: DocPath, ref: RoleRef, fallbackOrg = 1): Promise<StoredRole | null> {
  const include = { permissions: true } as const;
  if (!ref.uid) return tx.role.findFirst({ where: { name: ref.name as string, orgId: refOrg(ref, fallbackOrg) }, include });
  const role = await tx.role.findUnique({ where: { uid: ref.uid }, include });
  if (!role || builtIn(role) || (!ref.global && ref.orgId == null)) return role;
  const declared = refOrg(ref);
  if (role.orgId !== declared)
    throw problemAt(file, path, `role ${show(ref)} belongs to ${scopeName(role.orgId)}, not ${scopeName(declared)}`);
  return role;
}

/**
 * A `from` source must not carry a hand-made role's permissions out of its organization.
 * @throws DomainError PROVISIONING_INVALID at `path` when `source` is hand-made and `targetOrg` differs.
 */
export function requireCopyable(file: SourceFile, path: DocPath, source: Role, targetOrg: number): void {
  if (builtIn(source) || source.provisioned || source.orgId === targetOrg) return;
  throw problemAt(
    file,
    path,
    `role "${source.name}" of ${scopeName(source.orgId)} was not created by provisioning; its permissions cannot be copied into a role of ${scopeName(targetOrg)}`,
  );
}
