/**
 * The scale benchmark: the service started as `npm start` starts it on a
 * large database and on a small one, the same figures on both and their ratio (flat in size
 * means close to 1x): start time (spawn to listening), RSS after start and after the figures,
 * the permission listing of a user holding 50 roles cold (first request for that user, once
 * listings of other users warmed the code; and among the first requests after start) and warm
 * (the same again), assigning a role and creating a role (once WARM_UP_WRITES writes warmed their
 * code; and the first writes after start), and `GET /api/access-control/roles` (time and size,
 * cold after a role write and warm) and one page of it (`perpage=50`: after a role write, again,
 * and with the listing cached). Medians of `--samples` requests each, over HTTP on 127.0.0.1,
 * authenticated with an Admin API key; beside the listings and writes, the service's own time of
 * the same requests (its request log's `ms`, from the start of yoga's handling to its answer; the
 * requests are tagged with X-Request-Id). Asserts nothing.
 *
 * Beside them, the floor of one request measured the same way (the same fetch client and headers,
 * Accept-Encoding included): the service's cheapest route (`GET /api/health`), and a bare
 * node:http server (bench/bare-http.mjs) answering 3 bytes, and as many bytes as the listing,
 * compressed once and sent from memory (what a cached answer costs at best), and a bare graphql-yoga
 * answering `{ __typename }` (bench/bare-yoga.mjs: the framework's own floor). The warm listing is
 * also timed with `Accept-Encoding: identity`, and its size printed as JSON and as sent.
 *
 *   npm run bench -- scale [sizes of bench/scale-db.ts for the large database] [--samples 20]
 *       [--big <built.db>] [--small <built.db>] [--quick] [--root <checkout>]
 *
 * Without --big/--small both databases are built first (scale-db.ts; the large one:
 * 100k users, 10k roles, 1M assignments; --quick: a tenth of that), the small one with 1k users,
 * 100 roles, 10 teams and 1k assignments. Each run works on a copy, so a built one is reused.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildScaleDatabase, HEAVY_ROLES, heavyRoles, SCALE_PASSWORD, type ScaleSpec, specFromArgs } from './scale-db.js';
import { fmt, median } from './support/load.js';
import { ROOT, type Started, startBareYoga, startProcess, startService, treeCpuMs, treeRss } from './support/processes.js';
import { type Figures, printScaleTable } from './support/scale-table.js';

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
/** Listings of ordinary users that warm the service's code before the cold figure. */
const WARM_UP_LISTINGS = 200;
/** Writes (an assignment added and removed, a role created) that warm the write code before the write figures. */
const WARM_UP_WRITES = 200;
/** Longest wait for the service's log line of the last request measured (its own times). */
const LOG_WAIT_MS = 10_000;
/** Warm requests whose server CPU is summed (/proc's 10 ms ticks need a few hundred of them). */
const CPU_REQUESTS = 300;
/** Roles per page of the paged listing figures (`?perpage=50&page=2`). */
const PAGE_SIZE = 50;
const root = resolve(String(flags.root));

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await fn();
  return [performance.now() - started, value];
}

/** `fn`'s result and the CPU milliseconds process `pid` (and its children) used meanwhile. */
async function cpuOf<T>(pid: number, fn: () => Promise<T>): Promise<[number, T]> {
  const before = treeCpuMs(pid);
  const value = await fn();
  return [treeCpuMs(pid) - before, value];
}

/** Medians of `samples` GETs of `url` with `headers`, read to the end. */
async function medianGet(url: string, headers: Record<string, string>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push((await timed(async () => (await fetch(url, { headers })).arrayBuffer()))[0]);
  return median(times);
}

/** Starts the service on a copy of `db` and measures the figures (module comment). */
async function measure(db: string, heavyIds: number[], roleCount: number, dir: string, bare: Started, bareYoga: Started): Promise<Figures> {
  const copy = join(dir, `run-${Date.now()}.db`);
  copyFileSync(db, copy);
  // The service's own time of each tagged request (X-Request-Id `<phase>.<n>`), from its log's `ms`.
  const served = new Map<string, number[]>();
  const seen = new Set<string>();
  const onLine = (line: string) => {
    if (!line.includes('"reqId":"bench-')) return;
    const entry = JSON.parse(line) as { reqId: string; ms: number };
    seen.add(entry.reqId);
    const phase = entry.reqId.slice(0, entry.reqId.lastIndexOf('.'));
    served.set(phase, [...(served.get(phase) ?? []), entry.ms]);
  };
  let tagged = 0;
  let lastTag = '';
  /** The headers of one request of `phase`, tagged for the log. */
  const tag = (phase: string, base: Record<string, string>) => {
    lastTag = `bench-${phase}.${tagged++}`;
    return { ...base, 'x-request-id': lastTag };
  };
  const spawned = performance.now();
  const service = await startService(root, { DATABASE_URL: `file:${copy}`, PROVISIONING_PATH: join(dir, 'provisioning') }, [], onLine);
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
    const call = async (method: string, path: string, body?: unknown, phase?: string) => {
      const sent = phase ? tag(phase, headers) : headers;
      const res = await fetch(`${base}${path}`, { method, headers: sent, ...(body !== undefined && { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return text;
    };
    await call('GET', '/api/access-control/user/permissions'); // the key's own index, cached
    const users = heavyIds.slice(0, samples);
    const cold: number[] = [];
    const coldStart: number[] = [];
    const warm: number[] = [];
    const pid = service.proc.pid as number;
    let coldCpu = 0;
    const half = Math.max(1, Math.floor(users.length / 2));
    for (const [i, id] of users.entries()) {
      // The first half right after start (code not yet compiled, heap young); the rest once
      // WARM_UP_LISTINGS listings of ordinary users (ids from 2) warmed the code: data cold only.
      if (i === half) for (let u = 0; u < WARM_UP_LISTINGS; u++) await call('GET', `/api/access-control/users/${2 + u}/permissions`);
      const phase = i < half ? 'cold-start' : 'cold';
      const [cpu, [ms, text]] = await cpuOf(pid, () =>
        timed(() => call('GET', `/api/access-control/users/${id}/permissions`, undefined, phase)),
      );
      if ((JSON.parse(text) as unknown[]).length < HEAVY_ROLES) throw new Error(`user ${id} holds fewer permissions than roles`);
      if (i < half) coldStart.push(ms);
      else {
        cold.push(ms);
        coldCpu += cpu;
      }
    }
    for (let i = 0; i < samples; i++)
      warm.push((await timed(() => call('GET', `/api/access-control/users/${users[0]}/permissions`, undefined, 'warm')))[0]);
    const listingUrl = `${base}/api/access-control/users/${users[0]}/permissions`;
    const [warmCpu] = await cpuOf(pid, async () => {
      for (let i = 0; i < CPU_REQUESTS; i++) await (await fetch(listingUrl, { headers })).arrayBuffer();
    });
    const [bareCpu] = await cpuOf(bare.proc.pid as number, async () => {
      for (let i = 0; i < CPU_REQUESTS; i++) await (await fetch(`http://127.0.0.1:${bare.port}/?bytes=0`, { headers })).arrayBuffer();
    });
    const warmIdentityMs = await medianGet(listingUrl, { ...headers, 'accept-encoding': 'identity' });
    const sent = await fetch(listingUrl, { headers });
    const listingBytes = (await sent.arrayBuffer()).byteLength;
    const listingEncoding = sent.headers.get('content-encoding') ?? 'identity';
    // NaN when streamed (no Content-Length: the compression middleware's answers).
    const listingSentBytes = Number(sent.headers.get('content-length') ?? Number.NaN);
    // The floor, measured the same way, now (the machine's load of this moment).
    const healthMs = await medianGet(`${base}/api/health`, headers);
    const bareBase = `http://127.0.0.1:${bare.port}`;
    const bareSmallMs = await medianGet(`${bareBase}/?bytes=0`, headers);
    const bareListingMs = await medianGet(`${bareBase}/?bytes=${listingBytes}`, headers);
    // The framework's own floor: graphql-yoga with its defaults answering `{ __typename }` over GET.
    const bareYogaMs = await medianGet(`http://127.0.0.1:${bareYoga.port}/graphql?query=%7B__typename%7D`, headers);
    const stamp = Date.now().toString(36);
    // Summed per call: each delta is off by up to a tick, the sum over many calls much less.
    const writeCpu = { assign: 0, create: 0 };
    /** `count` pairs of writes (a role assigned to a heavy user, a role created), from pair `first`, timed. */
    const writes = async (first: number, count: number, phase: string) => {
      const assign: number[] = [];
      const create: number[] = [];
      for (let i = first; i < first + count; i++) {
        const [assignCpu, [assignMs]] = await cpuOf(pid, () =>
          timed(() =>
            call('POST', `/api/access-control/users/${users[i % users.length]}/roles`, { roleUid: freeRole(i) }, `${phase}-assign`),
          ),
        );
        assign.push(assignMs);
        writeCpu.assign += assignCpu;
        const [createCpu, [createMs]] = await cpuOf(pid, () =>
          timed(() =>
            call(
              'POST',
              '/api/access-control/roles',
              { name: `custom:bench:${stamp}:${i}`, permissions: [{ action: 'teams:read', scope: 'teams:*' }] },
              `${phase}-create`,
            ),
          ),
        );
        create.push(createMs);
        writeCpu.create += createCpu;
      }
      return { assign, create };
    };
    /** A role heavy user `i % users.length` does not hold yet (scale-db.ts heavyRoles), different for each `i`. */
    const freeRole = (i: number) => {
      const h = i % users.length;
      const held = heavyRoles(h, roleCount);
      let free = (h * 7 + Math.floor(i / users.length) * 3 + 1) % roleCount;
      while (held.has(free)) free = (free + 1) % roleCount;
      return `scale_${free}`;
    };
    // The first writes after start (their code not yet compiled), then WARM_UP_WRITES pairs that
    // warm it (each assignment removed again), then the figures: code warm, data as before.
    const firstWrites = await writes(0, Math.max(1, Math.floor(samples / 2)), 'first');
    for (let i = 0; i < WARM_UP_WRITES; i++) {
      const role = freeRole(1_000 + i);
      const user = users[i % users.length];
      await call('POST', `/api/access-control/users/${user}/roles`, { roleUid: role });
      await call('DELETE', `/api/access-control/users/${user}/roles/${role}`);
      await call('POST', '/api/access-control/roles', { name: `custom:bench:${stamp}:warm:${i}` });
    }
    writeCpu.assign = 0;
    writeCpu.create = 0;
    const { assign, create } = await writes(samples, samples, 'write');
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
    // Pages served from the cached listing (loaded by an unpaged request). `samples` of them: the
    // first few after the unpaged answer (2.4 MB on the large database) meet the collection of
    // its garbage, which says nothing of a page.
    await call('GET', '/api/access-control/roles');
    const pageCached: number[] = [];
    for (let i = 0; i < samples; i++) pageCached.push((await timed(() => call('GET', page, undefined, 'page-cached')))[0]);
    const deadline = Date.now() + LOG_WAIT_MS;
    while (!seen.has(lastTag) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const servedMs = (phase: string) => median(served.get(phase) ?? [Number.NaN]);
    return {
      servedColdMs: servedMs('bench-cold'),
      servedWarmMs: servedMs('bench-warm'),
      servedAssignMs: servedMs('bench-write-assign'),
      servedCreateMs: servedMs('bench-write-create'),
      servedPageCachedMs: servedMs('bench-page-cached'),
      firstAssignMs: median(firstWrites.assign),
      firstCreateMs: median(firstWrites.create),
      startMs,
      rssIdle,
      coldMs: median(cold.length > 0 ? cold : coldStart),
      coldStartMs: median(coldStart),
      warmMs: median(warm),
      warmIdentityMs,
      coldCpuMs: coldCpu / Math.max(1, cold.length),
      warmCpuMs: warmCpu / CPU_REQUESTS,
      assignCpuMs: writeCpu.assign / samples,
      createCpuMs: writeCpu.create / samples,
      bareCpuMs: bareCpu / CPU_REQUESTS,
      listingBytes,
      listingSentBytes,
      listingEncoding,
      healthMs,
      bareSmallMs,
      bareListingMs,
      bareYogaMs,
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
  const bareYoga = await startBareYoga();
  const bare = await startProcess({
    argv: [process.execPath, join(ROOT, 'bench', 'bare-http.mjs')],
    cwd: ROOT,
    env: { PORT: '0' },
    ready: /^listening \d+/,
    portOf: (line) => Number(line.split(' ')[1]),
  });
  let large: Figures;
  let little: Figures;
  try {
    large = await measure(big.path, big.heavyIds, roleCount(bigSpec), dir, bare, bareYoga);
    little = await measure(small.path, small.heavyIds, roleCount(smallSpec), dir, bare, bareYoga);
  } finally {
    await bare.stop();
    await bareYoga.stop();
  }
  console.log(
    `\nlarge: ${fmt(bigSpec.users)} users, ${fmt(bigSpec.roles)} roles, ${fmt(bigSpec.assignments)} assignments; ` +
      `small: ${fmt(smallSpec.users)} users, ${fmt(smallSpec.roles)} roles, ${fmt(smallSpec.assignments)} assignments; medians of ${samples}`,
  );
  printScaleTable(large, little, { pageSize: PAGE_SIZE, cpuRequests: CPU_REQUESTS });
  console.log(
    'Latencies over HTTP on 127.0.0.1, one request at a time, API key, fetch (undici) from this process; the floor rows are\n' +
      'that client and the loopback alone. One run on a shared machine: noisy.',
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
