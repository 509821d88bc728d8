/** Unexpected errors are masked on both doors and logged; malformed headers are 400s. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { expectInternalErrorsLogged } from '../support/requests.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe('unexpected errors', () => {
  it('answer 500 with a generic message and no internals, on REST and GraphQL', async () => {
    const original = app.services.roles.list.bind(app.services.roles);
    app.services.roles.list = () => Promise.reject(new Error('database exploded at /secret/path'));
    try {
      const { result: rest, lines } = await app.expectLogged(async () => {
        const answer = await app.request('/api/access-control/roles');
        return { status: answer.status, text: await answer.text() };
      });
      expect(rest.status).toBe(500);
      expect(JSON.parse(rest.text)).toEqual({ message: 'Internal server error', code: 'INTERNAL' });
      // The cause is logged, where the answer masks it.
      expectInternalErrorsLogged(lines, 'database exploded at /secret/path', ['/api/access-control/roles']);
      const { result: gql, lines: gqlLines } = await app.expectLogged(() => app.graphql('{ roles { uid } }'));
      expect(gql.status).toBe(500);
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('INTERNAL');
      expect(JSON.stringify(gql.body)).not.toContain('secret');
      expectInternalErrorsLogged(gqlLines, 'database exploded at /secret/path', ['/graphql']);
    } finally {
      app.services.roles.list = original;
    }
    expect((await app.request('/api/access-control/roles')).status).toBe(200);
  });
});

describe('organization header', () => {
  it.each(['abc', '-1', '0', '1.5'])('X-Service-Org-Id %j is a 400', async (value) => {
    const res = await app.request('/api/access-control/status', { headers: { 'x-service-org-id': value } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('X-Service-Org-Id');
  });
  it('an organization the caller does not belong to is a 401 (for a member, not Service Admin)', async () => {
    const res = await app.request('/api/access-control/status', { orgId: 99 });
    expect(res.status).toBe(401);
  });
});

describe('GraphQL bad input', () => {
  it.each([
    ['a mistyped argument', '{ roles(includeHidden: "x") { uid } }', 'GRAPHQL_VALIDATION_FAILED'],
    ['an unknown field', '{ nope }', 'GRAPHQL_VALIDATION_FAILED'],
    ['an unknown enum value', 'mutation { createApiKey(input: {name: "k", role: Owner}) { id } }', 'GRAPHQL_VALIDATION_FAILED'],
    ['a syntax error', '{ roles { uid ', 'GRAPHQL_PARSE_FAILED'],
  ])('%s is a 400 with a stable code', async (_why, query, code) => {
    const res = await app.graphql(query);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions?.code).toBe(code);
  });
});

describe('a GraphQL POST that is not JSON', () => {
  const query = JSON.stringify({ query: '{ viewer { login } }' });
  it.each([
    ['none', new TextEncoder().encode(query), undefined],
    ['"text/plain"', query, 'text/plain'],
    ['"application/x-www-form-urlencoded"', `query=${encodeURIComponent('{ viewer { login } }')}`, 'application/x-www-form-urlencoded'],
  ])('Content-Type %s: 415 UNSUPPORTED_MEDIA_TYPE saying to send application/json, not a CSRF 403', async (shown, body, type) => {
    const res = await app.request('/graphql', { method: 'POST', body, ...(type && { headers: { 'content-type': type } }) });
    expect(res.status).toBe(415);
    const answer = (await res.json()) as { data?: unknown; errors: { message: string; extensions: { code: string } }[] };
    expect(answer.data).toBeUndefined();
    expect(answer.errors[0]?.extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(answer.errors[0]?.message).toBe(
      `GraphQL POST requests must be sent with the header Content-Type: application/json (got ${shown}); a GraphQL GET request needs the header x-graphql-yoga-csrf: 1 instead`,
    );
  });

  it('the same query sent as application/json runs; a GET without the CSRF header is still refused', async () => {
    const res = await app.request('/graphql', { method: 'POST', body: query, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { viewer: { login: 'admin' } } });
    expect((await app.request(`/graphql?query=${encodeURIComponent('{ viewer { login } }')}`)).status).toBe(403);
  });
});
