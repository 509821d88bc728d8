/**
 * Compressed answers (GraphiQL's script is megabytes uncompressed; the
 * `compression` library around the Node listener, src/http/compression.ts): over real HTTP to
 * `app.listener`, as main.ts serves it, read byte for byte (node:http decodes nothing). The
 * console's own choice among its precompressed assets (accept-encoding.ts) is tested beside it.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { negotiateEncoding } from '../../src/http/accept-encoding.js';
import { MIN_BYTES, withCompression } from '../../src/http/compression.js';
import { assetCompressionStats } from '../../src/http/graphiql-assets.js';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';

const unbrotli = promisify(brotliDecompress);
const ungzip = promisify(gunzip);
const BASIC = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const servers: Server[] = [];

/** `listener` on a loopback port; answers a function sending one request there. */
async function serve(
  listener: RequestListener,
): Promise<(path: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<Answer>> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return (path, init = {}) =>
    new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, method: init.method ?? 'GET', headers: init.headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(init.body);
    });
}

let app: TestApp;
let send: Awaited<ReturnType<typeof serve>>;
beforeAll(async () => {
  app = await createTestApp();
  send = await serve(app.listener);
});
afterAll(async () => {
  for (const server of servers) server.close();
  await app.close();
});

/** The path of GraphiQL's script, as its page names it. */
async function graphiqlScript(): Promise<string> {
  const page = await send('/graphql', { headers: { accept: 'text/html', authorization: BASIC } });
  const path = /<script src="([^"]+)"/.exec(page.body.toString('utf8'))?.[1];
  expect(path).toMatch(/^\/graphql\/assets\//);
  return path as string;
}

describe('the app over HTTP', () => {
  it("sends GraphiQL's script compressed: the same file, a fraction of the bytes", async () => {
    const script = await graphiqlScript();
    const page = (encoding: string) => send(script, { headers: { 'accept-encoding': encoding } });
    const plain = await page('identity');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.byteLength).toBeGreaterThan(1_000_000);
    for (const [encoding, decode] of [
      ['br', unbrotli],
      ['gzip', ungzip],
    ] as const) {
      const res = await page(encoding);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(res.body.byteLength).toBeLessThan(plain.body.byteLength / 3);
      expect((await decode(res.body)).equals(plain.body)).toBe(true);
      // The security headers were computed on the page before it was compressed.
      expect(res.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
    }
  });

  it("compresses GraphiQL's script once per encoding: later downloads reuse the copy", async () => {
    const script = await graphiqlScript();
    const page = (encoding: string) => send(script, { headers: { 'accept-encoding': encoding } });
    const plain = await page('identity');
    const first = await page('gzip;q=0.5, br;q=0.9');
    expect(first.headers['content-encoding']).toBe('br');
    const before = { ...assetCompressionStats };
    const again = await Promise.all([page('br'), page('gzip, br'), page('*')]);
    expect(assetCompressionStats.compressed).toBe(before.compressed);
    expect(assetCompressionStats.reused).toBe(before.reused + 3);
    for (const res of again) {
      expect(res.headers['content-encoding']).toBe('br');
      expect(res.headers.vary).toMatch(/accept-encoding/i);
      expect(Number(res.headers['content-length'])).toBe(res.body.byteLength);
      expect(res.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
      expect(res.body.equals(first.body)).toBe(true);
      expect((await unbrotli(res.body)).equals(plain.body)).toBe(true);
    }
    // Another encoding is at most one more compression, then reused; a refused one is none.
    expect((await page('br;q=0, gzip')).headers['content-encoding']).toBe('gzip');
    const afterGzip = assetCompressionStats.compressed;
    expect(afterGzip).toBeLessThanOrEqual(before.compressed + 1);
    const gzipped = await page('gzip');
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect((await ungzip(gzipped.body)).equals(plain.body)).toBe(true);
    const refused = await page('br;q=0, gzip;q=0');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
    expect(assetCompressionStats.compressed).toBe(afterGzip);
  });

  it('compresses a large JSON answer, and leaves a small one as it is (still varying)', async () => {
    const large = await send('/api/access-control/roles?includeHidden=true', {
      headers: { authorization: BASIC, 'accept-encoding': 'gzip' },
    });
    expect(large.headers['content-encoding']).toBe('gzip');
    expect(large.headers.vary).toMatch(/accept-encoding/i);
    const roles = JSON.parse((await ungzip(large.body)).toString('utf8')) as unknown[];
    expect(roles.length).toBeGreaterThan(10);

    const small = await send('/api/health', { headers: { 'accept-encoding': 'gzip, br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toMatch(/accept-encoding/i);
    expect(small.body.byteLength).toBeLessThan(MIN_BYTES);
    expect(JSON.parse(small.body.toString('utf8'))).toMatchObject({ database: 'ok' });
  });

  it('honours q-values and prefers brotli; nothing without Accept-Encoding', async () => {
    const path = '/api/access-control/roles?includeHidden=true';
    const encodingFor = async (accept: string | undefined) =>
      (await send(path, { headers: { authorization: BASIC, ...(accept !== undefined && { 'accept-encoding': accept }) } })).headers[
        'content-encoding'
      ] ?? null;
    const cases: [string | undefined, string | null][] = [
      ['gzip, deflate, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=0.5, br;q=0.4', 'gzip'],
      ['*', 'br'],
      ['identity', null],
      ['br;q=0, gzip;q=0', null],
      [undefined, null],
    ];
    for (const [accept, expected] of cases) expect({ accept, encoding: await encodingFor(accept) }).toEqual({ accept, encoding: expected });
  });

  it("without Accept-Encoding: the identity, byte for byte the app's answer, still varying by Accept-Encoding", async () => {
    const path = '/api/access-control/roles?includeHidden=true';
    const bare = await send(path, { headers: { authorization: BASIC } });
    expect(bare.headers['content-encoding']).toBeUndefined();
    expect(bare.headers.vary).toMatch(/accept-encoding/i);
    const direct = await app.request(path, { auth: null, headers: { authorization: BASIC } });
    expect(bare.body.toString('utf8')).toBe(await direct.text());
    expect(Number(bare.headers['content-length'])).toBe(bare.body.byteLength);
    expect(bare.body.byteLength).toBeGreaterThan(MIN_BYTES);
  });

  it('compresses GraphQL answers too', async () => {
    const query = '{ roles(includeHidden: true) { uid name description permissions { action scope } } }';
    const res = await send('/graphql', {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json', 'accept-encoding': 'br' },
      body: JSON.stringify({ query }),
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    const body = JSON.parse((await unbrotli(res.body)).toString('utf8')) as { data: { roles: unknown[] } };
    expect(body.data.roles.length).toBeGreaterThan(10);
  });

  it('leaves short pages and errors as they are: they say their length', async () => {
    for (const [path, accept] of [
      ['/api/nope', 'application/json'],
      ['/api/user', 'application/json'],
      ['/', 'text/html'],
      ['/login', 'text/html'],
    ] as const) {
      const res = await send(path, { headers: { accept, 'accept-encoding': 'gzip, br' } });
      expect({ path, encoding: res.headers['content-encoding'] }).toEqual({ path, encoding: undefined });
      expect(Number(res.headers['content-length'])).toBe(res.body.byteLength);
    }
  });
});

describe('the middleware on answers of every kind', () => {
  const text = 'x'.repeat(4 * MIN_BYTES);
  let raw: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    raw = await serve(
      withCompression((req, res) => {
        const url = new URL(req.url ?? '/', 'http://test');
        const status = Number(url.searchParams.get('status') ?? 200);
        const headers: Record<string, string> = { 'content-type': url.searchParams.get('type') ?? 'application/json' };
        const encoding = url.searchParams.get('encoding');
        if (encoding) headers['content-encoding'] = encoding;
        res.writeHead(status, headers);
        res.end(status === 204 || status === 304 ? undefined : text);
      }),
    );
  });
  const get = (query: string) => raw(`/?${query}`, { headers: { 'accept-encoding': 'gzip, br' } });

  it('compresses a compressible body of MIN_BYTES or more', async () => {
    const res = await get('type=text/html');
    expect(res.headers['content-encoding']).toBe('br');
    expect((await unbrotli(res.body)).toString()).toBe(text);
  });

  it.each([
    ['a stream of events', 'type=text/event-stream'],
    ['a multipart answer', `type=${encodeURIComponent('multipart/mixed; boundary="-"')}`],
    ['an image', 'type=image/png'],
  ])('leaves %s as it is', async (_name, query) => {
    const res = await get(query);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString()).toBe(text);
  });

  it('leaves an answer already encoded (a precompressed asset) as it is, still varying', async () => {
    const res = await get('type=text/javascript&encoding=br');
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.body.toString()).toBe(text);
  });

  it('sends no body and no encoding for HEAD', async () => {
    const res = await raw('/?type=text/html', { method: 'HEAD', headers: { 'accept-encoding': 'gzip, br' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.byteLength).toBe(0);
  });

  it.each([204, 304])('leaves a %s alone', async (status) => {
    const res = await get(`status=${status}`);
    expect(res.status).toBe(status);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.byteLength).toBe(0);
  });
});

describe("the console's choice among its precompressed assets", () => {
  it.each([
    ['br', 'br'],
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.5, br;q=0.4', 'gzip'],
    ['*', 'br'],
    ['*;q=0, gzip', 'gzip'],
    ['identity', null],
    ['br;q=0, gzip;q=0', null],
    ['', null],
  ])('Accept-Encoding %j -> %s', (header, expected) => {
    expect(negotiateEncoding(header)).toBe(expected);
  });
});
