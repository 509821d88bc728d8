/**
 * What the audit tests share: an app behind a trusted proxy (TRUST_PROXY, so each request names
 * its client address in X-Forwarded-For and the log can be checked against it), requests through
 * both doors carrying an origin (client address + X-Request-Id), and the log read straight from
 * the database to compare with the changes made.
 */
import { expect } from 'vitest';
import type { AuditEvent } from '../../src/generated/prisma/client.js';
import type { Credentials, TestApp } from '../support/app.js';
import { createTestApp } from '../support/app.js';
import { type GraphqlResponse, graphqlOutcome, type Outcome, restOutcome } from '../support/requests.js';

/** Where a request comes from: its client address (X-Forwarded-For) and X-Request-Id. */
export interface Origin {
  clientAddress: string;
  requestId: string;
}

let originCounter = 0;
/** A new origin: 203.0.113.<n> (TEST-NET-3) and request id `audit-<n>`. */
export function newOrigin(): Origin {
  originCounter += 1;
  return { clientAddress: `203.0.113.${originCounter % 250}`, requestId: `audit-${originCounter}` };
}

const originHeaders = (origin: Origin | undefined): Record<string, string> =>
  origin ? { 'x-forwarded-for': origin.clientAddress, 'x-request-id': origin.requestId } : {};

export interface SendOptions {
  auth?: Credentials | null;
  orgId?: number;
  origin?: Origin;
}

/** A test app whose client addresses come from X-Forwarded-For (TRUST_PROXY=true). */
export function createAuditApp(env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({ env: { TRUST_PROXY: 'true', ...env } });
}

/** A REST request from `origin`. */
export async function restFrom(
  app: TestApp,
  method: string,
  path: string,
  options: SendOptions & { json?: unknown } = {},
): Promise<Outcome> {
  const res = await app.request(path, {
    method,
    headers: originHeaders(options.origin),
    ...(options.auth !== undefined && { auth: options.auth }),
    ...(options.json !== undefined && { json: options.json }),
    ...(options.orgId !== undefined && { orgId: options.orgId }),
  });
  return restOutcome(res);
}

/** A GraphQL operation from `origin`. */
export async function gqlFrom(
  app: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  options: SendOptions = {},
): Promise<Outcome & { data: Record<string, unknown> | null | undefined }> {
  const res = await app.request('/graphql', {
    method: 'POST',
    json: { query, variables },
    headers: originHeaders(options.origin),
    ...(options.auth !== undefined && { auth: options.auth }),
    ...(options.orgId !== undefined && { orgId: options.orgId }),
  });
  return graphqlOutcome({ status: res.status, body: (await res.json()) as GraphqlResponse['body'] });
}

/** An event as compared in the tests: the row with its snapshots parsed. */
export type LoggedEvent = Omit<AuditEvent, 'before' | 'after'> & { before: unknown; after: unknown };

const parsed = (e: AuditEvent): LoggedEvent => ({
  ...e,
  before: e.before === null ? null : JSON.parse(e.before),
  after: e.after === null ? null : JSON.parse(e.after),
});

/** The id of the newest event (0 when the log is empty). */
export async function lastEventId(app: TestApp): Promise<number> {
  const last = await app.database.prisma.auditEvent.findFirst({ orderBy: { id: 'desc' }, select: { id: true } });
  return last?.id ?? 0;
}

/** Events written after event `mark`, oldest first, straight from the table. */
export async function eventsAfter(app: TestApp, mark: number): Promise<LoggedEvent[]> {
  const rows = await app.database.prisma.auditEvent.findMany({ where: { id: { gt: mark } }, orderBy: { id: 'asc' } });
  return rows.map(parsed);
}

/** Who made a change, as the log names it. */
export interface ExpectedActor {
  actorKind: string;
  actorId: number;
  actorLogin: string;
  authMethod: string;
}

/** The actor fields of a user signed in with basic auth. */
export const basicUser = (user: { id: number; login: string }): ExpectedActor => ({
  actorKind: 'user',
  actorId: user.id,
  actorLogin: user.login,
  authMethod: 'basic',
});

/** One expected event: everything but id and time. `before`/`after` null when absent. */
export interface ExpectedEvent {
  action: string;
  orgId: number;
  resourceKind: string;
  resourceId: string;
  before: unknown;
  after: unknown;
}

/** The expected row of `change` made by `actor` from `origin`. */
export function expected(change: ExpectedEvent, actor: ExpectedActor, origin: Origin) {
  return { ...change, ...actor, clientAddress: origin.clientAddress, requestId: origin.requestId };
}

/** Runs `act` and expects exactly `events` (in order) to be logged by it. */
export async function expectLogged(app: TestApp, act: () => Promise<unknown>, events: object[]): Promise<LoggedEvent[]> {
  const mark = await lastEventId(app);
  await act();
  const logged = await eventsAfter(app, mark);
  expect(logged.map(({ id, created, ...rest }) => rest)).toEqual(events);
  return logged;
}

/** A role as the log snapshots it (kernel/audit.ts RoleSnapshot), with defaults for the fields not given. */
export function roleSnapshot(role: {
  uid: string;
  orgId: number;
  name: string;
  version?: number;
  displayName?: string;
  description?: string;
  group?: string;
  hidden?: boolean;
  permissions?: { action: string; scope: string }[];
  grants?: string[];
}) {
  return {
    uid: role.uid,
    orgId: role.orgId,
    name: role.name,
    displayName: role.displayName ?? '',
    description: role.description ?? '',
    group: role.group ?? '',
    hidden: role.hidden ?? false,
    version: role.version ?? 0,
    permissions: [...(role.permissions ?? [])].sort((a, b) =>
      a.action === b.action ? (a.scope < b.scope ? -1 : 1) : a.action < b.action ? -1 : 1,
    ),
    grants: role.grants ?? [],
  };
}

/** The whole AuditEvent table as one string (every column of every row), to search for secrets. */
export async function wholeLog(app: TestApp): Promise<string> {
  const rows = await app.database.prisma.$queryRawUnsafe<Record<string, unknown>[]>('SELECT * FROM "AuditEvent"');
  return JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}
