/**
 * The inputs of the fuzz test (fuzz.test.ts): fast-check generators of random REST and GraphQL
 * requests, and the cases every run sends whatever the random draw: each route of the route
 * table with each edge value in every path parameter, and each root field of the schema with
 * edge values in every argument.
 */
import fc from 'fast-check';
import {
  buildSchema,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { routes } from '../../src/http/routes.js';

/** Values that have broken parsers before: empty, signs, overflow, escapes, paths, a lone surrogate, reserved prefixes. */
export const EDGE_TEXT = [
  '',
  '0',
  '-1',
  '1',
  '2147483648',
  '99999999999999999999',
  'null',
  '%',
  '%zz',
  '../..',
  'health',
  '\ud800',
  'fixed:x',
  'basic:viewer',
] as const;

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom(...EDGE_TEXT));
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  fc
    .record({
      name: text,
      uid: fc.option(text),
      version: fc.option(fc.integer()),
      permissions: fc.option(fc.array(fc.record({ action: text, scope: fc.option(text) }), { maxLength: 4 })),
      role: fc.option(text),
      roleUid: fc.option(text),
      global: fc.option(fc.boolean()),
    })
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 60 }),
);
/** Content types a body may claim. */
export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
] as const;
const contentType = fc.constantFrom(...CONTENT_TYPES);
const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

/** A path segment; a lone surrogate (which encodeURIComponent refuses) goes as its raw UTF-8 bytes. */
export const segment = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
};

/** A REST request: a route of the table with random parameters, query, method (mostly its own), body and content type. */
export const restRequest = fc
  .record({
    route: fc.constantFrom(...routes),
    params: fc.array(text, { minLength: 4, maxLength: 4 }),
    query: fc.array(
      fc.tuple(
        fc.constantFrom('global', 'includeHidden', 'delegatable', 'force', 'reloadcache', 'action', 'scope', 'includeExpired', 'x'),
        text,
      ),
      { maxLength: 3 },
    ),
    sameMethod: fc.boolean(),
    method,
    body,
    contentType,
  })
  .map((r) => {
    let n = 0;
    const path = r.route.path.replace(/:[a-zA-Z]+/g, () => segment(r.params[n++] ?? ''));
    const qs = new URLSearchParams(r.query).toString();
    return {
      method: r.sameMethod ? r.route.method : r.method,
      url: `${path}${qs ? `?${qs}` : ''}`,
      body: r.body,
      contentType: r.contentType,
    };
  });

const FIELDS = [
  'viewer',
  'roles',
  'role',
  'permissions',
  'action',
  'scope',
  'uid',
  'name',
  'version',
  'teams',
  'users',
  'user',
  'apiKeys',
  'id',
  'login',
  'orgId',
  'orgRole',
  '__typename',
  '__schema',
  'types',
  'createRole',
  'deleteRole',
  'createApiKey',
  'key',
  'x',
];
const selection: fc.Arbitrary<string> = fc.letrec((tie) => ({
  set: fc.array(tie('field'), { minLength: 1, maxLength: 4 }).map((fs) => `{ ${fs.join(' ')} }`),
  field: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...FIELDS),
    fc
      .tuple(
        fc.constantFrom(...FIELDS),
        fc.option(fc.constantFrom('(uid: "x")', '(id: 1)', '(input: {name: "n"})', '(id: "a")', '(includeHidden: true)')),
        tie('set'),
      )
      .map(([f, a, s]) => `${f}${a ?? ''} ${s}`),
  ),
})).set as fc.Arbitrary<string>;
const document = fc.oneof(
  selection,
  selection.map((s) => `mutation ${s}`),
  fc.string({ maxLength: 80 }),
  fc.constantFrom('{', 'query ($a: Int!) { role(uid: $a) { uid } }', '{ viewer { login } } { viewer { login } }', 'subscription { x }'),
);
/** A GraphQL request: GET or POST, a random document over the schema's names, random variables. */
export const graphqlRequest = fc.record({
  get: fc.boolean(),
  query: document,
  variables: fc.oneof(
    jsonValue.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 30 }),
  ),
  extensions: fc.option(fc.string({ maxLength: 20 })),
  contentType,
});

/** One request of the fixed cases. */
export interface FixedRequest {
  method: string;
  url: string;
  body?: string;
  contentType: string;
}

/** Bodies the fixed REST cases cycle through: well formed for most writes, then broken ones. */
const FIXED_BODIES = [
  JSON.stringify({ name: 'fuzz', uid: 'fuzz', version: 1, permissions: [{ action: 'a:b', scope: '*' }], role: 'Viewer', roleUid: 'x' }),
  '{"name":',
  '[]',
  JSON.stringify({ name: '\ud800', version: -1, role: 'Admin', global: true, permissions: [{ action: '', scope: '**' }] }),
];

/**
 * Every route of the route table with its own method and each edge value in every path parameter;
 * bodies and content types cycle through their lists so every one meets every route.
 */
export function everyRouteCase(): FixedRequest[] {
  const out: FixedRequest[] = [];
  let n = 0;
  for (const route of routes) {
    for (const value of EDGE_TEXT) {
      const url = route.path.replace(/:[a-zA-Z]+/g, () => segment(value));
      const withBody = route.method !== 'GET';
      out.push({
        method: route.method,
        url,
        ...(withBody && { body: FIXED_BODIES[n % FIXED_BODIES.length] }),
        contentType: CONTENT_TYPES[n % CONTENT_TYPES.length] as string,
      });
      n++;
    }
  }
  return out;
}

/** Edge values per scalar, in three sets: small, at the limits, and malformed for the type where GraphQL lets them through. */
const EDGE_SCALARS: Record<string, unknown[]> = {
  Int: [0, -1, 2147483647],
  Float: [0, -1e308, 1e308],
  String: ['', '../..%zz', 'x'.repeat(200)],
  ID: ['', '-1', 'fixed:x'],
  Boolean: [false, true, true],
};

/** A value of `type` from edge set `set` (0..2): lists of one, input objects with their required fields. */
function edgeValue(type: GraphQLInputType, set: number, depth = 0): unknown {
  if (isNonNullType(type)) return edgeValue(type.ofType, set, depth);
  if (isListType(type)) return set === 0 ? [] : [edgeValue(type.ofType, set, depth)];
  if (isEnumType(type)) return type.getValues()[set % type.getValues().length]?.name;
  if (isInputObjectType(type)) {
    if (depth > 3) return {};
    const fields = Object.values(type.getFields()).filter((f) => set > 0 || isNonNullType(f.type));
    return Object.fromEntries(fields.map((f) => [f.name, edgeValue(f.type, set, depth + 1)]));
  }
  return EDGE_SCALARS[type.name]?.[set] ?? '';
}

/** The selection of a field's result: its scalar fields, or __typename. */
function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isLeafType(type)) return '';
  if (!isObjectType(type)) return '{ __typename }';
  const leaves = Object.values(type.getFields()).filter((f) => isLeafType(getNamedType(f.type)) && f.args.length === 0);
  return `{ __typename ${leaves.map((f) => f.name).join(' ')} }`;
}

/**
 * Every root field (queries and mutations) of `schemaText`, each with the three edge sets passed
 * as variables: typed, so they reach the resolvers and services instead of stopping at validation.
 */
export function everyRootFieldCase(schemaText: string): FixedRequest[] {
  const schema = buildSchema(schemaText);
  const out: FixedRequest[] = [];
  for (const [keyword, root] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const) {
    for (const field of Object.values(root?.getFields() ?? {})) {
      const args = field.args as readonly GraphQLArgument[];
      const declared = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
      const passed = args.map((a) => `${a.name}: $${a.name}`).join(', ');
      const query = `${keyword}${declared ? ` (${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''} ${selectionOf(field)} }`;
      for (let set = 0; set < 3; set++) {
        const variables = Object.fromEntries(args.map((a) => [a.name, edgeValue(a.type, set)]));
        out.push({ method: 'POST', url: '/graphql', body: JSON.stringify({ query, variables }), contentType: 'application/json' });
      }
    }
  }
  return out;
}
