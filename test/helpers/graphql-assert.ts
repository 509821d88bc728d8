/** Assertions on GraphQL responses of the test app. */
import { expect } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/kernel/errors.js';
import type { TestApp } from './app.js';

export type GraphqlResponse = Awaited<ReturnType<TestApp['graphql']>>;

/**
 * Asserts that the operation failed with DomainError `code`: the first error carries the code,
 * the HTTP status is the one of the code table, and no data came back. Returns the message.
 */
export function expectGraphqlError(res: GraphqlResponse, code: ErrorCode): string {
  const error = res.body.errors?.[0];
  expect(error?.extensions?.code, JSON.stringify(res.body)).toBe(code);
  expect(res.status, JSON.stringify(res.body)).toBe(ERROR_STATUS[code]);
  expect(error?.extensions?.http?.status ?? res.status).toBe(ERROR_STATUS[code]);
  expect(res.body.data ?? null).toBeNull();
  return error?.message ?? '';
}

/** Asserts success and returns the data. */
export function expectData<T>(res: { status: number; body: { data?: T | null; errors?: unknown[] } }): T {
  expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data as T;
}

/**
 * The HTTP status of a GraphQL response with its first error's code and message, to compare with
 * `toMatchObject` where expectGraphqlError's stricter checks do not apply.
 */
export function gqlError(res: GraphqlResponse): { status: number; code?: string; message?: string } {
  const error = res.body.errors?.[0];
  return { status: res.status, code: error?.extensions?.code, message: error?.message };
}
