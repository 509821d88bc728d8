/**
 * The change feed and read-your-writes, in process (`yoga.fetch`, no sockets), with two app
 * instances standing for two replicas, each with its own connections: on a fresh SQLite file, and
 * on an embedded PostgreSQL (scripts/embedded-postgres.ts, fsync on), where the second instance
 * learns of the first's commits as another replica does (LISTEN/NOTIFY on its own listener).
 * - delivery: from a write's answer on replica A to the event on an open `accessChanges` stream,
 *   of A itself (SQLite and PostgreSQL) and of B (PostgreSQL), p50 / p99 over `--writes` writes;
 * - fan-out: `--subscribers` streams open at once on A (five per service account, the per-caller
 *   bound); one write; the time until every stream holds it (p50 / p99 / max), and the RSS and
 *   heap the open streams added, per stream;
 * - read-your-writes: `--ryw` role assignments and removals through A, each followed at once by a
 *   read on B, every other one carrying `X-Access-Revision-At-Least` with the write's revision:
 *   stale answers (must be 0) and the read's time with and without the header.
 * Prints figures; asserts nothing.
 *   npm run bench -- changes [--writes 300] [--subscribers 1000] [--ryw 1000] [--quick] [--only sqlite|postgres]
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type App, createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { fixedRoleUid } from '../src/kernel/builtin-roles.js';
import { seed } from '../src/kernel/seed.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger } from '../src/platform/logger.js';
import { fmt, printTable } from './support/load.js';
import { startBenchPostgres } from './support/replica-set.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'changes'),
  options: {
    writes: { type: 'string', default: '300' },
    subscribers: { type: 'string', default: '1000' },
    ryw: { type: 'string', default: '1000' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const writes = flags.quick ? 50 : Number(flags.writes);
const subscribers = flags.quick ? 200 : Number(flags.subscribers);
const rywWrites = flags.quick ? 100 : Number(flags.ryw);
const PASSWORD = 'bench-password-0';
const basic = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
/** Streams per service account in the fan-out (the per-caller bound, modules/changes/streams.ts). */
const STREAMS_PER_CALLER = 5;

const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
};
const row = (label: string, values: number[], digits = 2) => [
  label,
  fmt(pct(values, 0.5), digits),
  fmt(pct(values, 0.99), digits),
  fmt(pct(values, 1), digits),
];

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;
const caller =
  (app: App): Call =>
  (method, path, body, headers = {}) =>
    Promise.resolve(
      app.yoga.fetch(`http://bench${path}`, {
        method,
        headers: { authorization: basic, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );

/** An open stream: `next()` resolves with the revision of its next change event. */
async function open(call: Call, authorization = basic) {
  const res = await call(
    'POST',
    '/graphql',
    { query: 'subscription { accessChanges { revision change { revision } } }' },
    { accept: 'text/event-stream', authorization },
  );
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  // The subscription starts when its body is first read: read now, so it is open before any write.
  let first: ReturnType<typeof reader.read> | undefined = reader.read();
  return {
    next: async (): Promise<number> => {
      for (;;) {
        const match = /data: (\{.*"change":\{"revision":(\d+)\}.*\})\n/.exec(buffer);
        if (match) {
          buffer = buffer.slice((match.index ?? 0) + match[0].length);
          return Number(match[2]);
        }
        const { value, done } = await (first ?? reader.read());
        first = undefined;
        if (done) throw new Error(`the stream ended: ${buffer.slice(0, 300)}`);
        buffer += decoder.decode(value, { stream: true });
      }
    },
    close: () => reader.cancel(),
  };
}

async function createRole(call: Call, name: string) {
  const res = await call('POST', '/api/access-control/roles', { name: `custom:${name}`, permissions: [{ action: 'bench:read' }] });
  if (res.status !== 200) throw new Error(`create role: ${res.status} ${await res.text()}`);
  return { uid: ((await res.json()) as { uid: string }).uid, revision: Number(res.headers.get('x-access-revision')) };
}

/** From each write's answer on `writer` to its event on a stream of `reader`, milliseconds. */
async function delivery(writer: Call, reader: Call, label: string, opened: () => number): Promise<number[]> {
  await createRole(writer, `warm-up-${label}`);
  const stream = await open(reader);
  await until(opened, 1);
  const times: number[] = [];
  for (let i = 0; i < writes; i++) {
    const { revision } = await createRole(writer, `delivery-${label}-${i}`);
    const answered = performance.now();
    if ((await stream.next()) !== revision) throw new Error('an event out of order');
    times.push(performance.now() - answered);
  }
  await stream.close();
  return times;
}

/** Memory after two collections and a moment for the allocator to return what they freed. */
async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  for (let i = 0; i < 2; i++) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return process.memoryUsage();
}

/** Resolves once `count()` reaches `n` (the replica's open streams). */
async function until(count: () => number, n: number): Promise<void> {
  while (count() < n) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** `subscribers` streams on `call`'s replica (`open()`: its open streams); one write; when each holds it. Also memory per stream. */
async function fanOut(call: Call, opened: () => number) {
  const reader = fixedRoleUid('fixed:accesschanges:reader');
  const tokens: string[] = [];
  const made = async (res: Response) => {
    if (res.status >= 300) throw new Error(`${res.status} ${await res.text()}`);
    return (await res.json()) as { id: number; key: string };
  };
  for (let i = 0; i < Math.ceil(subscribers / STREAMS_PER_CALLER); i++) {
    const sa = await made(await call('POST', '/api/serviceaccounts', { name: `bench-sa-${i}`, role: 'Viewer' }));
    await made(await call('POST', `/api/access-control/users/${sa.id}/roles`, { roleUid: reader }));
    const token = await made(await call('POST', `/api/serviceaccounts/${sa.id}/tokens`, { name: `t-${i}` }));
    tokens.push(`Bearer ${token.key}`);
  }
  const before = await settledMemory();
  const streams = await Promise.all(
    Array.from({ length: subscribers }, (_, i) => open(call, tokens[Math.floor(i / STREAMS_PER_CALLER)] as string)),
  );
  await until(opened, subscribers);
  const after = await settledMemory();
  const waiting = streams.map((s) => s.next());
  const { revision } = await createRole(call, 'fan-out');
  const written = performance.now();
  const reached = await Promise.all(waiting.map((p) => p.then((r) => ({ r, at: performance.now() - written }))));
  if (reached.some(({ r }) => r !== revision)) throw new Error('a stream got another change');
  await Promise.all(streams.map((s) => s.close()));
  return {
    times: reached.map(({ at }) => at),
    rssKiB: (after.rss - before.rss) / subscribers / 1024,
    heapKiB: (after.heapUsed - before.heapUsed) / subscribers / 1024,
  };
}

/** Writes through `a`, each read back at once through `b`, every other read with the at-least header. */
async function readYourWrites(a: Call, b: Call) {
  const user = await a('POST', '/api/admin/users', { login: 'ryw', password: 'ryw-password-1' });
  const userId = ((await user.json()) as { id: number }).id;
  const { uid } = await createRole(a, 'ryw');
  const stale = { withHeader: 0, without: 0 };
  const withHeader: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < rywWrites; i++) {
    const assign = i % 2 === 0;
    const res = assign
      ? await a('POST', `/api/access-control/users/${userId}/roles`, { roleUid: uid })
      : await a('DELETE', `/api/access-control/users/${userId}/roles/${uid}`);
    if (res.status !== 200) throw new Error(`write: ${res.status} ${await res.text()}`);
    const revision = res.headers.get('x-access-revision') as string;
    const header = i % 4 < 2;
    const started = performance.now();
    const read = await b('GET', `/api/access-control/users/${userId}/permissions`, undefined, {
      ...(header && { 'x-access-revision-at-least': revision }),
    });
    const held = ((await read.json()) as { action: string }[]).some((p) => p.action === 'bench:read');
    (header ? withHeader : without).push(performance.now() - started);
    if (held !== assign) stale[header ? 'withHeader' : 'without']++;
  }
  return { stale, withHeader, without };
}

/** Runs the figures of one database (`url`) with two instances on it; prints its table. */
async function measure(kind: 'SQLite' | 'PostgreSQL', url: string): Promise<void> {
  const config = loadConfig({ DATABASE_URL: url, ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'silent' });
  const dbA = await openDatabase({ databaseUrl: config.databaseUrl });
  await seed(dbA.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  const dbB = await openDatabase({ databaseUrl: config.databaseUrl, migrate: false });
  const appA = createApp({ db: dbA.prisma, config, log: createLogger('silent') });
  const appB = createApp({ db: dbB.prisma, config, log: createLogger('silent') });
  const [a, b] = [caller(appA), caller(appB)];
  try {
    const rows: string[][] = [
      row('delivery: write answered on A -> event on a stream of A', await delivery(a, a, 'same', () => appA.services.changeStreams.count)),
    ];
    // SQLite announces nothing to another connection: B's streams learn by their 1 s poll.
    if (kind === 'PostgreSQL')
      rows.push(
        row(
          'delivery: write answered on A -> event on a stream of B',
          await delivery(a, b, 'other', () => appB.services.changeStreams.count),
        ),
      );
    const fan = await fanOut(a, () => appA.services.changeStreams.count);
    rows.push(row(`fan-out: one write -> all ${subscribers} streams of A hold it`, fan.times, 1));
    const ryw = await readYourWrites(a, b);
    rows.push(row('read on B at once after a write on A, with X-Access-Revision-At-Least', ryw.withHeader));
    rows.push(row('the same read, without the header', ryw.without));
    console.log(`\n${kind}, two instances in one process; ${writes} writes, ${subscribers} subscribers, ${rywWrites} read-your-writes`);
    printTable(['figure (ms)', 'p50', 'p99', 'max'], rows);
    console.log(
      `Per open stream: RSS ${fmt(fan.rssKiB, 1)} KiB, heap ${fmt(fan.heapKiB, 1)} KiB. Read-your-writes: stale ${ryw.stale.withHeader} of ${ryw.withHeader.length} with the header, ${ryw.stale.without} of ${ryw.without.length} without.`,
    );
  } finally {
    appA.services.changeStreams.closeAll();
    appB.services.changeStreams.closeAll();
    await dbB.close();
    await dbA.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-changes-'));
chmodSync(dir, 0o755);
try {
  if (flags.only !== 'postgres') await measure('SQLite', `file:${join(dir, 'bench.db')}`);
  if (flags.only !== 'sqlite') {
    const server = await startBenchPostgres(dir);
    try {
      await measure('PostgreSQL', server.url('bench'));
    } finally {
      await server.stop().catch(() => undefined);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
