/**
 * An unexpected error is logged with its cause, without secrets: a Prisma validation error
 * renders the call's whole `data` (here a password hash) into its message and stack; the
 * logger's error serializer (platform/logger.ts) keeps what was wrong and the stack frames only.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { errorResponse } from '../../src/http/responses.js';
import { createLogger } from '../../src/platform/logger.js';
import { createTestApp, type TestApp } from '../support/app.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

it('a 500 logs the cause of a Prisma validation error, not the arguments it was given', async () => {
  const error = await app.database.prisma.user
    .create({ data: { login: 'x', email: 'x@example.test', passwordHash: 'SECRET-HASH-VALUE', orgId: 1, bogus: 1 } as never })
    .catch((e: unknown) => e as Error);
  expect(String(error)).toContain('SECRET-HASH-VALUE'); // what Prisma's own message holds
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const res = errorResponse(error, createLogger('info', sink));
  expect(res.status).toBe(500);
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0] as string) as { msg: string; err: { type: string; message: string; stack: string } };
  expect(line.msg).toBe('unexpected error');
  expect(line.err.type).toBe('PrismaClientValidationError');
  expect(line.err.message).toMatch(/Unknown argument `bogus`/);
  expect(line.err.stack).toMatch(/^ {4}at /);
  expect(lines[0]).not.toContain('SECRET-HASH-VALUE');
});
