/**
 * The change feed and read-your-writes, in process (`yoga.fetch`, no sockets), on a fresh
 * temporary SQLite database, two app instances on it standing for two replicas:
 * - delivery: from a write's answer on replica A to the event on an open `accessChanges` stream
 *   of the same instance, p50 / p99 over `--writes` writes;
 * - fan-out: `--subscribers` streams open at once on A; one write; the time until every stream
 *   holds it (p50 / p99 / max), and the heap per open stream;
 * - read-your-writes: `--writes` role assignments through A, each followed at once by a read on
 *   B (every other one carrying `X-Access-Revision-At-Least`): stale answers (must be 0; B applies
 *   each commit before it answers, header or not) and the read's time with and without the header.
 * Prints figures; asserts nothing.   npm run bench -- changes [--writes 300] [--subscribers 1000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { fixedRoleUid } from '../src/kernel/builtin-roles.js';
import { seed } from '../src/kernel/seed.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger } from '../src/platform/logger.js';
import { fmt, median, printTable } from './support/load.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'changes'),
  options: {
    writes: { type: 'string', default: '300' },
    subscribers: { type: 'string', default: '1000' },
    quick: { type: 'boolean', default: false },
  },
});
const writes = flags.quick ? 50 : Number(flags.writes);
const subscribers = flags.quick ? 200 : Number(flags.subscribers);
const PASSWORD = 'bench-password-0';
const basic = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

const pct = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
};

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-changes-'));
try {
  const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'bench.db')}`, ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'silent' });
  const dbA = await openDatabase({ databaseUrl: config.databaseUrl });
  await seed(dbA.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  const dbB = await openDatabase({ databaseUrl: config.databaseUrl, migrate: false });
  const a = createApp({ db: dbA.prisma, config, log: createLogger('silent') });
  const b = createApp({ db: dbB.prisma, config, log: createLogger('silent') });
  const call = (app: typeof a, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    Promise.resolve(
      app.yoga.fetch(`http://bench${path}`, {
        method,
        headers: { authorization: basic, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );
  const createRole = async (name: string) => {
    const res = await call(a, 'POST', '/api/access-control/roles', { name: `custom:${name}`, permissions: [{ action: 'bench:read' }] });
    if (res.status !== 200) throw new Error(`create role: ${res.status} ${await res.text()}`);
    return { uid: ((await res.json()) as { uid: string }).uid, revision: Number(res.headers.get('x-access-revision')) };
  };
  /** An open stream of A (as the admin, or with `authorization`): `next()` resolves with the revision of its next change event. */
  const open = async (authorization = basic) => {
    const res = await call(
      a,
      'POST',
      '/graphql',
      { query: 'subscription { accessChanges { revision change { revision } } }' },
      { accept: 'text/event-stream', authorization },
    );
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    return {
      next: async (): Promise<number> => {
        for (;;) {
          const match = /data: (\{.*"change":\{"revision":(\d+)\}.*\})\n/.exec(buffer);
          if (match) {
            buffer = buffer.slice((match.index ?? 0) + match[0].length);
            return Number(match[2]);
          }
          const { value, done } = await reader.read();
          if (done) throw new Error(`the stream ended: ${buffer.slice(0, 300)}`);
          buffer += decoder.decode(value, { stream: true });
        }
      },
      close: () => reader.cancel(),
    };
  };

  // Delivery, one stream.
  await createRole('warm-up');
  const stream = await open();
  const delivery: number[] = [];
  for (let i = 0; i < writes; i++) {
    const { revision } = await createRole(`delivery-${i}`);
    const answered = performance.now();
    if ((await stream.next()) !== revision) throw new Error('an event out of order');
    delivery.push(performance.now() - answered);
  }
  await stream.close();

  // Fan-out: one subscriber per service account (a caller holds at most 5 streams), each with
  // the change feed's fixed role and a token.
  const reader = fixedRoleUid('fixed:accesschanges:reader');
  const tokens: string[] = [];
  for (let i = 0; i < subscribers; i++) {
    const made = async (res: Response) => {
      if (res.status >= 300) throw new Error(`${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number; key: string };
    };
    const sa = await made(await call(a, 'POST', '/api/serviceaccounts', { name: `bench-sa-${i}`, role: 'Viewer' }));
    await made(await call(a, 'POST', `/api/access-control/users/${sa.id}/roles`, { roleUid: reader }));
    const token = await made(await call(a, 'POST', `/api/serviceaccounts/${sa.id}/tokens`, { name: `t-${i}` }));
    tokens.push(`Bearer ${token.key}`);
  }
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const streams = await Promise.all(tokens.map((token) => open(token)));
  global.gc?.();
  const heapPerStream = (process.memoryUsage().heapUsed - heapBefore) / subscribers;
  const waiting = streams.map((s) => s.next());
  const { revision: fanned } = await createRole('fan-out');
  const written = performance.now();
  const reached = await Promise.all(waiting.map((p) => p.then((r) => ({ r, at: performance.now() - written }))));
  if (reached.some(({ r }) => r !== fanned)) throw new Error('a stream got another change');
  const fan = reached.map(({ at }) => at);
  await Promise.all(streams.map((s) => s.close()));

  // Read-your-writes across the two instances.
  const user = await call(a, 'POST', '/api/admin/users', { login: 'ryw', password: 'ryw-password-1' });
  const userId = ((await user.json()) as { id: number }).id;
  const { uid } = await createRole('ryw');
  let stale = 0;
  const withHeader: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < writes; i++) {
    const assign = i % 2 === 0;
    const res = assign
      ? await call(a, 'POST', `/api/access-control/users/${userId}/roles`, { roleUid: uid })
      : await call(a, 'DELETE', `/api/access-control/users/${userId}/roles/${uid}`);
    const revision = res.headers.get('x-access-revision') as string;
    // Every read follows a write (a cold entry on B); every other one carries the header.
    const header = i % 4 < 2;
    const started = performance.now();
    const read = await call(b, 'GET', `/api/access-control/users/${userId}/permissions`, undefined, {
      ...(header && { 'x-access-revision-at-least': revision }),
    });
    const held = ((await read.json()) as { action: string }[]).some((p) => p.action === 'bench:read');
    (header ? withHeader : without).push(performance.now() - started);
    if (held !== assign) stale++;
  }

  console.log(`SQLite, in process; ${writes} writes, ${subscribers} subscribers`);
  printTable(
    ['figure', 'p50', 'p99', 'max'],
    [
      [
        'delivery: write answered -> event on a stream of the same instance',
        fmt(pct(delivery, 0.5), 2),
        fmt(pct(delivery, 0.99), 2),
        fmt(pct(delivery, 1), 2),
      ].map(String),
      [`fan-out: one write -> all ${subscribers} streams hold it`, fmt(pct(fan, 0.5), 1), fmt(pct(fan, 0.99), 1), fmt(pct(fan, 1), 1)].map(
        String,
      ),
      [
        'read on the other instance after a write, with X-Access-Revision-At-Least',
        fmt(pct(withHeader, 0.5), 2),
        fmt(pct(withHeader, 0.99), 2),
        fmt(pct(withHeader, 1), 2),
      ],
      ['the same read after a write, without the header', fmt(pct(without, 0.5), 2), fmt(pct(without, 0.99), 2), fmt(pct(without, 1), 2)],
    ],
  );
  console.log(
    `milliseconds. Heap per open stream: ${fmt(heapPerStream / 1024, 1)} KiB. Read-your-writes: ${stale} stale of ${writes} (median extra time of the header ${fmt(median(withHeader) - median(without), 3)} ms).`,
  );
  await dbB.close();
  await dbA.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
