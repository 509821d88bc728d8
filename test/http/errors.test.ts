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
