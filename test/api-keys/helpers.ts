/**
 * Fixtures for the API key tests: a settable clock, org members created straight through Prisma
 * (the user-management API is built elsewhere), and short-hands for keys.
 */
import { expect } from 'vitest';
import { hashPassword } from '../../src/auth/passwords.js';
import type { Clock } from '../../src/core/clock.js';
import type { OrgRole } from '../../src/core/principal.js';
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

let sequence = 0;

/** Creates a user who is a member of `orgId` (default 1) with `role`; returns its credentials and id. */
export async function createMember(
  app: TestApp,
  role: OrgRole,
  options: { orgId?: number; login?: string } = {},
): Promise<{ id: number; login: string; password: string }> {
  sequence += 1;
  const login = options.login ?? `${role.toLowerCase()}-${sequence}`;
  const password = `pw-${login}`;
  const orgId = options.orgId ?? 1;
  const user = await app.database.prisma.user.create({
    data: { login, email: `${login}@example.test`, passwordHash: await hashPassword(password), orgId, orgs: { create: { orgId, role } } },
  });
  return { id: user.id, login, password };
}

/** Creates organization `name` and returns its id. */
export async function createOrg(app: TestApp, name: string): Promise<number> {
  return (await app.database.prisma.org.create({ data: { name } })).id;
}

/** Makes `userId` a member of `orgId` with `role`. */
export async function addMembership(app: TestApp, userId: number, orgId: number, role: OrgRole): Promise<void> {
  await app.database.prisma.orgUser.create({ data: { userId, orgId, role } });
}

/** Assigns the (global) role named `roleName` to a user in organization `orgId`. */
export async function assignRole(app: TestApp, userId: number, roleName: string, orgId = 1): Promise<void> {
  const role = await app.database.prisma.role.findFirstOrThrow({ where: { name: roleName } });
  await app.database.prisma.userRole.create({ data: { userId, roleId: role.id, orgId } });
  app.services.access.invalidate();
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

/** Status and parsed JSON body of a response. */
export async function read(
  res: Response,
): Promise<{ status: number; body: { message?: string; code?: string } & Record<string, unknown> }> {
  return { status: res.status, body: (await res.json()) as never };
}

/** The HTTP status of a GraphQL response with its first error's code and message. */
export function gqlError(result: Awaited<ReturnType<TestApp['graphql']>>): { status: number; code?: string; message?: string } {
  const error = result.body.errors?.[0];
  return { status: result.status, code: error?.extensions?.code, message: error?.message };
}
