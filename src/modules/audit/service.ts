/**
 * Reading the audit log: what Grafana Enterprise writes to files, kept in the
 * database and queryable. Every change to roles, assignments, basic roles, API keys,
 * service-account tokens, users, teams and organization membership is written by the service
 * that makes it, in the change's own transaction (kernel/audit.ts `recordAudit`); this service
 * only reads.
 *
 * Who may read (Grafana keeps its audit log for server administrators): holders of `audit:read`
 * (basic:service_admin holds it by default; `fixed:audit:reader` carries it for anyone else).
 * - a Service Admin sees every event: every organization's and the global ones (org 0: global
 *   roles, basic roles, users, organizations), and may filter by `orgId`;
 * - anyone else holding `audit:read` in the organization it acts in sees that organization's
 *   events only, never global ones nor another organization's (asking for another `orgId` is 403).
 * Enterprise edition only, like the rest of /api/access-control (404 in oss); events are recorded
 * in both editions.
 */
import type { AuditEvent, Prisma } from '../../generated/prisma/client.js';
import { Action } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import { idFromText, parseInput } from '../../kernel/inputs.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Db } from '../../platform/database.js';
import { startsWithExactly } from '../../platform/database-dialect.js';
import { type ConnectionArgs, connectionPage } from '../shared/connection-args.js';
import type { SearchPage } from '../shared/directory.js';
import { pageOffset } from '../shared/paging.js';
import { type AuditFilter, auditFilterInput, auditPageInput, DEFAULT_AUDIT_PAGE_SIZE } from './inputs.js';

/** What reading the log needs. */
export const auditRequirements = {
  read: requirement(
    [],
    () => permission(Action.AuditRead),
    "a Service Admin sees every organization's events and the global ones, anyone else those of the organization it acts in",
  ),
};

/** A Relay connection over events, newest first. */
export interface AuditConnection {
  edges: { cursor: string; node: AuditEvent }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  /** Events matching the filter, on every page (counted only when asked for). */
  totalCount: () => Promise<number>;
}

const CURSOR_PREFIX = 'audit:';

/** The opaque cursor of event `id`: base64url("audit:<id>"). */
export function auditCursor(id: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${id}`).toString('base64url');
}

/**
 * The event id behind a cursor of auditCursor.
 * @throws DomainError VALIDATION_FAILED (400) for anything else.
 */
function cursorId(field: 'after' | 'before', cursor: string): number {
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const id = decoded.startsWith(CURSOR_PREFIX) ? idFromText(decoded.slice(CURSOR_PREFIX.length)) : null;
  if (id === null) throw new DomainError('VALIDATION_FAILED', `${field}: not a cursor of auditEvents`);
  return id;
}

/** A stored snapshot (JSON text, or null) as a value. */
export function auditSnapshotValue(text: string | null): unknown {
  return text === null ? null : JSON.parse(text);
}

export class AuditService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * GET /api/access-control/audit: events matching the filter, newest first, in pages of
   * `perpage` (default 100, at most 1000), page `page` (from 1; the paging rule of every list, shared/paging.ts), with the total count of
   * matches (Grafana's search paging).
   * Needs audit:read; the organization rule is in the module comment.
   * @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403: no audit:read, or another
   *   organization asked by a caller that is not a Service Admin), VALIDATION_FAILED (400: a bad
   *   filter or paging value), ACCESS_CONTROL_UNAVAILABLE (404 in oss).
   */
  async list(caller: Principal, rawFilter: unknown, rawPaging: unknown): Promise<SearchPage<AuditEvent>> {
    const where = await this.authorize(caller, rawFilter);
    const paging = parseInput(auditPageInput, rawPaging);
    const { perpage: perPage, page } = paging;
    const { db } = this.deps;
    const [totalCount, rows] = await Promise.all([
      db.auditEvent.count({ where }),
      db.auditEvent.findMany({ where, orderBy: { id: 'desc' }, skip: pageOffset(page, perPage), take: perPage }),
    ]);
    return { totalCount, rows, page, perPage };
  }

  /**
   * GraphQL `auditEvents(filter, first, after | last, before)`: the `first` (default 100, at most
   * 1000) events matching the filter after cursor `after`, or the `last` events before cursor
   * `before` (the oldest ones without it), newest first either way (keyset paging on the id, so
   * events written meanwhile never shift a page). Rules and errors as `list`; a cursor not from
   * this listing, or forward and backward arguments together, is 400.
   */
  async connection(caller: Principal, rawFilter: unknown, rawPaging: ConnectionArgs): Promise<AuditConnection> {
    const where = await this.authorize(caller, rawFilter);
    const page = connectionPage(rawPaging, DEFAULT_AUDIT_PAGE_SIZE);
    const cursor = page.forward ? page.after && cursorId('after', page.after) : page.before && cursorId('before', page.before);
    const { db } = this.deps;
    const bound: Prisma.AuditEventWhereInput | null = cursor ? { id: page.forward ? { lt: cursor } : { gt: cursor } } : null;
    const rows = await db.auditEvent.findMany({
      where: bound ? { AND: [where, bound] } : where,
      orderBy: { id: page.forward ? 'desc' : 'asc' },
      take: page.size + 1,
    });
    const more = rows.length > page.size;
    const nodes = page.forward ? rows.slice(0, page.size) : rows.slice(0, page.size).reverse();
    const edges = nodes.map((node) => ({ cursor: auditCursor(node.id), node }));
    return {
      edges,
      pageInfo: {
        hasNextPage: page.forward ? more : bound !== null,
        hasPreviousPage: page.forward ? bound !== null : more,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
      totalCount: () => db.auditEvent.count({ where }),
    };
  }

  /**
   * The edition, sign-in and audit:read (before the filter is read), then the filter and the
   * organization rule, as one Prisma `where`.
   */
  private async authorize(caller: Principal, rawFilter: unknown): Promise<Prisma.AuditEventWhereInput> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, auditRequirements.read.for({}));
    const filter = parseInput(auditFilterInput, rawFilter ?? {});
    return whereOf(this.deps.db, caller, filter);
  }
}

/**
 * The filter as a Prisma `where`, walled: a Service Admin reads every organization (or the one
 * asked), anyone else only the organization it acts in.
 * @throws DomainError ACCESS_DENIED (403) when a caller that is not a Service Admin asks for
 *   another organization.
 */
function whereOf(db: Db, caller: SignedInPrincipal, filter: AuditFilter): Prisma.AuditEventWhereInput {
  if (filter.orgId != null && filter.orgId !== caller.orgId) {
    requireServiceAdmin(caller, "read another organization's audit events");
  }
  const orgId = caller.isServiceAdmin ? (filter.orgId ?? undefined) : caller.orgId;
  const and: Prisma.AuditEventWhereInput[] = [];
  if (orgId !== undefined) and.push({ orgId });
  if (filter.action != null) and.push({ action: filter.action });
  if (filter.actionPrefix != null) and.push({ action: startsWithExactly(db, filter.actionPrefix) });
  if (filter.resourceKind != null) and.push({ resourceKind: filter.resourceKind });
  if (filter.resourceId != null) and.push({ resourceId: filter.resourceId });
  if (filter.actorKind != null) and.push({ actorKind: filter.actorKind });
  if (filter.actorId != null) and.push({ actorId: filter.actorId });
  if (filter.actorLogin != null) and.push({ actorLogin: filter.actorLogin });
  if (filter.from != null) and.push({ created: { gte: filter.from } });
  if (filter.to != null) and.push({ created: { lte: filter.to } });
  return { AND: and };
}
