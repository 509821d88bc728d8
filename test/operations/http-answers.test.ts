/**
 * The answers operations depend on (issue #12): health with the real version and commit,
 * readiness that follows the process's life, a JSON 404 for paths nothing answers, and
 * compressed responses (the GraphiQL page was 9 MB uncompressed).
 */
import { promisify } from 'node:util';
import { brotliDecompress, gunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_BYTES, negotiateEncoding } from '../../src/http/use-compression.js';
import { buildInfo } from '../../src/platform/build-info.js';
import { createObservedApp, type ObservedApp } from './observed-app.js';

const unbrotli = promisify(brotliDecompress);
const ungzip = promisify(gunzip);

let app: ObservedApp;
beforeAll(async () => {
  app = await createObservedApp({ level: 'silent' });
});
afterAll(() => app.close());

describe('GET /api/health', () => {
  it('names the package version and the commit of the checkout, without credentials', async () => {
    const res = await app.request('/api/health', { auth: null });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { database: string; version: string; commit: string };
    expect(body).toEqual({ database: 'ok', version: '0.1.0', commit: buildInfo(undefined).commit });
    expect(body.commit).toMatch(/^([0-9a-f]{40}|unknown)$/);
  });

  it('names COMMIT_SHA when the build set it', async () => {
    const built = await createObservedApp({ env: { COMMIT_SHA: 'abc1234' }, level: 'silent' });
    try {
      expect(await (await built.request('/api/health', { auth: null })).json()).toMatchObject({ commit: 'abc1234' });
    } finally {
      await built.close();
    }
  });
});

describe('GET /api/frontend/settings', () => {
  it("answers Grafana's buildInfo (what grafana-client reads for the version), without credentials", async () => {
    for (const path of ['/api/frontend/settings', '/api/frontend/settings/']) {
      const res = await app.request(path, { auth: null });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ buildInfo: { version: '0.1.0', commit: buildInfo(undefined).commit, env: 'production' } });
    }
    expect((await app.request('/api/frontend/settings', { method: 'POST', auth: null })).status).toBe(404);
  });
});

describe('GET /api/ready', () => {
  it('is 503 while starting, 200 once ready, 503 again while shutting down', async () => {
    const fresh = await createObservedApp({ level: 'silent' });
    try {
      const ready = async () => {
        const res = await fresh.request('/api/ready', { auth: null });
        return { status: res.status, body: await res.json() };
      };
      expect(await ready()).toEqual({ status: 503, body: { ready: false, reason: 'starting' } });
      fresh.lifecycle.markReady();
      expect(await ready()).toEqual({ status: 200, body: { ready: true } });
      fresh.lifecycle.markShuttingDown();
      expect(await ready()).toEqual({ status: 503, body: { ready: false, reason: 'shutting down' } });
      fresh.lifecycle.markReady(); // shutting down is final
      expect((await ready()).status).toBe(503);
    } finally {
      await fresh.close();
    }
  });
});

describe('paths nothing answers', () => {
  it.each([
    ['GET', '/nothing/here'],
    ['POST', '/'],
    ['GET', '/graphql/'],
    ['DELETE', '/login/elsewhere'],
  ])('%s %s is a JSON 404', async (method, path) => {
    const res = await app.request(path, { method });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
  });

  it('leaves the REST 404 and 405 and the GraphQL endpoint as they were', async () => {
    expect(await (await app.request('/api/nope')).json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await app.request('/api/access-control/roles', { method: 'PATCH' })).status).toBe(405);
    const graphql = await app.graphql('{ viewer { login } }');
    expect(graphql.status).toBe(200);
    expect(await graphql.json()).toEqual({ data: { viewer: { login: 'admin' } } });
  });
});

describe('compression', () => {
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

  it('sends the GraphiQL page compressed: the same page, a fraction of the bytes', async () => {
    const page = (encoding: string) => app.request('/graphql', { headers: { accept: 'text/html', 'accept-encoding': encoding } });
    const plain = await page('identity');
    expect(plain.headers.get('content-encoding')).toBeNull();
    const html = Buffer.from(await plain.arrayBuffer());
    expect(html.byteLength).toBeGreaterThan(1_000_000);
    for (const [encoding, decode] of [
      ['br', unbrotli],
      ['gzip', ungzip],
    ] as const) {
      const res = await page(encoding);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(res.headers.get('vary')).toMatch(/accept-encoding/i);
      const body = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).toBe(body.byteLength);
      expect(body.byteLength).toBeLessThan(html.byteLength / 3);
      expect((await decode(body)).equals(html)).toBe(true);
      // The security headers were computed on the page before it was compressed.
      expect(res.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    }
  });

  it('compresses a large JSON answer, and leaves a small one as it is (still varying)', async () => {
    const large = await app.request('/api/access-control/roles?includeHidden=true', { headers: { 'accept-encoding': 'gzip' } });
    expect(large.headers.get('content-encoding')).toBe('gzip');
    const roles = JSON.parse((await ungzip(Buffer.from(await large.arrayBuffer()))).toString('utf8')) as unknown[];
    expect(roles.length).toBeGreaterThan(10);

    const small = await app.request('/api/health', { auth: null, headers: { 'accept-encoding': 'gzip, br' } });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(small.headers.get('vary')).toMatch(/accept-encoding/i);
    const text = await small.text();
    expect(text.length).toBeLessThan(MIN_BYTES);
    expect(JSON.parse(text)).toMatchObject({ database: 'ok' });
  });

  it('compresses GraphQL answers too, and nothing for HEAD', async () => {
    const query = '{ roles(includeHidden: true) { uid name description permissions { action scope } } }';
    const res = await app.request('/graphql', { method: 'POST', json: { query }, headers: { 'accept-encoding': 'br' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    const body = JSON.parse((await unbrotli(Buffer.from(await res.arrayBuffer()))).toString('utf8')) as { data: { roles: unknown[] } };
    expect(body.data.roles.length).toBeGreaterThan(10);

    const head = await app.request('/api/access-control/roles?includeHidden=true', {
      method: 'HEAD',
      headers: { 'accept-encoding': 'br' },
    });
    expect(head.headers.get('content-encoding')).toBeNull();
  });
});
