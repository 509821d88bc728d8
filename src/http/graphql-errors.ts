/**
 * GraphQL error masking: a DomainError keeps its message and gets `extensions.code` and
 * `extensions.http.status` from the one code table (kernel/errors.ts), so a GraphQL client sees
 * the same code and status as the REST twin; anything else is logged and masked. Errors name
 * the problem without the parser's internals: yoga's answer to a body that is
 * not JSON carries the JSON parser's message, which quotes the body back, in
 * `extensions.originalError`; it becomes the REST door's 400 INVALID_JSON "invalid JSON body",
 * and no error keeps an `originalError` extension.
 */
import { GraphQLError } from 'graphql';
import { httpStatusOf, isDomainError } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import { retryableDatabaseError } from './database-failures.js';

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
  let original = base?.originalError ?? error;
  const retryable = isDomainError(original) ? undefined : retryableDatabaseError(original);
  if (retryable) {
    log.warn({ err: original, code: retryable.code }, 'database failure a retry resolves');
    original = retryable;
  }
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
  if (base && !base.originalError) return withoutOriginalError(base); // parse and validation errors: already safe
  if (base && asGraphQLError(base.originalError)) return base.originalError as GraphQLError;
  log.error({ err: original }, 'unexpected error in GraphQL execution');
  return new GraphQLError('Unexpected error.', {
    nodes: base?.nodes,
    path: base?.path,
    extensions: { code: 'INTERNAL', http: { status: 500 } },
  });
}

/**
 * `error` without `extensions.originalError` (yoga's request parser puts the JSON parser's error
 * there, its message quoting the body). A body that is not JSON answers as on the REST door.
 */
function withoutOriginalError(error: GraphQLError): GraphQLError {
  const { originalError, ...extensions } = error.extensions ?? {};
  if (originalError === undefined) return error;
  if ((originalError as { name?: unknown } | null)?.name === 'SyntaxError') {
    return new GraphQLError('invalid JSON body', { extensions: { code: 'INVALID_JSON', http: { status: 400 } } });
  }
  return new GraphQLError(error.message, { nodes: error.nodes, path: error.path, extensions });
}
