/**
 * Limits of one GraphQL operation, all checked before anything runs:
 * - from GraphQL Armor's envelop plugins: lexer tokens (checked while parsing, so a token bomb
 *   stops early), field depth (fragments flattened), aliases, directives;
 * - list nesting: at most `maxListDepth` lists inside one another (fragments flattened);
 * - cost, list-aware (@pothos/plugin-complexity): every field costs 1 and a list multiplies its
 *   selection by the most rows it can answer (its `first` / `perPage`, a declared bound, or
 *   DEFAULT_LIST_BOUND: modules/shared/builder.ts), so nested lists multiply as their answer
 *   would. The cost depends on the request's variables (`first: $n`), so it is computed for every
 *   request after yoga's (cached) validation, never cached itself.
 * A refused document answers 400 with yoga's GRAPHQL_PARSE_FAILED or GRAPHQL_VALIDATION_FAILED code
 * (use-bad-request-status.ts); the cost and list-depth refusals say which limit in
 * `extensions.limit`. Introspection (`__schema`, `__type`) is limited like any query except for
 * cost and list nesting: GraphiQL's introspection query is deep, and its size is the schema's.
 */
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createComplexityRule } from '@pothos/plugin-complexity';
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
  validate,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Armor's rules throw their error by default, which aborts validation with an error yoga does
 * not recognise (another copy of graphql-js) and answers 200; reported instead, it becomes an
 * ordinary validation error (400 GRAPHQL_VALIDATION_FAILED, use-bad-request-status.ts).
 */
const report = {
  propagateOnRejection: false,
  onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)],
};

/** The bounds, from config (SecurityConfig). */
export interface GraphQLLimits {
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxDirectives: number;
  maxCost: number;
  maxListDepth: number;
}

/**
 * The deepest nesting of list fields in `document`: `{ teams { members { login } } }` is 2.
 * Fragments are flattened (each selection set is measured once, so a fragment used many times
 * costs nothing more); introspection fields are not counted. Fields the schema does not know
 * count 0 (validation reports them).
 */
export function listDepth(schema: GraphQLSchema, document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const measured = new Map<SelectionSetNode, number>();
  const open = new Set<SelectionSetNode>(); // a fragment cycle is refused by validation; stop here
  const depthOf = (set: SelectionSetNode, type: GraphQLNamedType | undefined): number => {
    const known = measured.get(set);
    if (known !== undefined) return known;
    if (open.has(set) || !type) return 0;
    open.add(set);
    let deepest = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.selectionSet || selection.name.value.startsWith('__')) continue;
        const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
        if (!field) continue;
        const inner = depthOf(selection.selectionSet, getNamedType(field.type));
        deepest = Math.max(deepest, inner + (isListType(getNullableType(field.type)) ? 1 : 0));
      } else {
        const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
        if (!fragment) continue;
        const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : type;
        deepest = Math.max(deepest, depthOf(fragment.selectionSet, condition));
      }
    }
    open.delete(set);
    measured.set(set, deepest);
    return deepest;
  };
  let deepest = 0;
  for (const def of document.definitions) {
    if (def.kind === Kind.OPERATION_DEFINITION)
      deepest = Math.max(deepest, depthOf(def.selectionSet, schema.getRootType(def.operation) ?? undefined));
  }
  return deepest;
}

interface RequestParams {
  variables?: unknown;
  operationName?: unknown;
}

/**
 * The estimated cost of the operation the request runs (`operationName`, else every operation,
 * the highest counts), with the request's variables. Undefined when the variables do not fit
 * the operation: execution refuses them (400 VALIDATION_FAILED, use-bad-request-status.ts).
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, params: RequestParams, context: object): number | undefined {
  let cost: number | undefined;
  const variables = typeof params.variables === 'object' && params.variables !== null ? (params.variables as Record<string, unknown>) : {};
  const rule = createComplexityRule({
    context,
    variableValues: variables,
    ...(typeof params.operationName === 'string' && params.operationName !== '' && { operationName: params.operationName }),
    onResult: (state) => {
      cost = Math.max(cost ?? 0, state.complexity);
    },
  });
  validate(schema, document, [rule]);
  return cost;
}

function limitError(limit: 'cost' | 'listDepth', message: string, details: Record<string, number>): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 }, limit, ...details },
  });
}

/** Costs kept per document, by operation name and variables: at most this many each. */
const COSTS_PER_DOCUMENT = 16;
/** Longest key (operation name and variables as JSON) whose cost is kept: larger ones are costed each time, never stored. */
const MAX_COST_KEY_CHARS = 1024;

interface DocumentFacts {
  depth: number;
  costs: Map<string, number | undefined>;
}

/**
 * Yoga plugin: list nesting and cost, checked after validation, on every request (the cost
 * depends on variables, so it is not part of yoga's cached validation result). Both are
 * remembered per document (yoga's parse cache hands out one AST per distinct text): the nesting
 * depends on the document alone, the cost on the document, the operation name and the variables
 * only (field costs read arguments, never the context: builder.ts fieldComplexity), so a
 * repeated query (a product's `viewer` on every page) is costed once.
 */
export function useListLimits(limits: Pick<GraphQLLimits, 'maxCost' | 'maxListDepth'>): Plugin {
  const facts = new WeakMap<DocumentNode, DocumentFacts>();
  const costOf = (schema: GraphQLSchema, document: DocumentNode, known: DocumentFacts, params: RequestParams, context: object) => {
    const key = `${typeof params.operationName === 'string' ? params.operationName : ''}\0${JSON.stringify(params.variables ?? null)}`;
    if (known.costs.has(key)) return known.costs.get(key);
    let cost: number | undefined;
    try {
      cost = operationCost(schema, document, params, context);
    } catch {
      cost = Number.POSITIVE_INFINITY; // an estimate that cannot be made is no permission to run
    }
    if (key.length > MAX_COST_KEY_CHARS) return cost;
    if (known.costs.size >= COSTS_PER_DOCUMENT) known.costs.clear();
    known.costs.set(key, cost);
    return cost;
  };
  return {
    onValidate({ params: { schema, documentAST }, context }) {
      return ({ valid, setResult }) => {
        if (!valid) return; // refused already; the cost of an invalid document is undefined
        let known = facts.get(documentAST);
        if (!known) {
          known = { depth: listDepth(schema, documentAST), costs: new Map() };
          facts.set(documentAST, known);
        }
        const depth = known.depth;
        if (depth > limits.maxListDepth) {
          setResult([
            limitError(
              'listDepth',
              `Lists are nested ${depth} deep, more than the limit of ${limits.maxListDepth} (GRAPHQL_MAX_LIST_DEPTH): ask for the inner rows in another query`,
              { listDepth: depth, max: limits.maxListDepth },
            ),
          ]);
          return;
        }
        const params = ((context as { params?: RequestParams }).params ?? {}) as RequestParams;
        const cost = costOf(schema, documentAST, known, params, context);
        if (cost !== undefined && cost > limits.maxCost) {
          setResult([
            limitError(
              'cost',
              `The query's estimated cost is ${cost}, more than the limit of ${limits.maxCost} (GRAPHQL_MAX_COST): every list counts its selection once per row it may answer, so ask for fewer rows (first, perPage) or fewer nested lists`,
              { cost, max: limits.maxCost },
            ),
          ]);
        }
      };
    },
  };
}

/** The yoga plugins enforcing `limits`. */
export function graphqlLimitPlugins(limits: GraphQLLimits): Plugin[] {
  return [
    maxTokensPlugin({ n: limits.maxTokens }),
    maxDepthPlugin({ n: limits.maxDepth, flattenFragments: true, ignoreIntrospection: true, ...report }),
    maxAliasesPlugin({ n: limits.maxAliases, ...report }),
    maxDirectivesPlugin({ n: limits.maxDirectives, ...report }),
    useListLimits(limits),
  ] as Plugin[];
}
