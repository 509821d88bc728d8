/**
 * Errors name the problem, never the parser's internals nor the bytes sent. A
 * body that is not JSON is "invalid JSON body" on both doors (400 INVALID_JSON), without the JSON
 * parser's message (which quotes the body back) and without GraphQL `extensions.originalError`;
 * a body nested past MAX_JSON_DEPTH is "JSON nesting too deep", not "Maximum call stack size
 * exceeded"; a value graphql-js refuses for a variable is quoted cut short.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/body.js';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const MARKER = 'SECRET-LOOKING-BYTES';
type GraphqlBody = { errors?: { message: string; extensions?: Record<string, unknown> }[] };

const post = (path: string, body: string, auth: typeof ADMIN | null = ADMIN) =>
  app.request(path, { method: 'POST', body, auth, headers: { 'content-type': 'application/json' } });

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('a body that is not JSON', () => {
  const bodies = [`{"name": "${MARKER}"`, `${MARKER} not json`, `{"name": "x", ${MARKER}}`];

  it.each(bodies)('REST and /login: 400 INVALID_JSON "invalid JSON body", nothing of the body: %s', async (body) => {
    for (const [path, auth] of [
      ['/api/access-control/roles', ADMIN],
      ['/login', null],
    ] as const) {
      const res = await post(path, body, auth);
      const text = await res.text();
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(text)).toEqual({ message: 'bad request data: invalid JSON body', code: 'INVALID_JSON' });
      expect(text).not.toContain(MARKER);
    }
  });

  it.each(bodies)('GraphQL: 400 INVALID_JSON "invalid JSON body", no originalError, nothing of the body: %s', async (body) => {
    const res = await post('/graphql', body);
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(JSON.parse(text)).toEqual({ errors: [{ message: 'invalid JSON body', extensions: { code: 'INVALID_JSON' } }] });
    expect(text).not.toContain(MARKER);
    expect(text).not.toContain('originalError');
  });
});

describe('nesting', () => {
  it(`REST and /login: nesting past ${MAX_JSON_DEPTH} levels is 400 "JSON nesting too deep", however deep`, async () => {
    // /login reads at most 16 KiB: 8,000 levels are its deepest body.
    for (const depth of [MAX_JSON_DEPTH + 1, 8_000, 400_000]) {
      for (const [path, auth] of [
        ['/api/access-control/roles', ADMIN],
        ...(depth <= 8_000 ? ([['/login', null]] as const) : []),
      ] as const) {
        const res = await post(path, nested(depth), auth);
        expect({ path, depth, status: res.status, body: await res.json() }).toEqual({
          path,
          depth,
          status: 400,
          body: { message: `bad request data: JSON nesting too deep (more than ${MAX_JSON_DEPTH} levels)`, code: 'INVALID_JSON' },
        });
      }
    }
  });

  it(`${MAX_JSON_DEPTH} levels are JSON: the body goes on to validation`, async () => {
    const res = await post(
      '/api/access-control/roles',
      JSON.stringify({ name: 'custom:deep', group: JSON.parse(nested(MAX_JSON_DEPTH - 1)) }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'VALIDATION_FAILED', message: 'group: group must be a string' });
  });

  it('a lone surrogate deep inside is still refused by name', async () => {
    const res = await post('/api/access-control/roles', `{"name":"custom:x","group":[[[{"\\ud800":1}]]]}`);
    expect(await res.json()).toEqual({
      message: 'bad request data: text must be well-formed Unicode (lone surrogate)',
      code: 'INVALID_JSON',
    });
  });
});

describe('variables graphql-js refuses', () => {
  it('quote the refused value cut short: the error is not the bytes sent', async () => {
    const long = `${MARKER}${'y'.repeat(100_000)}`;
    const res = await app.graphql('mutation($input: CreateRoleInput!) { createRole(input: $input) { uid } }', {
      input: { name: 'custom:v', version: long },
    });
    expect(res.status).toBe(400);
    const error = (res.body as GraphqlBody).errors?.[0];
    expect(error?.extensions?.code).toBe('VALIDATION_FAILED');
    expect(error?.message).toMatch(/^Int cannot represent non-integer value: "SECRET-LOOKING-BYTESy+…"$/);
    expect(error?.message.length).toBeLessThan(200);
  });
});
