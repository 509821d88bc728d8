/**
 * What a change would make its subject hold: the Gains and Grants the one delegation rule
 * (delegation.ts) checks, read through the write's transaction so the check and the write see the
 * same rows. Holding follows held-roles.ts (upstream-behaviour.md "Permission evaluation"): the
 * basic role of an org role (with the roles granted to it there or everywhere), roles assigned in
 * an organization or globally, and the roles of one's teams there.
 */
import type { Prisma } from '../generated/prisma/client.js';
import type { Tx } from '../platform/database.js';
import { Action, type PermissionPair } from './catalogue.js';
import { authorizeGrant, type Gain, type Grant } from './delegation.js';
import type { PermissionIndex } from './evaluator.js';
import { heldRolesWhere } from './held-roles.js';
import { asOrgRole, type OrgRole, type PrincipalUser, principalOf, type SignedInPrincipal } from './principal.js';

/**
 * The escalation right of every grant to a user, a service account or a credential acting as one
 * (delegation.ts, "Escalation rights"): users.roles:add on permissions:type:escalate.
 */
export const PRINCIPAL_GRANT_ACTION = Action.UsersRolesAdd;

/**
 * What the requirements of the paths under the one rule add to their documented evaluator
 * (REST route table, GraphQL descriptions): `account` for control of another account or a token
 * acting as it, `role` for giving an org role.
 */
export const DELEGATION_NOTES = {
  account:
    "and everything the account holds (delegation) or users.roles:add on permissions:type:escalate; a Service Admin's account needs a Service Admin",
  role: 'a role at most your own whose permissions you hold (delegation)',
} as const;

/** Every permission of the roles matching `where` (duplicates kept; the rule does not mind). */
async function permissionsWhere(tx: Tx, where: Prisma.RoleWhereInput): Promise<PermissionPair[]> {
  const roles = await tx.role.findMany({ where, select: { permissions: { select: { action: true, scope: true } } } });
  return roles.flatMap((r) => r.permissions);
}

/**
 * Having org role `role` in `orgId`: the permissions of its basic role there (the basic role's
 * own and the roles granted to it in `orgId` or globally). "None" holds nothing.
 */
export async function orgRoleGain(tx: Tx, orgId: number, role: OrgRole): Promise<Gain> {
  if (role === 'None') return { orgId, orgRole: role, permissions: [] };
  const permissions = await permissionsWhere(tx, { basicGrants: { some: { basicRole: role, orgId: { in: [0, orgId] } } } });
  return { orgId, orgRole: role, permissions };
}

/** Being a member of team `teamId` of `orgId`: the permissions of the team's roles there. */
export async function teamGain(tx: Tx, teamId: number, orgId: number): Promise<Gain> {
  return { orgId, permissions: await permissionsWhere(tx, { teamRoles: { some: { teamId, orgId } } }) };
}

/**
 * Being `user` in `orgId` with org role `role`: everything it would hold there (its basic role,
 * its global roles and those assigned in `orgId`, its teams' roles there). Not what its Service
 * Admin flag gives: that holds in every organization, member or not, and Grant.serviceAdmin
 * guards it (accountGrant).
 */
export async function memberGain(tx: Tx, user: PrincipalUser, orgId: number, role: OrgRole): Promise<Gain> {
  const there = principalOf({ ...user, isServiceAdmin: false }, orgId, role, 'none');
  return { orgId, orgRole: role, permissions: await permissionsWhere(tx, heldRolesWhere(there)) };
}

/**
 * Control of account `userId` (a user or a service account: its password, login, email, sessions,
 * existence, or a token acting as it) is worth everything it holds: in every organization it
 * belongs to, with its org role there, and its Service Admin flag. An unknown id yields a Grant
 * with no gains; the caller's own lookup answers 404.
 */
export async function accountGrant(tx: Tx, userId: number, what: string): Promise<Grant> {
  const user = await tx.user.findUnique({
    where: { id: userId },
    select: { id: true, login: true, isServiceAccount: true, isServiceAdmin: true, orgs: { select: { orgId: true, role: true } } },
  });
  if (!user) return { what, action: PRINCIPAL_GRANT_ACTION, gains: [] };
  const gains: Gain[] = [];
  for (const m of user.orgs) gains.push(await memberGain(tx, user, m.orgId, asOrgRole(m.role)));
  return { what, action: PRINCIPAL_GRANT_ACTION, gains, serviceAdmin: user.isServiceAdmin };
}

/**
 * The one rule for taking control of account `userId` (its credentials, identity, sessions or
 * existence): the caller must be able to grant everything the account holds (accountGrant), or
 * hold users.roles:add on permissions:type:escalate; a Service Admin's account needs a Service
 * Admin. `what` names the change for the 403; `now` is the services' clock. Call it inside the write's
 * transaction, before its first write; `index` is the caller's, loaded before the transaction.
 * @throws DomainError ACCESS_DENIED (403) naming what is missing.
 */
export async function authorizeAccountControl(
  tx: Tx,
  caller: SignedInPrincipal,
  index: PermissionIndex,
  userId: number,
  what: string,
  now: Date,
): Promise<void> {
  await authorizeGrant(tx, caller, index, await accountGrant(tx, userId, what), now);
}
