/**
 * Per-request batching of the fields every row of a list resolves again (`users { roles }`):
 * `batchByPath` gives one DataLoader (the `dataloader` package) per request and
 * per field path (list indexes left out), through @pothos/plugin-dataloader's own path-keyed
 * getter, the one its `byPath` loadable fields use. The rows of one path share their arguments
 * and selection, so the batch function takes those of the first row with the keys of all. A
 * resolver hands over a copy of its Prisma `query` (`{ ...query }`): reading it is how the Prisma
 * plugin knows every row's `query` was used, also when the batch was already under way.
 *
 * Why not `t.loadableList`: these fields return Prisma rows whose nested selection (a role's
 * `permissions`) must be loaded with them (the Prisma plugin's `query`). A loadable field gets no
 * `query`, so the Prisma plugin would load every nested relation again row by row; here the
 * resolver stays a `t.prismaField` and hands its `query` to the batch.
 *
 * A batch holds at most MAX_IDS_PER_QUERY keys (SQLite's bound-value limit, platform/database.ts);
 * a longer list is split in several batches. Each key answers its own value or its own error, so
 * a row the caller may not read answers null with an error at that row only (DENIABLE fields).
 * Authorization stays in the batch function's service: it filters per key as the unbatched call.
 */
import { pathDataloaderGetter } from '@pothos/plugin-dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import { MAX_IDS_PER_QUERY } from '../../platform/database.js';
import type { GraphQLContext } from './context.js';

/** What a batched field's resolver calls with its row's key, its batch's shared inputs, the context and its `info`. */
export type BatchedLoad<K, V, A> = (key: K, shared: A, ctx: GraphQLContext, info: GraphQLResolveInfo) => Promise<V>;

/**
 * A batched field: `load` receives every key asked at one path of one request (at most
 * MAX_IDS_PER_QUERY at a time) with the shared inputs of the first call, and must answer one
 * value or Error per key, in the keys' order.
 */
export function batchByPath<K, V, A>(
  load: (keys: readonly K[], ctx: GraphQLContext, shared: A) => Promise<readonly (V | Error)[]>,
): BatchedLoad<K, V, A> {
  const loaderOf = pathDataloaderGetter<K, V, K, A>(
    { maxBatchSize: MAX_IDS_PER_QUERY },
    (keys, ctx, shared) => load(keys, ctx as GraphQLContext, shared),
    undefined,
    undefined,
    true,
  );
  return (key, shared, ctx, info) => loaderOf(shared, ctx, info).load(key);
}
