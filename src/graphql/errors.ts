/**
 * GraphQL error masking: a DomainError keeps its message and gets `extensions.code` and
 * `extensions.http.status` from the one code table (core/errors.ts), so a GraphQL client sees
 * the same code and status as the REST twin; anything else is logged and masked.
 */
import { GraphQLError } from 'graphql';
import { httpStatusOf, isDomainError } from '../core/errors.js';
import type { Logger } from '../logger.js';

/** A GraphQLError carrying the DomainError's code and HTTP status. */
export function toGraphQLError(error: unknown, log: Logger): GraphQLError {
  const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
  const base = error instanceof GraphQLError ? error : undefined;
  if (isDomainError(original)) {
    return new GraphQLError(original.message, {
      nodes: base?.nodes,
      path: base?.path,
      extensions: { code: original.code, http: { status: httpStatusOf(original.code) }, ...(original.details && { details: original.details }) },
    });
  }
  if (base && !base.originalError) return base; // parse and validation errors: already safe
  log.error({ err: original }, 'unexpected error in GraphQL execution');
  return new GraphQLError('Unexpected error.', {
    nodes: base?.nodes,
    path: base?.path,
    extensions: { code: 'INTERNAL', http: { status: 500 } },
  });
}
