/**
 * Every path but /graphql is answered by the one router (src/http/router.ts, use-router.ts): a
 * request's path is matched once, by one plugin, and unknown paths, other methods, slashes and
 * escapes answer as docs/api.md "Errors" says.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, pluginsOf, type TestApp } from '../support/app.js';
import { readJson } from '../support/requests.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe('one router', () => {
  it('is the only plugin that answers from the path (useConnection only records the client)', () => {
    const plugins = pluginsOf(app);
    const onRequest = plugins.filter((p) => p.onRequest);
    expect(onRequest).toHaveLength(2);
    expect(String(onRequest[0]?.onRequest)).toContain('recordConnection');
    expect(String(onRequest[1]?.onRequest)).toContain('router.find(');
  });
});

describe('paths under /api/', () => {
  it('an unknown path is 404 NOT_FOUND, a known one with another method 405 (HEAD on a GET route too)', async () => {
    const unknown = await app.request('/api/access-control/nothing-here');
    expect(unknown.status).toBe(404);
    expect((await readJson(unknown)).code).toBe('NOT_FOUND');
    for (const method of ['PUT', 'HEAD']) {
      const other = await app.request('/api/access-control/roles', { method });
      expect(other.status).toBe(405);
      if (method !== 'HEAD') expect((await readJson(other)).code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('repeated and trailing slashes do not count; parameters are percent-decoded', async () => {
    const listing = await app.request('/api/access-control/roles/');
    expect(listing.status).toBe(200);
    const role = await app.request('/api/access-control/roles/basic_viewer//');
    expect(role.status).toBe(200);
    expect((await readJson(role)).uid).toBe('basic_viewer');
    const encoded = await app.request('/api/access-control/roles/basic%5Fviewer');
    expect((await readJson(encoded)).uid).toBe('basic_viewer');
    expect((await app.request('/api/access-control/roles/%E0%A4%A')).status).toBe(404);
  });

  it('the probes answer GET and HEAD without credentials; another method is an unknown path', async () => {
    for (const method of ['GET', 'HEAD']) expect((await app.request('/api/health', { method, auth: null })).status).toBe(200);
    expect((await app.request('/api/health', { method: 'POST', auth: null })).status).toBe(404);
  });
});

describe('paths outside /api/', () => {
  it('answer only exactly: a console page with a trailing slash redirects, POST /login/ is unknown', async () => {
    const redirect = await app.request('/login/?next=%2Froles', { auth: null, headers: { accept: 'text/html' } });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/login?next=%2Froles');
    const post = await app.request('/login/', { method: 'POST', auth: null, json: { user: 'admin', password: 'x' } });
    expect(post.status).toBe(404);
    expect((await app.request('/nothing-here', { auth: null })).status).toBe(404);
  });
});
