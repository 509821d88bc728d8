/**
 * The attack figures of issue #10 item 1, over real HTTP on 127.0.0.1 against a fresh temporary
 * database. The server runs in a child process (this file with `--serve`), so its RSS and its
 * event-loop stalls are measured apart from the attacker's own garbage:
 * - RSS after 1,000 anonymous distinct 0.35 MB GraphQL documents, against idle (target: < 100 MB);
 * - RSS after 1,000 authenticated distinct documents just under GRAPHQL_MAX_DOCUMENT_BYTES (the
 *   parse cache is bounded in bytes);
 * - time to refuse 1,000 aliases of `roles { permissions }` (target: < 50 ms);
 * - a 100 MB REST body: status and time (refused on Content-Length / while streaming);
 * - the longest event-loop stall during all of it (target: < 100 ms).
 * Prints figures; asserts nothing.   npm run bench:attacks [-- --documents 1000]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { seed } from '../src/kernel/seed.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger } from '../src/platform/logger.js';

const documents = Number(process.argv[process.argv.indexOf('--documents') + 1]) || 1000;
const PASSWORD = 'bench-password';
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`;

interface Probe {
  rss: number;
  stallNs: number;
}

/** The server side: listens, answers `probe` messages with its RSS (after a GC) and longest stall. */
async function serve(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-attacks-'));
  const config = loadConfig({ DATABASE_URL: `file:${join(dir, 'bench.db')}`, ADMIN_PASSWORD: PASSWORD, LOG_LEVEL: 'silent' });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  await seed(database.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  const { yoga } = createApp({ db: database.prisma, config, log: createLogger('silent') });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stalls = monitorEventLoopDelay({ resolution: 10 });
  stalls.enable();
  process.on('message', (message) => {
    if (message === 'probe') {
      global.gc?.();
      process.send?.({ rss: process.memoryUsage().rss, stallNs: stalls.max } satisfies Probe);
      stalls.reset();
    } else {
      server.close();
      void database.close().then(() => {
        rmSync(dir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  process.send?.({ port: (server.address() as AddressInfo).port, limits: config.security });
}

async function attack(): Promise<void> {
  const child = fork(new URL(import.meta.url), ['--serve'], { execArgv: ['--expose-gc', '--import', 'tsx'] });
  const next = <T>() => new Promise<T>((resolve) => child.once('message', (m) => resolve(m as T)));
  const { port, limits } = await next<{ port: number; limits: { graphqlMaxDocumentBytes: number; graphqlParseCacheBytes: number } }>();
  const probe = async () => {
    child.send('probe');
    return next<Probe>();
  };
  const base = `http://127.0.0.1:${port}`;
  const admin = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const created = await fetch(`${base}/api/auth/keys`, {
    method: 'POST',
    headers: { authorization: admin, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'attacker', role: 'Admin' }),
  });
  const bearer = `Bearer ${((await created.json()) as { key: string }).key}`;
  const post = (query: string, authorization?: string) =>
    fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
      body: JSON.stringify({ query }),
    });
  const flood = async (make: (i: number) => Promise<Response>) => {
    const statuses: Record<number, number> = {};
    for (let i = 0; i < documents; i += 10) {
      for (const res of await Promise.all(Array.from({ length: 10 }, (_, j) => make(i + j)))) {
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        await res.arrayBuffer();
      }
    }
    return JSON.stringify(statuses);
  };

  const idle = await probe();
  const filler = 'x'.repeat(350_000);
  const anonymous = await flood((i) => post(`{ viewer { login } } # ${i} ${filler}`));
  const afterAnonymous = await probe();
  console.log(`anonymous: ${documents} distinct 0.35 MB documents -> ${anonymous}`);
  console.log(
    `  server RSS idle ${mb(idle.rss)}, after ${mb(afterAnonymous.rss)}: +${mb(afterAnonymous.rss - idle.rss)} (target < 100 MB)`,
  );

  const fields = ' login'.repeat(Math.floor((limits.graphqlMaxDocumentBytes - 200) / 12));
  const signed = await flood((i) => post(`{ viewer { orgId } } # ${i} ${fields}`, bearer));
  const afterSigned = await probe();
  console.log(`signed in: ${documents} distinct ~${Math.round(limits.graphqlMaxDocumentBytes / 1000)} kB documents -> ${signed}`);
  console.log(`  server RSS +${mb(afterSigned.rss - idle.rss)} over idle (parse cache bound ${mb(limits.graphqlParseCacheBytes)})`);

  const aliases = `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: roles { permissions { action } }`).join(' ')} }`;
  const times: number[] = [];
  let aliasStatus = 0;
  for (let i = 0; i < 21; i++) {
    const started = performance.now();
    const res = await post(aliases, bearer);
    await res.arrayBuffer();
    times.push(performance.now() - started);
    aliasStatus = res.status;
  }
  times.sort((a, b) => a - b);
  console.log(`1,000 aliases: status ${aliasStatus}, median ${times[10]?.toFixed(1)} ms, max ${times[20]?.toFixed(1)} ms (target < 50 ms)`);

  const started = performance.now();
  const huge = await fetch(`${base}/api/access-control/roles`, {
    method: 'POST',
    headers: { authorization: bearer, 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) },
    body: 'x',
  }).catch((error: Error) => ({ status: `connection closed (${error.message})` }));
  console.log(`100 MB REST body (Content-Length): ${huge.status} in ${(performance.now() - started).toFixed(1)} ms`);
  const last = await probe();
  console.log(
    `server's longest event-loop stall (target < 100 ms): anonymous ${ms(afterAnonymous.stallNs)}, signed-in documents ${ms(afterSigned.stallNs)}, aliases and body ${ms(last.stallNs)}`,
  );
  child.send('stop');
}

if (process.argv.includes('--serve')) await serve();
else await attack();
