/**
 * Structured request logs: one JSON line per request, with the request id that
 * `X-Request-Id` answers (the caller's own kept), the route template, status, time and who called,
 * never a credential, a body, a GraphQL document or its variables (a
 * failed mutation must never be logged with its full text, password included).
 */
import { createHash } from 'node:crypto';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentSignature } from '../../src/http/use-request-log.js';
import { ADMIN, authHeader, BAD_PASSWORD } from '../support/app.js';
import { createObservedApp, LEVEL, type LogLine, type ObservedApp, requestLines } from './observed-app.js';

const SECRET = 'Hunter2-typed-into-a-mutation';

describe('request logs', () => {
  let app: ObservedApp;
  beforeAll(async () => {
    app = await createObservedApp();
  });
  afterAll(() => app.close());

  it('writes one line per REST request: id, method, route template, status, time, principal', async () => {
    app.clearLogs();
    const res = await app.request('/api/access-control/roles/some-uid-404');
    expect(res.status).toBe(404);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const lines = requestLines(app);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: LEVEL.info,
      reqId: id,
      method: 'GET',
      route: '/api/access-control/roles/:uid',
      status: 404,
      principal: { kind: 'user', id: 1, orgId: 1, authMethod: 'basic' },
    });
    expect(typeof lines[0]?.ms).toBe('number');
    expect(JSON.stringify(lines[0])).not.toContain('some-uid-404');
  });

  it('writes every line of requests answered together, each once, with the id its answer carries', async () => {
    app.clearLogs();
    const answers = await Promise.all(Array.from({ length: 40 }, () => app.request('/api/access-control/user/permissions')));
    const ids = answers.map((res) => res.headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(40);
    expect(
      requestLines(app)
        .map((line) => line.reqId)
        .sort(),
    ).toEqual([...ids].sort());
  });

  it('writes an info line at the end of the event-loop turn that answered, not before', async () => {
    app.clearLogs();
    const res = await app.yoga.fetch('http://test/api/access-control/user/permissions', { headers: { authorization: authHeader(ADMIN) } });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    expect(app.logs.filter((line) => line.reqId === id)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(app.logs.filter((line) => line.reqId === id)).toHaveLength(1);
  });

  it("keeps the caller's own X-Request-Id, and replaces one that is not a sane token", async () => {
    const mine = await app.request('/api/health', { auth: null, headers: { 'x-request-id': 'trace-42.a:b_c' } });
    expect(mine.headers.get('x-request-id')).toBe('trace-42.a:b_c');
    const odd = await app.request('/api/health', { auth: null, headers: { 'x-request-id': 'has spaces and <html>' } });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers X-Request-Id on every kind of answer: GraphQL, 401, unknown paths, GraphiQL', async () => {
    const answers = [
      await app.graphql('{ viewer { login } }'),
      await app.request('/api/access-control/roles', { auth: null }),
      await app.request('/nothing/here'),
      await app.request('/graphql', { headers: { accept: 'text/html' } }),
      await app.request('/graphql', { method: 'OPTIONS', auth: null }),
    ];
    for (const res of answers) expect(res.headers.get('x-request-id'), `${res.status}`).toBeTruthy();
  });

  it('never logs credentials: not the password, the Authorization header or an API key', async () => {
    app.clearLogs();
    await app.request('/api/access-control/roles', { auth: BAD_PASSWORD });
    await app.request('/api/access-control/roles', { auth: { token: 'pcs_secret-looking-key-material' } });
    await app.request('/api/access-control/roles');
    const text = app.logText();
    for (const secret of [ADMIN.password, BAD_PASSWORD.password, 'pcs_secret-looking-key-material', 'Basic ', 'authorization']) {
      expect(text).not.toContain(secret);
    }
    const failed = requestLines(app).filter((l) => l.status === 401);
    expect(failed).toHaveLength(2);
    expect(failed.every((l) => l.principal === undefined)).toBe(true);
  });

  it('logs a failed GraphQL mutation by name, document hash and error code, never its text or variables', async () => {
    app.clearLogs();
    const inline = `mutation MakeUser { createUser(input: {login: "x y", email: "nope", password: "${SECRET}"}) { id } }`;
    const res = await app.graphql(inline);
    expect(res.status).toBe(400);
    const withVariables = await app.graphql('mutation MakeAnother($input: CreateUserInput!) { createUser(input: $input) { id } }', {
      input: { login: 'admin', email: 'admin@example.com', password: SECRET },
    });
    expect(withVariables.status).toBeGreaterThanOrEqual(400);
    const denied = await app.graphql(
      `mutation { createUser(input: {login: "v2", email: "v2@example.com", password: "${SECRET}", isServiceAdmin: true}) { id } }`,
      {},
      null,
    );
    expect(denied.status).toBe(401);
    const broken = await app.graphql(`mutation { createUser(input: {password: "${SECRET}" `);
    expect(broken.status).toBe(400);

    const text = app.logText();
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('createUser');
    const lines = requestLines(app);
    expect(lines).toHaveLength(4);
    const first = lines[0] as LogLine & { graphql: { operation: string; document: string; errors: string[] } };
    expect(first.route).toBe('/graphql');
    expect(first.graphql.operation).toBe('MakeUser');
    expect(first.graphql.document).toMatch(/^[0-9a-f]{64}$/);
    expect(first.graphql.errors.length).toBeGreaterThan(0);
    expect((lines[1] as LogLine & { graphql: { operation: string } }).graphql.operation).toBe('MakeAnother');
  });

  it('signs a document without its literals: no hash to test password guesses against', async () => {
    app.clearLogs();
    const make = (password: string) => `mutation M { createUser(input: {login: "a b", email: "x", password: "${password}"}) { id } }`;
    await app.graphql(make(SECRET));
    await app.graphql(make('another-password'));
    await app.graphql('mutation M { createUser(input: {login: "a b", email: "x"}) { id } }');
    const [first, second, other] = requestLines(app).map((l) => (l.graphql as { document: string }).document);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toBe(first);
    expect(other).not.toBe(first);
    expect(first).not.toBe(createHash('sha256').update(make(SECRET)).digest('hex'));
    expect(documentSignature(parse(make(SECRET)))).toBe(first);
  });

  it('logs a GraphQL query with its operation type and no errors', async () => {
    app.clearLogs();
    expect((await app.graphql('query Me { viewer { login } }')).status).toBe(200);
    const [line] = requestLines(app);
    expect(line).toMatchObject({ status: 200, route: '/graphql', graphql: { operation: 'Me', type: 'query' } });
    expect(line?.graphql).not.toHaveProperty('errors');
  });

  it('logs the probes at debug, so a scraper every few seconds does not fill the info log', async () => {
    app.clearLogs();
    await app.request('/api/health', { auth: null });
    await app.request('/api/ready', { auth: null }); // 503: this app was never marked ready
    expect(requestLines(app).map((l) => [l.route, l.level])).toEqual([
      ['/api/health', LEVEL.debug],
      ['/api/ready', LEVEL.debug],
    ]);
  });
});
