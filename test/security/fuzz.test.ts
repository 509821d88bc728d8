/**
 * Issue #10 item 7: property-based fuzzing of both doors with fast-check, in process through
 * `yoga.fetch`: every REST route of the route table (with random path parameters, query strings,
 * bodies and content types) and GraphQL (random documents built from the schema's field names,
 * random variables, GET with random parameters), as an Admin API key, a Viewer key, wrong
 * credentials and anonymous callers. Property: no answer is 5xx. FUZZ_REQUESTS (default 50,000)
 * scales it; the number of requests sent is printed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../src/http/routes.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createKey } from '../support/subjects.js';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 50_000);
let app: TestApp;
let auths: (string | undefined)[] = [];

beforeAll(async () => {
  app = await createTestApp();
  const adminKey = await createKey(app, { name: 'fuzz admin', role: 'Admin' });
  const viewerKey = await createKey(app, { name: 'fuzz viewer', role: 'Viewer' });
  auths = [`Bearer ${adminKey.key}`, `Bearer ${viewerKey.key}`, 'Bearer pcs_nope', 'Basic !!!', undefined];
});
afterAll(() => app.close());

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    '0',
    '-1',
    '1',
    '2147483648',
    '99999999999999999999',
    'null',
    '%',
    '%zz',
    '../..',
    'health',
    '\ud800',
    'fixed:x',
    'basic:viewer',
  ),
);
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc
    .record({
      name: text,
      uid: fc.option(text),
      version: fc.option(fc.integer()),
      permissions: fc.option(fc.array(fc.record({ action: text, scope: fc.option(text) }), { maxLength: 4 })),
      role: fc.option(text),
      roleUid: fc.option(text),
      global: fc.option(fc.boolean()),
    })
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 60 }),
);
const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

/** A path segment; a lone surrogate (which encodeURIComponent refuses) goes as its raw UTF-8 bytes. */
const segment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

const restRequest = fc
  .record({
    route: fc.constantFrom(...routes),
    params: fc.array(text, { minLength: 4, maxLength: 4 }),
    query: fc.array(
      fc.tuple(
        fc.constantFrom('global', 'includeHidden', 'delegatable', 'force', 'reloadcache', 'action', 'scope', 'includeExpired', 'x'),
        text,
      ),
      { maxLength: 3 },
    ),
    sameMethod: fc.boolean(),
    method,
    body,
    contentType,
  })
  .map((r) => {
    let n = 0;
    const path = r.route.path.replace(/:[a-zA-Z]+/g, () => segment(r.params[n++] ?? ''));
    const qs = new URLSearchParams(r.query).toString();
    return {
      method: r.sameMethod ? r.route.method : r.method,
      url: `${path}${qs ? `?${qs}` : ''}`,
      body: r.body,
      contentType: r.contentType,
    };
  });

const FIELDS = [
  'viewer',
  'roles',
  'role',
  'permissions',
  'action',
  'scope',
  'uid',
  'name',
  'version',
  'teams',
  'users',
  'user',
  'apiKeys',
  'id',
  'login',
  'orgId',
  'orgRole',
  '__typename',
  '__schema',
  'types',
  'createRole',
  'deleteRole',
  'createApiKey',
  'key',
  'x',
];
const selection: fc.Arbitrary<string> = fc.letrec((tie) => ({
  set: fc.array(tie('field'), { minLength: 1, maxLength: 4 }).map((fs) => `{ ${fs.join(' ')} }`),
  field: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...FIELDS),
    fc
      .tuple(
        fc.constantFrom(...FIELDS),
        fc.option(fc.constantFrom('(uid: "x")', '(id: 1)', '(input: {name: "n"})', '(id: "a")', '(includeHidden: true)')),
        tie('set'),
      )
      .map(([f, a, s]) => `${f}${a ?? ''} ${s}`),
  ),
})).set as fc.Arbitrary<string>;
const document = fc.oneof(
  selection,
  selection.map((s) => `mutation ${s}`),
  fc.string({ maxLength: 80 }),
  fc.constantFrom('{', 'query ($a: Int!) { role(uid: $a) { uid } }', '{ viewer { login } } { viewer { login } }', 'subscription { x }'),
);
const graphqlRequest = fc.record({
  get: fc.boolean(),
  query: document,
  variables: fc.oneof(
    jsonValue.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 30 }),
  ),
  extensions: fc.option(fc.string({ maxLength: 20 })),
  contentType,
});

describe('fuzzing both doors', () => {
  it(`no 5xx in ${REQUESTS} requests`, { timeout: 600_000 }, async () => {
    let sent = 0;
    const failures: string[] = [];
    const send = async (url: string, init: RequestInit, auth: string | undefined) => {
      const headers = new Headers(init.headers);
      if (auth) headers.set('authorization', auth);
      const res = await app.yoga.fetch(`http://test${url}`, { ...init, headers });
      await res.arrayBuffer();
      sent++;
      if (res.status >= 500 && failures.length < 10) failures.push(`${init.method} ${url} -> ${res.status}`);
      return res.status;
    };
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
      { numRuns: restRuns, endOnFailure: true },
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
      { numRuns: REQUESTS - restRuns, endOnFailure: true },
    );
    console.info(`fuzz: ${sent} requests, ${failures.length} 5xx`);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(REQUESTS);
  });
});
