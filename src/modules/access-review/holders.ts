/**
 * Who holds an action (on a scope) in one organization, and through what: read from the
 * assignment side in sets, never one subject at a time, so an organization of 100,000 members is
 * walked in a few statements per chunk of CHUNK members.
 *
 * The rule is the evaluator's (kernel/held-roles.ts, upstream-behaviour.md "Permission
 * evaluation"): a member holds the action when a role granting it (a permission with the action
 * whose scope covers the target, kernel/evaluator.ts; any scope when none is asked) reaches it
 * directly (assigned in the organization or globally), through one of its teams there, through
 * the basic role of its org role, or through basic:service_admin as a Service Admin; an API key
 * through the basic role of its own role. A disabled account holds nothing (its credentials are
 * refused); an expired API key is left out (it can no longer act), and so are service-account
 * tokens (they act as their service account, which is listed). Each path names its source as a
 * check's reason does (kernel/grants.ts): `direct`, `team:<name>`, `basic:<role>`,
 * `service-admin`, `api-key`.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { PermissionIndex } from '../../kernel/evaluator.js';
import { inForceAt, ROLE_ID_SLICE } from '../../kernel/held-roles.js';
import { SERVICE_ADMIN } from '../../kernel/principal.js';
import type { Db } from '../../platform/database.js';

/** Members (or API keys) read per statement while walking an organization. */
export const CHUNK = 1000;

/** A subject of the review: a user, a service account or an API key of the organization. */
export interface ReviewSubject {
  kind: 'user' | 'serviceAccount' | 'apiKey';
  id: number;
  /** Login, or the key's name. */
  login: string;
  /** Org role in the organization, or the key's role. */
  orgRole: string;
  isServiceAdmin: boolean;
}

/** One way a subject holds the action: the role, how it reaches the subject, its matching permission. */
export interface ReviewPath {
  role: { id: number; uid: string; name: string };
  /** `direct`, `team:<name>`, `basic:<viewer|editor|admin>`, `service-admin` or `api-key`. */
  source: string;
  permission: PermissionPair;
}

/** A subject holding the action, with every path, by role name, role id, permission, then source. */
export interface ReviewRow {
  subject: ReviewSubject;
  paths: ReviewPath[];
}

/** A position in the walk: after this user id, or after this API key id (users come first). */
export type ReviewPosition = { kind: 'user' | 'apiKey'; id: number };

type GrantingRole = ReviewPath['role'] & { permissions: PermissionPair[] };

/** Sources of one role in a row's order: direct, then teams, then basic roles. */
const SOURCE_ORDER = (source: string) => (source === 'direct' ? 0 : source.startsWith('team:') ? 1 : 2);

/** What grants the action in one organization, read once; then walked (module comment). */
export class Holders {
  private constructor(
    private readonly db: Db,
    private readonly orgId: number,
    private readonly roles: Map<number, GrantingRole>,
    /** Basic role name -> ids of granting roles it is given (in the organization or globally). */
    private readonly basic: Map<string, number[]>,
    /** Team id -> its name and the granting roles assigned to it. */
    private readonly teams: Map<number, { name: string; roleIds: number[] }>,
    /** The moment assignments are read at: only those in force then count (held-roles.ts inForceAt). */
    private readonly now: Date,
  ) {}

  /**
   * Reads the roles granting `action` (on `scope` when given), their basic grants and their team
   * assignments in force at `now` in organization `orgId`: three statements and one per
   * ROLE_ID_SLICE roles.
   */
  static async of(db: Db, orgId: number, action: string, scope: string | undefined, now: Date): Promise<Holders> {
    const perms = await db.permission.findMany({ where: { action }, select: { roleId: true, scope: true } });
    const matching = perms.filter((p) => scope === undefined || PermissionIndex.from([{ action, scope: p.scope }]).matches(action, scope));
    const byRole = new Map<number, PermissionPair[]>();
    for (const p of matching) byRole.set(p.roleId, [...(byRole.get(p.roleId) ?? []), { action, scope: p.scope }]);
    const roles = new Map<number, GrantingRole>();
    const ids = [...byRole.keys()];
    for (let i = 0; i < ids.length; i += ROLE_ID_SLICE) {
      const rows = await db.role.findMany({
        where: { id: { in: ids.slice(i, i + ROLE_ID_SLICE) } },
        select: { id: true, uid: true, name: true },
      });
      for (const r of rows) roles.set(r.id, { ...r, permissions: (byRole.get(r.id) ?? []).sort((a, b) => (a.scope < b.scope ? -1 : 1)) });
    }
    const basic = new Map<string, number[]>();
    const teams = new Map<number, { name: string; roleIds: number[] }>();
    if (roles.size > 0) {
      const within = roles.size <= ROLE_ID_SLICE ? { roleId: { in: [...roles.keys()] } } : {};
      const grants = await db.basicRoleGrant.findMany({
        where: { orgId: { in: [0, orgId] }, ...within },
        select: { basicRole: true, roleId: true },
      });
      for (const g of grants) if (roles.has(g.roleId)) basic.set(g.basicRole, [...(basic.get(g.basicRole) ?? []), g.roleId]);
      const teamRoles = await db.teamRole.findMany({
        where: { orgId, ...within, ...inForceAt(now) },
        select: { roleId: true, teamId: true, team: { select: { name: true } } },
      });
      for (const t of teamRoles) {
        if (!roles.has(t.roleId)) continue;
        const team = teams.get(t.teamId) ?? { name: t.team.name, roleIds: [] };
        team.roleIds.push(t.roleId);
        teams.set(t.teamId, team);
      }
    }
    return new Holders(db, orgId, roles, basic, teams, now);
  }

  /**
   * Every subject holding the action after `after`, in order (users and service accounts by id,
   * then API keys by id), each with its position; reads CHUNK members at a time, so the walk
   * never holds more than one chunk. `now` decides which API keys have expired.
   */
  async *walk(after: ReviewPosition | undefined, now: Date): AsyncGenerator<{ position: ReviewPosition; row: ReviewRow }> {
    if (this.roles.size === 0) return;
    if (after?.kind !== 'apiKey') {
      let cursor = after?.id ?? 0;
      for (;;) {
        const members = await this.db.orgUser.findMany({
          where: { orgId: this.orgId, userId: { gt: cursor } },
          orderBy: { userId: 'asc' },
          take: CHUNK,
          select: {
            userId: true,
            role: true,
            user: { select: { login: true, isServiceAccount: true, isServiceAdmin: true, isDisabled: true } },
          },
        });
        if (members.length === 0) break;
        const rows = await this.memberRows(members);
        for (const m of members) {
          const row = rows.get(m.userId);
          if (row) yield { position: { kind: 'user', id: m.userId }, row };
        }
        cursor = (members[members.length - 1] as { userId: number }).userId;
        if (members.length < CHUNK) break;
      }
    }
    yield* this.apiKeys(after?.kind === 'apiKey' ? after.id : 0, now);
  }

  /**
   * How many subjects `walk` yields from the start: members (users and service accounts, not
   * disabled) reached by a granting role directly, through a team, through their org role's
   * basic role or as Service Admin, plus the live API keys whose role's basic role grants it.
   * Two counting statements whatever the organization's size; the export announces it so a
   * client can show its progress. `now` decides which API keys have expired (as `walk`).
   */
  async count(now: Date): Promise<number> {
    if (this.roles.size === 0) return 0;
    const slices = <T>(ids: T[]) =>
      Array.from({ length: Math.ceil(ids.length / ROLE_ID_SLICE) }, (_, i) => ids.slice(i * ROLE_ID_SLICE, (i + 1) * ROLE_ID_SLICE));
    const roleIds = [...this.roles.keys()];
    const basicRoles = [...this.basic.keys()].filter((r) => r !== SERVICE_ADMIN && r !== 'None');
    const reached: Prisma.OrgUserWhereInput[] = [
      ...slices(roleIds).map((ids) => ({
        user: { roles: { some: { orgId: { in: [0, this.orgId] }, roleId: { in: ids }, ...inForceAt(this.now) } } },
      })),
      ...slices([...this.teams.keys()]).map((ids) => ({ user: { teams: { some: { orgId: this.orgId, teamId: { in: ids } } } } })),
      ...(basicRoles.length > 0 ? [{ role: { in: basicRoles } }] : []),
      ...(this.basic.has(SERVICE_ADMIN) ? [{ user: { isServiceAdmin: true } }] : []),
    ];
    const [members, keys] = await Promise.all([
      this.db.orgUser.count({ where: { orgId: this.orgId, user: { isDisabled: false }, OR: reached } }),
      basicRoles.length === 0
        ? 0
        : this.db.apiKey.count({
            where: {
              orgId: this.orgId,
              serviceAccountId: null,
              role: { in: basicRoles },
              OR: [{ expires: null }, { expires: { gt: now } }],
            },
          }),
    ]);
    return members + keys;
  }

  /** The rows of the members of one chunk that hold the action. */
  private async memberRows(
    members: {
      userId: number;
      role: string;
      user: { login: string; isServiceAccount: boolean; isServiceAdmin: boolean; isDisabled: boolean };
    }[],
  ): Promise<Map<number, ReviewRow>> {
    const active = members.filter((m) => !m.user.isDisabled);
    const ids = active.map((m) => m.userId);
    const within = this.roles.size <= ROLE_ID_SLICE ? { roleId: { in: [...this.roles.keys()] } } : {};
    const direct = new Map<number, number[]>();
    for (const a of await this.db.userRole.findMany({
      where: { userId: { in: ids }, orgId: { in: [0, this.orgId] }, ...within, ...inForceAt(this.now) },
      select: { userId: true, roleId: true },
    }))
      if (this.roles.has(a.roleId)) direct.set(a.userId, [...(direct.get(a.userId) ?? []), a.roleId]);
    const viaTeams = new Map<number, number[]>();
    if (this.teams.size > 0) {
      for (const t of await this.db.teamMember.findMany({
        where: { userId: { in: ids }, orgId: this.orgId, teamId: { in: [...this.teams.keys()] } },
        select: { userId: true, teamId: true },
      }))
        viaTeams.set(t.userId, [...(viaTeams.get(t.userId) ?? []), t.teamId]);
    }
    const out = new Map<number, ReviewRow>();
    for (const m of active) {
      const held: [number, string][] = (direct.get(m.userId) ?? []).map((roleId) => [roleId, 'direct']);
      for (const teamId of viaTeams.get(m.userId) ?? []) {
        const team = this.teams.get(teamId) as { name: string; roleIds: number[] };
        for (const roleId of team.roleIds) held.push([roleId, `team:${team.name}`]);
      }
      if (m.role !== 'None') for (const roleId of this.basic.get(m.role) ?? []) held.push([roleId, `basic:${m.role.toLowerCase()}`]);
      if (m.user.isServiceAdmin) for (const roleId of this.basic.get(SERVICE_ADMIN) ?? []) held.push([roleId, 'service-admin']);
      if (held.length === 0) continue;
      const subject: ReviewSubject = {
        kind: m.user.isServiceAccount ? 'serviceAccount' : 'user',
        id: m.userId,
        login: m.user.login,
        orgRole: m.role,
        isServiceAdmin: m.user.isServiceAdmin,
      };
      out.set(m.userId, { subject, paths: this.paths(held) });
    }
    return out;
  }

  /** API keys of the organization after `after` holding the action through their role's basic role. */
  private async *apiKeys(after: number, now: Date): AsyncGenerator<{ position: ReviewPosition; row: ReviewRow }> {
    let cursor = after;
    for (;;) {
      const keys = await this.db.apiKey.findMany({
        where: { orgId: this.orgId, serviceAccountId: null, id: { gt: cursor }, OR: [{ expires: null }, { expires: { gt: now } }] },
        orderBy: { id: 'asc' },
        take: CHUNK,
        select: { id: true, name: true, role: true },
      });
      for (const k of keys) {
        const held: [number, string][] = k.role === 'None' ? [] : (this.basic.get(k.role) ?? []).map((roleId) => [roleId, 'api-key']);
        if (held.length === 0) continue;
        const subject: ReviewSubject = { kind: 'apiKey', id: k.id, login: k.name, orgRole: k.role, isServiceAdmin: false };
        yield { position: { kind: 'apiKey', id: k.id }, row: { subject, paths: this.paths(held) } };
      }
      if (keys.length < CHUNK) return;
      cursor = (keys[keys.length - 1] as { id: number }).id;
    }
  }

  /** (role id, source) pairs as paths, one per matching permission, in the row's order; a pair held twice once. */
  private paths(held: [number, string][]): ReviewPath[] {
    const seen = new Set<string>();
    const out: ReviewPath[] = [];
    for (const [roleId, source] of held) {
      const key = `${roleId}\u0000${source}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const role = this.roles.get(roleId) as GrantingRole;
      for (const permission of role.permissions) out.push({ role: { id: role.id, uid: role.uid, name: role.name }, source, permission });
    }
    return out.sort(
      (a, b) =>
        (a.role.name < b.role.name ? -1 : a.role.name > b.role.name ? 1 : 0) ||
        a.role.id - b.role.id ||
        (a.permission.scope < b.permission.scope ? -1 : a.permission.scope > b.permission.scope ? 1 : 0) ||
        SOURCE_ORDER(a.source) - SOURCE_ORDER(b.source) ||
        (a.source < b.source ? -1 : a.source > b.source ? 1 : 0),
    );
  }
}
