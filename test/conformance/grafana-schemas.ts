/**
 * Grafana's published OpenAPI schemas (fixtures/grafana-openapi3.json, see fixtures/README.md)
 * as validators of this service's answers: `checkAnswer(method, path, status, body)` finds
 * Grafana's operation for the path, requires the status to be one Grafana documents, and
 * validates the body against that status's schema with ajv. OpenAPI 3.0 schemas are JSON Schema
 * with a few differences, converted here: `nullable: true` becomes a null type, `x-` and
 * `example` keywords are dropped, Go's number formats (`int64`, ...) are checked as numbers.
 *
 * Where Grafana's own server answers differently from its published spec, the spec is wrong for
 * every client; those operations are listed in GRAFANA_SPEC_DEFECTS with the shape Grafana's
 * handler writes and where that is seen, and are validated against that instead.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const SPEC = JSON.parse(readFileSync(new URL('./fixtures/grafana-openapi3.json', import.meta.url), 'utf8')) as JsonObject;

/** OpenAPI 3.0 schema -> JSON Schema (draft 2020-12 subset ajv reads). */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'example' || key === 'nullable') continue;
    out[key] = toJsonSchema(value);
  }
  if (node.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (typeof out.$ref === 'string') out.$ref = `grafana${out.$ref}`;
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
// ajv-formats is CommonJS with a default export; under ESM interop it may arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (a: Ajv) => Ajv;
addFormats(ajv);
const isWhole = (n: number) => Number.isSafeInteger(n);
ajv.addFormat('int64', { type: 'number', validate: isWhole });
ajv.addFormat('int32', { type: 'number', validate: (n: number) => isWhole(n) && n >= -(2 ** 31) && n < 2 ** 31 });
ajv.addFormat('uint64', { type: 'number', validate: (n: number) => isWhole(n) && n >= 0 });
ajv.addFormat('uint8', { type: 'number', validate: (n: number) => isWhole(n) && n >= 0 && n < 256 });
ajv.addFormat('double', { type: 'number', validate: () => true });
ajv.addFormat('float', { type: 'number', validate: () => true });
ajv.addSchema(toJsonSchema(SPEC) as object, 'grafana');

const ref = (name: string): JsonObject => ({ $ref: `grafana#/components/schemas/${name}` });
const arrayOf = (name: string): JsonObject => ({ type: 'array', items: ref(name) });
const SUCCESS = ref('SuccessResponseBody');

/**
 * Operations whose published schema disagrees with what Grafana's server writes, and the schema
 * of what it writes (`<METHOD> <spec path>` -> status -> schema; other statuses keep the spec's).
 * Each is checked against the handler in grafana/grafana (pkg/api, pkg/services) or Grafana's
 * HTTP API documentation (docs/sources/developers/http_api).
 */
export const GRAFANA_SPEC_DEFECTS: Record<string, Record<string, JsonObject>> = {
  // pkg/services/searchusers/searchusers.go SearchUsers writes result.Users; the spec names the paged result.
  'GET /users': { '200': arrayOf('UserSearchHitDTO') },
  // serviceaccounts/api ListTokens writes an array of TokenDTO; the spec names one.
  'GET /serviceaccounts/{serviceAccountId}/tokens': { '200': arrayOf('TokenDTO') },
  // The enterprise handler writes the team's roles (docs: "List roles assigned to a team"); the spec says okResponse.
  'GET /access-control/teams/{teamId}/roles': { '200': arrayOf('RoleDTO') },
  // Docs (access_control.md "Create a new custom role"): HTTP/1.1 200 OK with the role; the spec says 201.
  'POST /access-control/roles': { '200': ref('RoleDTO'), '201': ref('RoleDTO') },
  // Docs (access_control.md "Get status") answer {"enabled": true}; the spec's `Status` is another package's integer type.
  'GET /access-control/status': {
    '200': { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'] },
  },
  // pkg/api/ldap_debug.go GetLDAPStatus writes one status per server; the spec says okResponse.
  'GET /admin/ldap/status': { '200': { type: 'array', items: { type: 'object' } } },
  // pkg/api/team_members.go addTeamMember answers 400 "User is already added to this team"; the spec lists no 400.
  'POST /teams/{team_id}/members': { '400': ref('ErrorResponseBody') },
  // Reload handlers answer response.Success (200, {message}); the spec says 202 acceptedResponse.
  'POST /admin/provisioning/access-control/reload': { '200': SUCCESS, '202': SUCCESS },
};

interface Operation {
  path: string;
  responses: Record<string, JsonObject>;
}

const specPaths = Object.keys(SPEC.paths as JsonObject);

/** Grafana's operation for `method` and a concrete `/api/...` path (query and trailing slash ignored). */
export function grafanaOperation(method: string, url: string): Operation | undefined {
  const parts = url
    .split('?')[0]
    ?.replace(/^\/api/, '')
    .split('/')
    .filter(Boolean) as string[];
  // Static segments win over templates, as in Grafana's router (/users/lookup is not /users/{id}).
  const candidates = specPaths
    .map((p) => ({ p, segs: p.split('/').filter(Boolean) }))
    .filter(({ segs }) => segs.length === parts.length && segs.every((s, i) => s.startsWith('{') || s === parts[i]))
    .sort((a, b) => a.segs.filter((s) => s.startsWith('{')).length - b.segs.filter((s) => s.startsWith('{')).length);
  const found = candidates[0];
  if (!found) return undefined;
  const item = (SPEC.paths as JsonObject)[found.p] as JsonObject;
  const op = item[method.toLowerCase()] as JsonObject | undefined;
  if (!op) return undefined;
  return { path: found.p, responses: op.responses as Record<string, JsonObject> };
}

/** The JSON Schema of `status` of `op`, following a `$ref` to components/responses; null when it has no body. */
function responseSchema(op: Operation, method: string, status: string): JsonObject | null | undefined {
  const defect = GRAFANA_SPEC_DEFECTS[`${method} ${op.path}`];
  if (defect && status in defect) return defect[status];
  let response = op.responses[status];
  if (!response) return undefined;
  if (typeof response.$ref === 'string') {
    const name = response.$ref.split('/').pop() as string;
    response = ((SPEC.components as JsonObject).responses as JsonObject)[name] as JsonObject;
  }
  const schema = ((response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.schema;
  return schema === undefined ? null : (toJsonSchema(schema) as JsonObject);
}

const compiled = new Map<string, ValidateFunction>();

/**
 * Problems of one answer against Grafana's spec ([] when it conforms, or when Grafana publishes
 * no operation for the path: `covered` says which).
 */
export function checkAnswer(method: string, url: string, status: number, body: unknown): { covered: boolean; problems: string[] } {
  const op = grafanaOperation(method, url);
  if (!op) return { covered: false, problems: [] };
  const schema = responseSchema(op, method, String(status));
  if (schema === undefined) {
    const documented = [...new Set([...Object.keys(op.responses), ...Object.keys(GRAFANA_SPEC_DEFECTS[`${method} ${op.path}`] ?? {})])];
    return {
      covered: true,
      problems: [`status ${status} is not one Grafana documents for ${method} ${op.path} (${documented.join(', ')})`],
    };
  }
  if (schema === null) return { covered: true, problems: [] };
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  if (validate(body)) return { covered: true, problems: [] };
  return {
    covered: true,
    problems: (validate.errors ?? []).map((e) => `${method} ${op.path} ${status}: ${e.instancePath || '(body)'} ${e.message ?? ''}`),
  };
}
