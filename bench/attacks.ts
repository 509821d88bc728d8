/**
 * The attack figures of SECURITY.md "Resource limits", over real HTTP on 127.0.0.1 against a fresh temporary
 * database. The server runs in a child process (this file with `--serve`), so its RSS and its
 * event-loop stalls are measured apart from the attacker's own garbage:
 * - RSS after 1,000 anonymous distinct 0.35 MB GraphQL documents, against idle (target: < 100 MB);
 * - RSS after 1,000 authenticated distinct documents just under GRAPHQL_MAX_DOCUMENT_BYTES (the
 *   parse cache is bounded in bytes);
 * - time to refuse 1,000 aliases of `roles { permissions }` (target: < 50 ms);
 * - a 100 MB REST body: status and time (refused on Content-Length / while streaming);
 * - the longest event-loop stall during all of it (target: < 100 ms).
 * With `--sign-in`, only the sign-in attacks (SECURITY.md "Sign-in") instead: 100 wrong passwords
 * at once for one account (each 401 is a password checked), 19 wrong and the right one at once,
 * the locked-account oracle (a locked login's email against an unknown email), and the timing
 * oracle: the median time of a wrong password for an existing login against an unknown login
 * (41 of each, alternating; ratio near 1.00 when the unknown login is hashed as a known one is).
 * Prints figures; asserts nothing.   npm run bench:attacks [-- --documents 1000 | --sign-in]
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
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    ADMIN_PASSWORD: PASSWORD,
    LOG_LEVEL: 'silent',
    // The sign-in attacks come from many client addresses (X-Forwarded-For); the others send none.
    TRUST_PROXY: 'true',
  });
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
  if (process.argv.includes('--sign-in')) {
    await signInAttacks(base, admin);
    child.send('stop');
    return;
  }
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

/** The sign-in attacks over real HTTP: the lock under concurrency and the locked-account oracle. */
async function signInAttacks(base: string, admin: string): Promise<void> {
  const tally = (statuses: number[]) => {
    const counts: Record<number, number> = {};
    for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
    return JSON.stringify(counts);
  };
  const login = async (user: string, password: string, address: string) => {
    const res = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ user, password }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const user = async (name: string) => {
    const res = await fetch(`${base}/api/admin/users`, {
      method: 'POST',
      headers: { authorization: admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name, login: name, email: `${name}@corp.test`, password: `${name}-password` }),
    });
    if (res.status !== 200) throw new Error(`creating ${name}: ${res.status} ${await res.text()}`);
  };
  await Promise.all(['victim', 'victim2', 'e1'].map(user));
  let started = performance.now();
  const hundred = await Promise.all(Array.from({ length: 100 }, (_, i) => login('victim', `wrong-${i}`, '198.51.100.1')));
  console.log(
    `100 wrong passwords at once, one account, one address: ${tally(hundred)} in ${(performance.now() - started).toFixed(0)} ms (401 = password checked; limit 5)`,
  );
  const spread = await Promise.all(
    Array.from({ length: 100 }, (_, i) => login(i % 2 ? 'victim2' : 'victim2@corp.test', `wrong-${i}`, `203.0.113.${i + 1}`)),
  );
  console.log(
    `100 wrong at once over login and email, 100 addresses: ${tally(spread)} (429 per name, 401 past the account's 5 without a check)`,
  );
  await user('victim3');
  started = performance.now();
  const twenty = await Promise.all(
    Array.from({ length: 20 }, (_, i) => login('victim3', i === 19 ? 'victim3-password' : `wrong-${i}`, `192.0.2.${i + 1}`)),
  );
  console.log(
    `19 wrong + the right one at once: ${tally(twenty.slice(0, 19))}, the right one ${twenty[19]} (${(performance.now() - started).toFixed(0)} ms)`,
  );
  for (let i = 0; i < 5; i++) await login('e1', `guess-${i}`, `192.0.2.${100 + i}`);
  const locked = await login('e1', 'guess', '192.0.2.110');
  const email = await login('e1@corp.test', 'guess', '192.0.2.111');
  const unknown = await login('nobody@corp.test', 'guess', '192.0.2.112');
  console.log(`oracle: after 5 failures for e1, e1 -> ${locked}, e1@corp.test -> ${email}, an unknown email -> ${unknown}`);
  await loginTiming(base, user);
}

/**
 * The timing oracle over real HTTP: Basic requests with a wrong password, for existing logins
 * (each tried once, so no lock skips a check) and for unknown ones, from distinct addresses.
 */
async function loginTiming(base: string, user: (name: string) => Promise<void>): Promise<void> {
  const PAIRS = 41;
  const names = Array.from({ length: PAIRS }, (_, i) => `timed${i}`);
  for (const name of names) await user(name);
  const time = async (login: string, address: string) => {
    const started = performance.now();
    const res = await fetch(`${base}/api/user`, {
      headers: { authorization: `Basic ${Buffer.from(`${login}:wrong-password`).toString('base64')}`, 'x-forwarded-for': address },
    });
    await res.arrayBuffer();
    if (res.status !== 401) throw new Error(`${login}: expected 401, got ${res.status}`);
    return performance.now() - started;
  };
  await time('warm-up-unknown', '198.18.0.1');
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const address = `198.18.${1 + Math.floor(i / 200)}.${(i % 200) + 2}`;
    if (i % 2) unknown.push(await time(`nobody-${i}`, address));
    known.push(await time(names[i] as string, address));
    if (i % 2 === 0) unknown.push(await time(`nobody-${i}`, address));
  }
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] as number;
  const [k, u] = [median(known), median(unknown)];
  console.log(
    `timing oracle: wrong password for a known login median ${k.toFixed(1)} ms, unknown login ${u.toFixed(1)} ms: ratio ${(u / k).toFixed(3)} (1.000 = indistinguishable)`,
  );
}

if (process.argv.includes('--serve')) await serve();
else await attack();
