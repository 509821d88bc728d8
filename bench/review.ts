/**
 * The batch check and the access review on a scale database (scale-db.ts: 100k users, 10k roles,
 * 1M assignments), in one process with the app (its `yoga.fetch`, no socket), so the figures are
 * the service's own. In this order:
 * - the access review (first, so the export's RSS is measured on a process holding little else):
 *   one page of who-has (100 subjects), everything a 50-role user can do, and the export of an
 *   action every member holds (teams:read on teams:id:1, through basic:viewer: every user of
 *   organization 1) as NDJSON, as CSV, and as CSV counted first (`count=true`, the console's
 *   progress: the first row comes after the count it announces, x-review-subjects): time to the
 *   first row, to the end, rows, the announced count, bytes, and the
 *   process's peak RSS during the export above its RSS before it (sampled every 5 ms) and the
 *   heap still used once the export ended and garbage was collected (run with --expose-gc, as
 *   bench/run.ts does), above the heap before it;
 * - 1,000 checks as 1,000 single requests (POST /api/access-control/check) against one batch
 *   request of the same 1,000 (POST /api/access-control/check/batch): wall time of each, for one
 *   subject (the caller) and for 1,000 items over 100 members;
 * - a 1,000-item batch for one subject on warm caches, the service alone
 *   (PermissionService.checkMany, no HTTP): median and best of 5 x `--samples` runs.
 * Asserts nothing; prints the figures.
 *
 *   npm run bench -- review [--db <built.db>] [--samples 20] [--quick] [sizes of scale-db.ts]
 *
 * Without --db the database is built first (--quick: a tenth of the default sizes); a built one
 * is copied, never changed.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { principalOf } from '../src/kernel/principal.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger, logDestination } from '../src/platform/logger.js';
import { buildScaleDatabase, SCALE_PASSWORD, specFromArgs } from './scale-db.js';
import { fmt, median, mib } from './support/load.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  strict: false,
  options: { db: { type: 'string' }, samples: { type: 'string', default: '20' }, quick: { type: 'boolean', default: false } },
});
const samples = Number(flags.samples);
const BATCH = 1000;

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-review-'));
const path = join(dir, 'review.db');
try {
  if (typeof flags.db === 'string') copyFileSync(flags.db, path);
  else {
    const { spec } = specFromArgs(process.argv.slice(2));
    const scaled = flags.quick
      ? { ...spec, users: spec.users / 10, roles: spec.roles / 10, teams: spec.teams / 10, assignments: spec.assignments / 10 }
      : spec;
    await buildScaleDatabase(path, scaled);
  }
  const config = loadConfig({
    DATABASE_URL: `file:${path}`,
    ADMIN_PASSWORD: SCALE_PASSWORD,
    LOG_LEVEL: 'info',
    PROVISIONING_PATH: join(dir, 'p'),
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  const app = createApp({ db: database.prisma, config, log: createLogger('info', logDestination('/dev/null')) });
  const fetchApp = (url: string, init: RequestInit = {}) => app.yoga.fetch(`http://bench${url}`, init);
  const basic = `Basic ${Buffer.from(`admin:${SCALE_PASSWORD}`).toString('base64')}`;
  const json = { authorization: basic, 'content-type': 'application/json' };
  // The admin may review: the auditor's fixed role, assigned through the service.
  const reader = await database.prisma.role.findFirstOrThrow({ where: { name: 'fixed:access.review:reader' } });
  const assigned = await fetchApp('/api/access-control/users/1/roles', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ roleUid: reader.uid }),
  });
  if (assigned.status !== 200) throw new Error(`assigning the reviewer role answered ${assigned.status}: ${await assigned.text()}`);
  // A key for the checks (a basic password is verified by argon2 on every request; a key is not).
  const created = await fetchApp('/api/auth/keys', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'review-bench', role: 'Admin' }),
  });
  const bearer = { authorization: `Bearer ${((await created.json()) as { key: string }).key}`, 'content-type': 'application/json' };

  const members = (await database.prisma.orgUser.findMany({ where: { orgId: 1 }, select: { userId: true }, take: 100, skip: 10 })).map(
    (m) => m.userId,
  );
  const ACTIONS = ['teams:read', 'teams:write', 'org.users:read', 'users.roles:read', 'serviceaccounts:read'];
  const item = (i: number, userId?: number) => ({
    id: `c${i}`,
    ...(userId !== undefined && { userId }),
    action: ACTIONS[i % ACTIONS.length] as string,
    scopes: [`teams:id:${(i * 7) % 1000}`, `users:id:${i}`],
  });
  const oneSubject = Array.from({ length: BATCH }, (_, i) => item(i));
  const manySubjects = Array.from({ length: BATCH }, (_, i) => item(i, members[i % members.length]));

  const time = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const started = performance.now();
    const value = await fn();
    return [performance.now() - started, value];
  };
  const post = async (url: string, body: unknown) => {
    const res = await fetchApp(url, { method: 'POST', headers: bearer, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${text.slice(0, 300)}`);
    return text;
  };
  const singles = async (items: ReturnType<typeof item>[]) => {
    for (const { id: _id, ...body } of items) await post('/api/access-control/check', body);
  };

  console.log('access review on organization 1 (first, while the process holds little)');
  const reviewHeaders = { authorization: basic };
  // A basic password's first verification is argon2's; the cache keeps it (BASIC_AUTH_CACHE_SECONDS).
  await fetchApp('/api/access-control/review/who-has?action=teams:read&first=1', { headers: reviewHeaders });
  const [pageMs] = await time(async () =>
    (await fetchApp('/api/access-control/review/who-has?action=teams:read&scope=teams:id:1&first=100', { headers: reviewHeaders })).text(),
  );
  console.log(`  who-has, one page of 100 subjects: ${fmt(pageMs, 1)} ms`);
  const heavy = await database.prisma.user.findFirstOrThrow({ where: { login: 'heavy0' } });
  const [subjectMs] = await time(async () =>
    (await fetchApp(`/api/access-control/review/users/${heavy.id}`, { headers: reviewHeaders })).text(),
  );
  console.log(`  everything a 50-role user can do and why: ${fmt(subjectMs, 1)} ms`);
  for (const [format, count] of [
    ['ndjson', false],
    ['csv', false],
    ['csv', true],
  ] as const) {
    global.gc?.();
    const before = process.memoryUsage().rss;
    const heapBefore = process.memoryUsage().heapUsed;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const started = performance.now();
    const res = await fetchApp(
      `/api/access-control/review/who-has/export?action=teams:read&scope=teams:id:1&format=${format}&count=${count}`,
      {
        headers: reviewHeaders,
      },
    );
    const announced = Number(res.headers.get('x-review-subjects'));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let firstRowMs = 0;
    let lines = 0;
    let bytes = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      lines += decoder.decode(value, { stream: true }).split('\n').length - 1;
      if (firstRowMs === 0 && lines >= 2) firstRowMs = performance.now() - started;
    }
    const endMs = performance.now() - started;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const rows = format === 'csv' ? lines - 1 : lines - 2;
    global.gc?.();
    const kept = process.memoryUsage().heapUsed - heapBefore;
    console.log(
      `  export ${format}${count ? ', counted first (count=true)' : ''}: first row ${fmt(firstRowMs, 1)} ms, end ${fmt(endMs / 1000, 2)} s, ${fmt(rows)} ${format === 'csv' ? 'paths' : 'subjects'} ${count ? ` (${fmt(announced)} subjects announced)` : ''}, ${mib(bytes)}; ` +
        `RSS ${mib(before)} before, peak ${mib(peak)} (+${mib(peak - before)}); heap kept after it (collected): ${fmt(kept / 1024 / 1024, 1)} MiB`,
    );
  }
  console.log('\nbatch check: 1,000 checks, wall time in the process (app.yoga.fetch, no socket)');
  for (const [name, items] of [
    ['one subject (the caller)', oneSubject],
    ['100 members, 10 items each', manySubjects],
  ] as const) {
    await singles(items); // warms the caches and the code
    await post('/api/access-control/check/batch', { items });
    const singleTimes: number[] = [];
    for (let i = 0; i < 3; i++) singleTimes.push((await time(() => singles(items)))[0]);
    const single = median(singleTimes);
    const batchTimes: number[] = [];
    for (let i = 0; i < samples; i++) batchTimes.push((await time(() => post('/api/access-control/check/batch', { items })))[0]);
    const batch = median(batchTimes);
    console.log(`  ${name}: 1,000 single requests ${fmt(single, 1)} ms, one batch ${fmt(batch, 2)} ms (${fmt(single / batch, 1)}x)`);
  }

  const caller = principalOf({ id: 1, login: 'admin', isServiceAccount: false, isServiceAdmin: true }, 1, 'Admin', 'none');
  await app.services.permissions.checkMany(caller, { items: oneSubject });
  const serviceTimes: number[] = [];
  for (let i = 0; i < samples * 5; i++)
    serviceTimes.push((await time(() => app.services.permissions.checkMany(caller, { items: oneSubject })))[0]);
  console.log(
    `  1,000 items for one subject, warm, the service alone (checkMany): median ${fmt(median(serviceTimes), 2)} ms, best ${fmt(Math.min(...serviceTimes), 2)} ms`,
  );

  await database.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
