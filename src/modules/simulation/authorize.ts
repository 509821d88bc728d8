/**
 * Whether the caller could make each proposed change, by the rules its real write applies,
 * answered instead of thrown: the permission the write path requires (the same requirement
 * objects: roles/requirements.ts, assignments/stores.ts, teams/requirements.ts,
 * orgs/requirements.ts), the Service Admin gate of global objects, the org-role ceiling, and the
 * one delegation rule (kernel/delegation.ts) on what the change would give, as the picture stands
 * just before it (an earlier change to a role's permissions counts for a later assignment of it);
 * and the state the write refuses (already a team member, not one, the last Admin). The caller's
 * own permissions are taken as they are now.
 */
import { Action } from '../../kernel/catalogue.js';
import { type Grant, grantRefusal } from '../../kernel/delegation.js';
import { accessDenied, DomainError } from '../../kernel/errors.js';
import type { Evaluator, PermissionIndex } from '../../kernel/evaluator.js';
import { PRINCIPAL_GRANT_ACTION } from '../../kernel/gains.js';
import { requireDelegation, requireRoleWithin, requireServiceAdmin } from '../../kernel/guards.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import { teamRoleRequirements, userRoleRequirements } from '../assignments/service.js';
import { orgRequirements } from '../orgs/service.js';
import { roleRequirements } from '../roles/service.js';
import { teamRequirements } from '../teams/service.js';
import type { Step } from './model.js';
import { orgRolePermissions, type Picture, teamPermissions, userKey } from './picture.js';

/** The caller and its permissions where it acts. */
export interface Standing {
  caller: SignedInPrincipal;
  index: PermissionIndex;
}

/** The 403 of `evaluator`, or undefined when `index` passes it. */
function needs(index: PermissionIndex, evaluator: Evaluator): DomainError | undefined {
  return evaluator.evaluate(index) ? undefined : accessDenied(evaluator.describe());
}

/** The first DomainError `rules` return or throw, in order, or undefined; anything else thrown is rethrown. */
function firstRefusal(...rules: (() => unknown)[]): DomainError | undefined {
  for (const rule of rules) {
    try {
      const refusal = rule();
      if (refusal instanceof DomainError) return refusal;
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  }
  return undefined;
}

/** Joining a team or taking an org role under the one rule, in the caller's organization. */
function grantOf(standing: Standing, grant: Grant): DomainError | undefined {
  const { caller, index } = standing;
  return grantRefusal(caller, () => ({ index, orgRole: caller.orgRole }), grant);
}

/**
 * Why the caller could not make `step` on `picture` as it stands before it (module comment), or
 * undefined when it could. Never throws a DomainError: each refusal is returned.
 */
export function refusalOf(standing: Standing, picture: Picture, step: Step): DomainError | undefined {
  const { caller, index } = standing;
  const permissionsOf = (roleId: number) => picture.permissions.get(roleId) ?? [];
  switch (step.kind) {
    case 'role.permissions':
      return firstRefusal(
        () => needs(index, roleRequirements.write.for({})),
        () => (step.role.orgId === 0 ? requireServiceAdmin(caller, 'update a global role') : undefined),
        () => requireDelegation(index, Action.RolesWrite, [...permissionsOf(step.role.id), ...step.permissions]),
      );
    case 'user_role.add':
    case 'user_role.remove': {
      const add = step.kind === 'user_role.add';
      return firstRefusal(
        () => needs(index, (add ? userRoleRequirements.add : userRoleRequirements.remove).for({})),
        () => (step.global ? requireServiceAdmin(caller, 'assign or remove a role globally') : undefined),
        () => requireDelegation(index, add ? Action.UsersRolesAdd : Action.UsersRolesDelete, permissionsOf(step.role.id)),
      );
    }
    case 'team_role.add':
    case 'team_role.remove': {
      const add = step.kind === 'team_role.add';
      return firstRefusal(
        () => needs(index, (add ? teamRoleRequirements.add : teamRoleRequirements.remove).for({})),
        () => requireDelegation(index, add ? Action.TeamsRolesAdd : Action.TeamsRolesDelete, permissionsOf(step.role.id)),
      );
    }
    case 'team_member.add':
    case 'team_member.remove': {
      const { teamId, member } = step;
      const isMember = picture.subjects.get(userKey(member.id))?.teams.has(teamId) ?? false;
      if (step.kind === 'team_member.remove') {
        return firstRefusal(
          () => needs(index, teamRequirements.writeMembers.for({ id: teamId })),
          () => (isMember ? undefined : new DomainError('USER_NOT_FOUND', 'Team member not found', { id: member.id })),
        );
      }
      const what = `add user ${member.id} to team ${teamId}`;
      return firstRefusal(
        () => needs(index, teamRequirements.addMember.for({ id: teamId })),
        () => (isMember ? new DomainError('ALREADY_TEAM_MEMBER', 'User is already added to this team', { id: member.id }) : undefined),
        () =>
          grantOf(standing, {
            what,
            action: PRINCIPAL_GRANT_ACTION,
            gains: [{ orgId: picture.orgId, permissions: teamPermissions(picture, teamId) }],
          }),
      );
    }
    case 'org_user.role': {
      const { member, role } = step;
      const what = `make user ${member.id} ${role} of organization ${picture.orgId}`;
      const wasAdmin = picture.adminPeople.has(member.id);
      const lastAdmin = wasAdmin && role !== 'Admin' && picture.adminPeople.size === 1;
      return firstRefusal(
        () => needs(index, orgRequirements.writeUser.for({ userId: member.id })),
        () => requireRoleWithin(caller, role),
        () =>
          grantOf(standing, {
            what,
            action: PRINCIPAL_GRANT_ACTION,
            gains: [{ orgId: picture.orgId, orgRole: role, permissions: orgRolePermissions(picture, role) }],
          }),
        () =>
          lastAdmin
            ? new DomainError('LAST_ORG_ADMIN', 'Cannot change role so that there is no organization admin left', { id: picture.orgId })
            : undefined,
      );
    }
  }
}
