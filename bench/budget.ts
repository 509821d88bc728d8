/**
 * The per-request budget: what each step of a request costs, in CPU time
 * (user + system of this process), in process (`yoga.fetch`, no sockets), one request at a
 * time, on a fresh temporary database, the logger at `info` writing to /dev/null the way it
 * writes to stdout. Three views, next to the floor (a bare graphql-yoga in the same process
 * answering the same bytes from its first hook: the least a request through yoga costs) and the
 * full request, and for the GraphQL request a bare yoga's `{ __typename }` as a reference:
 * - steps, called alone: authentication (the API-key lookup), the fence around it, the
 *   permission cache (warm), the handler (listing and JSON), the request log line;
 * - plugins: the synchronous part of each yoga plugin's hooks, timed inside real requests
 *   (support/hook-timer.ts; createApp's `editPlugins` wraps them);
 * - with --toggle, also each plugin left out (createApp's `editPlugins`), paired round by round
 *   with the full app: includes what the hooks cost yoga, but noisy on a busy machine;
 * - compression, which is Node middleware around yoga (src/http/compression.ts), not a plugin:
 *   the API-key request over loopback HTTP to yoga alone and to `app.listener`, without and with
 *   `Accept-Encoding` (client and server in this process: their difference is the middleware).
 * Prints microseconds and shares of the full request; asserts nothing.
 *
 *   npm run bench -- budget [--rounds 15] [--batch 200] [--quick] [--toggle]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type RequestListener, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSchema, createYoga, type Plugin } from 'graphql-yoga';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createAuthenticator } from '../src/http/authenticate.js';
import { json } from '../src/http/responses.js';
import { loadCompiler } from '../src/http/use-execution.js';
import { useRequestLog } from '../src/http/use-request-log.js';
import { seed } from '../src/kernel/seed.js';
import { openDatabase } from '../src/platform/database.js';
import { createLogger, logDestination } from '../src/platform/logger.js';
import { createMetrics } from '../src/platform/metrics.js';
import { HookTimer } from './support/hook-timer.js';
import { fmt, median, printTable } from './support/load.js';
import { pluginName } from './support/plugin-names.js';
import { timeVariants, type Variant } from './support/timing.js';

const { values: flags } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== 'budget'),
  options: {
    rounds: { type: 'string', default: '15' },
    batch: { type: 'string', default: '200' },
    quick: { type: 'boolean', default: false },
    toggle: { type: 'boolean', default: false },
  },
});
const rounds = flags.quick ? 5 : Number(flags.rounds);
const batch = flags.quick ? 100 : Number(flags.batch);
const PASSWORD = 'bench-password-0';
const VIEWER = JSON.stringify({ query: '{ viewer { login roles { name } permissions { action scope } } }' });
const VIEWER_LOGIN = JSON.stringify({ query: '{ viewer { login } }' });
/** The frontend's one round-trip: the caller's permissions, and its roles with theirs. */
const FRONTEND = JSON.stringify({ query: '{ viewer { login permissions { action scope } roles { name permissions { action scope } } } }' });

const dir = mkdtempSync(join(tmpdir(), 'portcullis-bench-budget-'));
try {
  const config = loadConfig({
    DATABASE_URL: `file:${join(dir, 'bench.db')}`,
    ADMIN_PASSWORD: PASSWORD,
    LOG_LEVEL: 'info',
    PROVISIONING_PATH: join(dir, 'provisioning'),
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  // graphql-jit loads at the first hot document through a dynamic import, which resolves on a
  // turn of the event loop that back-to-back in-process requests never give: loaded here, so hot
  // documents run compiled as they do in the server.
  await loadCompiler();
  await seed(database.prisma, { adminLogin: config.adminLogin, adminPassword: config.adminPassword });
  const log = createLogger('info', logDestination('/dev/null'));
  const build = (editPlugins?: (plugins: Plugin[]) => Plugin[]) =>
    createApp({ db: database.prisma, config, log, ...(editPlugins && { editPlugins }) });
  let plugins: Plugin[] = [];
  const app = build((list) => {
    plugins = list;
    return list;
  });

  const basic = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
  const created = await app.yoga.fetch('http://bench/api/auth/keys', {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', role: 'Admin' }),
  });
  const bearer = `Bearer ${((await created.json()) as { key: string }).key}`;
  const requests = {
    rest: {
      name: 'GET /api/access-control/user/permissions (API key)',
      url: 'http://bench/api/access-control/user/permissions',
      init: { headers: { authorization: bearer } },
    },
    graphql: {
      name: 'GraphQL viewer { login roles permissions } (API key)',
      url: 'http://bench/graphql',
      init: { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: VIEWER },
    },
  };
  type Shape = (typeof requests)['rest'] | (typeof requests)['graphql'];
  const send = async (yoga: { fetch: (url: string, init: RequestInit) => Promise<Response> | Response }, r: Shape) => {
    const res = await yoga.fetch(r.url, r.init as RequestInit);
    return { status: res.status, body: await res.text() };
  };

  // The floor of either door: a bare yoga answering the same bytes from its first hook, the least
  // any request through yoga costs in this process (its Request, its Response, the body read).
  // Beside the GraphQL request, a reference that is no floor: a bare yoga's own GraphQL pipeline
  // (parse, validate, execute with its defaults) answering `{ __typename }`.
  const bare = createYoga({ schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }), logging: false });
  const reference: Variant = {
    name: 'reference, not a floor: bare yoga answering `{ __typename }` with its defaults',
    run: () => send(bare, { ...requests.graphql, init: { ...requests.graphql.init, body: '{"query":"{ __typename }"}' } }),
  };
  const floorOf = (request: Shape, body: string): Variant => {
    const answering: Plugin = {
      onRequest({ endResponse }) {
        endResponse(new Response(body, { headers: { 'content-type': 'application/json; charset=utf-8' } }));
      },
    };
    const echo = createYoga({ schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }), logging: false, plugins: [answering] });
    return { name: 'floor: bare yoga answering the same bytes from its first hook', run: () => send(echo, request) };
  };

  // Steps alone, as the request path calls them (app.ts, request-auth.ts, rest-door.ts).
  const { services } = app;
  const authenticator = createAuthenticator({ services, cookie: { name: config.auth.cookieName, secure: false, maxAgeSeconds: 60 } });
  const keyRequest = () => new Request(requests.rest.url, requests.rest.init);
  const principal = await authenticator(keyRequest());
  const fenced = await services.access.authenticate(async () => principal);
  const requestLog = useRequestLog({ log, metrics: createMetrics({ build: { version: '0', commit: '0' }, enabled: false }) });
  const steps: Variant[] = [
    { name: 'authentication (API key: parse, lookup, checks)', run: () => authenticator(keyRequest()) },
    { name: 'fence (AccessService.authenticate around it)', run: () => services.access.authenticate(async () => principal) },
    { name: 'permission cache (warm permissionsOf)', run: () => services.access.permissionsOf(fenced) },
    {
      name: 'handler (permissions.own + JSON response)',
      run: async () => json(200, await services.access.run(fenced, () => services.permissions.own(fenced, {}))),
    },
    {
      name: 'request log line (onResponse + pino)',
      run: () => {
        const request = keyRequest();
        requestLog.onResponse?.({ request, response: new Response('{}', { status: 200 }), setResponse: () => undefined } as never);
      },
    },
    { name: 'a Request and a Response object (inside the step above)', run: () => [keyRequest(), new Response('{}', { status: 200 })] },
  ];

  const timer = new HookTimer();
  const timed = build((list) => list.map((p, i) => timer.wrap(p, pluginName(p, i))));
  const us = (n: number) => `${fmt(n, 1)} µs`;

  for (const [kind, request] of Object.entries(requests) as [string, Shape][]) {
    const expected = await send(app.yoga, request);
    const floor = floorOf(request, expected.body);
    const full: Variant = { name: `full request: ${request.name}`, run: () => send(app.yoga, request) };
    // The GraphQL door's own cost apart from the viewer's lists: the same request selecting the login only.
    const loginOnly: Variant = {
      name: 'same request, `{ viewer { login } }` only (the difference is executing roles and permissions)',
      run: () => send(app.yoga, { ...requests.graphql, init: { ...requests.graphql.init, body: VIEWER_LOGIN } }),
    };
    const frontend: Variant = {
      name: "same request, the frontend's `{ viewer { login permissions roles { name permissions } } }`",
      run: () => send(app.yoga, { ...requests.graphql, init: { ...requests.graphql.init, body: FRONTEND } }),
    };
    const variants = [floor, full, ...(kind === 'rest' ? steps : [loginOnly, frontend, reference])];
    const measured = await timeVariants(variants, rounds, batch);
    const total = measured.get(full.name)?.cpu ?? Number.NaN;
    const share = (n: number) => `${fmt((100 * n) / total, 1)} %`;
    const rows = variants.map((v) => {
      const t = measured.get(v.name)?.cpu ?? Number.NaN;
      return [steps.includes(v) ? `step: ${v.name}` : v.name, us(t), share(t)];
    });

    // Each plugin's hooks, timed on an app whose plugins are wrapped (hook-timer.ts).
    const count = rounds * batch;
    for (let i = 0; i < 50; i++) await send(timed.yoga, request);
    timer.clear();
    timer.record(true);
    for (let i = 0; i < count; i++) {
      const answer = await send(timed.yoga, request);
      if (answer.status !== expected.status) throw new Error(`timed app answered ${answer.status}`);
    }
    timer.record(false);
    let hooks = 0;
    for (const name of timer.samples.keys()) {
      const t = timer.perRequest(name, count);
      if (t === 0) continue;
      hooks += t;
      rows.push([`plugin: ${name}`, us(t), share(t)]);
    }
    rows.push(['all plugin hooks (synchronous parts)', us(hooks), share(hooks)]);

    if (flags.toggle) {
      // Paired: each round runs the full app and the app without one plugin back to back.
      for (const [index, plugin] of plugins.entries()) {
        if (Object.keys(plugin).length === 0) continue;
        const without = build((list) => list.filter((p) => p !== list[index]));
        const answer = await send(without.yoga, request);
        if (answer.status !== expected.status || answer.body !== expected.body) continue;
        const diffs: number[] = [];
        for (let round = 0; round < rounds; round++) {
          const pair = await timeVariants([full, { name: 'without', run: () => send(without.yoga, request) }], 1, batch);
          diffs.push((pair.get(full.name)?.cpu ?? 0) - (pair.get('without')?.cpu ?? 0));
        }
        rows.push([`toggled off: ${pluginName(plugin, index)}`, us(median(diffs)), share(median(diffs))]);
      }
    }
    console.log(`\n${request.name}: CPU per request, ${rounds} rounds x ${batch} requests, one at a time, in process`);
    printTable(['step or plugin', 'CPU per request', 'share of the full request'], rows);
  }
  await compressionCost(app, requests.rest.init.headers.authorization);
  console.log('\nFigures of one run on a shared machine (noisy); the shares compare.');
  await database.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** `listener` on a loopback port, and a keep-alive GET of `path` there that reads the whole answer. */
async function loopback(
  listener: RequestListener,
): Promise<{ server: Server; get: (path: string, headers: Record<string, string>) => Promise<number> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => resolve(bytes));
      });
      req.on('error', reject);
      req.end();
    });
  return { server, get };
}

/** The compression view (module comment). */
async function compressionCost(app: ReturnType<typeof createApp>, authorization: string): Promise<void> {
  const plain = await loopback(app.yoga);
  const compressed = await loopback(app.listener);
  const accept = { authorization, 'accept-encoding': 'gzip, deflate, br' };
  // A short answer (below the threshold: the middleware's overhead only) and a longer one (compressed).
  for (const path of ['/api/access-control/user/permissions', '/api/access-control/roles?includeHidden=true']) {
    const variants: Variant[] = [
      { name: 'yoga alone, no Accept-Encoding', run: () => plain.get(path, { authorization }) },
      { name: 'with compression, no Accept-Encoding', run: () => compressed.get(path, { authorization }) },
      { name: 'yoga alone, Accept-Encoding: gzip, deflate, br', run: () => plain.get(path, accept) },
      { name: 'with compression, Accept-Encoding: gzip, deflate, br', run: () => compressed.get(path, accept) },
    ];
    const sizes = [await plain.get(path, accept), await compressed.get(path, accept)];
    const measured = await timeVariants(variants, rounds, batch);
    const cpu = (i: number) => measured.get(variants[i]?.name ?? '')?.cpu ?? Number.NaN;
    const rows = variants.map((v, i) => [v.name, `${fmt(cpu(i), 1)} µs`, i % 2 === 1 ? `${fmt(cpu(i) - cpu(i - 1), 1)} µs` : '']);
    console.log(`\n${path} (API key) over loopback HTTP, ${rounds} rounds x ${batch}: ${sizes[0]} bytes, ${sizes[1]} sent compressed`);
    printTable(['server', 'CPU per request', 'compression (row minus the row above)'], rows);
  }
  // The GraphiQL page (small HTML; its 9 MB of files are graphiql-assets.ts's): a few loads, CPU of this process and zlib's threads.
  const page = { authorization, accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' };
  for (const [name, server] of [
    ['yoga alone', plain],
    ['with compression', compressed],
  ] as const) {
    await server.get('/graphql', page);
    const before = process.cpuUsage();
    const loads = 5;
    let bytes = 0;
    for (let i = 0; i < loads; i++) bytes = await server.get('/graphql', page);
    const used = process.cpuUsage(before);
    console.log(`GraphiQL page, ${name}: ${fmt((used.user + used.system) / 1000 / loads, 1)} ms CPU per load, ${bytes} bytes sent`);
  }
  plain.server.close();
  compressed.server.close();
}
