/**
 * The HTTP benchmark: the service started as `npm start` starts it (a child
 * process, on a fresh temporary database) and a bare graphql-yoga `{ __typename }` server
 * (bench/bare-yoga.mjs) side by side, driven in turn by autocannon over 127.0.0.1. Rounds
 * alternate their order (forward, then backward) so drift in the machine's load hits every
 * request alike. Prints, per request, the medians over rounds of req/s, p50 and p99, and their
 * ratios to the bare server measured in the same run; RSS idle (after start) and the largest
 * sample under load, of both. Asserts nothing and holds no target: figures of a shared machine
 * are noisy, the ratios are what compares.
 *
 *   npm run bench -- http [--rounds 2] [--seconds 8] [--connections 64] [--quick]
 *                         [--only api-key,basic,roles,viewer,frontend,typename] [--root <checkout>]
 *                         [--against <checkout>] [--profile <dir>]
 *
 * --root benchmarks another checkout's `npm start`; --against starts a second checkout's service
 * beside it (its rows marked `[against]`, driven in the same alternating rounds): before/after
 * figures of one run. --profile writes the service's CPU profile (node --cpu-prof) there and prints
 * its top costs (bench/profile.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { printProfile } from './profile.js';
import { drive, fmt, type LoadResult, medianResult, mib, printTable, type Target } from './support/load.js';
import { ROOT, type Started, sampleRss, startBareYoga, startService, treeCpuMs, treeRss } from './support/processes.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'http'),
  options: {
    rounds: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '64' },
    warmup: { type: 'string', default: '1' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    root: { type: 'string', default: ROOT },
    against: { type: 'string' },
    profile: { type: 'string' },
  },
});
const rounds = flags.quick ? 1 : Number(flags.rounds);
const seconds = flags.quick ? 3 : Number(flags.seconds);
const connections = Number(flags.connections);
const warmup = Number(flags.warmup);
const root = resolve(flags.root);
const PASSWORD = 'bench-password-0';
const VIEWER = '{ viewer { login roles { name } permissions { action scope } } }';
/** The frontend's natural one round-trip: the caller's permissions, and its roles with theirs. */
const FRONTEND = '{ viewer { login permissions { action scope } roles { name permissions { action scope } } } }';

const JSON_TYPE = { 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-http-'));
const started: Started[] = [];

/**
 * Starts `checkout`'s service on a fresh database named `name`, creates its API key, and answers
 * it with the requests to drive (--only), each answered 200 once first (a benchmark of 401s
 * measures nothing), their names ending in `suffix`.
 */
async function prepare(checkout: string, name: string, suffix: string, nodeArgs: string[]) {
  const server = await startService(
    checkout,
    {
      DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
      ADMIN_PASSWORD: PASSWORD,
      PROVISIONING_PATH: join(dir, `${name}-provisioning`),
      // One address opens --connections for autocannon plus this script's own (the answer checks
      // keep theirs alive): the default cap of 64 would refuse one of them (a non-2xx per run).
      MAX_CONNECTIONS_PER_CLIENT: String(connections + 16),
    },
    nodeArgs,
  );
  started.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const basic = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const created = await fetch(`${base}/api/auth/keys`, {
    method: 'POST',
    headers: { authorization: basic, ...JSON_TYPE },
    body: JSON.stringify({ name: 'bench', role: 'Admin' }),
  });
  if (created.status !== 200) throw new Error(`creating the API key answered ${created.status}: ${await created.text()}`);
  const bearer = `Bearer ${((await created.json()) as { key: string }).key}`;
  const graphql = (key: string, label: string, query: string): Target & { key: string } => ({
    key,
    name: label,
    method: 'POST',
    path: '/graphql',
    headers: { ...JSON_TYPE, authorization: bearer },
    body: JSON.stringify({ query }),
  });
  const all: (Target & { key: string })[] = [
    {
      key: 'api-key',
      name: 'GET /api/access-control/user/permissions, API key',
      path: '/api/access-control/user/permissions',
      headers: { authorization: bearer },
    },
    {
      key: 'basic',
      name: 'GET /api/access-control/user/permissions, Basic auth',
      path: '/api/access-control/user/permissions',
      headers: { authorization: basic },
    },
    { key: 'roles', name: 'GET /api/access-control/roles, API key', path: '/api/access-control/roles', headers: { authorization: bearer } },
    graphql('viewer', 'GraphQL viewer { login roles permissions }, API key', VIEWER),
    graphql('frontend', 'GraphQL viewer { login permissions roles { name permissions } }, API key', FRONTEND),
    // The GraphQL door alone (authentication, gate, fence, parse cache, log): the viewer minus its fields.
    graphql('typename', 'GraphQL `{ __typename }`, API key', '{ __typename }'),
  ];
  const only = flags.only?.split(',');
  const targets = (only ? all.filter((t) => only.includes(t.key)) : all).map((t) => ({ ...t, name: t.name + suffix, server }));
  for (const t of targets) {
    const res = await fetch(`${base}${t.path}`, { method: t.method ?? 'GET', headers: t.headers ?? {}, ...(t.body && { body: t.body }) });
    const text = await res.text();
    if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${t.name} answered ${res.status}: ${text.slice(0, 300)}`);
    console.log(`${t.key}${suffix}: ${res.status}, ${fmt(Buffer.byteLength(text))} bytes`);
  }
  return { server, targets };
}
try {
  const profileDir = flags.profile ? resolve(flags.profile) : undefined;
  const service = await prepare(root, 'bench', '', profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
  const against = flags.against ? await prepare(resolve(flags.against), 'against', ' [against]', []) : undefined;
  const bare = await startBareYoga();
  started.push(bare);
  // Idle: settled for a few seconds after start (a first start frees the migration engine's memory).
  await new Promise((r) => setTimeout(r, 3000));
  const idle = { service: treeRss(service.server.proc.pid as number), bare: treeRss(bare.proc.pid as number) };
  const baseline: Target = {
    name: 'bare yoga `{ __typename }` (POST /graphql)',
    method: 'POST',
    path: '/graphql',
    headers: JSON_TYPE,
    body: '{"query":"{ __typename }"}',
  };
  const targets = [...service.targets, ...(against?.targets ?? [])];

  const services = `service: ${root}${flags.against ? `; [against]: ${resolve(flags.against)}` : ''}`;
  console.log(`\n${rounds} round(s) x ${seconds} s per request, ${connections} connections, alternating order; ${services}`);
  const runs = new Map<string, LoadResult[]>();
  const order = [{ target: baseline, server: bare }, ...targets.map((target) => ({ target, server: target.server }))];
  const loadStartUs = Number(process.hrtime.bigint() / 1000n);
  for (const { target, server } of order) await drive(server.port, target, connections, warmup);
  const logBytesBefore = service.server.stdoutBytes();
  let serviceRequests = 0;
  const underLoad = { service: 0, bare: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const { target, server } of round % 2 === 0 ? order : [...order].reverse()) {
      const rss = sampleRss(server.proc.pid as number);
      const cpuBefore = treeCpuMs(server.proc.pid as number);
      const result = await drive(server.port, target, connections, seconds);
      result.cpuUs = ((treeCpuMs(server.proc.pid as number) - cpuBefore) * 1000) / Math.max(1, result.rps * seconds);
      const peak = rss.stop();
      if (server === bare) underLoad.bare = Math.max(underLoad.bare, peak);
      else if (server === service.server) {
        underLoad.service = Math.max(underLoad.service, peak);
        serviceRequests += result.rps * seconds;
      }
      runs.set(target.name, [...(runs.get(target.name) ?? []), result]);
      console.log(
        `  round ${round + 1}: ${target.name}: ${fmt(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, server CPU ${fmt(result.cpuUs)} µs/request`,
      );
    }
  }

  const ref = medianResult(runs.get(baseline.name) ?? []);
  const rows = [baseline, ...targets].map((t) => {
    const r = medianResult(runs.get(t.name) ?? []);
    const failures = r.non2xx + r.errors > 0 ? ` (${r.non2xx} non-2xx, ${r.errors} errors)` : '';
    const cpu = r.cpuUs ?? Number.NaN;
    return [
      t.name + failures,
      fmt(r.rps),
      `${fmt(r.rps / ref.rps, 2)}x`,
      `${r.p50} ms`,
      `${r.p99} ms`,
      `${fmt(r.p99 / ref.p99, 1)}x`,
      `${fmt(cpu)} µs`,
      `${fmt((ref.cpuUs ?? Number.NaN) / cpu, 2)}x`,
    ];
  });
  console.log('');
  printTable(['request', 'req/s', 'req/s ratio', 'p50', 'p99', 'p99 ratio', 'server CPU/request', 'CPU ratio (bare / this)'], rows);
  console.log('');
  printTable(
    ['RSS', 'service', 'bare yoga', 'ratio'],
    [
      ['idle, 3 s after start', mib(idle.service), mib(idle.bare), `${fmt(idle.service / idle.bare, 1)}x`],
      ['largest sample under load', mib(underLoad.service), mib(underLoad.bare), `${fmt(underLoad.service / underLoad.bare, 1)}x`],
    ],
  );
  const logBytes = service.server.stdoutBytes() - logBytesBefore;
  console.log(`\nlog output: ${fmt(logBytes / Math.max(1, serviceRequests), 0)} bytes per request (stdout, a pipe read by this script)`);
  console.log(
    'Ratios are of medians measured in this one run on this machine; absolute figures vary with its load. The CPU ratio\n' +
      "(bare yoga's CPU per request / this request's) is the throughput ratio the service would reach with a core of its own.",
  );
  if (profileDir) {
    await service.server.stop();
    printProfile(profileDir, 25, loadStartUs);
  }
} finally {
  for (const s of started) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
