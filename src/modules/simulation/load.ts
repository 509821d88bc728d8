/**
 * Loads the picture (picture.ts) for a list of proposed changes: resolves what each names (roles
 * visible in the organization, its teams, its members), finds the subjects the changes can reach,
 * and reads only theirs. Reach, read from the database as it is (the state before the changes):
 * - a role's new permissions: its holders there: assigned directly (in the organization or
 *   globally), through a team, or through a basic role granted it (every member with that org
 *   role, every Service Admin member for basic:service_admin, every API key with that role);
 * - a team's role: the team's members;
 * - an assignment, a team membership, an org role: the user or service account it names.
 * A subject the changes make reach a role later (joining a team, a new assignment, a new org
 * role) is named by one of those changes, so the union covers everyone whose permissions move.
 * Users are examined as members of the organization (a Service Admin who is not one is not), and
 * disabled accounts not at all: they hold nothing, before or after.
 */
import { Prisma } from '../../generated/prisma/client.js';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { dateOfColumn, inForceAt, permissionsByRole, ROLE_ID_SLICE } from '../../kernel/held-roles.js';
import { asOrgRole, type BasicRoleName, ORG_ROLES, SERVICE_ADMIN } from '../../kernel/principal.js';
import { type Db, loadInChunks } from '../../platform/database.js';
import { roleNotFound } from '../roles/service.js';
import type { ProposedChange } from './inputs.js';
import { keyKey, type Picture, type Subject, userKey } from './picture.js';

/** A role a change names: visible in the organization (global or its own). */
export interface RoleRow {
  id: number;
  uid: string;
  name: string;
  orgId: number;
}

/** A member a change names. */
export interface MemberRow {
  id: number;
  isServiceAccount: boolean;
}

/** What the changes name, resolved; ids of teams and members were found in the organization. */
export interface Resolved {
  roles: Map<string, RoleRow>;
  members: Map<number, MemberRow>;
}

const roleUidOf = (c: ProposedChange): string | undefined => ('roleUid' in c ? c.roleUid : undefined);
const userIdOf = (c: ProposedChange): number | undefined => ('userId' in c ? c.userId : undefined);
const teamIdOf = (c: ProposedChange): number | undefined => ('teamId' in c ? c.teamId : undefined);
const present = <T>(values: (T | undefined)[]): T[] => [...new Set(values.filter((v): v is T => v !== undefined))];

/**
 * Resolves the roles, teams and members `changes` name in organization `orgId`.
 * @throws DomainError ROLE_NOT_FOUND (404: no global role nor one of the organization has the
 *   uid), TEAM_NOT_FOUND (404: no team of the organization), USER_NOT_FOUND (404: not a member
 *   of the organization).
 */
export async function resolveTargets(db: Db, orgId: number, changes: readonly ProposedChange[]): Promise<Resolved> {
  const uids = present(changes.map(roleUidOf));
  const roleRows = await db.role.findMany({
    where: { uid: { in: uids }, orgId: { in: [0, orgId] } },
    select: { id: true, uid: true, name: true, orgId: true },
  });
  const roles = new Map(roleRows.map((r) => [r.uid, r]));
  for (const uid of uids) if (!roles.has(uid)) throw roleNotFound(uid);

  const teamIds = present(changes.map(teamIdOf));
  const teams = new Set((await db.team.findMany({ where: { id: { in: teamIds }, orgId }, select: { id: true } })).map((t) => t.id));
  for (const id of teamIds) if (!teams.has(id)) throw new DomainError('TEAM_NOT_FOUND', 'Team not found', { id });

  const userIds = present(changes.map(userIdOf));
  const memberRows = await db.orgUser.findMany({
    where: { orgId, userId: { in: userIds } },
    select: { userId: true, user: { select: { isServiceAccount: true } } },
  });
  const members = new Map(memberRows.map((m) => [m.userId, { id: m.userId, isServiceAccount: m.user.isServiceAccount }]));
  for (const id of userIds) if (!members.has(id)) throw notFound('USER_NOT_FOUND', 'user', id, ` in organization ${orgId}`);
  return { roles, members };
}

/**
 * The permissions of roles `ids` whose action is one of `actions`, by role id, read as
 * permissionsByRole reads them (kernel/held-roles.ts), ROLE_ID_SLICE ids per statement.
 */
async function permissionsWithActions(db: Db, ids: readonly number[], actions: readonly string[]): Promise<Map<number, PermissionPair[]>> {
  const byRole = new Map<number, PermissionPair[]>();
  if (actions.length === 0) return byRole;
  for (let i = 0; i < ids.length; i += ROLE_ID_SLICE) {
    const rows = await db.$queryRaw<{ roleId: number | bigint; action: string; scope: string }[]>`SELECT "roleId", "action", "scope"
      FROM "Permission" WHERE "roleId" IN (${Prisma.join(ids.slice(i, i + ROLE_ID_SLICE))}) AND "action" IN (${Prisma.join(actions)})`;
    for (const { roleId, action, scope } of rows) {
      const own = byRole.get(Number(roleId));
      if (own) own.push({ action, scope });
      else byRole.set(Number(roleId), [{ action, scope }]);
    }
  }
  return byRole;
}

/** A boolean column as a raw statement answers it: SQLite 0/1, PostgreSQL true/false. */
const truthy = (value: unknown): boolean => value === true || value === 1 || value === 1n;

/** The users, service accounts and API keys the changes can reach (module comment), read as they are. */
async function reachOf(db: Db, orgId: number, changes: readonly ProposedChange[], resolved: Resolved) {
  const users = new Set(present(changes.map(userIdOf)));
  const keys = new Set<number>();
  const changedRoles = changes.flatMap((c) => (c.kind === 'role.permissions' ? [(resolved.roles.get(c.roleUid) as RoleRow).id] : []));
  const teams = new Set(changes.flatMap((c) => (c.kind === 'team_role.add' || c.kind === 'team_role.remove' ? [c.teamId] : [])));
  if (changedRoles.length > 0) {
    const scopes = { roleId: { in: changedRoles }, orgId: { in: [0, orgId] } };
    for (const r of await db.userRole.findMany({ where: scopes, select: { userId: true } })) users.add(r.userId);
    for (const r of await db.teamRole.findMany({ where: { roleId: { in: changedRoles }, orgId }, select: { teamId: true } }))
      teams.add(r.teamId);
    const basics = new Set((await db.basicRoleGrant.findMany({ where: scopes, select: { basicRole: true } })).map((g) => g.basicRole));
    const orgRoles = ORG_ROLES.filter((r) => r !== 'None' && basics.has(r));
    const holders: Prisma.OrgUserWhereInput[] = orgRoles.length > 0 ? [{ role: { in: orgRoles } }] : [];
    if (basics.has(SERVICE_ADMIN)) holders.push({ user: { isServiceAdmin: true } });
    if (holders.length > 0)
      for (const m of await db.orgUser.findMany({ where: { orgId, OR: holders }, select: { userId: true } })) users.add(m.userId);
    if (orgRoles.length > 0) {
      const apiKeys = await db.apiKey.findMany({ where: { orgId, serviceAccountId: null, role: { in: orgRoles } }, select: { id: true } });
      for (const k of apiKeys) keys.add(k.id);
    }
  }
  const members = await loadInChunks([...teams], (chunk) =>
    db.teamMember.findMany({ where: { teamId: { in: chunk }, orgId }, select: { userId: true } }),
  );
  for (const m of members) users.add(m.userId);
  return { users: [...users], keys: [...keys], teams };
}

/**
 * The picture of every subject `changes` can reach in organization `orgId` (module comment), with
 * the assignments in force at `now` (held-roles.ts heldAt's rule) and the permissions of every
 * role it names: a fixed number of statements per 500 subjects.
 */
export async function loadPicture(
  db: Db,
  orgId: number,
  changes: readonly ProposedChange[],
  resolved: Resolved,
  now: Date,
): Promise<Picture> {
  const reach = await reachOf(db, orgId, changes, resolved);
  const subjects = new Map<string, Subject>();
  // Raw statements (quoted identifiers: the same text on SQLite and PostgreSQL): thousands of
  // subjects' rows are read without Prisma's per-row model mapping.
  const memberships = await loadInChunks(
    reach.users,
    (chunk) =>
      db.$queryRaw<
        { userId: number | bigint; role: string; login: string; isServiceAccount: unknown; isServiceAdmin: unknown; isDisabled: unknown }[]
      >`
      SELECT "OrgUser"."userId", "OrgUser"."role", "User"."login", "User"."isServiceAccount", "User"."isServiceAdmin", "User"."isDisabled"
      FROM "OrgUser" JOIN "User" ON "User"."id" = "OrgUser"."userId"
      WHERE "OrgUser"."orgId" = ${orgId} AND "OrgUser"."userId" IN (${Prisma.join(chunk)})`,
  );
  const ids: number[] = [];
  for (const m of memberships) {
    // A disabled account holds nothing before or after (its listings are empty): nothing moves for it.
    if (truthy(m.isDisabled)) continue;
    const id = Number(m.userId);
    ids.push(id);
    const base = { orgRoles: new Set<number>(), globalRoles: new Set<number>(), teams: new Set<number>() };
    const kind = truthy(m.isServiceAccount) ? 'serviceAccount' : 'user';
    const key = userKey(id);
    subjects.set(key, { key, kind, id, login: m.login, orgRole: asOrgRole(m.role), isServiceAdmin: truthy(m.isServiceAdmin), ...base });
  }
  const assigned = await loadInChunks(
    ids,
    (chunk) =>
      db.$queryRaw<{ userId: number | bigint; orgId: number | bigint; roleId: number | bigint; notBefore: unknown; expiresAt: unknown }[]>`
      SELECT "userId", "orgId", "roleId", "notBefore", "expiresAt" FROM "UserRole" WHERE "userId" IN (${Prisma.join(chunk)}) AND "orgId" IN (0, ${orgId})`,
  );
  for (const a of assigned) {
    const start = dateOfColumn(a.notBefore);
    const end = dateOfColumn(a.expiresAt);
    if ((start !== null && start > now) || (end !== null && end <= now)) continue;
    const subject = subjects.get(userKey(Number(a.userId))) as Subject;
    (Number(a.orgId) === 0 ? subject.globalRoles : subject.orgRoles).add(Number(a.roleId));
  }
  const teamsOf = await loadInChunks(ids, (chunk) =>
    db.teamMember.findMany({ where: { userId: { in: chunk }, orgId }, select: { userId: true, teamId: true } }),
  );
  for (const t of teamsOf) (subjects.get(userKey(t.userId)) as Subject).teams.add(t.teamId);

  const keys = await loadInChunks(reach.keys, (chunk) =>
    db.apiKey.findMany({ where: { id: { in: chunk } }, select: { id: true, name: true, role: true } }),
  );
  for (const k of keys) {
    const none = { orgRoles: new Set<number>(), globalRoles: new Set<number>(), teams: new Set<number>() };
    const key = keyKey(k.id);
    subjects.set(key, { key, kind: 'apiKey', id: k.id, login: k.name, orgRole: asOrgRole(k.role), isServiceAdmin: false, ...none });
  }

  const teamIds = new Set([...reach.teams, ...teamsOf.map((t) => t.teamId)]);
  for (const c of changes) if ('teamId' in c) teamIds.add(c.teamId);
  const teamRoles = new Map<number, Set<number>>([...teamIds].map((id) => [id, new Set<number>()]));
  const teamRows = await loadInChunks([...teamIds], (chunk) =>
    db.teamRole.findMany({ where: { teamId: { in: chunk }, orgId, ...inForceAt(now) }, select: { teamId: true, roleId: true } }),
  );
  for (const r of teamRows) teamRoles.get(r.teamId)?.add(r.roleId);

  const basicGrants = new Map<BasicRoleName, Set<number>>();
  for (const g of await db.basicRoleGrant.findMany({ where: { orgId: { in: [0, orgId] } }, select: { basicRole: true, roleId: true } })) {
    const name = g.basicRole as BasicRoleName;
    const set = basicGrants.get(name) ?? new Set<number>();
    set.add(g.roleId);
    basicGrants.set(name, set);
  }

  // The roles a change names, brings or takes away (its own, the teams joined or left, the basic
  // roles' grants when an org role changes) are read whole; every other held role only for the actions those carry: a
  // difference is made of their pairs, and covering one reads the same action only.
  const named = new Set<number>([...resolved.roles.values()].map((r) => r.id));
  for (const c of changes)
    if (c.kind === 'team_member.add' || c.kind === 'team_member.remove') for (const id of teamRoles.get(c.teamId) ?? []) named.add(id);
  // An org role changes which basic role's grants a person holds: all of them are read whole then.
  if (changes.some((c) => c.kind === 'org_user.role')) for (const set of basicGrants.values()) for (const id of set) named.add(id);
  const whole = await permissionsByRole(db, [...named]);
  const actions = new Set<string>();
  for (const pairs of whole.values()) for (const p of pairs) actions.add(p.action);
  for (const c of changes) if (c.kind === 'role.permissions') for (const p of c.permissions) actions.add(p.action);
  const others = new Set<number>();
  for (const s of subjects.values()) for (const id of [...s.orgRoles, ...s.globalRoles]) others.add(id);
  for (const set of [...teamRoles.values(), ...basicGrants.values()]) for (const id of set) others.add(id);
  for (const id of named) others.delete(id);
  const partial = await permissionsWithActions(db, [...others], [...actions]);
  const permissions = new Map<number, readonly PermissionPair[]>();
  for (const id of named) permissions.set(id, whole.get(id) ?? []);
  for (const id of others) permissions.set(id, partial.get(id) ?? []);

  const admins = await db.orgUser.findMany({
    where: { orgId, role: 'Admin', user: { isServiceAccount: false } },
    select: { userId: true },
  });
  return { orgId, subjects, teamRoles, basicGrants, permissions, adminPeople: new Set(admins.map((a) => a.userId)) };
}
