/**
 * Small assertions shared by the request-level tests that drive both doors (REST and GraphQL)
 * and expect the same status and error code from each.
 */
import { expect } from 'vitest';
import type { Credentials, TestApp } from './app.js';

/** Outcome of one request through either door: HTTP status, error code (if any), body. */
export interface Outcome {
  status: number;
  code: string | undefined;
  body: unknown;
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
  const body = (await res.json()) as { code?: string };
  return { status: res.status, code: res.status === 200 ? undefined : body.code, body };
}

/**
 * Sends a GraphQL operation; `field` is the top-level field whose value becomes `body`.
 * A failure reports the first error's `extensions.code` and the HTTP status yoga answered.
 */
export async function gql(
  app: TestApp,
  query: string,
  variables: Record<string, unknown>,
  options: { auth?: Credentials | null; orgId?: number } = {},
): Promise<Outcome & { data: Record<string, unknown> | null | undefined }> {
  const res = await app.graphql(query, variables, options);
  const error = res.body.errors?.[0];
  return { status: res.status, code: error?.extensions?.code, body: res.body, data: res.body.data };
}

/** Expects `outcome` to be `status` (and `code` when given), with a readable failure message. */
export function expectOutcome(outcome: Outcome, status: number, code?: string): void {
  expect({ status: outcome.status, code: outcome.code }, JSON.stringify(outcome.body)).toEqual({ status, code });
}
