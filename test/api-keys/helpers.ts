/**
 * Helpers of the API key tests: a settable clock, short-hands for keys and their error answers.
 * Users, organizations and role assignments come from ../helpers/subjects.ts.
 */
import { expect } from 'vitest';
import type { Clock } from '../../src/platform/clock.js';
import type { Credentials, TestApp } from '../helpers/app.js';

/** A clock tests move by hand. */
export class TestClock implements Clock {
  constructor(private ms = Date.UTC(2030, 0, 1, 12, 0, 0)) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** Creates a key over REST (expects 200) and returns `{id, name, key}`. */
export async function createKey(
  app: TestApp,
  body: { name: string; role: string; secondsToLive?: number },
  options: { auth?: Credentials; orgId?: number } = {},
): Promise<{ id: number; name: string; key: string }> {
  const res = await app.request('/api/auth/keys', { method: 'POST', json: body, ...options });
  const json = (await res.json()) as { id: number; name: string; key: string };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

/** The two header forms a key may travel in. */
export const keyForms = [
  { form: 'Bearer', auth: (key: string): Credentials => ({ token: key }) },
  { form: 'basic api_key', auth: (key: string): Credentials => ({ login: 'api_key', password: key }) },
] as const;

/** Asserts a REST error response's status and code; returns its message. */
export async function expectError(res: Response, status: number, code: string): Promise<string> {
  const body = (await res.json()) as { message?: string; code?: string };
  expect({ status: res.status, code: body.code }, JSON.stringify(body)).toEqual({ status, code });
  return body.message ?? '';
}
