/**
 * Database failures a retry resolves, answered as such by both doors (responses.ts for REST,
 * graphql-errors.ts for GraphQL) wherever they surface, never as a 500 INTERNAL: the write lock
 * or a row lock held past the busy timeout, a transaction that could not start or finish in
 * its time (Prisma P2028), a deadlock or serialization failure (platform/database.ts
 * isDatabaseBusy), and a change feed that is reconnecting (ChangesUnknownError). AccessService
 * `write` already turns these into DomainErrors for the writes that pass through it; Prisma also
 * opens transactions of its own (a create with nested rows, a batch), which take the PostgreSQL
 * write lock too (database-postgres.ts) and so can wait as long under load: those are caught here.
 */
import { DomainError } from '../kernel/errors.js';
import { ChangesUnknownError, isDatabaseBusy } from '../platform/database.js';

/** Seconds a client is asked to wait before retrying a DATABASE_BUSY answer (`Retry-After`). */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * `error` as the DomainError a client sees when it is a retryable database failure (503
 * DATABASE_BUSY with `Retry-After`, or 503 DATABASE_UNAVAILABLE); undefined for anything else.
 */
export function retryableDatabaseError(error: unknown): DomainError | undefined {
  if (error instanceof ChangesUnknownError) return new DomainError('DATABASE_UNAVAILABLE', 'the database is reconnecting; try again');
  if (isDatabaseBusy(error)) {
    return new DomainError('DATABASE_BUSY', 'the database is busy; try again', { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
  }
  return undefined;
}
