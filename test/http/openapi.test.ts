/**
 * The OpenAPI 3.1 document: generated from the route table, served without
 * credentials at /api/openapi.json, valid against the OpenAPI 3.1 schema (an independent
 * validator), naming every route with its permission, the query parameters its handler reads
 * (checked by running each handler on a query string that records what is read) and its answer's
 * shape (test/conformance/route-answers.test.ts validates real answers against it); and the
 * Swagger UI reference page, whose policy allows no inline script and no eval, with its files
 * served with their types and a long cache.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument, isDocumented, type OpenApiDocument } from '../../src/http/openapi.js';
import { routes as table } from '../../src/http/routes.js';
import { principalOf } from '../../src/kernel/principal.js';
import type { Route } from '../../src/modules/shared/rest.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { handlerInput } from '../support/requests.js';

/** The routes the document describes: all but the browser's sign-in routes (openapi.ts). */
const routes = table.filter(isDocumented);

let app: TestApp;
let doc: OpenApiDocument;

beforeAll(async () => {
  app = await createTestApp();
  const res = await app.request('/api/openapi.json', { auth: null });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await res.json()) as OpenApiDocument;
});

afterAll(() => app.close());

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has every route of the table, with its method, path parameters and success status', () => {
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase() as 'get'];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      if (!op) continue;
      const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      expect(op.parameters?.filter((p) => p.in === 'path').map((p) => p.name) ?? [], route.path).toEqual(params);
      expect(Object.keys(op.responses), route.path).toContain(String(route.status ?? 200));
    }
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    // + the probes /api/health and /api/ready, Grafana's /api/frontend/settings, and the document itself
    expect(operations.length).toBe(routes.length + 4);
    expect(new Set(operations.map((op) => op?.operationId)).size).toBe(operations.length);
  });

  it('names the permission of each guarded route, from the requirement the service checks', () => {
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase() as 'get'];
      if (route.requires === 'signed-in') {
        expect(op?.['x-required-permission']).toBe('signed-in');
        continue;
      }
      expect(op?.['x-required-permission'], route.path).toBe(route.requires.text());
      expect(op?.description).toContain(route.requires.text());
      expect(Object.keys(op?.responses ?? {})).toContain('403');
    }
    const createRole = doc.paths['/api/access-control/roles']?.post;
    expect(createRole?.['x-required-permission']).toContain('roles:write on permissions:type:delegate');
  });

  it('describes request bodies with the JSON Schema of the zod schema the service parses', () => {
    const createRole = doc.paths['/api/access-control/roles']?.post;
    const schema = createRole?.requestBody?.content['application/json'].schema as {
      properties: Record<string, { maxLength?: number }>;
      required: string[];
    };
    expect(createRole?.requestBody?.required).toBe(true);
    expect(schema.required).toEqual(['name']);
    expect(schema.properties.name?.maxLength).toBe(190);
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['uid', 'global', 'version', 'permissions']));
    const reset = doc.paths['/api/access-control/roles/hard-reset']?.post;
    expect(reset?.requestBody?.required).toBe(false);
    for (const route of routes.filter((r) => r.body)) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase() as 'get'];
      expect(op?.requestBody, `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it('has the operations plugins answer before the route table: health, readiness, frontend settings, itself', () => {
    expect(doc.paths['/api/health']?.get?.responses).toHaveProperty('503');
    expect(doc.paths['/api/ready']?.get).toMatchObject({ operationId: 'getReady', security: [] });
    expect(Object.keys(doc.paths['/api/ready']?.get?.responses ?? {})).toEqual(['200', '503']);
    expect(doc.paths['/api/frontend/settings']?.get).toMatchObject({ operationId: 'getFrontendSettings', security: [] });
    expect(doc.components.schemas.FrontendSettings).toMatchObject({ required: ['buildInfo'] });
    expect(doc.paths['/api/openapi.json']?.get).toBeDefined();
  });

  it('the probes answer what the document says they answer', async () => {
    const ready = (await (await app.request('/api/ready', { auth: null })).json()) as Record<string, unknown>;
    const readiness = doc.components.schemas.Readiness as { properties: object; required: string[] };
    expect(Object.keys(ready).every((k) => k in readiness.properties)).toBe(true);
    expect(Object.keys(ready)).toEqual(expect.arrayContaining(readiness.required));
    const settings = (await (await app.request('/api/frontend/settings', { auth: null })).json()) as { buildInfo: object };
    const buildInfo = (doc.components.schemas.FrontendSettings as { properties: { buildInfo: { required: string[] } } }).properties
      .buildInfo;
    expect(Object.keys(settings)).toEqual(['buildInfo']);
    expect(Object.keys(settings.buildInfo).sort()).toEqual([...buildInfo.required].sort());
  });

  it('declares the query parameters of the directory searches and listings', () => {
    const names = (path: string) => (doc.paths[path]?.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    expect(names('/api/users')).toEqual(['query', 'page', 'perpage']);
    expect(names('/api/users/search')).toEqual(['query', 'page', 'perpage']);
    expect(names('/api/users/lookup')).toEqual(['loginOrEmail']);
    expect(names('/api/teams/search')).toEqual(['query', 'page', 'perpage', 'accesscontrol', 'name', 'teamId', 'sort']);
    expect(names('/api/teams/{teamId}')).toEqual(['accesscontrol']);
    expect(names('/api/serviceaccounts/search')).toEqual(['query', 'page', 'perpage', 'accesscontrol', 'disabled', 'Disabled']);
    expect(names('/api/serviceaccounts/{id}')).toEqual(['accesscontrol']);
    expect(names('/api/orgs')).toEqual(['query', 'name', 'page', 'perpage']);
    expect(names('/api/org/users')).toEqual(['query', 'limit']);
    expect(names('/api/org/users/lookup')).toEqual(['query', 'limit']);
    expect(names('/api/org/users/search')).toEqual(['query', 'page', 'perpage']);
    expect(names('/api/orgs/{orgId}/users/search')).toEqual(['query', 'page', 'perpage']);
    // Grafana reads no query parameter on these: neither does this service (see the next test).
    expect(names('/api/orgs/{orgId}/users')).toEqual([]);
    expect(names('/api/users/{id}/orgs')).toEqual([]);
    expect(names('/api/user/orgs')).toEqual([]);
    const teamId = doc.paths['/api/teams/search']?.get?.parameters?.find((p) => p.name === 'teamId');
    expect(teamId?.schema).toEqual({ type: 'array', items: { type: 'integer' } });
  });

  it('gives the directory, roles, assignments, API keys and tokens the JSON Schema of their answers', () => {
    // Their modules' routes; /api/admin/users/:id/logout belongs to the sessions module, which describes none yet.
    const described =
      /^\/api\/(users|admin\/users|org|orgs|teams|serviceaccounts|auth\/keys|access-control\/(roles|status|users\/:userId\/roles|teams\/:teamId\/roles))(\/|$)/;
    const owned = routes.filter((r) => described.test(r.path) && r.path !== '/api/admin/users/:id/logout');
    expect(owned.length).toBeGreaterThan(60);
    for (const route of owned) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase() as 'get'];
      const answer = op?.responses[String(route.status ?? 200)] as { content: { 'application/json': { schema: object } } };
      expect(answer.content['application/json'].schema, `${route.method} ${route.path}`).not.toEqual({});
    }
    expect(doc.paths['/api/teams/search']?.get?.responses['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SearchTeamQueryResult' } } },
    });
    expect(doc.components.schemas.TeamDTO).toMatchObject({ type: 'object', additionalProperties: false });
    expect(doc.components.schemas.SearchTeamQueryResult).toMatchObject({
      properties: { teams: { type: 'array', items: { $ref: '#/components/schemas/TeamDTO' } } },
    });
  });

  it('leaves every reference resolvable: each $ref names a component the document has', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(schemas|responses)\/([^"]+)"/g)];
    expect(refs.length).toBeGreaterThan(50);
    for (const [, kind, name] of refs) expect(doc.components[kind as 'schemas'], `${kind}/${name}`).toHaveProperty(name as string);
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
  });

  it('declares query parameters with Grafana’s boolean spellings', () => {
    const list = doc.paths['/api/access-control/roles']?.get;
    const includeHidden = list?.parameters?.find((p) => p.name === 'includeHidden');
    expect(includeHidden).toMatchObject({ in: 'query', required: false });
    expect(includeHidden?.schema.enum).toEqual(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False']);
  });

  it('declares basic, bearer and the session cookie, and the error shape with Grafana’s 403 fields', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basic', 'bearer', 'session']);
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: app.config.auth.cookieName });
    expect(Object.keys(doc.components.schemas.Error?.properties as object)).toEqual(['message', 'code', 'title', 'accessErrorId']);
    expect(Object.keys(doc.components.responses).sort()).toEqual(['BadRequest', 'Forbidden', 'NotFound', 'Unauthorized']);
  });

  it('leaves out the access-control paths in the oss edition, where they answer 404', async () => {
    const oss = buildOpenApiDocument(routes, { version: 'x', cookieName: 'c', unavailablePrefix: '/api/access-control/' });
    expect(Object.keys(oss.paths).filter((p) => p.startsWith('/api/access-control/'))).toEqual([]);
    expect(oss.paths['/api/auth/keys']).toBeDefined();
  });

  it('refuses two routes for one method and path', () => {
    const [first] = routes;
    if (!first) throw new Error('no routes');
    expect(() => buildOpenApiDocument([first, first], { version: 'x', cookieName: 'c' })).toThrow(/two routes/);
  });
});

/** A query string that records the names its reader asks for; `*` when it is read whole (iterated). */
function recordingQuery(): { query: URLSearchParams; read: Set<string> } {
  const read = new Set<string>();
  const target = new URLSearchParams();
  const query = new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      if (property === Symbol.iterator || property === 'entries' || property === 'keys' || property === 'forEach') read.add('*');
      if (property === 'get' || property === 'getAll' || property === 'has') {
        return (name: string) => {
          read.add(name);
          return (value as (n: string) => unknown).call(object, name);
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(object);
    },
  });
  return { query, read };
}

describe('the query parameters each route declares are the ones its handler reads', () => {
  const admin = principalOf({ id: 1, login: 'admin', isServiceAccount: false, isServiceAdmin: true }, 1, 'Admin', 'basic');
  // Path parameters that are not ids; every other one is 1.
  const values: Record<string, string> = { uid: 'basic_viewer', roleUID: 'basic_viewer', name: 'Main Org.', productId: 'probe' };

  // Reads (GET) run as the Service Admin; writes as no one, so the service refuses before changing
  // anything (query strings are read before the service is called).
  const nobody = principalOf({ id: 999_999, login: 'nobody', isServiceAccount: false, isServiceAdmin: false }, 1, 'None', 'basic');

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route: Route) => {
    const params = Object.fromEntries([...route.path.matchAll(/:(\w+)/g)].map(([, n]) => [n, values[n as string] ?? '1']));
    const { query, read } = recordingQuery();
    const principal = route.method === 'GET' ? admin : nobody;
    await route.handler(handlerInput(app, { principal, params, query, body: undefined, clientAddress: 'test' })).catch(() => undefined);
    const declared = [...new Set((route.query ?? []).map((q) => q.name))].sort();
    // A handler that hands the whole query string to its service (permissions search) declares what that service reads.
    if (read.has('*')) expect(declared.length).toBeGreaterThan(0);
    else expect([...read].sort()).toEqual(declared);
  });
});

describe('GET /swagger', () => {
  it('serves Swagger UI without credentials, with no inline script', async () => {
    const res = await app.request('/swagger', { auth: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).toContain('data-url="api/openapi.json"');
  });

  it('serves the files the page names, with their content types and a year-long immutable cache', async () => {
    const html = await (await app.request('/swagger')).text();
    const files = [...html.matchAll(/(?:src|href)="(swagger\/assets\/[^"]+)"/g)].map((m) => `/${m[1]}`);
    expect(files.length).toBeGreaterThanOrEqual(4);
    const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', png: 'image/png' };
    // Scripts and a stylesheet at least, so the type checks below check something.
    expect(files.map((f) => f.split('.').pop())).toEqual(expect.arrayContaining(['js', 'css']));
    for (const file of files) {
      const res = await app.request(file, { auth: null });
      expect(res.status, file).toBe(200);
      expect(res.headers.get('content-type'), file).toBe(types[file.split('.').pop() ?? '']);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
  });

  it('answers 404 for any other file, and HEAD without a body', async () => {
    const html = await (await app.request('/swagger')).text();
    const bundle = /src="(swagger\/assets\/[^"]+\/)swagger-ui-bundle\.js"/.exec(html)?.[1];
    expect(bundle).toMatch(/^swagger\/assets\/.+\/$/);
    // The folder serves its bundle: the 404s below are the files' absence, not a wrong folder.
    expect((await app.request(`/${bundle}swagger-ui-bundle.js`, { auth: null })).status).toBe(200);
    expect((await app.request(`/${bundle}package.json`, { auth: null })).status).toBe(404);
    expect((await app.request(`/${bundle}..%2Fpackage.json`, { auth: null })).status).toBe(404);
    const head = await app.request('/api/openapi.json', { method: 'HEAD', auth: null });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
