/**
 * The web console as the server answers it, without a browser: its
 * page on exactly its paths with a strict CSP and no-store, content-hashed assets cached a year
 * (brotli or gzip when accepted), the size budget, near misses (`/roles/`, `/index.html`)
 * redirected, a browser's unknown page path answered 404 with the console page (its own "Page not
 * found"), the API's JSON 404 and other methods untouched (`POST /login` still signs in), and the
 * OAuth button's hint when OAuth is configured.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_POLICY } from '../../src/http/use-security-headers.js';
import { CONSOLE_PATHS } from '../../web/paths.js';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { ensureConsoleBuilt } from './browser.js';

let app: TestApp;
let oauthApp: TestApp;

beforeAll(async () => {
  await ensureConsoleBuilt();
  app = await createTestApp();
  oauthApp = await createTestApp({
    env: {
      AUTH_GENERIC_OAUTH_ENABLED: 'true',
      AUTH_GENERIC_OAUTH_NAME: 'Keycloak <test>',
      AUTH_GENERIC_OAUTH_CLIENT_ID: 'portcullis',
      AUTH_GENERIC_OAUTH_CLIENT_SECRET: 'secret',
      AUTH_GENERIC_OAUTH_AUTH_URL: 'http://127.0.0.1:9/auth',
      AUTH_GENERIC_OAUTH_TOKEN_URL: 'http://127.0.0.1:9/token',
      AUTH_GENERIC_OAUTH_API_URL: 'http://127.0.0.1:9/userinfo',
    },
  });
});

afterAll(async () => {
  await app?.close();
  await oauthApp?.close();
});

/** The page without credentials, as a browser first asks for it. */
const get = (target: TestApp, path: string, headers: Record<string, string> = {}) =>
  target.request(path, { auth: null, headers: { accept: 'text/html', ...headers } });

function assetsOf(html: string): { script: string; style: string; icon: string } {
  const script = /<script type="module" src="(\/assets\/[^"]+\.js)"><\/script>/.exec(html)?.[1];
  const style = /<link rel="stylesheet" href="(\/assets\/[^"]+\.css)">/.exec(html)?.[1];
  const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/assets\/[^"]+\.svg)">/.exec(html)?.[1];
  if (!script || !style || !icon) throw new Error(`page without its assets:\n${html}`);
  return { script, style, icon };
}

describe('console pages', () => {
  it('answers every console path with the page, a strict CSP and no-store, signed in or not', async () => {
    for (const path of CONSOLE_PATHS) {
      const res = await get(app, path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toBe(CONSOLE_POLICY);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/unsafe-(inline|eval)|nonce-|sha256-/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const html = await res.text();
      // Nothing inline for the policy to allow: one external module script, one stylesheet.
      expect(html.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(/^<script type="module" src="\/assets\//)]);
      expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
      expect(html).toContain('<html lang="en">');
      expect(html).toContain('name="viewport"');
    }
    const signedIn = await app.request('/roles', { headers: { accept: 'text/html' } });
    expect(signedIn.status).toBe(200);
  });

  it('redirects near misses of a page path to it, keeping the query: a trailing slash, /index.html', async () => {
    const cases: [string, string][] = [
      ...CONSOLE_PATHS.filter((p) => p !== '/').map((p): [string, string] => [`${p}/`, p]),
      ['/roles//', '/roles'],
      ['/roles/?kind=custom&q=a%20b', '/roles?kind=custom&q=a%20b'],
      ['/login/?next=%2Froles', '/login?next=%2Froles'],
      ['/index.html', '/'],
      ['/index.html?next=x', '/?next=x'],
    ];
    for (const [from, to] of cases) {
      for (const method of ['GET', 'HEAD']) {
        const res = await app.request(from, { method, auth: null, redirect: 'manual', headers: { accept: 'text/html' } });
        expect(res.status, `${method} ${from}`).toBe(308);
        expect(res.headers.get('location'), from).toBe(to);
      }
    }
    // Only page paths: nothing leads off the origin, other methods are not redirected.
    for (const path of ['//evil.example/', '/api/user/', '/nope/']) {
      const res = await get(app, path);
      expect(res.headers.get('location'), path).toBeNull();
    }
    const post = await app.request('/login/', { method: 'POST', auth: null, json: { user: ADMIN.login, password: ADMIN.password } });
    expect(post.status).toBe(404);
    expect(post.headers.get('location')).toBeNull();
  });

  it("answers a browser's unknown page path with the console page and 404, so its own Page not found shows", async () => {
    for (const path of ['/nope', '/roles/unknown', '/nope/', '/assets/../package.json', '/login/generic_oauth/x']) {
      const res = await get(app, path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toBe(CONSOLE_POLICY);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).toContain('<html lang="en">');
      expect(html).toMatch(/<title>[^<]+<\/title>/);
      assetsOf(html);
    }
    const head = await app.request('/nope', { method: 'HEAD', auth: null, headers: { accept: 'text/html' } });
    expect(head.status).toBe(404);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
  });

  it('keeps the JSON 404 for the API, assets and clients not asking for HTML; other methods pass through', async () => {
    const notFound = { message: 'Not found', code: 'NOT_FOUND' };
    const jsonPaths = ['/api/nope', '/api', '/api/', '/assets/', '/assets/main.js', '/graphql/x', '/metrics', '/swagger/nope'];
    for (const path of jsonPaths) {
      const res = await get(app, path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(await res.json(), path).toEqual(notFound);
    }
    for (const path of ['/nope', '/roles/unknown', '/index.htm']) {
      const res = await app.request(path, { auth: null, headers: { accept: 'application/json' } });
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toEqual(notFound);
    }
    const posted = await app.request('/nope', { method: 'POST', auth: null, headers: { accept: 'text/html' }, json: {} });
    expect(posted.status).toBe(404);
    expect(await posted.json()).toEqual(notFound);
    expect((await app.request('/', { method: 'POST', auth: null, json: {} })).status).not.toBe(200);
    const login = await app.request('/login', { method: 'POST', auth: null, json: { user: ADMIN.login, password: ADMIN.password } });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ message: 'Logged in' });
    expect(login.headers.get('set-cookie')).toMatch(/^portcullis_session=/);
    const graphiql = await get(app, '/graphql');
    expect(graphiql.status).toBe(401);
  });

  it('offers the OAuth button only when OAuth is configured, with the provider name escaped', async () => {
    expect(await (await get(app, '/login')).text()).not.toContain('portcullis-oauth');
    const html = await (await get(oauthApp, '/login')).text();
    expect(html).toContain('<meta name="portcullis-oauth" content="Keycloak &#60;test&#62;">');
  });
});

describe('console assets', () => {
  it('serves content-hashed assets cached for a year, compressed when accepted, within the size budget', async () => {
    const { script, style, icon } = assetsOf(await (await get(app, '/')).text());
    let total = 0;
    for (const [path, type] of [
      [script, 'text/javascript; charset=utf-8'],
      [style, 'text/css; charset=utf-8'],
      [icon, 'image/svg+xml'],
    ] as const) {
      expect(path).toMatch(/^\/assets\/[a-z]+-[A-Za-z0-9_-]{8,}\.(js|css|svg)$/);
      const plain = await get(app, path, { 'accept-encoding': 'identity' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toBe(type);
      expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(plain.headers.get('content-encoding')).toBeNull();
      // The asset's own Vary, which the headers every answer gets leave as it is: named once.
      expect(
        plain.headers
          .get('vary')
          ?.toLowerCase()
          .match(/accept-encoding/g),
      ).toHaveLength(1);
      const body = Buffer.from(await plain.arrayBuffer());
      total += body.length;

      const br = await get(app, path, { 'accept-encoding': 'gzip, deflate, br' });
      expect(br.headers.get('content-encoding')).toBe('br');
      const brBody = Buffer.from(await br.arrayBuffer());
      expect(brotliDecompressSync(brBody).equals(body)).toBe(true);
      if (path !== icon) expect(brBody.length).toBeLessThan(body.length / 2);

      const gz = await get(app, path, { 'accept-encoding': 'gzip' });
      expect(gz.headers.get('content-encoding')).toBe('gzip');
      expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).equals(body)).toBe(true);

      const head = await app.request(path, { method: 'HEAD', auth: null });
      expect(head.status).toBe(200);
      expect(head.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    }
    // First-page scripts and styles (and the icon) stay far below the 1.5 MiB budget.
    expect(total).toBeLessThan(1.5 * 1024 * 1024);
  });
});
