/**
 * Pothos schema builder: configuration only. Each feature's types, queries and mutations live in
 * its own src/modules/<feature>/graphql.ts; http/schema.ts imports them and builds.
 */
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { type GraphQLField, getNullableType, isListType } from 'graphql';
import type PrismaTypes from '../../generated/pothos-types.js';
import { getDatamodel } from '../../generated/pothos-types.js';
import { MAX_ROLE_PERMISSIONS } from '../../kernel/inputs.js';
import type { GraphQLContext } from './context.js';
import { DEFAULT_PER_PAGE, MAX_PAGE_SIZE, requestedRows } from './paging.js';

/**
 * Rows a list is assumed to hold in the GraphQL cost estimate (http/use-graphql-limits.ts) when
 * it has no bound of its own: no `complexity` next to the field, no page size argument, no
 * LIST_BOUNDS entry. Also the default page of `first` arguments (Team.members, auditEvents).
 */
export const DEFAULT_LIST_BOUND = 100;

/** Lists bounded by a rule of another module: a role holds at most MAX_ROLE_PERMISSIONS. */
const LIST_BOUNDS: Record<string, number> = { 'Role.permissions': MAX_ROLE_PERMISSIONS };

/**
 * Cost of a field without its own `complexity`: 1, and its selection counted
 * once per row it can answer: its page size as asked (`perPage`, default DEFAULT_PER_PAGE; `limit`;
 * `first` or a connection's `last`, default DEFAULT_LIST_BOUND; a size above the paging rule's maximum counts as asked, and
 * is refused when it runs: ./paging.ts), else for a list its LIST_BOUNDS entry or DEFAULT_LIST_BOUND. The list inside a page
 * (`*SearchResult`, `*Connection`) counts once: its page field counted the rows.
 */
function fieldComplexity(args: Record<string, unknown>, _ctx: GraphQLContext, field: GraphQLField<unknown, GraphQLContext>) {
  const has = (name: string) => field.args.some((a) => a.name === name);
  if (has('perPage')) return { field: 1, multiplier: requestedRows(args.perPage, requestedRows(args.limit, DEFAULT_PER_PAGE)) };
  if (has('first')) return { field: 1, multiplier: requestedRows(args.first ?? args.last, DEFAULT_LIST_BOUND) };
  if (!isListType(getNullableType(field.type))) return 1;
  const parent = (field.extensions.pothosConfig as { parentType?: string } | undefined)?.parentType ?? '';
  if (/(SearchResult|Connection)$/.test(parent)) return 1;
  return { field: 1, multiplier: LIST_BOUNDS[`${parent}.${field.name}`] ?? DEFAULT_LIST_BOUND };
}

/**
 * Description suffix of a field its parent's reader may still be refused:
 * such fields are nullable, so a denial answers null there with an error naming the field's path
 * and what was missing, while the rest of the answer arrives (HTTP 200, use-partial-status.ts).
 */
export const DENIABLE = 'Null, with an error for this field, when the caller may not read it.';

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  Scalars: { DateTime: { Input: Date; Output: Date }; JSON: { Input: unknown; Output: unknown } };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
}>({
  plugins: [PrismaPlugin, RelayPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  // Connections (GraphQL Cursor Connections Specification) only: no Node interface, no node(s)
  // queries, no clientMutationId; edges and nodes never null. Each connection's service reads
  // its own cursors and refuses a bad one with 400 VALIDATION_FAILED.
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    firstArgOptions: {
      description: `At most this many from the start, or after \`after\` (default ${DEFAULT_LIST_BOUND}, at most ${MAX_PAGE_SIZE}).`,
    },
    afterArgOptions: { description: 'The endCursor of the previous page.' },
    lastArgOptions: { description: `At most this many just before \`before\` (default ${DEFAULT_LIST_BOUND}, at most ${MAX_PAGE_SIZE}).` },
    beforeArgOptions: { description: 'The startCursor of the page after the one wanted.' },
  },
  // Costs only: the limit is checked at validation with the request's variables (use-graphql-limits.ts).
  complexity: { fieldComplexity, disabled: true },
  prisma: {
    // The client comes from the services' context at run time; resolvers pass `query` into core
    // services, which run it on their own client.
    client: (ctx) => ctx.services.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: process.env.NODE_ENV === 'production' ? null : 'warn',
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
