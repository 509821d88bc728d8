/**
 * The one request-and-assert family of the request-level tests. Both doors answer an `Outcome`
 * (HTTP status, error code and message, body) so a test can drive REST and GraphQL side by side
 * and expect the same status and code from each; GraphQL responses also have stricter checks
 * against the code -> status table.
 */
import { expect } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../src/kernel/errors.js';
import type { RouteRequest } from '../../src/modules/shared/rest.js';
import { createLogger } from '../../src/platform/logger.js';
import type { Credentials, LogLine, TestApp } from './app.js';

/** Outcome of one request through either door: HTTP status, error code and message (if any), body. */
export interface Outcome {
  status: number;
  code: string | undefined;
  message: string | undefined;
  body: unknown;
}

/** A GraphQL response of the test app, as `app.graphql` answers it. */
export type GraphqlResponse = Awaited<ReturnType<TestApp['graphql']>>;

/** Reads a REST response's JSON body. */
export async function readJson(res: Response): Promise<Record<string, unknown> & { message?: string; code?: string }> {
  return (await res.json()) as never;
}

/** The outcome of a REST response (reads its body); a 200 carries no code. */
export async function restOutcome(res: Response): Promise<Outcome> {
  const body = await readJson(res);
  const failed = res.status !== 200;
  return { status: res.status, code: failed ? body.code : undefined, message: failed ? body.message : undefined, body };
}

/** The outcome of a GraphQL response: its first error's `extensions.code` and message, and the data. */
export function graphqlOutcome(res: GraphqlResponse): Outcome & { data: Record<string, unknown> | null | undefined } {
  const error = res.body.errors?.[0];
  const data = res.body.data as Record<string, unknown> | null | undefined;
  return { status: res.status, code: error?.extensions?.code, message: error?.message, body: res.body, data };
}

/** Sends a REST request and reads its JSON body. */
export async function rest(
  app: TestApp,
  method: string,
  path: string,
  options: { auth?: Credentials | null; json?: unknown; orgId?: number; body?: string; headers?: Record<string, string> } = {},
): Promise<Outcome> {
  const res = await app.request(path, {
    method,
    ...(options.auth !== undefined && { auth: options.auth }),
    ...(options.json !== undefined && { json: options.json }),
    ...(options.orgId !== undefined && { orgId: options.orgId }),
    ...(options.body !== undefined && { body: options.body }),
    ...(options.headers && { headers: options.headers }),
  });
  return restOutcome(res);
}

/**
 * Sends a GraphQL operation. A failure reports the first error's `extensions.code` and the HTTP
 * status yoga answered.
 */
export async function gql(
  app: TestApp,
  query: string,
  variables: Record<string, unknown>,
  options: { auth?: Credentials | null; orgId?: number } = {},
): Promise<Outcome & { data: Record<string, unknown> | null | undefined }> {
  return graphqlOutcome(await app.graphql(query, variables, options));
}

/**
 * Expects `outcome` to be `status` (and `code` when given), with a readable failure message.
 * Returns the error message ('' when there is none).
 */
export function expectOutcome(outcome: Outcome, status: number, code?: string): string {
  expect({ status: outcome.status, code: outcome.code }, JSON.stringify(outcome.body)).toEqual({ status, code });
  return outcome.message ?? '';
}

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

/**
 * Asserts a partial answer: HTTP 200, one error, with `code`, for the field at
 * `path` (e.g. `['team', 'roles']`), that field null, and its parent answered. Returns the
 * error's message.
 */
export function expectFieldError(outcome: Outcome, path: (string | number)[], code: ErrorCode): string {
  const body = outcome.body as {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: unknown[]; extensions?: { code?: string } }[];
  };
  const shown = JSON.stringify(body);
  expect({ status: outcome.status, errors: body.errors?.map((e) => ({ code: e.extensions?.code, path: e.path })) }, shown).toEqual({
    status: 200,
    errors: [{ code, path }],
  });
  let parent: unknown = body.data;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | null | undefined)?.[key];
  expect(parent, `${shown}: the parent of ${path.join('.')} is answered`).toBeTypeOf('object');
  expect(parent, shown).not.toBeNull();
  expect((parent as Record<string | number, unknown>)[path.at(-1) as string | number], shown).toBeNull();
  return body.errors?.[0]?.message ?? '';
}

/** Asserts success and returns the data. */
export function expectData<T>(res: { status: number; body: { data?: T | null; errors?: unknown[] } }): T {
  expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data as T;
}

/**
 * Runs a GraphQL operation that must succeed (setup steps) and returns its data.
 * @throws Error with the response when it carries errors.
 */
export async function mustGraphql<T = Record<string, unknown>>(
  app: TestApp,
  query: string,
  variables?: Record<string, unknown>,
  options?: { auth?: Credentials | null; orgId?: number },
): Promise<T> {
  const res = await app.graphql<T>(query, variables, options);
  if (res.body.errors?.length || !res.body.data) {
    throw new Error(`GraphQL operation failed (${res.status}): ${JSON.stringify(res.body)}\n${query}`);
  }
  return res.body.data;
}

/**
 * A route handler's input (src/modules/shared/rest.ts RouteRequest) for a test that calls a
 * handler directly: `fields` plus a bare request to http://test/ and sign-in settings of a
 * silent test service (only the sign-in routes read these two).
 */
export function handlerInput(app: TestApp, fields: Omit<RouteRequest, 'services' | 'request' | 'site'>): RouteRequest {
  const cookie = { name: app.config.auth.cookieName, secure: false, maxAgeSeconds: app.config.auth.lifetimeSeconds };
  const site = { cookie, rootUrl: app.config.auth.rootUrl, allowSignUp: false, log: createLogger('silent') };
  return { ...fields, services: app.services, request: new Request('http://test/'), site };
}

/**
 * Asserts the lines an unexpected error logs (app.expectLogged), for each request in order: its
 * cause at level error, whose serialized error names `cause` (Prisma keeps a database's message
 * in the error's meta, not its message), then the request's line, 500 on its route.
 */
export function expectInternalErrorsLogged(lines: LogLine[], cause: string, routes: string[]): void {
  expect(lines).toEqual(
    routes.flatMap((route) => [
      expect.objectContaining({ level: 50, err: expect.any(Object) }),
      expect.objectContaining({ level: 50, route, status: 500 }),
    ]),
  );
  for (const line of lines.filter((l) => l.err)) expect(JSON.stringify(line.err)).toContain(cause);
}
