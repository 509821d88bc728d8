/**
 * Who may do what with organizations and their members, and how the wall answers: one table
 * for OrgService (service.ts), OrgMemberService (members.ts), the REST routes and the GraphQL
 * field descriptions.
 *
 * Permissions (Grafana's route table, pkg/api/api.go): orgs:create; orgs:read on orgs:* to
 * search or find by name (Service Admin); orgs:read / orgs:write / orgs:delete on orgs:id:<id>
 * for one organization (Viewer reads and Admin renames the one they act in, a Service Admin
 * any); org.users:read to list members (only those whose users:id:<id> it covers);
 * org.users:add, org.users:write and org.users:remove on users:id:<userId> (org Admin, and
 * Service Admin everywhere); adding also needs users:read on global.users (see
 * OrgMemberService.addUser).
 *
 * The wall (kernel/guards.ts): an operation naming an organization needs the caller to act in it
 * unless it is a Service Admin; reading another organization answers 404 as if it did not exist.
 */
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { all, permission } from '../../kernel/evaluator.js';
import { DELEGATION_NOTES } from '../../kernel/gains.js';
import { requirement } from '../../kernel/requirements.js';

const WALL = 'acting in that organization unless a Service Admin';

/** What each operation needs (Grafana's route table); services check exactly these. */
export const orgRequirements = {
  read: requirement(['id'], ({ id }) => permission(Action.OrgsRead, Scope.org(id)), WALL),
  /** Search every organization, or find one by name: Grafana's "needs to be assigned globally". */
  readAll: requirement([], () => permission(Action.OrgsRead, Scope.OrgsAll)),
  create: requirement([], () => permission(Action.OrgsCreate), 'and a user (not a key or service account)'),
  write: requirement(['id'], ({ id }) => permission(Action.OrgsWrite, Scope.org(id)), WALL),
  delete: requirement(
    ['id'],
    ({ id }) => permission(Action.OrgsDelete, Scope.org(id)),
    'and a Service Admin; never the organization the request acts in',
  ),
  readUsers: requirement([], () => permission(Action.OrgUsersRead), `lists the users:id:<id> it covers; ${WALL}`),
  addUser: requirement(
    ['userId'],
    ({ userId }) => all(permission(Action.OrgUsersAdd, Scope.user(userId)), permission(Action.UsersRead, Scope.globalUser(userId))),
    `${DELEGATION_NOTES.role}, as everything the user would hold there; ${WALL}`,
  ),
  /** By login or email: the search reaches every user of the service, hence global.users:*. */
  addUserByLogin: requirement(
    [],
    () => all(permission(Action.OrgUsersAdd, Scope.UsersAll), permission(Action.UsersRead, Scope.GlobalUsersAll)),
    `${DELEGATION_NOTES.role}, as everything the user would hold there; ${WALL}`,
  ),
  writeUser: requirement(
    ['userId'],
    ({ userId }) => permission(Action.OrgUsersWrite, Scope.user(userId)),
    `${DELEGATION_NOTES.role}; ${WALL}`,
  ),
  removeUser: requirement(['userId'], ({ userId }) => permission(Action.OrgUsersRemove, Scope.user(userId)), WALL),
};

/**
 * 404 ORG_NOT_FOUND with Grafana's text "Organization not found": an unknown organization, and
 * (the wall) one the caller neither acts in nor reaches as a Service Admin. Details: `{id}` for
 * an id, `{name}` for a name.
 */
export function orgNotFound(id: number | string): DomainError {
  return new DomainError('ORG_NOT_FOUND', 'Organization not found', typeof id === 'number' ? { id } : { name: id });
}
