/**
 * The proposed changes applied to the in-memory picture (picture.ts), one at a time, as their
 * real writes would change the rows: a role's permissions replaced (roles/service.ts update), an
 * assignment added or removed in the organization or globally (assignments/core.ts), a team's
 * role, a team membership (teams/members.ts), a person's org role (orgs/members.ts). Each step
 * answers the subjects it reaches in the picture as it stands, whose permissions may move.
 */
import { isBasicRoleName, isFixedRoleName } from '../../kernel/builtin-roles.js';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import type { OrgRole } from '../../kernel/principal.js';
import type { ProposedChange } from './inputs.js';
import type { MemberRow, Resolved, RoleRow } from './load.js';
import { heldRoleIdsOf, type Picture, type Subject, userKey } from './picture.js';

/** A proposed change with what it names resolved (load.ts resolveTargets). */
export type Step =
  | { kind: 'role.permissions'; role: RoleRow; permissions: readonly PermissionPair[] }
  | { kind: 'user_role.add' | 'user_role.remove'; member: MemberRow; role: RoleRow; global: boolean }
  | { kind: 'team_role.add' | 'team_role.remove'; teamId: number; role: RoleRow }
  | { kind: 'team_member.add' | 'team_member.remove'; teamId: number; member: MemberRow }
  | { kind: 'org_user.role'; member: MemberRow; role: OrgRole };

/**
 * The steps of `changes`, refusing what no caller could propose (the real writes refuse it for
 * everyone, whatever the state): a fixed role's permissions; a basic role assigned, or an
 * organization's role assigned globally; a service account in a team; an org role of a service
 * account (set through its own routes).
 * @throws DomainError ROLE_IS_FIXED (400), ROLE_NOT_ASSIGNABLE (400), VALIDATION_FAILED (400),
 *   USER_NOT_FOUND (404: a service account's org role).
 */
export function stepsOf(changes: readonly ProposedChange[], resolved: Resolved): Step[] {
  return changes.map((change, i) => stepOf(change, `changes.${i}`, resolved));
}

/** One change's step (stepsOf); `at` names it in a 400. */
function stepOf(change: ProposedChange, at: string, resolved: Resolved): Step {
  const role = 'roleUid' in change ? (resolved.roles.get(change.roleUid) as RoleRow) : undefined;
  const member = 'userId' in change ? (resolved.members.get(change.userId) as MemberRow) : undefined;
  switch (change.kind) {
    case 'role.permissions':
      if (isFixedRoleName((role as RoleRow).name))
        throw new DomainError('ROLE_IS_FIXED', `${at}: fixed role "${(role as RoleRow).name}" cannot be updated`);
      return { kind: change.kind, role: role as RoleRow, permissions: change.permissions };
    case 'user_role.add':
    case 'user_role.remove': {
      const r = assignable(role as RoleRow, change.global ?? false, at);
      return { kind: change.kind, member: member as MemberRow, role: r, global: change.global ?? false };
    }
    case 'team_role.add':
    case 'team_role.remove':
      return { kind: change.kind, teamId: change.teamId, role: assignable(role as RoleRow, false, at) };
    case 'team_member.add':
    case 'team_member.remove':
      if ((member as MemberRow).isServiceAccount)
        throw new DomainError('VALIDATION_FAILED', `${at}.userId: service accounts cannot be team members`);
      return { kind: change.kind, teamId: change.teamId, member: member as MemberRow };
    case 'org_user.role':
      if ((member as MemberRow).isServiceAccount)
        throw new DomainError('USER_NOT_FOUND', `${at}.userId: user ${change.userId} is a service account, not a person`, {
          id: change.userId,
        });
      return { kind: change.kind, member: member as MemberRow, role: change.role };
  }
}

/** The assignments' rule (assignments/assignable.ts): no basic role; an organization's role never globally. */
function assignable(role: RoleRow, global: boolean, at: string): RoleRow {
  if (isBasicRoleName(role.name))
    throw new DomainError('ROLE_NOT_ASSIGNABLE', `${at}: role "${role.uid}" is a basic role: it is held through an org role`, {
      uid: role.uid,
    });
  if (global && role.orgId !== 0)
    throw new DomainError('ROLE_NOT_ASSIGNABLE', `${at}: role "${role.uid}" belongs to one organization and cannot be assigned globally`, {
      uid: role.uid,
    });
  return role;
}

/** The subjects of `picture` that hold role `roleId` now. */
function holdersOf(picture: Picture, roleId: number): Subject[] {
  return [...picture.subjects.values()].filter((s) => heldRoleIdsOf(picture, s).has(roleId));
}

/** The members of team `teamId` in the picture. */
export function membersOf(picture: Picture, teamId: number): Subject[] {
  return [...picture.subjects.values()].filter((s) => s.teams.has(teamId));
}

/**
 * Applies `step` to `picture` (changing it) and answers the subjects whose permissions it may
 * have moved: those holding the role whose permissions change, the team's members, or the one
 * subject the step names (absent when it is not in the picture).
 */
export function applyStep(picture: Picture, step: Step): Subject[] {
  const named = 'member' in step ? picture.subjects.get(userKey(step.member.id)) : undefined;
  switch (step.kind) {
    case 'role.permissions': {
      const holders = holdersOf(picture, step.role.id);
      picture.permissions.set(step.role.id, step.permissions);
      return holders;
    }
    case 'user_role.add':
    case 'user_role.remove': {
      if (!named) return [];
      const set = step.global ? named.globalRoles : named.orgRoles;
      if (step.kind === 'user_role.add') set.add(step.role.id);
      else set.delete(step.role.id);
      return [named];
    }
    case 'team_role.add':
    case 'team_role.remove': {
      const roles = picture.teamRoles.get(step.teamId) ?? new Set<number>();
      if (step.kind === 'team_role.add') roles.add(step.role.id);
      else roles.delete(step.role.id);
      picture.teamRoles.set(step.teamId, roles);
      return membersOf(picture, step.teamId);
    }
    case 'team_member.add':
    case 'team_member.remove':
      if (!named) return [];
      if (step.kind === 'team_member.add') named.teams.add(step.teamId);
      else named.teams.delete(step.teamId);
      return [named];
    case 'org_user.role':
      if (!named) return [];
      named.orgRole = step.role;
      if (step.role === 'Admin') picture.adminPeople.add(named.id);
      else picture.adminPeople.delete(named.id);
      return [named];
  }
}
