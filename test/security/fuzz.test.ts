/**
 * Fuzzing both doors in process through `yoga.fetch`, as an Admin API key, a
 * Viewer key, wrong credentials and anonymous callers. Property: no answer is 5xx.
 *
 * Two parts (inputs: fuzz-inputs.ts). Fixed cases, the same every run, so no run can miss them:
 * every route of the route table with each edge value in every path parameter, and every root
 * field of the schema with edge values in every argument, each as every caller. Then random
 * requests from fast-check: routes with random parameters, query strings, methods, bodies and
 * content types, and GraphQL documents built from the schema's field names with random
 * variables, GET and POST. FUZZ_REQUESTS (default 15,000) sets how many random requests; each
 * run draws new ones from a new seed, and a deeper search raises it (the earlier default, 50,000,
 * cost over a minute of every suite run). FUZZ_SEED=<the printed seed> replays a run.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createKey } from '../support/subjects.js';
import { everyRootFieldCase, everyRouteCase, type FixedRequest, graphqlRequest, restRequest } from './fuzz-inputs.js';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 15_000);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x100000000);
const SCHEMA = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
let app: TestApp;
let auths: (string | undefined)[] = [];

beforeAll(async () => {
  app = await createTestApp();
  const adminKey = await createKey(app, { name: 'fuzz admin', role: 'Admin' });
  const viewerKey = await createKey(app, { name: 'fuzz viewer', role: 'Viewer' });
  auths = [`Bearer ${adminKey.key}`, `Bearer ${viewerKey.key}`, 'Bearer pcs_nope', 'Basic !!!', undefined];
});
afterAll(() => app.close());

/** Sends one request as `auth`; counts it, and keeps the first ten 5xx answers. */
function sender() {
  const state = { sent: 0, failures: [] as string[] };
  const send = async (url: string, init: RequestInit, auth: string | undefined) => {
    const headers = new Headers(init.headers);
    if (auth) headers.set('authorization', auth);
    const res = await app.yoga.fetch(`http://test${url}`, { ...init, headers });
    await res.arrayBuffer();
    state.sent++;
    if (res.status >= 500 && state.failures.length < 10)
      state.failures.push(`${init.method} ${url} ${String(init.body ?? '').slice(0, 200)} -> ${res.status}`);
    return res.status;
  };
  return { state, send };
}

describe('fuzzing both doors', () => {
  it('no 5xx for every route and every root field with edge values, as every caller', { timeout: 300_000 }, async () => {
    const { state, send } = sender();
    const cases: FixedRequest[] = [...everyRouteCase(), ...everyRootFieldCase(SCHEMA)];
    for (const c of cases) {
      for (const auth of auths) {
        const headers: Record<string, string> = c.contentType ? { 'content-type': c.contentType } : {};
        await send(c.url, { method: c.method, headers, ...(c.body !== undefined && { body: c.body }) }, auth);
      }
    }
    console.info(`fuzz (fixed cases): ${state.sent} requests, ${state.failures.length} 5xx`);
    expect(state.failures).toEqual([]);
    expect(state.sent).toBe(cases.length * auths.length);
  });

  it(`no 5xx in ${REQUESTS} random requests (seed ${SEED})`, { timeout: 600_000 }, async () => {
    const { state, send } = sender();
    const authArb = fc.integer({ min: 0, max: auths.length - 1 }).map((i) => auths[i]);
    const restRuns = Math.ceil(REQUESTS * 0.6);
    await fc.assert(
      fc.asyncProperty(restRequest, authArb, async (r, auth) => {
        const withBody = !['GET', 'HEAD'].includes(r.method);
        const status = await send(
          r.url,
          { method: r.method, ...(withBody && { body: r.body }), headers: r.contentType ? { 'content-type': r.contentType } : {} },
          auth,
        );
        return status < 500;
      }),
      { numRuns: restRuns, endOnFailure: true, seed: SEED },
    );
    await fc.assert(
      fc.asyncProperty(graphqlRequest, authArb, async (g, auth) => {
        if (g.get) {
          const qs = new URLSearchParams({
            query: g.query,
            variables: g.variables,
            ...(g.extensions !== null && { extensions: g.extensions }),
          });
          return (await send(`/graphql?${qs}`, { method: 'GET', headers: { 'x-graphql-yoga-csrf': '1' } }, auth)) < 500;
        }
        const payload = JSON.stringify({
          query: g.query,
          variables: (() => {
            try {
              return JSON.parse(g.variables) as unknown;
            } catch {
              return g.variables;
            }
          })(),
        });
        return (
          (await send(
            '/graphql',
            { method: 'POST', body: payload, headers: { 'content-type': g.contentType || 'application/json' } },
            auth,
          )) < 500
        );
      }),
      { numRuns: REQUESTS - restRuns, endOnFailure: true, seed: SEED },
    );
    console.info(`fuzz (random, seed ${SEED}): ${state.sent} requests, ${state.failures.length} 5xx`);
    expect(state.failures).toEqual([]);
    expect(state.sent).toBeGreaterThanOrEqual(REQUESTS);
  });
});
