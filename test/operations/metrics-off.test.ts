/**
 * Metrics off (the default): nothing is recorded, so no request, SQL statement or permission
 * lookup pays for samples no one can read; the request log still writes its line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createObservedApp, type ObservedApp } from './observed-app.js';

describe('METRICS_ENABLED unset', () => {
  let app: ObservedApp;
  beforeAll(async () => {
    app = await createObservedApp();
  });
  afterAll(() => app.close());

  it('records no sample for requests, statements or cache lookups, and still logs each request', async () => {
    expect((await app.request('/api/access-control/user/permissions')).status).toBe(200);
    expect((await app.request('/api/auth/keys', { auth: { login: 'admin', password: 'wrong' } })).status).toBe(401);
    expect(await app.metrics.registry.getMetricsAsJSON()).toEqual([]);
    expect(app.logs.some((line) => line.msg === 'request' && line.route === '/api/access-control/user/permissions')).toBe(true);
  });
});
