/**
 * The JSON Schema side of the OpenAPI document (openapi.ts): zod schemas turned into JSON Schema
 * through zod's `toJSONSchema` (a body's input side, an answer's output side, with shapes named by
 * `.meta({ id })` collected as `components/schemas`, Grafana's DTO names), and the fixed
 * components every document carries: the one error shape and its responses, and the answers of
 * the probes and frontend settings served by plugins (probes.ts).
 */
import { type ZodType, z } from 'zod';

/** A JSON Schema object (OpenAPI 3.1 uses JSON Schema 2020-12 as is). */
export type JsonSchema = Record<string, unknown>;

const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Every error: a message for people and a stable code (src/kernel/errors.ts). A 403 also has Grafana’s title and accessErrorId.',
  properties: {
    message: { type: 'string' },
    code: { type: 'string', description: 'SCREAMING_SNAKE code, e.g. VALIDATION_FAILED, ACCESS_DENIED, ROLE_NOT_FOUND' },
    title: { type: 'string', description: '403 only: "Access denied"' },
    accessErrorId: { type: 'string', description: '403 only: "ACE" and ten digits, also logged', pattern: '^ACE[0-9]{10}$' },
  },
  required: ['message', 'code'],
};

/** `components/responses`: the error answers operations refer to by status. */
export const ERROR_RESPONSES: Record<string, JsonSchema> = {
  BadRequest: errorResponse('Bad request: invalid JSON, wrong content type, or missing or invalid fields (VALIDATION_FAILED, ...)'),
  Unauthorized: errorResponse('Missing or invalid credentials'),
  Forbidden: errorResponse('The caller lacks the permission named in the message (ACCESS_DENIED)'),
  NotFound: errorResponse('No such object, or one behind another organization’s wall'),
};

/**
 * The `components/schemas` that are not answers of the route table: `Error`, and the answers of
 * `/api/health`, `/api/ready` and `/api/frontend/settings`. In this order, after the route
 * table's named answers.
 */
export const FIXED_SCHEMAS: Record<string, JsonSchema> = {
  Error: ERROR_SCHEMA,
  Health: {
    type: 'object',
    properties: { database: { type: 'string', enum: ['ok', 'failing'] }, version: { type: 'string' }, commit: { type: 'string' } },
    required: ['database', 'version', 'commit'],
    additionalProperties: false,
  },
  Readiness: {
    type: 'object',
    properties: {
      ready: { type: 'boolean' },
      reason: { type: 'string', description: 'Why not: `starting`, `shutting down` or `database not answering`' },
    },
    required: ['ready'],
    additionalProperties: false,
  },
  FrontendSettings: {
    type: 'object',
    properties: {
      buildInfo: {
        type: 'object',
        properties: { version: { type: 'string' }, commit: { type: 'string' }, env: { type: 'string', const: 'production' } },
        required: ['version', 'commit', 'env'],
        additionalProperties: false,
      },
    },
    required: ['buildInfo'],
    additionalProperties: false,
  },
};

function errorResponse(description: string): JsonSchema {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

/** A response object: `description` and a JSON body shaped by `schema`. */
export function jsonResponse(description: string, schema: JsonSchema): JsonSchema {
  return { description, content: { 'application/json': { schema } } };
}

/** JSON Schema of what a client sends for `schema`: the input side of transforms and defaults. */
export function inputSchema(schema: ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

const COMPONENT = '#/components/schemas/';

/**
 * `node` with every `$ref` into zod's `$defs` pointed at `components/schemas` instead, and the
 * safe-integer bounds zod writes for every `z.int()` dropped (they say nothing to a reader).
 */
function toComponentRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toComponentRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/$defs/')) out[key] = COMPONENT + value.slice('#/$defs/'.length);
    else if ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) continue;
    else out[key] = toComponentRefs(value);
  }
  return out;
}

/**
 * JSON Schema of an answer shaped by `schema` (the output side). Named shapes (`.meta({ id })`)
 * are added to `components` and referenced; the same name twice must be the same shape.
 * @throws Error when two different shapes carry one name.
 */
export function outputSchema(schema: ZodType, components: Record<string, JsonSchema>): JsonSchema {
  const converted = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  const { $schema: _dialect, $defs, ...root } = converted;
  for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
    const shaped = toComponentRefs(def) as JsonSchema;
    const known = components[name];
    if (known && JSON.stringify(known) !== JSON.stringify(shaped)) throw new Error(`two answer shapes are named ${name}`);
    components[name] = shaped;
  }
  return toComponentRefs(root) as JsonSchema;
}
