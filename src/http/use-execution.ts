/**
 * How GraphQL documents are executed.
 *
 * - In order: results come in the order the query asked for them (GraphQL spec, "Response
 *   Format", §7.2.2: "the response map … should have its fields in the same order as the
 *   selection set"). The executor bundled with graphql-yoga on Node 20 (@graphql-tools/executor
 *   2.0.1) writes the fields that resolve at once before the awaited ones, so
 *   `{ viewer { roles { name } login } }` came back as `{login, roles}`; its fix (2.0.3) needs
 *   Node 22. graphql-js's own `execute`, the reference implementation, keeps the order.
 * - Hot documents compiled: a document executed HOT_AFTER times (counted per parsed document,
 *   which yoga's bounded parse cache shares between requests of the same text) is compiled once
 *   by graphql-jit into a function that runs the same resolvers with the same context, and runs
 *   as that from then on. Measured in process (bench/budget.ts): the viewer query 355 -> 260 µs
 *   of CPU. A first or rare document runs in graphql-js, so a caller sending fresh documents
 *   never makes the service compile: compiling costs milliseconds, executing microseconds.
 *   graphql-jit itself is loaded at the first hot document (loadCompiler).
 * - Bounded: at most MAX_COMPILED compiled documents are kept (least recently used go), and at
 *   most COMPILES_PER_MINUTE compilations happen a minute; past that, hot documents run in
 *   graphql-js until the next minute. A document graphql-jit refuses to compile runs in
 *   graphql-js, and is not tried again.
 *
 * Checks are the resolvers' and the services' (no check lives in the executor), and the access
 * fence (use-access-fence.ts) wraps both executors alike: it must come after this plugin.
 */
import {
  BREAK,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  execute,
  type GraphQLSchema,
  getVariableValues,
  Kind,
  type OperationDefinitionNode,
  OperationTypeNode,
  TypeInfo,
  type VariableDefinitionNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import { CARRIED_RELATIONS } from '../modules/shared/carried-relations.js';

/** graphql-jit, once loaded (loadCompiler). */
let compiler: typeof import('graphql-jit') | undefined;
let loading: Promise<void> | undefined;

/**
 * Loads graphql-jit, once: at the first hot document, not at start (its modules weigh about
 * 11 MiB of RSS, measured with `import()` alone). Until it has loaded, hot documents run
 * interpreted. Resolves when loaded; a failed load leaves every document interpreted.
 */
export function loadCompiler(): Promise<void> {
  loading ??= import('graphql-jit').then(
    (module) => {
      compiler = module;
    },
    () => undefined,
  );
  return loading;
}

/** Executions of one parsed document before it is compiled. */
export const HOT_AFTER = 3;
/** Compiled documents kept (each holds generated functions: tens of kB). */
export const MAX_COMPILED = 256;
/** Compilations allowed per minute (each costs about 1-20 ms of CPU, by document size). */
export const COMPILES_PER_MINUTE = 60;

/** What this plugin did, for tests and the benchmark. */
export interface ExecutionCounters {
  /** Documents compiled so far. */
  compiled: number;
  /** Executions run by compiled functions. */
  compiledRuns: number;
  /** Executions run by graphql-js. */
  interpretedRuns: number;
}

/** Options of useExecution: the bounds above, changed only by tests. */
export interface ExecutionOptions {
  hotAfter?: number;
  maxCompiled?: number;
  compilesPerMinute?: number;
  /** Filled as the plugin works (module comment). */
  counters?: ExecutionCounters;
  /** Milliseconds clock of the compile budget (tests pass a fake one). */
  now?: () => number;
}

/**
 * A compiled query with its variable definitions (none: an empty list), or `false`: not a query,
 * refused by graphql-jit, or answered with errors once (`run`).
 */
type Compiled = { query: CompiledQuery; variables: readonly VariableDefinitionNode[] } | false;

/** How a field's `pothosPrismaSelect` extension reads: nothing or a column, a fixed selection, or nested rows. */
function selectKind(field: { extensions?: Record<string, unknown> | null } | null | undefined): 'column' | 'fixed' | 'nested' {
  const select = field?.extensions?.pothosPrismaSelect;
  if (typeof select === 'function') return 'nested';
  return select !== undefined && typeof select === 'object' ? 'fixed' : 'column';
}

/**
 * True when the document selects a field whose rows @pothos/plugin-prisma loads with its parent's
 * query: relations, and fields whose `select` takes a nested selection (their `pothosPrismaSelect`
 * extension is a function; a scalar's is `true` or an object). Compiled,
 * such documents answer the same but load those rows in more statements (graphql-jit resolves
 * list rows in other ticks, so Pothos falls back to per-row batches): `{ teams { members { orgs
 * } } }` took 7 statements instead of 4, each costing more than compiling saves. They stay
 * interpreted. Walked once per document, fragments included.
 *
 * One exception: below a field marked with CARRIED_RELATIONS, its direct children may be those
 * relations, as long as nothing below it selects other rows or a fixed selection (which would
 * change the rows the field loads): such rows carry their relations, and compiled they are
 * answered from the rows with no statement either way. A named fragment is walked apart from
 * where it is spread, so one selecting a relation keeps its document interpreted.
 */
function loadsWithParent(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  // Per Field node entered: the relations its children may select, 'leaf' below a carried
  // relation or a marked field's other children, null outside any marked field.
  const modes: (readonly string[] | 'leaf' | null)[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter(node) {
          const field = typeInfo.getFieldDef();
          const kind = selectKind(field);
          const mode = modes.at(-1) ?? null;
          const carried = field?.extensions?.[CARRIED_RELATIONS];
          let next: (typeof modes)[number] = null;
          if (mode === null) {
            // A function: the field selects nested rows (a relation, or a `select` with nested selection).
            if (kind === 'nested') found = true;
            next = Array.isArray(carried) ? (carried as string[]) : null;
          } else {
            const allowed = mode !== 'leaf' && kind === 'nested' && mode.includes(node.name.value);
            if (kind !== 'column' && !allowed) found = true;
            next = 'leaf';
          }
          if (found) return BREAK;
          modes.push(next);
          return undefined;
        },
        leave() {
          modes.pop();
        },
      },
    }),
  );
  return found;
}

/** The operation `name` of `document` (the first when no name; graphql-jit refuses ambiguous ones). */
function operationOf(document: DocumentNode, name: string | undefined): OperationDefinitionNode | undefined {
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION && (!name || definition.name?.value === name)) return definition;
  }
  return undefined;
}

/**
 * Yoga plugin: executes with graphql-js's `execute`, or with a compiled function once a
 * document is hot (module comment). Must come before any plugin that wraps the execute function
 * (the access fence), so they wrap this one.
 */
export function useExecution(options: ExecutionOptions = {}): Plugin {
  const hotAfter = options.hotAfter ?? HOT_AFTER;
  const perMinute = options.compilesPerMinute ?? COMPILES_PER_MINUTE;
  const now = options.now ?? Date.now;
  const counters = options.counters ?? { compiled: 0, compiledRuns: 0, interpretedRuns: 0 };
  const uses = new WeakMap<DocumentNode, number>();
  // By document, then operation name ('' when none): one document may hold several operations.
  const compiled = new LRUCache<DocumentNode, Map<string, Compiled>>({ max: options.maxCompiled ?? MAX_COMPILED });
  let window = { start: now(), compiles: 0 };

  const budgetAllows = (): boolean => {
    const at = now();
    if (at - window.start >= 60_000) window = { start: at, compiles: 0 };
    return window.compiles < perMinute;
  };

  const remember = (document: DocumentNode, operation: string, entry: Compiled): void => {
    const operations = compiled.get(document) ?? new Map<string, Compiled>();
    operations.set(operation, entry);
    compiled.set(document, operations);
  };

  const compiledFor = (args: ExecutionArgs): Compiled | undefined => {
    const operation = args.operationName ?? '';
    const known = compiled.get(args.document)?.get(operation);
    if (known !== undefined) return known || undefined;
    const count = (uses.get(args.document) ?? 0) + 1;
    uses.set(args.document, count);
    if (count < hotAfter) return undefined;
    if (!compiler) {
      void loadCompiler(); // this run and those until it loads stay interpreted
      return undefined;
    }
    if (!budgetAllows()) return undefined;
    const definition = operationOf(args.document, args.operationName ?? undefined);
    let entry: Compiled = false;
    // Queries only: a query's answer with errors is made again by graphql-js (`run`), which a
    // mutation's could not be. Not those whose rows Prisma loads with their parents' (loadsWithParent).
    if (definition?.operation === OperationTypeNode.QUERY && !loadsWithParent(args.schema, args.document)) {
      window.compiles++;
      const result = compiler.compileQuery(args.schema, args.document, args.operationName ?? undefined);
      if (compiler.isCompiledQuery(result)) {
        entry = { query: result, variables: definition.variableDefinitions ?? [] };
        counters.compiled++;
      }
    }
    remember(args.document, operation, entry);
    return entry || undefined;
  };

  const interpret = (args: ExecutionArgs) => {
    counters.interpretedRuns++;
    return execute(args);
  };

  const run = (args: ExecutionArgs): ExecutionResult | Promise<ExecutionResult> => {
    const fast = compiledFor(args);
    if (!fast) return interpret(args);
    counters.compiledRuns++;
    if (fast.variables.length > 0) {
      // Refused variables answer graphql-js's errors, word for word (use-bad-request-status.ts rewrites
      // those; graphql-jit words them its own way). Valid ones are coerced again by the compiled code.
      const coerced = getVariableValues(args.schema, fast.variables, args.variableValues ?? {}, { maxErrors: 50 });
      if (coerced.errors) return { errors: coerced.errors };
    }
    // graphql-jit words field errors its own way (no `locations`, other key order): an answer
    // with errors is graphql-js's, and the operation runs interpreted from then on.
    const settle = (result: ExecutionResult): ExecutionResult | Promise<ExecutionResult> => {
      if (!result.errors?.length) return result;
      remember(args.document, args.operationName ?? '', false);
      return interpret(args);
    };
    const result = fast.query.query(args.rootValue, args.contextValue, args.variableValues);
    return result instanceof Promise ? result.then(settle) : settle(result as ExecutionResult);
  };

  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn(run as typeof execute);
    },
  };
}
