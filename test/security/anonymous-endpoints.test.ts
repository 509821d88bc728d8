/**
 * SECURITY.md's list of what answers without credentials ("What answers without
 * credentials") is the service's. Every endpoint the service has is sent without credentials:
 * each route of the route table (src/http/routes.ts, the sign-in routes included), each operation
 * of the OpenAPI document (which adds the probes and the document itself), and each path the
 * plugins answer outside them (the console's pages and the assets its page loads, the reference
 * page and the files it loads, /metrics, GraphQL). An endpoint answers anonymously unless it refuses (401, or
 * 403 as GraphQL's CSRF prevention answers a GET without its header) or has nothing there (404,
 * 405). The set that answered must be exactly SECURITY.md's list, so a new
 * open endpoint fails here until it is documented, and a documented one that closed does too.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_PATH } from '../../src/http/metrics-route.js';
import { OPENAPI_PATH, REFERENCE_PATH } from '../../src/http/openapi-routes.js';
import { HEALTH_PATH, READY_PATH } from '../../src/http/probes.js';
import { routes } from '../../src/http/routes.js';
import { CONSOLE_PATHS } from '../../web/paths.js';
import { createTestApp, type TestApp } from '../support/app.js';

const SECURITY = readFileSync(new URL('../../SECURITY.md', import.meta.url), 'utf8');
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let app: TestApp;
beforeAll(async () => {
  // Metrics on without credentials: the one setting that opens an endpoint, so it is probed open.
  app = await createTestApp({ env: { METRICS_ENABLED: 'true' } });
});
afterAll(() => app.close());

/** SECURITY.md's list: `METHOD /path` tokens of the first column; a bare `/path` takes the method before it. */
function documented(): Set<string> {
  const section = SECURITY.split('### What answers without credentials')[1]?.split('\n## ')[0] ?? '';
  const endpoints = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    let method = '';
    for (const [, token] of (row.split(' | ')[0] ?? '').matchAll(/`([^`]+)`/g)) {
      const [first, second] = (token as string).split(' ');
      if (second !== undefined) method = first as string;
      endpoints.add(`${method} ${second ?? first}`);
    }
  }
  return endpoints;
}

interface Probe {
  method: string;
  path: string;
  /** As SECURITY.md names it (files under a folder as `/folder/*`); the path itself by default. */
  listedAs?: string;
  accept?: string;
  headers?: Record<string, string>;
}

/** Path parameters filled with a value of their kind. */
const filled = (path: string) =>
  path.replace(/[:{]([A-Za-z_]+)\}?/g, (_m, name: string) => (/id$/i.test(name) && !/uid$/i.test(name) ? '1' : 'x'));

/** The paths under `prefix` that `html` loads (src= and href=), as probes listed as `<prefix>*`. */
function loadedBy(html: string, prefix: string): Probe[] {
  const paths = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
    .map(([, ref]) => new URL(ref as string, 'http://test/').pathname)
    .filter((path) => path.startsWith(prefix));
  return [...new Set(paths)].map((path) => ({ method: 'GET', path, listedAs: `${prefix}*` }));
}

async function send(probe: Probe): Promise<number> {
  const headers = new Headers({ accept: probe.accept ?? 'application/json', ...probe.headers });
  let body: string | undefined;
  if (WRITES.has(probe.method)) {
    headers.set('content-type', 'application/json');
    body = '{}';
  }
  const res = await app.request(probe.path, { method: probe.method, headers, auth: null, ...(body && { body }) });
  await res.arrayBuffer();
  return res.status;
}

/** Every endpoint the service has (module comment). */
async function probes(): Promise<Probe[]> {
  const openApi = (await (await app.request(OPENAPI_PATH, { auth: null })).json()) as { paths: Record<string, Record<string, unknown>> };
  const consolePage = await (await app.request('/', { auth: null, headers: { accept: 'text/html' } })).text();
  const referencePage = await (await app.request(REFERENCE_PATH, { auth: null })).text();
  return [
    ...routes.map((r) => ({ method: r.method, path: filled(r.path) })),
    ...Object.entries(openApi.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path: filled(path) })),
    ),
    ...[HEALTH_PATH, READY_PATH, OPENAPI_PATH, REFERENCE_PATH, METRICS_PATH].map((path) => ({
      method: 'GET',
      path,
    })),
    ...CONSOLE_PATHS.map((path) => ({ method: 'GET', path, accept: 'text/html' })),
    ...loadedBy(consolePage, '/assets/'),
    ...loadedBy(referencePage, `${REFERENCE_PATH}/assets/`),
    { method: 'GET', path: '/graphql' },
    { method: 'GET', path: '/graphql?query=%7B__typename%7D', listedAs: '/graphql', headers: { 'x-graphql-yoga-csrf': '1' } },
    { method: 'GET', path: '/graphql', accept: 'text/html' },
    { method: 'POST', path: '/graphql' },
  ];
}

describe("SECURITY.md's list of what answers without credentials", () => {
  it('is parsed from SECURITY.md', () => {
    expect(documented()).toContain('GET /api/health');
    expect(documented()).toContain('GET /basic-roles');
    expect(documented()).toContain('POST /login');
  });

  it('is exactly what the service answers without credentials', async () => {
    const all = await probes();
    expect(all.filter((p) => p.listedAs === '/assets/*').length, 'the console page loads assets').toBeGreaterThan(0);
    expect(all.filter((p) => p.listedAs === `${REFERENCE_PATH}/assets/*`).length, 'the reference page loads files').toBeGreaterThan(0);
    const open = new Set<string>();
    const statuses: Record<string, number> = {};
    for (const probe of all) {
      const status = await send(probe);
      const name = `${probe.method} ${probe.listedAs ?? probe.path}`;
      statuses[`${probe.method} ${probe.path}`] = status;
      if (![401, 403, 404, 405].includes(status)) open.add(name);
    }
    expect([...open].sort(), JSON.stringify(statuses, null, 1)).toEqual([...documented()].sort());
  });

  it("the route table's anonymous routes are the sign-in ones, each listed", () => {
    const anonymous = routes.filter((r) => r.requires === 'anonymous').map((r) => `${r.method} ${r.path}`);
    expect(anonymous.sort()).toEqual(['GET /login', 'GET /login/generic_oauth', 'GET /logout', 'POST /login']);
    for (const route of anonymous) expect(documented()).toContain(route);
  });

  it('every REST route but the sign-in ones (anonymous) and GraphQL asks for credentials: 401', async () => {
    for (const route of routes.filter((r) => r.requires !== 'anonymous')) {
      expect({ route: `${route.method} ${route.path}`, status: await send({ method: route.method, path: filled(route.path) }) }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
      });
    }
    for (const probe of [
      { method: 'POST', path: '/graphql' },
      { method: 'GET', path: '/graphql?query=%7B__typename%7D', headers: { 'x-graphql-yoga-csrf': '1' } },
      { method: 'GET', path: '/graphql', accept: 'text/html' },
    ]) {
      expect(await send(probe)).toBe(401);
    }
  });
});
