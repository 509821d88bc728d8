/**
 * The what-if simulation on the scale database (bench/scale-db.ts: 100k users in organization 1,
 * 10k roles, 1M assignments, 1k teams of 10), in process (`yoga.fetch`, no sockets): a role
 * `sim_target` is added and held by about 3,000 users (2,500 directly, 50 teams of 10), then these
 * proposals are simulated through `POST /api/access-control/simulate` as the Service Admin, each
 * `--samples` times: the role's permissions replaced (its ~3,000 holders), the role added to one
 * more team, one assignment, and the basic Editor role's permissions replaced (every Editor of the
 * organization, 10k). Prints per proposal the subjects examined and affected, and the median and
 * slowest wall time of the request; and the database's count of rows before and after (nothing
 * is written). Asserts nothing.
 *
 *   npm run bench -- simulate [--db <built scale.db>] [--keep <file.db>] [--samples 10] [--quick]
 *
 * Without --db the scale database is built first (--quick: a tenth of it) and, with --keep, kept
 * in that file for the next run (--keep of an existing file uses it); each run works on a copy.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger } from '../src/platform/logger.js';
import { buildScaleDatabase, SCALE_PASSWORD, specFromArgs } from './scale-db.js';
import { fmt, median, printTable } from './support/load.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'simulate'),
  allowPositionals: true,
  strict: false,
  options: {
    db: { type: 'string' },
    keep: { type: 'string' },
    samples: { type: 'string', default: '10' },
    quick: { type: 'boolean', default: false },
  },
});
const samples = Number(flags.samples);
/** Direct holders and holding teams of the target role (teams of 10: about 3,000 holders in all). */
const DIRECT_HOLDERS = 2_500;
const HOLDING_TEAMS = 50;

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-simulate-'));
try {
  const path = join(dir, 'scale.db');
  if (typeof flags.db === 'string') copyFileSync(resolve(flags.db), path);
  else if (typeof flags.keep === 'string' && existsSync(flags.keep)) copyFileSync(flags.keep, path);
  else {
    const { spec } = specFromArgs(flags.quick ? ['--users', '10000', '--roles', '1000', '--teams', '100', '--assignments', '100000'] : []);
    const built = await buildScaleDatabase(path, spec);
    console.log(`scale database built in ${fmt(built.seconds, 1)} s`);
    if (typeof flags.keep === 'string') copyFileSync(path, flags.keep);
  }
  // The target role and its holders, written straight to the copy.
  const raw = new BetterSqlite3(path);
  const now = new Date().toISOString().replace('Z', '+00:00');
  const roleId = Number(
    raw
      .prepare('INSERT INTO "Role" (uid, orgId, name, displayName, "group", created, updated) VALUES (?, 1, ?, ?, ?, ?, ?)')
      .run('sim_target', 'custom:sim:target', 'Simulation target', 'Bench', now, now).lastInsertRowid,
  );
  const permission = raw.prepare('INSERT INTO "Permission" (roleId, action, scope, created, updated) VALUES (?, ?, ?, ?, ?)');
  for (const [action, scope] of [
    ['users:write', 'users:*'],
    ['teams:read', 'teams:*'],
  ])
    permission.run(roleId, action, scope, now, now);
  // The last Viewers: none is a member of the first teams (scale-db.ts fills teams with the first users).
  const users = raw
    .prepare(`SELECT userId FROM "OrgUser" WHERE orgId = 1 AND role = 'Viewer' ORDER BY userId DESC LIMIT ?`)
    .all(DIRECT_HOLDERS) as {
    userId: number;
  }[];
  const assign = raw.prepare('INSERT INTO "UserRole" (orgId, userId, roleId, created) VALUES (1, ?, ?, ?)');
  for (const { userId } of users) assign.run(userId, roleId, now);
  const teams = raw.prepare('SELECT id FROM "Team" ORDER BY id').all() as { id: number }[];
  const teamRole = raw.prepare('INSERT INTO "TeamRole" (orgId, teamId, roleId, created) VALUES (1, ?, ?, ?)');
  for (const { id } of teams.slice(0, HOLDING_TEAMS)) teamRole.run(id, roleId, now);
  const holders = raw
    .prepare(
      `SELECT count(*) AS n FROM (SELECT userId FROM "UserRole" WHERE roleId = ? UNION
       SELECT userId FROM "TeamMember" WHERE teamId IN (SELECT teamId FROM "TeamRole" WHERE roleId = ?))`,
    )
    .get(roleId, roleId) as { n: number };
  console.log(`sim_target: held by ${fmt(holders.n)} users (${fmt(users.length)} directly, ${HOLDING_TEAMS} teams)`);
  const outsider = raw.prepare(`SELECT userId FROM "OrgUser" WHERE orgId = 1 AND role = 'Editor' ORDER BY userId DESC LIMIT 1`).get() as {
    userId: number;
  };
  const rowCount = () =>
    ['Permission', 'UserRole', 'TeamRole', 'TeamMember', 'OrgUser', 'AccessChange']
      .map((t) => (raw.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n)
      .join('/');

  const config = loadConfig({ DATABASE_URL: `file:${path}`, ADMIN_PASSWORD: SCALE_PASSWORD, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  const app = createApp({ db: database.prisma, config, log: createLogger('silent') });
  const authorization = `Basic ${Buffer.from(`admin:${SCALE_PASSWORD}`).toString('base64')}`;
  const simulate = async (changes: unknown[]) => {
    const started = performance.now();
    const res = await app.yoga.fetch('http://bench/api/access-control/simulate', {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ changes, first: 100 }),
    });
    const body = (await res.json()) as { examined: number; affected: number };
    if (res.status !== 200) throw new Error(`simulate: ${res.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, ...body };
  };

  const proposals: [string, unknown[]][] = [
    [
      `role held by ~3,000 users: permissions replaced`,
      [
        {
          kind: 'role.permissions',
          roleUid: 'sim_target',
          permissions: [
            { action: 'teams:delete', scope: 'teams:*' },
            { action: 'teams:read', scope: 'teams:*' },
          ],
        },
      ],
    ],
    [
      'the role added to one more team',
      [{ kind: 'team_role.add', teamId: (teams[HOLDING_TEAMS] as { id: number }).id, roleUid: 'sim_target' }],
    ],
    ['the role assigned to one user', [{ kind: 'user_role.add', userId: outsider.userId, roleUid: 'sim_target' }]],
    [
      'basic Editor role (every Editor) replaced',
      [{ kind: 'role.permissions', roleUid: 'basic_editor', permissions: [{ action: 'teams:read', scope: 'teams:*' }] }],
    ],
  ];
  const before = rowCount();
  const rows: string[][] = [];
  for (const [name, changes] of proposals) {
    await simulate(changes); // warm the code and the database pages
    const runs = [];
    for (let i = 0; i < samples; i++) runs.push(await simulate(changes));
    const last = runs.at(-1) as { examined: number; affected: number };
    const times = runs.map((r) => r.ms);
    rows.push([name, fmt(last.examined), fmt(last.affected), fmt(median(times), 1), fmt(Math.max(...times), 1)]);
  }
  printTable(['proposal', 'examined', 'affected', 'median ms', 'max ms'], rows);
  console.log(`rows (Permission/UserRole/TeamRole/TeamMember/OrgUser/AccessChange) before ${before}, after ${rowCount()}`);
  raw.close();
  await database.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
