/**
 * What goes with an organization when it is deleted (OrgService.delete, Grafana's DeleteOrg):
 * memberships, teams (their members and roles), API keys and service accounts (with their
 * tokens), its org-local roles (their permissions, grants and assignments), role assignments and
 * basic-role grants made in it. Sessions acting in it fall back to their user's default, and
 * users whose default it was get another one (Grafana moves a user's default the same way when
 * removing it from an organization).
 */
import type { Tx } from '../../platform/database.js';
import { PEOPLE } from './members.js';

/** What went with a deleted organization, for its audit record (counts of rows). */
export interface DeletedContents {
  /** Member people (service accounts are counted apart). */
  members: number;
  teams: number;
  serviceAccounts: number;
  /** Org-local roles. */
  roles: number;
}

/**
 * Deletes organization `id` and everything that lives in it, inside the caller's transaction
 * `tx` (so a failure leaves it whole), then moves the default organization of the users it was
 * the default of (moveDefaultOrgs). The organization must exist.
 */
export async function deleteOrganizationCascade(tx: Tx, id: number): Promise<DeletedContents> {
  const members = await tx.orgUser.count({ where: { orgId: id, user: PEOPLE } });
  const teams = await tx.team.count({ where: { orgId: id } });
  // Rows keyed by orgId without a foreign key to Org (0 means global, so it cannot be one).
  const roles = await tx.role.deleteMany({ where: { orgId: id } });
  await tx.userRole.deleteMany({ where: { orgId: id } });
  await tx.teamRole.deleteMany({ where: { orgId: id } });
  await tx.basicRoleGrant.deleteMany({ where: { orgId: id } });
  await tx.teamMember.deleteMany({ where: { orgId: id } });
  await tx.session.updateMany({ where: { orgId: id }, data: { orgId: null } });
  // A service account belongs to one organization: it goes with it, tokens included.
  const serviceAccounts = await tx.user.deleteMany({ where: { isServiceAccount: true, orgId: id } });
  // Memberships, teams and API keys: ON DELETE CASCADE.
  await tx.org.delete({ where: { id } });
  await moveDefaultOrgs(tx, id);
  return { members, teams, serviceAccounts: serviceAccounts.count, roles: roles.count };
}

/**
 * After organization `deletedId` is gone: every user whose default it was gets its first
 * remaining membership, or, with none, the first remaining organization (so a Service Admin can
 * still act somewhere; anyone else is refused there until added to an organization). One update
 * per target organization, not per user.
 */
async function moveDefaultOrgs(tx: Tx, deletedId: number): Promise<void> {
  const stranded = await tx.user.findMany({
    where: { orgId: deletedId },
    select: { id: true, orgs: { select: { orgId: true }, orderBy: { orgId: 'asc' }, take: 1 } },
  });
  if (stranded.length === 0) return;
  const fallback = (await tx.org.findFirst({ orderBy: { id: 'asc' }, select: { id: true } }))?.id ?? 0;
  const byTarget = new Map<number, number[]>();
  for (const user of stranded) {
    const target = user.orgs[0]?.orgId ?? fallback;
    byTarget.set(target, [...(byTarget.get(target) ?? []), user.id]);
  }
  for (const [orgId, ids] of byTarget) await tx.user.updateMany({ where: { id: { in: ids } }, data: { orgId } });
}
