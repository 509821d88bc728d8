/**
 * Router benchmark: the time of one path lookup in the service's router (src/http/router.ts,
 * find-my-way) over the app's whole table (every REST and sign-in route, the probes, the console's
 * pages, GraphiQL's and the API reference's files), for the kinds of paths requests carry: a
 * static REST path, one with parameters, a probe, a console page, an unknown /api/ path (the 404
 * and 405 check) and an unknown path elsewhere. Prints nanoseconds per lookup (median of batches);
 * asserts nothing. Set them beside the whole request's CPU (`npm run bench -- budget`).
 *
 *   npm run bench -- router [--seconds 2]
 */

import { createRouter, type PathRoute } from '../src/http/router.js';
import { routes } from '../src/http/routes.js';
import { CONSOLE_PATHS } from '../web/paths.js';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 2;
const none = () => null;
const rows: PathRoute[] = [
  ...['/api/health', '/api/ready', '/api/frontend/settings', '/metrics', '/api/openapi.json', '/swagger'].map((path) => ({
    methods: ['GET', 'HEAD'],
    path,
    handler: none,
  })),
  ...CONSOLE_PATHS.map((path) => ({ methods: ['GET', 'HEAD'], path, handler: none })),
  { methods: ['GET', 'HEAD'], path: '/assets/*', handler: none },
  { methods: ['GET', 'HEAD'], path: '/graphql/assets/*', handler: none },
  ...routes.map((route) => ({ methods: [route.method], path: route.path, rest: true, handler: none })),
];
const router = createRouter(rows);

const lookups: { name: string; method: string; path: string; run: () => unknown }[] = [
  ['static REST path', 'GET', '/api/access-control/user/permissions'],
  ['REST path with a parameter', 'GET', '/api/access-control/roles/some_role_uid'],
  ['probe', 'GET', '/api/health'],
  ['console page', 'GET', '/roles/edit'],
  ['unknown /api/ path (404/405 check)', 'PATCH', '/api/access-control/user/permissions'],
  ['unknown path elsewhere', 'GET', '/favicon.ico'],
].map(([name = '', method = '', path = '']) => ({
  name,
  method,
  path,
  run: () => router.find(method, path) ?? (path.startsWith('/api/') && router.answersOtherMethod(method, path)),
}));

console.log(`${rows.length} rows; ${seconds} s in all; nanoseconds per lookup (median of batches of 1,000)`);
for (const { name, method, path, run } of lookups) {
  const samples: number[] = [];
  const end = performance.now() + (seconds * 1000) / lookups.length;
  let sink = 0;
  while (performance.now() < end) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) if (run()) sink++;
    samples.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  console.log(
    `${name.padEnd(36)} ${`${method} ${path}`.padEnd(48)} ${median.toFixed(0).padStart(6)} ns   (${sink > 0 ? 'found' : 'none'})`,
  );
}
