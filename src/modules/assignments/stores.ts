/**
 * The two subject adapters of the assignment core: users and service accounts (one `userId`,
 * the same table as in Grafana; assignments per organization or global, org 0) and teams
 * (assignments always in the team's organization). Each says where assignments live, how the
 * subject is found behind the organization wall, what each operation requires, and Grafana's
 * success texts (pkg/api access-control handlers of the enterprise API).
 */

import { BASIC_PREFIX } from '../../kernel/builtin-roles.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { notFound } from '../../kernel/errors.js';
import { all, permission } from '../../kernel/evaluator.js';
import { roleManagement } from '../../kernel/guards.js';
import { dateOfColumn, directAssignments, notEndedAt, teamAssignments } from '../../kernel/held-roles.js';
import { requirement } from '../../kernel/requirements.js';
import { loadInChunks } from '../../platform/database.js';
import { type AssignableRole, currentRoleSelect } from './assignable.js';
import { addTeamRoleInput, addUserRoleInput, setTeamRolesInput, setUserRolesInput } from './inputs.js';
import type { HeldAssignment, SubjectStore } from './subject-store.js';
import type { AssignmentWindow } from './window.js';

/** A raw row of currentHolds: the uid and the window's columns as the driver answers them. */
type HoldRow = { uid: string; notBefore: unknown; expiresAt: unknown };
const holdOf = (r: HoldRow): HeldAssignment => ({
  uid: r.uid,
  window: { notBefore: dateOfColumn(r.notBefore), expiresAt: dateOfColumn(r.expiresAt) },
});
/** The columns of a new window: its bounds, its start and end not yet noted (boundaries.ts). */
const windowData = (w: AssignmentWindow) => ({ notBefore: w.notBefore, expiresAt: w.expiresAt, startNoted: false, endNoted: false });
const WINDOW_SELECT = { notBefore: true, expiresAt: true } as const;

const ESCALATE = 'unless the action is held on permissions:type:escalate';
const DELEGATION = `and every permission of the role (delegation) ${ESCALATE}`;
/** Assignments in the order of every role listing: by role name, then role id (roles/listing.ts BY_NAME). */
const BY_ROLE_NAME = [{ role: { name: 'asc' as const } }, { roleId: 'asc' as const }];

/**
 * The LIKE pattern of basic roles' names: what currentRoleSelect's `NOT startsWith BASIC_PREFIX`
 * leaves out, written as Prisma writes it (LIKE: ASCII case-insensitive on SQLite, exact on
 * PostgreSQL, on both sides alike). BASIC_PREFIX holds no LIKE wildcard.
 */
const BASIC_NAMES = `${BASIC_PREFIX}%`;

const SET_DELEGATION = `and every permission of each role added or removed (delegation) ${ESCALATE}`;

/** What user and service-account assignments need (service-interface.md "Required permissions"). */
export const userRoleRequirements = {
  read: requirement(['id'], ({ id }) => permission(Action.UsersRolesRead, Scope.user(id))),
  add: requirement([], () => roleManagement(Action.UsersRolesAdd), `${DELEGATION}; global also a Service Admin`),
  remove: requirement([], () => roleManagement(Action.UsersRolesDelete), `${DELEGATION}; global also a Service Admin`),
  set: requirement(
    [],
    () => all(roleManagement(Action.UsersRolesAdd), roleManagement(Action.UsersRolesDelete)),
    `${SET_DELEGATION}; global also a Service Admin`,
  ),
};

/**
 * What team assignments need (service-interface.md "Required permissions"). A member of a team
 * reads its roles without teams.roles:read: Grafana gives a team's members
 * read access to their team (the team permission "Member"), and a member's effective permissions
 * already show what the team's roles give.
 */
export const teamRoleRequirements = {
  read: requirement(['id'], ({ id }) => permission(Action.TeamsRolesRead, Scope.team(id)), 'or membership of the team'),
  add: requirement([], () => roleManagement(Action.TeamsRolesAdd), DELEGATION),
  remove: requirement([], () => roleManagement(Action.TeamsRolesDelete), DELEGATION),
  set: requirement([], () => all(roleManagement(Action.TeamsRolesAdd), roleManagement(Action.TeamsRolesDelete)), SET_DELEGATION),
};

/** Users and service accounts: `user_role` rows, per organization or global (org 0). */
export const userStore: SubjectStore = {
  idField: 'userId',
  requirements: userRoleRequirements,
  actions: { add: Action.UsersRolesAdd, remove: Action.UsersRolesDelete },
  inputs: { add: addUserRoleInput, set: setUserRolesInput },
  messages: { added: 'Role added to the user.', removed: 'Role removed from user.', set: 'User roles have been updated.' },
  audit: { action: 'user_role', resourceKind: 'user' },
  async inOrg(db, caller, ids) {
    const rows = await loadInChunks(ids, (chunk) =>
      db.orgUser.findMany({ where: { orgId: caller.orgId, userId: { in: chunk } }, select: { userId: true } }),
    );
    return new Set(rows.map((r) => r.userId));
  },
  notFound: (id) => notFound('USER_NOT_FOUND', 'user', id),
  async assignments(db, caller, ids, roles, now) {
    const rows = await loadInChunks(ids, (chunk) =>
      db.userRole.findMany({
        where: { ...directAssignments(chunk, caller.orgId), ...notEndedAt(now), role: roles },
        select: { userId: true, roleId: true, orgId: true, ...WINDOW_SELECT },
        orderBy: BY_ROLE_NAME,
      }),
    );
    return rows.map((r) => ({
      subjectId: r.userId,
      roleId: r.roleId,
      global: r.orgId === 0,
      window: { notBefore: r.notBefore, expiresAt: r.expiresAt },
    }));
  },
  async current(tx, caller, id, orgId): Promise<AssignableRole[]> {
    const rows = await tx.userRole.findMany({
      where: { orgId, userId: id, role: currentRoleSelect(caller.orgId).where },
      select: { role: { include: currentRoleSelect(caller.orgId).include } },
    });
    return rows.map((r) => r.role);
  },
  async currentHolds(tx, caller, id, orgId) {
    // currentRoleSelect's filter in one statement (Prisma reads the rows, then their roles: two).
    const rows = await tx.$queryRaw<HoldRow[]>`SELECT "Role"."uid", "UserRole"."notBefore", "UserRole"."expiresAt" FROM "UserRole"
      JOIN "Role" ON "Role"."id" = "UserRole"."roleId"
      WHERE "UserRole"."orgId" = ${orgId} AND "UserRole"."userId" = ${id}
      AND "Role"."orgId" IN (0, ${caller.orgId}) AND "Role"."name" NOT LIKE ${BASIC_NAMES}`;
    return rows.map(holdOf);
  },
  /** The user or service account itself, in every organization (its tokens included), and nobody else. */
  reach: (id) => ({ users: [id] }),
  async assign(tx, id, orgId, roleIds, window) {
    await tx.userRole.createMany({ data: roleIds.map((roleId) => ({ orgId, userId: id, roleId, ...windowData(window) })) });
  },
  async rewindow(tx, id, orgId, roleIds, window) {
    await tx.userRole.updateMany({ where: { orgId, userId: id, roleId: { in: roleIds } }, data: windowData(window) });
  },
  async unassign(tx, id, orgId, roleIds) {
    await tx.userRole.deleteMany({ where: { orgId, userId: id, roleId: { in: roleIds } } });
  },
};

/** Teams: `team_role` rows in the team's organization (the caller's, past `find`). */
export const teamStore: SubjectStore = {
  idField: 'teamId',
  requirements: teamRoleRequirements,
  actions: { add: Action.TeamsRolesAdd, remove: Action.TeamsRolesDelete },
  inputs: { add: addTeamRoleInput, set: setTeamRolesInput },
  messages: { added: 'Role added to the team.', removed: 'Role removed from team.', set: 'Team roles have been updated.' },
  audit: { action: 'team_role', resourceKind: 'team' },
  async inOrg(db, caller, ids) {
    const rows = await loadInChunks(ids, (chunk) =>
      db.team.findMany({ where: { id: { in: chunk }, orgId: caller.orgId }, select: { id: true } }),
    );
    return new Set(rows.map((r) => r.id));
  },
  notFound: (id) => notFound('TEAM_NOT_FOUND', 'team', id),
  /** A user reads the roles of the teams of the organization it acts in that it is a member of; keys and tokens belong to none. */
  async readsOwn(db, caller, ids) {
    if (caller.kind === 'apiKey') return new Set();
    const rows = await loadInChunks(ids, (chunk) =>
      db.teamMember.findMany({
        where: { teamId: { in: chunk }, userId: caller.id, team: { orgId: caller.orgId } },
        select: { teamId: true },
      }),
    );
    return new Set(rows.map((r) => r.teamId));
  },
  async assignments(db, caller, ids, roles, now) {
    const rows = await loadInChunks(ids, (chunk) =>
      db.teamRole.findMany({
        where: { ...teamAssignments(caller.orgId, { id: { in: chunk } }), ...notEndedAt(now), role: roles },
        select: { teamId: true, roleId: true, ...WINDOW_SELECT },
        orderBy: BY_ROLE_NAME,
      }),
    );
    return rows.map((r) => ({
      subjectId: r.teamId,
      roleId: r.roleId,
      global: false,
      window: { notBefore: r.notBefore, expiresAt: r.expiresAt },
    }));
  },
  async current(tx, caller, id): Promise<AssignableRole[]> {
    const rows = await tx.teamRole.findMany({
      where: { teamId: id, role: currentRoleSelect(caller.orgId).where },
      select: { role: { include: currentRoleSelect(caller.orgId).include } },
    });
    return rows.map((r) => r.role);
  },
  async currentHolds(tx, caller, id) {
    // As the users' store: one statement.
    const rows = await tx.$queryRaw<HoldRow[]>`SELECT "Role"."uid", "TeamRole"."notBefore", "TeamRole"."expiresAt" FROM "TeamRole"
      JOIN "Role" ON "Role"."id" = "TeamRole"."roleId"
      WHERE "TeamRole"."teamId" = ${id}
      AND "Role"."orgId" IN (0, ${caller.orgId}) AND "Role"."name" NOT LIKE ${BASIC_NAMES}`;
    return rows.map(holdOf);
  },
  async assign(tx, id, orgId, roleIds, window) {
    await tx.teamRole.createMany({ data: roleIds.map((roleId) => ({ teamId: id, orgId, roleId, ...windowData(window) })) });
  },
  async rewindow(tx, id, _orgId, roleIds, window) {
    await tx.teamRole.updateMany({ where: { teamId: id, roleId: { in: roleIds } }, data: windowData(window) });
  },
  async unassign(tx, id, _orgId, roleIds) {
    await tx.teamRole.deleteMany({ where: { teamId: id, roleId: { in: roleIds } } });
  },
};
