/**
 * The scale benchmark (issue 20 item 1b): the service started as `npm start` starts it on a
 * large database and on a small one, the same figures on both and their ratio (flat in size
 * means close to 1x): start time (spawn to listening), RSS after start and after the figures,
 * the permission listing of a user holding 50 roles cold (first request for that user) and warm
 * (the same again), assigning a role, creating a role, and `GET /api/access-control/roles`
 * (time and size, cold after a role write and warm) and one page of it (`perpage=50`: after a
 * role write, again, and with the listing cached). Medians of `--samples` requests each, over
 * HTTP on 127.0.0.1, authenticated with an Admin API key. Asserts nothing.
 *
 *   npm run bench -- scale [sizes of bench/scale-db.ts for the large database] [--samples 20]
 *       [--big <built.db>] [--small <built.db>] [--quick] [--root <checkout>]
 *
 * Without --big/--small both databases are built first (scale-db.ts; the large one as issue 20's:
 * 100k users, 10k roles, 1M assignments; --quick: a tenth of that), the small one with 1k users,
 * 100 roles, 10 teams and 1k assignments. Each run works on a copy, so a built one is reused.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildScaleDatabase, HEAVY_ROLES, heavyRoles, SCALE_PASSWORD, type ScaleSpec, specFromArgs } from './scale-db.js';
import { fmt, median, mib, printTable } from './support/load.js';
import { ROOT, startService, treeRss } from './support/processes.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  strict: false,
  options: {
    samples: { type: 'string', default: '20' },
    big: { type: 'string' },
    small: { type: 'string' },
    quick: { type: 'boolean', default: false },
    root: { type: 'string', default: ROOT },
  },
});
const samples = Number(flags.samples);
/** Roles per page of the paged listing figures (`?perpage=50&page=2`). */
const PAGE_SIZE = 50;
const root = resolve(String(flags.root));

interface Figures {
  startMs: number;
  rssIdle: number;
  coldMs: number;
  warmMs: number;
  assignMs: number;
  createMs: number;
  rolesColdMs: number;
  rolesMs: number;
  rolesBytes: number;
  pageColdMs: number;
  pageMs: number;
  pageCachedMs: number;
  pageBytes: number;
  rssAfter: number;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

/** Starts the service on a copy of `db` and measures the figures (module comment). */
async function measure(db: string, heavyIds: number[], roleCount: number, dir: string): Promise<Figures> {
  const copy = join(dir, `run-${Date.now()}.db`);
  copyFileSync(db, copy);
  const spawned = performance.now();
  const service = await startService(root, { DATABASE_URL: `file:${copy}`, PROVISIONING_PATH: join(dir, 'provisioning') });
  const startMs = performance.now() - spawned;
  try {
    await new Promise((r) => setTimeout(r, 3000));
    const rssIdle = treeRss(service.proc.pid as number);
    const base = `http://127.0.0.1:${service.port}`;
    const basic = `Basic ${Buffer.from(`admin:${SCALE_PASSWORD}`).toString('base64')}`;
    const created = await fetch(`${base}/api/auth/keys`, {
      method: 'POST',
      headers: { authorization: basic, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'scale-bench', role: 'Admin' }),
    });
    if (created.status !== 200) throw new Error(`creating the API key answered ${created.status}: ${await created.text()}`);
    const headers = { authorization: `Bearer ${((await created.json()) as { key: string }).key}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return text;
    };
    await call('GET', '/api/access-control/user/permissions'); // the key's own index, cached
    const users = heavyIds.slice(0, samples);
    const cold: number[] = [];
    const warm: number[] = [];
    for (const id of users) {
      const [ms, text] = await timed(() => call('GET', `/api/access-control/users/${id}/permissions`));
      if ((JSON.parse(text) as unknown[]).length < HEAVY_ROLES) throw new Error(`user ${id} holds fewer permissions than roles`);
      cold.push(ms);
    }
    for (let i = 0; i < samples; i++) warm.push((await timed(() => call('GET', `/api/access-control/users/${users[0]}/permissions`)))[0]);
    const assign: number[] = [];
    const create: number[] = [];
    const stamp = Date.now().toString(36);
    for (let i = 0; i < samples; i++) {
      // A role the heavy user does not hold yet (scale-db.ts heavyRoles).
      const h = i % users.length;
      const held = heavyRoles(h, roleCount);
      let free = (h * 7 + Math.floor(i / users.length) * 3 + 1) % roleCount;
      while (held.has(free)) free = (free + 1) % roleCount;
      assign.push((await timed(() => call('POST', `/api/access-control/users/${users[h]}/roles`, { roleUid: `scale_${free}` })))[0]);
      create.push(
        (
          await timed(() =>
            call('POST', '/api/access-control/roles', {
              name: `custom:bench:${stamp}:${i}`,
              permissions: [{ action: 'teams:read', scope: 'teams:*' }],
            }),
          )
        )[0],
      );
    }
    // The role listing: cold (the create above moved the listing cache's stamp), then warm.
    const [rolesColdMs, rolesText] = await timed(() => call('GET', '/api/access-control/roles'));
    const rolesBytes = Buffer.byteLength(rolesText);
    const roles: number[] = [];
    for (let i = 0; i < Math.max(3, Math.floor(samples / 4)); i++)
      roles.push((await timed(() => call('GET', '/api/access-control/roles')))[0]);
    // One page of 50 (the second), after a role write (read from the database), then again.
    const page = `/api/access-control/roles?perpage=${PAGE_SIZE}&page=2`;
    const pageCold: number[] = [];
    const pageWarm: number[] = [];
    let pageBytes = 0;
    for (let i = 0; i < Math.max(3, Math.floor(samples / 4)); i++) {
      await call('POST', '/api/access-control/roles', { name: `custom:bench:${stamp}:page:${i}` });
      pageCold.push((await timed(() => call('GET', page)))[0]);
      const [ms, text] = await timed(() => call('GET', page));
      pageWarm.push(ms);
      pageBytes = Buffer.byteLength(text);
    }
    // Pages served from the cached listing (loaded by an unpaged request).
    await call('GET', '/api/access-control/roles');
    const pageCached: number[] = [];
    for (let i = 0; i < Math.max(3, Math.floor(samples / 4)); i++) pageCached.push((await timed(() => call('GET', page)))[0]);
    return {
      startMs,
      rssIdle,
      coldMs: median(cold),
      warmMs: median(warm),
      assignMs: median(assign),
      createMs: median(create),
      rolesColdMs,
      rolesMs: median(roles),
      rolesBytes,
      pageColdMs: median(pageCold),
      pageMs: median(pageWarm),
      pageCachedMs: median(pageCached),
      pageBytes,
      rssAfter: treeRss(service.proc.pid as number),
    };
  } finally {
    await service.stop();
    for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
  }
}

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-scale-'));
try {
  const parsed = specFromArgs(process.argv.slice(2).filter((a) => a !== 'scale'));
  const bigSpec: ScaleSpec = flags.quick ? { ...parsed.spec, users: 10_000, roles: 1_000, teams: 100, assignments: 100_000 } : parsed.spec;
  const smallSpec: ScaleSpec = { ...bigSpec, users: 1_000, roles: 100, teams: 10, assignments: 1_000 };
  const prepare = async (given: unknown, spec: ScaleSpec, name: string) => {
    const path = typeof given === 'string' ? resolve(given) : join(dir, `${name}.db`);
    // The heavy users come right after the others (ids: admin, users, heavy users).
    if (typeof given === 'string') return { path, heavyIds: Array.from({ length: spec.heavy }, (_, i) => spec.users + 2 + i) };
    const built = await buildScaleDatabase(path, spec);
    console.log(
      `built ${name}: ${fmt(spec.users)} users, ${fmt(spec.roles)} roles, ${fmt(spec.assignments)} assignments in ${fmt(built.seconds, 1)} s`,
    );
    return { path, heavyIds: built.heavyIds };
  };
  const big = await prepare(flags.big, bigSpec, 'large');
  const small = await prepare(flags.small, smallSpec, 'small');
  const roleCount = (spec: ScaleSpec) => Math.max(spec.roles, HEAVY_ROLES);
  const large = await measure(big.path, big.heavyIds, roleCount(bigSpec), dir);
  const little = await measure(small.path, small.heavyIds, roleCount(smallSpec), dir);
  const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`;
  const row = (name: string, a: number, b: number, show: (n: number) => string) => [name, show(a), show(b), `${fmt(a / b, 2)}x`];
  console.log(
    `\nlarge: ${fmt(bigSpec.users)} users, ${fmt(bigSpec.roles)} roles, ${fmt(bigSpec.assignments)} assignments; ` +
      `small: ${fmt(smallSpec.users)} users, ${fmt(smallSpec.roles)} roles, ${fmt(smallSpec.assignments)} assignments; medians of ${samples}`,
  );
  printTable(
    ['figure', 'large', 'small', 'large / small'],
    [
      row('start (spawn to listening)', large.startMs, little.startMs, ms),
      row('RSS 3 s after start', large.rssIdle, little.rssIdle, mib),
      row(`cold permission listing, ${HEAVY_ROLES}-role user`, large.coldMs, little.coldMs, ms),
      row(`warm permission listing, ${HEAVY_ROLES}-role user`, large.warmMs, little.warmMs, ms),
      row('assign a role to a user', large.assignMs, little.assignMs, ms),
      row('create a role', large.createMs, little.createMs, ms),
      row('GET /api/access-control/roles, cold (after a role write)', large.rolesColdMs, little.rolesColdMs, ms),
      row('GET /api/access-control/roles, warm', large.rolesMs, little.rolesMs, ms),
      row('GET /api/access-control/roles size', large.rolesBytes, little.rolesBytes, (n) => `${fmt(n / 1e6, 2)} MB`),
      row(`a page of ${PAGE_SIZE} roles, cold (after a role write)`, large.pageColdMs, little.pageColdMs, ms),
      row(`a page of ${PAGE_SIZE} roles, again (from the database too)`, large.pageMs, little.pageMs, ms),
      row(`a page of ${PAGE_SIZE} roles, listing cached`, large.pageCachedMs, little.pageCachedMs, ms),
      row(`a page of ${PAGE_SIZE} roles, size`, large.pageBytes, little.pageBytes, (n) => `${fmt(n / 1e3, 1)} kB`),
      row('RSS after the figures', large.rssAfter, little.rssAfter, mib),
    ],
  );
  console.log('Latencies over HTTP on 127.0.0.1, one request at a time, API key; one run on a shared machine: noisy.');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
