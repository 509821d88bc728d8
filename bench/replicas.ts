/**
 * The replica benchmark: one embedded PostgreSQL (scripts/embedded-postgres.ts,
 * fsync on), three replicas of the service started as `npm start` starts it (child processes,
 * one database), and a round-robin load balancer (bench/support/round-robin.ts, a process of its
 * own) in front of the first 1, 2 or 3 of them.
 * - Throughput: autocannon drives the hot path (API key, `GET /api/access-control/user/permissions`)
 *   through the balancer over 1, 2 and 3 replicas, and a bare graphql-yoga `{ __typename }`
 *   (bench/bare-yoga.mjs) through a balancer of its own, rounds alternating their order; prints
 *   the medians, the ratios to 1 replica and to the bare yoga, the CPU time each part of the
 *   set-up used (replicas, balancer, this process's load generator), which on a small machine is
 *   what limits, and the database's transactions per answered request (pg_stat_database
 *   `xact_commit`: every statement outside a transaction is one; a warm hot-path request sends
 *   only the kernel's change-version read, shared by the requests that arrive together).
 * - Invalidation latency: a role is assigned to (or removed from) a service account through one
 *   replica; from the write's answer, another replica is polled with the account's token until
 *   its own permissions change. The reader has the old answer cached before each write, so this
 *   is a cache invalidation across replicas (LISTEN/NOTIFY), p50 and p99 over `--writes` writes.
 * Asserts nothing: figures of a shared machine are noisy; the ratios are what compares.
 *
 *   npm run bench -- replicas [--rounds 2] [--seconds 8] [--connections 64] [--writes 100] [--quick]
 *                             [--root <checkout>]
 *
 * --root runs another checkout's `npm start` as the replicas (before/after comparisons).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { drive, fmt, type LoadResult, median, medianResult, printTable } from './support/load.js';
import { ROOT, type Started, startBareYoga, startProcess, treeCpuMs } from './support/processes.js';
import { basicOf, callJson, withReplicas } from './support/replica-set.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'replicas'),
  options: {
    rounds: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '64' },
    writes: { type: 'string', default: '100' },
    quick: { type: 'boolean', default: false },
    root: { type: 'string', default: ROOT },
  },
});
const root = resolve(flags.root);
const rounds = flags.quick ? 1 : Number(flags.rounds);
const seconds = flags.quick ? 3 : Number(flags.seconds);
const connections = Number(flags.connections);
const writes = flags.quick ? 30 : Number(flags.writes);
const PASSWORD = 'bench-password-0';
const FLIP = 'bench:flip';

const started: Started[] = [];
// Behind the balancer every connection comes from 127.0.0.1: TRUST_PROXY, as behind any proxy (no per-address connection cap).
await withReplicas('replicas', PASSWORD, { count: 3, root, env: { TRUST_PROXY: 'true' } }, async ({ replicas, adminUrl }) => {
  try {
    const bare = await startBareYoga();
    started.push(bare);
    /** Transactions committed in the bench database so far (statistics flushed by idle backends within a second). */
    const stats = new pg.Client({ connectionString: adminUrl });
    await stats.connect();
    const commits = async () => {
      await new Promise((done) => setTimeout(done, 1500));
      await stats.query('SELECT pg_stat_clear_snapshot()');
      const rows = await stats.query<{ n: string }>(`SELECT xact_commit AS n FROM pg_stat_database WHERE datname = 'bench'`);
      return Number(rows.rows[0]?.n);
    };

    const basic = basicOf('admin', PASSWORD);
    const call = (port: number, method: string, path: string, body?: unknown, auth = basic) => callJson(port, method, path, auth, body);
    const first = replicas[0] as Started;
    const key = (await call(first.port, 'POST', '/api/auth/keys', { name: 'bench', role: 'Admin' })).key as string;

    // Throughput over 1, 2 and 3 replicas behind the balancer.
    const target = { name: 'hot path', path: '/api/access-control/user/permissions', headers: { authorization: `Bearer ${key}` } };
    const bareTarget = {
      name: 'bare yoga',
      method: 'POST' as const,
      path: '/graphql',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    };
    /** Set-ups by name: 1, 2 or 3 replicas, or 0 for the bare yoga. */
    const balancers = new Map<number, Started>();
    const targetOf = (n: number) => (n === 0 ? bareTarget : target);
    for (const n of [0, 1, 2, 3]) {
      const ports = n === 0 ? [bare.port] : replicas.slice(0, n).map((r) => r.port);
      const lb = await startProcess({
        argv: [process.execPath, '--import', 'tsx', join(ROOT, 'bench', 'support', 'round-robin.ts'), ...ports.map(String)],
        cwd: ROOT,
        env: {},
        ready: /^listening \d+/,
        portOf: (line) => Number(line.split(' ')[1]),
      });
      started.push(lb);
      balancers.set(n, lb);
      await drive(lb.port, targetOf(n), connections, 1); // warm-up, also of every replica's cache
    }
    // Each set-up's answers checked before loading it: a benchmark of errors measures nothing.
    for (const [n, lb] of balancers) {
      if (n === 0) continue;
      const answers = await Promise.all(
        Array.from({ length: connections }, () =>
          fetch(`http://127.0.0.1:${lb.port}${target.path}`, { headers: target.headers }).then(
            async (r) => `${r.status} ${r.status === 200 ? '' : (await r.text()).slice(0, 200)}`,
          ),
        ),
      );
      const failed = answers.filter((a) => !a.startsWith('200'));
      if (failed.length > 0)
        throw new Error(`${n} replica(s): ${failed.length} of ${answers.length} concurrent requests failed, e.g. ${failed[0]}`);
    }
    console.log(`\n${rounds} round(s) x ${seconds} s per set-up, ${connections} connections, alternating order`);
    type Run = LoadResult & { replicaCpu: number; lbCpu: number; loadCpu: number; statements: number };
    const runs = new Map<number, Run[]>();
    const label = (n: number) => (n === 0 ? 'bare yoga' : `${n} replica(s)`);
    for (let round = 0; round < rounds; round++) {
      for (const n of round % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0]) {
        const lb = balancers.get(n) as Started;
        const servers = n === 0 ? [bare] : replicas;
        const cpu = () => servers.reduce((sum, r) => sum + treeCpuMs(r.proc.pid as number), 0);
        const committedBefore = await commits();
        const [replicaBefore, lbBefore, loadBefore] = [cpu(), treeCpuMs(lb.proc.pid as number), process.cpuUsage()];
        const result = await drive(lb.port, targetOf(n), connections, seconds);
        const load = process.cpuUsage(loadBefore);
        const run = {
          ...result,
          replicaCpu: (cpu() - replicaBefore) / 1000 / seconds,
          lbCpu: (treeCpuMs(lb.proc.pid as number) - lbBefore) / 1000 / seconds,
          loadCpu: (load.user + load.system) / 1e6 / seconds,
          statements: ((await commits()) - committedBefore) / Math.max(1, result.rps * seconds),
        };
        runs.set(n, [...(runs.get(n) ?? []), run]);
        console.log(
          `  round ${round + 1}: ${label(n)}: ${fmt(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms; cores busy: servers ${fmt(run.replicaCpu, 2)}, balancer ${fmt(run.lbCpu, 2)}, load generator ${fmt(run.loadCpu, 2)}; ${fmt(run.statements, 3)} transactions per request`,
        );
      }
    }
    const one = medianResult(runs.get(1) ?? []).rps;
    const bareRps = medianResult(runs.get(0) ?? []).rps;
    printTable(
      [
        'set-up',
        'req/s',
        'vs 1 replica',
        'vs bare yoga',
        'p50 ms',
        'p99 ms',
        'cores: servers / balancer / load generator',
        'transactions per request',
        'failures',
      ],
      [0, 1, 2, 3].map((n) => {
        const all = runs.get(n) ?? [];
        const r = medianResult(all);
        const cores = ['replicaCpu', 'lbCpu', 'loadCpu'] as const;
        return [
          label(n),
          fmt(r.rps),
          `${fmt(r.rps / one, 2)}x`,
          `${fmt(r.rps / bareRps, 2)}x`,
          String(r.p50),
          String(r.p99),
          cores.map((c) => fmt(median(all.map((x) => x[c])), 2)).join(' / '),
          n === 0 ? '-' : fmt(median(all.map((x) => x.statements)), 3),
          String(r.non2xx + r.errors),
        ];
      }),
    );
    await stats.end();

    // Invalidation latency: write through one replica, poll another.
    const sa = await call(first.port, 'POST', '/api/serviceaccounts', { name: 'bench-flip', role: 'Viewer' });
    const token = (await call(first.port, 'POST', `/api/serviceaccounts/${sa.id}/tokens`, { name: 'flip' })).key as string;
    await call(first.port, 'POST', '/api/access-control/roles', {
      version: 1,
      uid: 'bench-flip',
      name: 'custom:bench-flip',
      permissions: [{ action: FLIP }],
    });
    const holds = async (port: number) =>
      Object.hasOwn(await call(port, 'GET', '/api/access-control/user/permissions', undefined, `Bearer ${token}`), FLIP);
    const latencies: number[] = [];
    const polls: number[] = [];
    let assigned = false;
    for (let i = 0; i < writes; i++) {
      const writer = replicas[i % 3] as Started;
      const reader = replicas[(i + 1) % 3] as Started;
      if ((await holds(reader.port)) !== assigned) throw new Error('the reader did not start from the state before the write');
      if (assigned) await call(writer.port, 'DELETE', `/api/access-control/users/${sa.id}/roles/bench-flip`);
      else await call(writer.port, 'POST', `/api/access-control/users/${sa.id}/roles`, { roleUid: 'bench-flip' });
      const acknowledged = performance.now();
      assigned = !assigned;
      let count = 0;
      for (;;) {
        count++;
        if ((await holds(reader.port)) === assigned) break;
        if (performance.now() - acknowledged > 10_000)
          throw new Error(`write ${i + 1}: the other replica still answers the old permissions after 10 s`);
      }
      latencies.push(performance.now() - acknowledged);
      polls.push(count);
    }
    latencies.sort((a, b) => a - b);
    const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] as number;
    console.log(
      `\ninvalidation, ${writes} writes (role assigned / removed through one replica, read through another): ` +
        `p50 ${fmt(pct(0.5), 1)} ms, p99 ${fmt(pct(0.99), 1)} ms, max ${fmt(pct(1), 1)} ms from the write's answer to the changed answer; ` +
        `${polls.filter((c) => c === 1).length} of ${writes} changed on the first read after the write`,
    );
  } finally {
    for (const s of started.reverse()) await s.stop().catch(() => undefined);
  }
});
