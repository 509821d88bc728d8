/**
 * What each role operation requires (service-interface.md "Required permissions") and the 404 of
 * an unknown role: the rules both doors state (REST route table, GraphQL fields) and the role
 * service and the assignment core enforce.
 */
import { Action, Scope } from '../../kernel/catalogue.js';
import { type DomainError, notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import { roleManagement } from '../../kernel/guards.js';
import { requirement } from '../../kernel/requirements.js';

const DELEGATION =
  'and every permission of the role (delegation) unless the action is held on permissions:type:escalate; a global role also needs a Service Admin';

/** What each role operation needs (service-interface.md "Required permissions"). */
export const roleRequirements = {
  status: requirement([], () => permission(Action.StatusAccessControl, Scope.ServicesAccessControl)),
  read: requirement([], () => permission(Action.RolesRead, Scope.RolesAll)),
  write: requirement([], () => roleManagement(Action.RolesWrite), DELEGATION),
  delete: requirement([], () => roleManagement(Action.RolesDelete), DELEGATION),
};

/** 404 ROLE_NOT_FOUND for `uid`. */
export function roleNotFound(uid: string): DomainError {
  return notFound('ROLE_NOT_FOUND', 'role', uid);
}
