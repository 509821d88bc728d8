/**
 * The console's typed GraphQL documents (gql.tada): every query and mutation of the console is a
 * `graphql(...)` document, typed at typecheck time against the checked-in schema.graphql through
 * its introspection types (graphql-env.d.ts, written by `npm run schema:print`). A field the
 * schema lacks, a wrong argument or variable, fails `npm run typecheck`; results and variables
 * are read with `ResultOf` / `VariablesOf`, shared shapes are fragments read with `readFragment`.
 */
import { initGraphQLTada } from 'gql.tada';
import type { introspection } from './graphql-env.js';

/**
 * `graphql(source, fragments?)`: a parsed document carrying its result and variables types.
 * Custom scalars as the server serializes them (src/modules/shared/scalars.ts): DateTime as its
 * ISO 8601 string, JSON as any JSON value.
 */
export const graphql = initGraphQLTada<{
  introspection: introspection;
  scalars: { DateTime: string; JSON: unknown };
}>();

export type { FragmentOf, ResultOf, VariablesOf } from 'gql.tada';
export { readFragment } from 'gql.tada';
