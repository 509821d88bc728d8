/**
 * Malformed GET parameters are 400: a GraphQL request without a usable
 * `query` (`GET /graphql?variables={}`, `?query[]=1`, a body without `query`) answered 200 with
 * yoga's BAD_REQUEST error, because yoga keeps 200 for `application/json` clients; it is 400,
 * as every other request error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const CSRF = { 'x-graphql-yoga-csrf': '1' };
type Body = { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] };

describe('a GraphQL request without a usable query is 400 BAD_REQUEST', () => {
  it.each(['variables={}', 'query[]=1', 'extensions={}', 'query=', '', 'variables=%7B%7D&query[]=x'])('GET /graphql?%s', async (params) => {
    for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
      const res = await app.request(`/graphql?${params}`, { headers: { ...CSRF, accept } });
      expect(res.status, accept).toBe(400);
      const body = (await res.json()) as Body;
      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
      expect(body.data).toBeUndefined();
    }
  });

  it.each(['{}', '{"variables":{}}', '{"query":1}', '{"query":null}', '[]'])('POST %s', async (body) => {
    const res = await app.request('/graphql', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body).errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  it('a well-formed GET query still answers 200', async () => {
    const res = await app.request(`/graphql?query=${encodeURIComponent('{ viewer { login } }')}&variables={}`, { headers: CSRF });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { viewer: { login: 'admin' } } });
  });
});
