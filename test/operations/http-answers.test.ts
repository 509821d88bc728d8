/**
 * The answers operations depend on: health with the real version and commit,
 * readiness that follows the process's life, and a JSON 404 for paths nothing answers.
 * Compressed responses: compression.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInfo } from '../../src/platform/build-info.js';
import { createObservedApp, type ObservedApp } from './observed-app.js';

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
