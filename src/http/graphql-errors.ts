/**
 * GraphQL error masking: a DomainError keeps its message and gets `extensions.code` and
 * `extensions.http.status` from the one code table (core/errors.ts), so a GraphQL client sees
 * the same code and status as the REST twin; anything else is logged and masked.
 */
import { GraphQLError } from 'graphql';
import { httpStatusOf, isDomainError } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';

/** A GraphQLError carrying the DomainError's code and HTTP status. */
/**
 * True for a GraphQLError from any copy of graphql-js: yoga and this code may load the CommonJS
 * and ESM builds side by side, so `instanceof GraphQLError` is not reliable.
 */
function asGraphQLError(error: unknown): GraphQLError | undefined {
  return error instanceof Error && error.name === 'GraphQLError' ? (error as GraphQLError) : undefined;
}

/** A GraphQLError carrying the DomainError's code and HTTP status. */
export function toGraphQLError(error: unknown, log: Logger): GraphQLError {
  const base = asGraphQLError(error);
  const original = base?.originalError ?? error;
  if (isDomainError(original)) {
    return new GraphQLError(original.message, {
      nodes: base?.nodes,
      path: base?.path,
      extensions: {
        code: original.code,
        http: { status: httpStatusOf(original.code) },
        ...(original.details && { details: original.details }),
      },
    });
  }
  if (base && !base.originalError) return base; // parse and validation errors: already safe
  if (base && asGraphQLError(base.originalError)) return base.originalError as GraphQLError;
  log.error({ err: original }, 'unexpected error in GraphQL execution');
  return new GraphQLError('Unexpected error.', {
    nodes: base?.nodes,
    path: base?.path,
    extensions: { code: 'INTERNAL', http: { status: 500 } },
  });
}
