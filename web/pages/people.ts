/**
 * What the people pages (users.tsx, user.tsx, teams.tsx, team.tsx, orgs.tsx) share: the org
 * roles the caller may give and whether the caller may take control of an account. Both mirror
 * the server's delegation rule (src/kernel/delegation.ts) for showing controls only; the server
 * decides every request itself.
 */
import { type Access, ESCALATE, type Held } from '../access.js';
import type { ViewerInfo } from '../session.js';
import { grantableRoles } from './credentials.js';

/** An org role (GraphQL enum OrgRole). */
export type OrgRoleName = 'None' | 'Viewer' | 'Editor' | 'Admin';

/** Org roles the caller may give a member: at most its own (any for a Service Admin), None included. */
export function givableOrgRoles(viewer: ViewerInfo | null): OrgRoleName[] {
  return ['None', ...grantableRoles(viewer?.orgRole ?? 'None', viewer?.isServiceAdmin ?? false)];
}

/** An account as the control rule reads it: its flag and, when the caller may read them, its permissions. */
export interface Account {
  isServiceAdmin: boolean;
  /** Null or absent: unknown to the caller (the server still checks). */
  permissions?: readonly Held[] | null;
}

/**
 * May the caller take control of `account` (password, login, email, disabling, deleting)? The
 * server's rule: a Service Admin's account needs a Service Admin; otherwise the caller holds
 * everything the account holds, or holds users.roles:add on permissions:type:escalate.
 * Permissions the caller may not read count as covered: the server's 403 then says what is missing.
 */
export function mayControl(access: Access, viewer: ViewerInfo | null, account: Account): boolean {
  if (account.isServiceAdmin && !viewer?.isServiceAdmin) return false;
  if (access.can('users.roles:add', ESCALATE)) return true;
  return !account.permissions || access.covers(account.permissions);
}

/** `login (name)`, or the login alone when the name adds nothing. */
export function personName(user: { login: string; name: string }): string {
  return user.name && user.name !== user.login ? `${user.login} (${user.name})` : user.login;
}
