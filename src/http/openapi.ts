/**
 * The OpenAPI 3.1 document of the REST door, generated from the route table (src/http/routes.ts)
 * so it cannot drift from what is served: one operation per route, with its
 * path parameters, the query parameters and JSON body the route declares (the body's JSON Schema
 * comes from the same zod schema the service parses it with), the permission it needs
 * (`description` and `x-required-permission`, from the requirement the service checks), its
 * success status with the answer's JSON Schema (from the route's `response` zod schema; shapes
 * named with `.meta({ id })` become `components/schemas`, Grafana's DTO names) and the one error
 * shape; plus the probes and this document, which are answered by plugins before the route
 * table. The browser's sign-in routes (`requires: 'anonymous'`: redirects, cookies, an HTML page)
 * are not part of the JSON API it describes; docs/ and SECURITY.md list them. The zod-to-JSON-Schema conversion and the fixed components are in openapi-schemas.ts.
 * Served by openapi-routes.ts.
 */
import { needs, type Requirement } from '../kernel/requirements.js';
import type { Method, QueryParam, Route } from '../modules/shared/rest.js';
import { ERROR_RESPONSES, FIXED_SCHEMAS, inputSchema, type JsonSchema, jsonResponse, outputSchema } from './openapi-schemas.js';

/** The subset of an OpenAPI 3.1 operation this generator writes. */
export interface OpenApiOperation {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  'x-required-permission': string;
  parameters?: OpenApiParameter[];
  requestBody?: { required: boolean; content: { 'application/json': { schema: JsonSchema } } };
  responses: Record<string, unknown>;
  security: Record<string, string[]>[];
}

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description: string;
  schema: JsonSchema;
}

/** The document: `openapi: 3.1.0`, info, tags, paths, components. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags: { name: string }[];
  paths: Record<string, Partial<Record<Lowercase<Method>, OpenApiOperation>>>;
  components: {
    securitySchemes: Record<string, JsonSchema>;
    schemas: Record<string, JsonSchema>;
    responses: Record<string, JsonSchema>;
  };
}

export interface OpenApiOptions {
  /** The service's version (package.json). */
  version: string;
  /** Name of the session cookie (LOGIN_COOKIE_NAME), for the cookie security scheme. */
  cookieName: string;
  /** Routes under this prefix are left out (the oss edition's /api/access-control/, answered 404). */
  unavailablePrefix?: string;
}

/**
 * Operations that are not in the route table but are served under /api/ by plugins before it:
 * the probes and Grafana's frontend settings (probes.ts) and this document (openapi-routes.ts).
 */
const EXTRA_PATHS: OpenApiDocument['paths'] = {
  '/api/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Health of the service and its database (Grafana shape), no credentials',
      description: 'Answers 503 with `database: "failing"` when the database does not answer within a second.',
      tags: ['health'],
      'x-required-permission': 'none',
      responses: {
        '200': jsonResponse('The service and its database answer', { $ref: '#/components/schemas/Health' }),
        '503': jsonResponse('The database does not answer', { $ref: '#/components/schemas/Health' }),
      },
      security: [],
    },
  },
  '/api/ready': {
    get: {
      operationId: 'getReady',
      summary: 'Readiness for orchestrators, no credentials',
      description:
        'Answers 200 `{"ready": true}` once the process has finished starting (migrations, seed, provisioning), is not shutting down and its database answers; otherwise 503 `{"ready": false, "reason"}`. Liveness is `/api/health`.',
      tags: ['health'],
      'x-required-permission': 'none',
      responses: {
        '200': jsonResponse('Ready for traffic', { $ref: '#/components/schemas/Readiness' }),
        '503': jsonResponse('Starting, shutting down, or the database does not answer', { $ref: '#/components/schemas/Readiness' }),
      },
      security: [],
    },
  },
  '/api/frontend/settings': {
    get: {
      operationId: 'getFrontendSettings',
      summary: 'The part of Grafana’s frontend settings API clients read for the server version, no credentials',
      description: 'Only `buildInfo` (`version`, `commit`, `env`): what clients such as grafana-client read to learn the version.',
      tags: ['health'],
      'x-required-permission': 'none',
      responses: { '200': jsonResponse('The build', { $ref: '#/components/schemas/FrontendSettings' }) },
      security: [],
    },
  },
  '/api/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document, no credentials',
      description: 'Generated from the route table at start. The browsable reference is `/swagger`.',
      tags: ['documentation'],
      'x-required-permission': 'none',
      responses: { '200': jsonResponse('The document', { type: 'object' }) },
      security: [],
    },
  },
};

/** `/api/access-control/roles/:uid` -> `/api/access-control/roles/{uid}` and its parameter names. */
function openApiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const converted = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: converted, params };
}

/** Grafana-like group of a path: `/api/access-control/...` -> `access-control`. */
function tagOf(path: string): string {
  return path.split('/').filter(Boolean)[1] ?? 'api';
}

/** `GET /api/access-control/roles/:uid` -> `getAccessControlRolesByUid` (unique per method and path). */
function operationId(route: Route): string {
  const words = route.path
    .split('/')
    .filter((s) => s.length > 0 && s !== 'api')
    .map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s))
    .flatMap((s) => s.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [route.method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join('');
}

function pathParameter(name: string): OpenApiParameter {
  const numeric = /id$/i.test(name) && !/uid$/i.test(name);
  return {
    name,
    in: 'path',
    required: true,
    description: numeric ? `${name}: a positive id` : name,
    schema: numeric ? { type: 'integer', minimum: 1 } : { type: 'string' },
  };
}

function queryParameter(q: QueryParam): OpenApiParameter {
  const one: JsonSchema =
    q.type === 'boolean'
      ? // Go's strconv.ParseBool spellings, as Grafana reads them (parseBooleanParam).
        { type: 'string', enum: ['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'] }
      : { type: q.type };
  // A repeated parameter is an array in OpenAPI's default query style (form, exploded): a=1&a=2.
  const schema = q.repeated ? { type: 'array', items: one } : one;
  return { name: q.name, in: 'query', required: false, description: q.description, schema };
}

/** The operation of one route; named answer shapes are added to `components`. */
function operationOf(
  route: Route & { requires: Requirement<string> | 'signed-in' },
  components: Record<string, JsonSchema>,
): OpenApiOperation {
  const { params } = openApiPath(route.path);
  const guarded = route.requires !== 'signed-in';
  const permission = route.requires === 'signed-in' ? 'signed-in' : route.requires.text();
  const success = String(route.status ?? 200);
  const responses: Record<string, unknown> = {
    [success]: jsonResponse('Success', route.response ? outputSchema(route.response, components) : {}),
    '400': { $ref: '#/components/responses/BadRequest' },
    '401': { $ref: '#/components/responses/Unauthorized' },
  };
  if (route.responseHeaders) {
    const headers = Object.entries(route.responseHeaders).map(([name, description]) => [name, { description, schema: { type: 'string' } }]);
    responses[success] = { ...(responses[success] as object), headers: Object.fromEntries(headers) };
  }
  if (guarded) responses['403'] = { $ref: '#/components/responses/Forbidden' };
  if (params.length > 0) responses['404'] = { $ref: '#/components/responses/NotFound' };
  const parameters = [...params.map(pathParameter), ...(route.query ?? []).map(queryParameter)];
  const op: OpenApiOperation = {
    operationId: operationId(route),
    summary: route.summary ?? `${route.method} ${route.path}`,
    description: route.requires === 'signed-in' ? 'Needs credentials only.' : needs(route.requires),
    tags: [tagOf(route.path)],
    'x-required-permission': permission,
    responses,
    security: [{ basic: [] }, { bearer: [] }, { session: [] }],
  };
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const schema = inputSchema(route.body);
    op.requestBody = { required: !route.body.safeParse(undefined).success, content: { 'application/json': { schema } } };
  }
  return op;
}

/** Whether the document describes `route`: every route but the browser's sign-in routes (module comment). */
export function isDocumented(route: Route): route is Route & { requires: Requirement<string> | 'signed-in' } {
  return route.requires !== 'anonymous';
}

/**
 * Builds the document for `routes`.
 * @throws Error when two routes share a method and path (the router would shadow one).
 */
export function buildOpenApiDocument(routes: readonly Route[], options: OpenApiOptions): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const answers: Record<string, JsonSchema> = {};
  for (const route of routes) {
    if (options.unavailablePrefix && route.path.startsWith(options.unavailablePrefix)) continue;
    if (!isDocumented(route)) continue;
    const { path } = openApiPath(route.path);
    const item = paths[path] ?? {};
    const method = route.method.toLowerCase() as Lowercase<Method>;
    if (item[method]) throw new Error(`two routes for ${route.method} ${route.path}`);
    item[method] = operationOf(route, answers);
    paths[path] = item;
  }
  Object.assign(paths, EXTRA_PATHS);
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  const tags = [...new Set(Object.values(sorted).flatMap((item) => Object.values(item).flatMap((op) => op?.tags ?? [])))].sort();
  return {
    openapi: '3.1.0',
    info: {
      title: 'portcullis',
      version: options.version,
      description:
        'Access-control gateway implementing Grafana’s access-control, API-key and directory HTTP API. Generated from the route table. ' +
        'Send `X-Service-Org-Id` (or Grafana’s `X-Grafana-Org-Id`) to act in another organization.',
    },
    tags: tags.map((name) => ({ name })),
    paths: sorted,
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Login (or email) and password; or user `api_key` and a key as password' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'API key or service-account token' },
        session: { type: 'apiKey', in: 'cookie', name: options.cookieName, description: 'Session cookie from POST /login' },
      },
      schemas: {
        ...Object.fromEntries(Object.entries(answers).sort(([a], [b]) => a.localeCompare(b))),
        ...FIXED_SCHEMAS,
      },
      responses: ERROR_RESPONSES,
    },
  };
}
