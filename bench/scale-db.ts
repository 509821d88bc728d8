/**
 * Builds a scale database: the service's own migrations and seed (through
 * openDatabase and seed, so the schema is the current one), then, in one better-sqlite3
 * transaction with prepared statements, `users` users in organization 1, `roles` custom roles
 * of `permissions` permissions each, `teams` teams of `members` members with `team-roles` roles
 * each, and `assignments` user-role assignments spread evenly (every user gets the same number
 * of distinct roles, rounded up). `heavy` users get exactly 50 roles each: their listings are
 * the "50-role user" figures of bench/scale.ts. Prints what it built and how long it took.
 *
 *   npm run bench -- scale-db --out /tmp/scale.db [--users 100000] [--roles 10000] [--teams 1000]
 *       [--members 10] [--team-roles 2] [--assignments 1000000] [--permissions 5] [--heavy 20]
 */
import { existsSync, rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { seed } from '../src/kernel/seed.js';
import { openDatabase } from '../src/platform/database.js';
import { fmt } from './support/load.js';

/** The sizes of a scale database. */
export interface ScaleSpec {
  users: number;
  roles: number;
  teams: number;
  members: number;
  teamRoles: number;
  assignments: number;
  permissions: number;
  heavy: number;
}

/** The password of the Service Admin `admin` of every scale database. */
export const SCALE_PASSWORD = 'scale-password-0';
/** Roles held by each heavy user (`heavy0`, `heavy1`, ...). */
export const HEAVY_ROLES = 50;
/** Actions of the scale roles, with the kind of scope each takes: all held by the basic Admin role, so an Admin API key may assign them (delegation). */
const ACTIONS: [string, string][] = [
  ['org.users:read', 'users'],
  ['teams:read', 'teams'],
  ['teams:write', 'teams'],
  ['serviceaccounts:read', 'serviceaccounts'],
  ['org.users:write', 'users'],
  ['users.roles:read', 'users'],
  ['teams.roles:read', 'teams'],
];

/** Indexes (0-based, `scale_<index>`) of the roles held by heavy user number `h` of a database of `roles` roles. */
export function heavyRoles(h: number, roles: number): Set<number> {
  const held = new Set<number>();
  for (let j = 0; held.size < HEAVY_ROLES; j++) held.add((h * 97 + j * 13) % roles);
  return held;
}

/** Builds the database `path` (replacing it) to `spec`; answers the heavy users' ids. */
export async function buildScaleDatabase(path: string, spec: ScaleSpec): Promise<{ heavyIds: number[]; seconds: number }> {
  const started = performance.now();
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(path + suffix)) rmSync(path + suffix);
  const database = await openDatabase({ databaseUrl: `file:${path}` });
  await seed(database.prisma, { adminLogin: 'admin', adminPassword: SCALE_PASSWORD });
  await database.close();

  const db = new BetterSqlite3(path);
  db.pragma('synchronous = OFF');
  const now = new Date().toISOString().replace('Z', '+00:00');
  const heavyIds: number[] = [];
  db.transaction(() => {
    const user = db.prepare('INSERT INTO "User" (orgId, login, email, name, created, updated) VALUES (1, ?, ?, ?, ?, ?)');
    const member = db.prepare('INSERT INTO "OrgUser" (orgId, userId, role, created, updated) VALUES (1, ?, ?, ?, ?)');
    const userIds: number[] = [];
    for (let i = 0; i < spec.users + spec.heavy; i++) {
      const login = i < spec.users ? `user${i}` : `heavy${i - spec.users}`;
      const id = Number(user.run(login, `${login}@scale.test`, login, now, now).lastInsertRowid);
      member.run(id, i % 10 === 0 ? 'Editor' : 'Viewer', now, now);
      if (i < spec.users) userIds.push(id);
      else heavyIds.push(id);
    }
    const role = db.prepare('INSERT INTO "Role" (uid, orgId, name, displayName, "group", created, updated) VALUES (?, 1, ?, ?, ?, ?, ?)');
    const permission = db.prepare('INSERT INTO "Permission" (roleId, action, scope, created, updated) VALUES (?, ?, ?, ?, ?)');
    const roleIds: number[] = [];
    for (let i = 0; i < Math.max(spec.roles, HEAVY_ROLES); i++) {
      const id = Number(role.run(`scale_${i}`, `custom:scale:${i}`, `Scale role ${i}`, `Group ${i % 50}`, now, now).lastInsertRowid);
      for (let p = 0; p < spec.permissions; p++) {
        const [action, kind] = ACTIONS[(i + p) % ACTIONS.length] as [string, string];
        permission.run(id, action, `${kind}:id:${(i * 31 + p) % 100_000}`, now, now);
      }
      roleIds.push(id);
    }
    const userRole = db.prepare('INSERT INTO "UserRole" (orgId, userId, roleId, created) VALUES (1, ?, ?, ?)');
    const perUser = Math.min(roleIds.length, Math.ceil(spec.assignments / Math.max(1, userIds.length)));
    let assigned = 0;
    for (let u = 0; u < userIds.length && assigned < spec.assignments; u++) {
      // Distinct roles per user: consecutive ones from a user-dependent start.
      const start = (u * 7919) % roleIds.length;
      for (let j = 0; j < perUser && assigned < spec.assignments; j++, assigned++) {
        userRole.run(userIds[u], roleIds[(start + j) % roleIds.length], now);
      }
    }
    for (const [h, id] of heavyIds.entries()) for (const r of heavyRoles(h, roleIds.length)) userRole.run(id, roleIds[r], now);
    const team = db.prepare('INSERT INTO "Team" (orgId, name, created, updated) VALUES (1, ?, ?, ?)');
    const teamMember = db.prepare('INSERT INTO "TeamMember" (teamId, userId, orgId, created) VALUES (?, ?, 1, ?)');
    const teamRole = db.prepare('INSERT INTO "TeamRole" (orgId, teamId, roleId, created) VALUES (1, ?, ?, ?)');
    for (let t = 0; t < spec.teams; t++) {
      const id = Number(team.run(`team${t}`, now, now).lastInsertRowid);
      const members = new Set<number>();
      for (let m = 0; m < Math.min(spec.members, userIds.length); m++)
        members.add(userIds[(t * spec.members + m) % userIds.length] as number);
      for (const userId of members) teamMember.run(id, userId, now);
      for (let r = 0; r < Math.min(spec.teamRoles, roleIds.length); r++) teamRole.run(id, roleIds[(t * 3 + r * 101) % roleIds.length], now);
    }
  })();
  db.pragma('optimize');
  db.close();
  return { heavyIds, seconds: (performance.now() - started) / 1000 };
}

/** The spec parsed from command-line flags (see the module comment), defaults as the scale benchmark's large database. */
export function specFromArgs(args: string[]): { spec: ScaleSpec; out: string | undefined } {
  const { values } = parseArgs({
    args,
    allowPositionals: true,
    strict: false,
    options: {
      out: { type: 'string' },
      users: { type: 'string', default: '100000' },
      roles: { type: 'string', default: '10000' },
      teams: { type: 'string', default: '1000' },
      members: { type: 'string', default: '10' },
      'team-roles': { type: 'string', default: '2' },
      assignments: { type: 'string', default: '1000000' },
      permissions: { type: 'string', default: '5' },
      heavy: { type: 'string', default: '20' },
    },
  });
  const n = (v: unknown) => Number(v);
  return {
    out: typeof values.out === 'string' ? values.out : undefined,
    spec: {
      users: n(values.users),
      roles: n(values.roles),
      teams: n(values.teams),
      members: n(values.members),
      teamRoles: n(values['team-roles']),
      assignments: n(values.assignments),
      permissions: n(values.permissions),
      heavy: n(values.heavy),
    },
  };
}

if (process.argv[1]?.endsWith('scale-db.ts')) {
  const { spec, out } = specFromArgs(process.argv.slice(2));
  if (!out) throw new Error('usage: npm run bench -- scale-db --out <file.db> [sizes]');
  const { seconds, heavyIds } = await buildScaleDatabase(out, spec);
  console.log(
    `${out}: ${fmt(spec.users)} users, ${fmt(spec.roles)} roles x ${spec.permissions} permissions, ${fmt(spec.teams)} teams, ` +
      `${fmt(spec.assignments)} assignments, ${heavyIds.length} users with ${HEAVY_ROLES} roles (ids ${heavyIds[0]}-${heavyIds.at(-1)}), in ${fmt(seconds, 1)} s`,
  );
}
