/**
 * SECURITY.md's limits, cross-site rules, input rules and headers at the doors: anonymous GraphQL stops before parsing, operation and
 * body limits, cross-site forms and multipart change nothing, bodiless REST writes and
 * login/logout cannot be sent from another site, CORS only for allowed origins, security headers
 * everywhere, the one health check, bad input answers 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, authHeader, createTestApp, type TestApp } from '../support/app.js';
import { createUser, SUBJECT_PASSWORD } from '../support/subjects.js';

let app: TestApp;
const users = () => app.database.prisma.user.count();
const FOREIGN = 'https://evil.example';

beforeAll(async () => {
  app = await createTestApp({ env: { CORS_ALLOWED_ORIGINS: 'https://console.example' } });
});
afterAll(() => app.close());

const CREATE_ADMIN =
  'mutation { createUser(input: {login: "csrf", email: "csrf@x", password: "pw-csrf-123456", isServiceAdmin: true}) { id } }';

describe('anonymous GraphQL', () => {
  it('is refused with 401 before its body is read, whatever its size', async () => {
    const huge = `{ ${'a'.repeat(350_000)} }`;
    for (const query of ['{ viewer { login } }', huge, '{ __schema { types { name } } }']) {
      const res = await app.request('/graphql', { method: 'POST', auth: null, json: { query } });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code).toBe('UNAUTHENTICATED');
    }
  });
  it('with wrong credentials gets 401, not the GraphiQL page', async () => {
    const res = await app.request('/graphql', { auth: { login: 'admin', password: 'nope' }, headers: { accept: 'text/html' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/json');
  });
});

describe('operation limits', () => {
  const post = (query: string) => app.request('/graphql', { method: 'POST', json: { query } });
  it('refuses 1,000 aliases, depth 40, too many tokens and an oversized document with 4xx, fast', async () => {
    const aliases = `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: roles { permissions { action } }`).join(' ')} }`;
    const started = performance.now();
    expect((await post(aliases)).status).toBe(400);
    expect(performance.now() - started).toBeLessThan(1000); // bench/attacks.ts measures the figure
    const deep = `{ viewer { ${'teams { roles { '.repeat(20)}uid${' } }'.repeat(20)} } }`;
    expect((await post(deep)).status).toBe(400);
    expect((await post(`{ viewer { ${'login '.repeat(3000)} } }`)).status).toBe(400);
    expect((await post(`{ viewer { login } } # ${'x'.repeat(200_000)}`)).status).toBe(413);
  });
  it('refuses a body over MAX_REQUEST_BODY_BYTES on both doors with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
    const rest = await app.request('/api/access-control/roles', {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    expect(rest.status).toBe(413);
    const gql = await app.request('/graphql', { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
    expect(gql.status).toBe(413);
  });
});

describe('cross-site requests', () => {
  const bodies: [string, string][] = [
    ['application/x-www-form-urlencoded', `query=${encodeURIComponent(CREATE_ADMIN)}`],
    ['multipart/form-data; boundary=X', `--X\r\nContent-Disposition: form-data; name="query"\r\n\r\n${CREATE_ADMIN}\r\n--X--\r\n`],
    ['text/plain', JSON.stringify({ query: CREATE_ADMIN })],
  ];
  it('forms, multipart and text/plain from a foreign origin change nothing on /graphql or REST', async () => {
    const before = await users();
    for (const [type, body] of bodies) {
      const headers = { 'content-type': type, origin: FOREIGN };
      const gql = await app.request('/graphql', { method: 'POST', body, headers });
      expect(gql.status, type).toBe(415);
      expect(gql.headers.get('access-control-allow-origin')).toBeNull();
      const rest = await app.request('/api/access-control/roles', { method: 'POST', body, headers });
      expect(rest.status, type).toBe(403);
      expect(await rest.json()).toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringMatching(/^origin not allowed/) });
      // The same form with no Origin (a non-browser client): refused for its type.
      const typed = await app.request('/api/access-control/roles', { method: 'POST', body, headers: { 'content-type': type } });
      expect(typed.status, type).toBe(400);
      expect(((await typed.json()) as { code: string }).code).toBe('UNSUPPORTED_CONTENT_TYPE');
    }
    expect(await app.request(`/graphql?query=${encodeURIComponent(CREATE_ADMIN)}`, { headers: { origin: FOREIGN } })).toHaveProperty(
      'status',
      403,
    );
    expect(await users()).toBe(before);
  });
  it('answers CORS only to an allowed origin', async () => {
    const preflight = (origin: string) =>
      app.request('/graphql', { method: 'OPTIONS', auth: null, headers: { origin, 'access-control-request-method': 'POST' } });
    expect((await preflight(FOREIGN)).headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await preflight('https://console.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://console.example');
    expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
  });
});

describe('cross-site REST writes without a body', () => {
  const audit = () => app.database.prisma.auditEvent.count();
  const disabled = async (id: number) => (await app.database.prisma.user.findUniqueOrThrow({ where: { id } })).isDisabled;
  /** Grafana's bodiless writes: each changes state when it runs. */
  const routes = (id: number): [string, string][] => [
    ['POST', `/api/admin/users/${id}/disable`],
    ['POST', `/api/admin/users/${id}/enable`],
    ['POST', `/api/admin/users/${id}/logout`],
    ['POST', '/api/serviceaccounts/migrate'],
    ['POST', '/api/access-control/roles/hard-reset'],
    ['POST', '/api/admin/provisioning/access-control/reload'],
    ['DELETE', `/api/admin/users/${id}`],
  ];
  /** What an empty <form method=post> or a no-cors fetch on another site makes the browser send. */
  const forged: [string, Record<string, string>][] = [
    ['form, foreign Origin', { origin: FOREIGN, 'content-type': 'application/x-www-form-urlencoded' }],
    ['no type, foreign Origin', { origin: FOREIGN }],
    ['text/plain, foreign Origin, cross-site', { origin: FOREIGN, 'content-type': 'text/plain', 'sec-fetch-site': 'cross-site' }],
    ['cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
    ['same-site sibling', { origin: 'https://sibling.test', 'sec-fetch-site': 'same-site' }],
    ['opaque Origin', { origin: 'null' }],
    ['our host named by a cross-site page', { origin: 'https://test', 'sec-fetch-site': 'cross-site' }],
  ];

  it('answer 403 "origin not allowed" and change nothing, with Basic credentials or a session cookie', async () => {
    const victim = await createUser(app, 'csrf-victim');
    const login = await app.request('/login', { method: 'POST', auth: null, json: { user: victim.login, password: SUBJECT_PASSWORD } });
    expect(login.status).toBe(200);
    const sessions = () => app.database.prisma.session.count({ where: { userId: victim.id } });
    const before = { audit: await audit(), sessions: await sessions() };
    for (const [method, path] of routes(victim.id)) {
      for (const [label, headers] of forged) {
        const res = await app.request(path, { method, headers, body: '' });
        expect(res.status, `${method} ${path}: ${label}`).toBe(403);
        expect(await res.json()).toMatchObject({ code: 'ACCESS_DENIED', message: expect.stringMatching(/^origin not allowed/) });
      }
    }
    expect(await disabled(victim.id)).toBe(false);
    expect({ audit: await audit(), sessions: await sessions() }).toEqual(before);
  });
  it('a form type is refused even with an empty body and no Origin', async () => {
    const victim = await createUser(app, 'csrf-typed');
    const before = await audit();
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=X', 'text/plain']) {
      const res = await app.request(`/api/admin/users/${victim.id}/disable`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: '',
      });
      expect(res.status, type).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('UNSUPPORTED_CONTENT_TYPE');
    }
    expect(await disabled(victim.id)).toBe(false);
    expect(await audit()).toBe(before);
  });
  it('API clients (JSON or nothing, no Origin) and the service’s own pages still write', async () => {
    const user = await createUser(app, 'csrf-legit');
    const disable = `/api/admin/users/${user.id}/disable`;
    const enable = `/api/admin/users/${user.id}/enable`;
    expect((await app.request(disable, { method: 'POST' })).status).toBe(200); // Grafana's clients: no body, no type
    expect(await disabled(user.id)).toBe(true);
    expect((await app.request(enable, { method: 'POST', headers: { 'content-type': 'application/json' } })).status).toBe(200);
    expect(await disabled(user.id)).toBe(false);
    const ownPage = { origin: 'http://test', 'sec-fetch-site': 'same-origin' };
    expect((await app.request(disable, { method: 'POST', headers: ownPage })).status).toBe(200); // the web console
    expect(await disabled(user.id)).toBe(true);
    const created = await app.request('/api/access-control/roles', {
      method: 'POST',
      headers: { ...ownPage, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ name: 'custom:csrf-own-origin', permissions: [] }),
    });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ name: 'custom:csrf-own-origin' });
  });
  it('an origin in CORS_ALLOWED_ORIGINS may write, the same request from another origin may not', async () => {
    const user = await createUser(app, 'csrf-allowed');
    const disable = `/api/admin/users/${user.id}/disable`;
    const from = (origin: string) => ({ origin, 'sec-fetch-site': 'cross-site' });
    expect((await app.request(disable, { method: 'POST', headers: from('https://console.example.evil') })).status).toBe(403);
    expect(await disabled(user.id)).toBe(false);
    expect((await app.request(disable, { method: 'POST', headers: from('https://console.example') })).status).toBe(200);
    expect(await disabled(user.id)).toBe(true);
  });
});

describe('cross-site login and logout', () => {
  const COOKIE = 'portcullis_session';
  const tokenOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith(`${COOKIE}=`));
  const login = (headers: Record<string, string>) =>
    app.request('/login', { method: 'POST', auth: null, headers, json: { user: ADMIN.login, password: ADMIN.password } });

  it('POST /login from another site starts no session', async () => {
    const before = await app.database.prisma.session.count();
    const forged: Record<string, string>[] = [{ origin: FOREIGN }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
    for (const headers of forged) {
      const res = await login(headers);
      expect(res.status).toBe(403);
      expect(tokenOf(res)).toBeUndefined();
    }
    expect(await app.database.prisma.session.count()).toBe(before);
    const own = await login({ origin: 'http://test', 'sec-fetch-site': 'same-origin' });
    expect(own.status).toBe(200);
    expect(tokenOf(own)).toBeDefined();
  });
  it('GET /logout reached from another site ends nothing; from the service itself it ends the session', async () => {
    const token = /^[^=]+=([^;]*)/.exec(tokenOf(await login({})) ?? '')?.[1] as string;
    const withCookie = (headers: Record<string, string>) => ({ auth: null, headers: { cookie: `${COOKIE}=${token}`, ...headers } });
    const forged = await app.request('/logout', withCookie({ 'sec-fetch-site': 'cross-site' }));
    expect(forged.status).toBe(403);
    expect((await app.request('/api/user', withCookie({}))).status).toBe(200);
    const typed = await app.request('/logout', withCookie({ 'sec-fetch-site': 'none' })); // typed in the address bar
    expect(typed.status).toBe(302);
    expect((await app.request('/api/user', withCookie({}))).status).toBe(401);
  });
});

describe('headers and health', () => {
  it('every answer carries the security headers', async () => {
    for (const path of ['/api/access-control/roles', '/api/nope', '/graphql', '/api/health']) {
      const res = await app.request(path, path === '/graphql' ? { method: 'POST', json: { query: '{ viewer { login } }' } } : {});
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
  });
  it('the GraphiQL page gets a policy naming its inline scripts by hash', async () => {
    const res = await app.request('/graphql', { headers: { accept: 'text/html', authorization: authHeader(ADMIN) } });
    expect(res.status).toBe(200);
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy.match(/'sha256-/g)?.length).toBeGreaterThanOrEqual(1);
    expect(policy).not.toContain("'unsafe-eval'");
    expect(await res.text()).toContain('<script>');
  });
  it('GET /api/health answers Grafana’s shape without credentials; nothing else is a health check', async () => {
    const res = await app.request('/api/health', { auth: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ database: 'ok', version: expect.any(String), commit: expect.any(String) });
    const shadowed = await app.request('/api/auth/keys/health', { method: 'DELETE' });
    expect(shadowed.status).toBe(400); // the route's own answer: "health" is no key id
    expect(((await shadowed.json()) as { code: string }).code).toBe('VALIDATION_FAILED');
    expect((await app.request('/health', { auth: null })).status).toBe(404);
    expect((await app.request('/api/access-control/roles/health')).status).toBe(404);
  });
});

describe('bad input answers 4xx', () => {
  it('malformed GET variables and extensions', async () => {
    for (const q of ['variables={', 'extensions=[1', 'variables=12']) {
      const res = await app.request(`/graphql?query=${encodeURIComponent('{ viewer { login } }')}&${q}`, {
        headers: { 'x-graphql-yoga-csrf': '1' },
      });
      expect(res.status, q).toBe(400);
    }
  });
  it('lone surrogates on both doors', async () => {
    const rest = await app.request('/api/access-control/roles', {
      method: 'POST',
      body: '{"name":"custom:\\ud800x","permissions":[]}',
      headers: { 'content-type': 'application/json' },
    });
    expect(rest.status).toBe(400);
    const gql = await app.graphql('query ($n: String) { viewer { login } }', { n: '\ud800' });
    expect(gql.status).toBe(400);
  });
});
