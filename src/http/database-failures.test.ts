/**
 * Retryable database failures that surface outside AccessService.write (a transaction Prisma
 * opens itself for a nested create): 503 with a stable code on both doors, logged with their
 * cause, never a 500 INTERNAL. The errors are shaped as Prisma 7 raised them in a reproduction
 * (a nested `user.create` while another connection held the PostgreSQL write lock).
 */
import { Writable } from 'node:stream';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ChangesUnknownError } from '../platform/database.js';
import { createLogger } from '../platform/logger.js';
import { retryableDatabaseError } from './database-failures.js';
import { toGraphQLError } from './graphql-errors.js';
import { errorResponse } from './responses.js';

/** A Prisma known-request error as the PostgreSQL lock timeout gave it (P2039 wrapping SQLSTATE 55P03). */
function lockTimeout(): Error {
  return Object.assign(
    new Error('Invalid `db.user.create()` invocation: Database error. Code: `55P03`. Message: `canceling statement due to lock timeout`'),
    { name: 'PrismaClientKnownRequestError', code: 'P2039' },
  );
}
/** Prisma's interactive transaction past its `timeout` or `maxWait`. */
function transactionTimeout(): Error {
  return Object.assign(new Error('Transaction API error: Unable to start a transaction in the given time.'), {
    name: 'PrismaClientKnownRequestError',
    code: 'P2028',
  });
}

/** A logger whose lines are kept, parsed. */
function capture(): { log: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { log: createLogger('info', sink), lines };
}

const cases: [string, () => Error, number, string][] = [
  ['a lock timeout', lockTimeout, 503, 'DATABASE_BUSY'],
  ['a transaction timeout', transactionTimeout, 503, 'DATABASE_BUSY'],
  ['a reconnecting change feed', () => new ChangesUnknownError('reconnecting'), 503, 'DATABASE_UNAVAILABLE'],
];

describe('retryable database failures', () => {
  it.each(cases)('REST: %s is a %d %s, logged with its cause', async (_name, make, status, code) => {
    const { log, lines } = capture();
    const error = make();
    const res = errorResponse(error, log);
    expect(res.status).toBe(status);
    expect(await res.json()).toMatchObject({ code });
    if (code === 'DATABASE_BUSY') expect(res.headers.get('retry-after')).toBe('1');
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, code, err: expect.objectContaining({ message: error.message }) }));
  });

  it.each(cases)('GraphQL: %s is a %d %s, logged with its cause', (_name, make, status, code) => {
    const { log, lines } = capture();
    const error = make();
    const masked = toGraphQLError(new GraphQLError('wrapped', { originalError: error, path: ['createUser'] }), log);
    expect(masked.extensions).toMatchObject({ code, http: { status } });
    expect(masked.path).toEqual(['createUser']);
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, code, err: expect.objectContaining({ message: error.message }) }));
  });

  it('anything else stays a logged 500 INTERNAL', async () => {
    const { log, lines } = capture();
    expect(retryableDatabaseError(new Error('boom'))).toBeUndefined();
    const res = errorResponse(new Error('boom'), log);
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([500, 'INTERNAL']);
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, err: expect.objectContaining({ message: 'boom' }) }));
  });
});
