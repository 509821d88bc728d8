/**
 * Body limits at the doors outside GraphQL (src/http/body.ts): `POST /login` and REST writes
 * read their bodies as streams and stop as soon as the limit passes (413, the rest never pulled),
 * refuse a declared Content-Length over the limit before reading, and answer 400 (never 500) to
 * a body that ends early. Bodies are streams without a length, as a chunked upload arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';

const CHUNK = 64 * 1024;
/** What the stream pipeline between the test and the reader may pull ahead (a few chunks). */
const READ_AHEAD = 8 * CHUNK;
const LOGIN_LIMIT = 16 * 1024;
const REST_LIMIT = 256 * 1024;
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ env: { MAX_REQUEST_BODY_BYTES: String(REST_LIMIT) } });
});
afterAll(() => app.close());

/**
 * A body of `total` bytes of spaces made on demand (chunks of `chunkBytes`), counting what the server pulled; with
 * `failAfter`, the stream errors after that many bytes, as Node's request stream does when the
 * client closes the connection or sends malformed chunked data.
 */
function streamedBody(total: number, options: { failAfter?: number; chunkBytes?: number } = {}) {
  const { failAfter, chunkBytes = CHUNK } = options;
  const chunk = new Uint8Array(chunkBytes).fill(0x20);
  const seen = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (failAfter !== undefined && seen.pulled >= failAfter) {
        controller.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
        return;
      }
      if (seen.pulled >= total) {
        controller.close();
        return;
      }
      seen.pulled += chunkBytes;
      controller.enqueue(chunk);
    },
  });
  return { body, seen };
}

function send(path: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}): Promise<Response> {
  return Promise.resolve(
    app.yoga.fetch(`http://test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      duplex: 'half',
    } as RequestInit),
  );
}

const codeOf = async (res: Response) => ((await res.json()) as { code: string }).code;

describe('streamed bodies stop at the limit', () => {
  it('anonymous POST /login with a 200 MB chunked body: 413 after reading about 16 KiB', async () => {
    const { body, seen } = streamedBody(200 * 1024 * 1024);
    const res = await send('/login', body);
    expect(res.status).toBe(413);
    expect(await codeOf(res)).toBe('REQUEST_TOO_LARGE');
    expect(seen.pulled).toBeLessThanOrEqual(LOGIN_LIMIT + READ_AHEAD);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
  it('a REST write over MAX_REQUEST_BODY_BYTES: 413 after reading about the limit', async () => {
    const { body, seen } = streamedBody(200 * 1024 * 1024);
    const res = await send('/api/access-control/roles', body, { authorization: authHeader(ADMIN) });
    expect(res.status).toBe(413);
    expect(await codeOf(res)).toBe('REQUEST_TOO_LARGE');
    expect(seen.pulled).toBeLessThanOrEqual(REST_LIMIT + READ_AHEAD);
  });
  // GraphQL reads chunked bodies with the same reader (src/http/use-body-limit.ts).
  it('a chunked GraphQL body over MAX_REQUEST_BODY_BYTES: 413 after reading about the limit', async () => {
    const { body, seen } = streamedBody(200 * 1024 * 1024);
    const res = await send('/graphql', body, { authorization: authHeader(ADMIN) });
    expect(res.status).toBe(413);
    const answer = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(answer.errors?.[0]?.extensions?.code).toBe('REQUEST_TOO_LARGE');
    expect(seen.pulled).toBeLessThanOrEqual(REST_LIMIT + READ_AHEAD);
  });
  it('a chunked GraphQL body within the limit is answered', async () => {
    const text = new TextEncoder().encode(JSON.stringify({ query: '{ viewer { login } }' }));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(text.subarray(0, 10));
        controller.enqueue(text.subarray(10));
        controller.close();
      },
    });
    const res = await send('/graphql', body, { authorization: authHeader(ADMIN) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { viewer: { login: ADMIN.login } } });
  });
  it('a declared Content-Length over the limit is refused before any byte is read', async () => {
    for (const [path, limit, auth] of [
      ['/login', LOGIN_LIMIT, {}],
      ['/api/access-control/roles', REST_LIMIT, { authorization: authHeader(ADMIN) }],
    ] as const) {
      const { body, seen } = streamedBody(limit + CHUNK);
      const res = await send(path, body, { ...auth, 'content-length': String(limit + 1) });
      expect(res.status, path).toBe(413);
      expect(seen.pulled, path).toBeLessThanOrEqual(CHUNK); // at most what the stream queued by itself
    }
  });
  it('a login body within the limit still signs in', async () => {
    const res = await app.request('/login', { method: 'POST', auth: null, json: { user: ADMIN.login, password: ADMIN.password } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Logged in' });
  });
});

describe('a body that ends early', () => {
  it('answers 400 BAD_REQUEST on /login and on REST, never 500', async () => {
    for (const [path, headers] of [
      ['/login', {}],
      ['/api/access-control/roles', { authorization: authHeader(ADMIN) }],
    ] as const) {
      const { body } = streamedBody(64 * 1024, { failAfter: 4096, chunkBytes: 1024 });
      const res = await send(path, body, headers);
      expect(res.status, path).toBe(400);
      expect(await res.json(), path).toEqual({ message: 'the request body ended before it was complete', code: 'BAD_REQUEST' });
    }
  });
});
