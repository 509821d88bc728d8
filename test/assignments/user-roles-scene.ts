/**
 * The scene of the user role assignment tests (user-roles-*.test.ts), one per file: the standard
 * actors, a `target` user (member of a team holding r-team), an `adderOnly` user holding
 * users.roles:add but not users.roles:delete (set needs both), and the roles they assign:
 * r-a, r-b, hidden r-hidden, global r-global, r-escalate (above an org Admin), r-org2 (org 2's).
 */
import { ADMIN, type Credentials, createTestApp, type TestApp } from '../support/app.js';
import { expectOutcome, rest } from '../support/requests.js';
import { type Actor, assignTeamRole, assignUserRole, createRole, createTeam, createUser, p, seedFixtures } from '../support/subjects.js';

export interface UserRolesScene {
  app: TestApp;
  /** Admin of org 1, not a Service Admin. */
  orgAdmin: Actor;
  viewer: Actor;
  target: Actor;
  adderOnly: Actor;
  /** Member of org 2 only. */
  outsider: Actor;
  sa: { id: number };
}

export async function userRolesScene(): Promise<UserRolesScene> {
  const app = await createTestApp();
  const fx = await seedFixtures(app);
  const org2 = fx.org2;
  const target = await createUser(app, 'target', { orgRole: 'Viewer' });
  // Holds users.roles:add but not users.roles:delete (set needs both).
  const adderOnly = await createUser(app, 'adder-only', { orgRole: 'None' });
  await createRole(app, 'adder', [
    p('users.roles:add', 'permissions:type:delegate'),
    p('users.roles:read', 'users:*'),
    p('teams:read', 'teams:*'),
  ]);
  await assignUserRole(app, adderOnly.id, 'adder');

  await createRole(app, 'r-a', [p('teams:read', 'teams:*')]);
  await createRole(app, 'r-b', [p('serviceaccounts:read', 'serviceaccounts:*')]);
  await createRole(app, 'r-hidden', [p('org.users:read', 'users:*')], { hidden: true });
  await createRole(app, 'r-global', [p('teams:read', 'teams:*')], { orgId: 0 });
  await createRole(app, 'r-team', [p('apikey:read', 'apikey:*')]);
  // users:delete on global.users:* is a Service Admin's, so an org Admin cannot delegate it.
  await createRole(app, 'r-escalate', [p('users:delete', 'global.users:*')]);
  await createRole(app, 'r-org2', [p('teams:read', 'teams:*')], { orgId: org2.id });
  const team = await createTeam(app, 'team-a', { members: [target.id] });
  await assignTeamRole(app, team.id, 'r-team');
  return { app, orgAdmin: fx.orgAdmin, viewer: fx.viewer, target, adderOnly, outsider: fx.org2.admin, sa: fx.serviceAccount };
}

/** Uids of the roles the REST list answers for `userId` (as ADMIN unless told). */
export async function listed(app: TestApp, userId: number, query = '', auth: Credentials = ADMIN): Promise<string[]> {
  const out = await rest(app, 'GET', `/api/access-control/users/${userId}/roles${query}`, { auth });
  expectOutcome(out, 200);
  return (out.body as { uid: string }[]).map((r) => r.uid);
}

/** Direct assignment rows of `userId` as "orgId:uid", sorted. */
export async function rows(app: TestApp, userId: number): Promise<string[]> {
  const all = await app.database.prisma.userRole.findMany({ where: { userId }, include: { role: true } });
  return all.map((r) => `${r.orgId}:${r.role.uid}`).sort();
}

export async function resetAssignments(app: TestApp, userId: number): Promise<void> {
  await app.database.prisma.userRole.deleteMany({ where: { userId } });
  app.services.access.invalidate();
}

/** The target's starting assignments: r-a and hidden r-hidden in org 1, r-global globally. */
export async function seedTargetAssignments(app: TestApp, targetId: number): Promise<void> {
  await resetAssignments(app, targetId);
  await assignUserRole(app, targetId, 'r-a');
  await assignUserRole(app, targetId, 'r-hidden');
  await assignUserRole(app, targetId, 'r-global', 0);
}

export const addMutation = `mutation ($userId: Int!, $roleUid: String!, $global: Boolean) {
  addUserRole(userId: $userId, roleUid: $roleUid, global: $global) { message } }`;
export const removeMutation = `mutation ($userId: Int!, $roleUid: String!, $global: Boolean) {
  removeUserRole(userId: $userId, roleUid: $roleUid, global: $global) { message } }`;
export const setMutation = `mutation ($userId: Int!, $roleUids: [String!]!, $global: Boolean, $includeHidden: Boolean) {
  setUserRoles(userId: $userId, roleUids: $roleUids, global: $global, includeHidden: $includeHidden) { message } }`;
