/**
 * The change feed: what changed who may do what, in revision order (kernel/changes.ts writes one
 * record per write transaction). A product keeping its own cache of permissions reads the
 * changes after the last revision it applied, drops what they name, and goes on from `next`;
 * SpiceDB's Watch and OpenFGA's ReadChanges answer the same need.
 *
 * Who may read: holders of `access.changes:read` (basic:service_admin holds it by default;
 * `fixed:accesschanges:reader` carries it for anyone else, such as a product's service account).
 * - a Service Admin sees every organization's changes and the global ones;
 * - anyone else sees the changes of the organization it acts in and the global ones (users,
 *   organizations, global roles: they reach every organization), never another organization's.
 *
 * Retention: records older than the retention (CHANGES_RETENTION_HOURS, default 7 days) are
 * pruned (`prune`, run by the app every PRUNE_EVERY_MS; every replica may run it, the write lock
 * serializes them); a reader asking for changes after a pruned revision is answered 410
 * CHANGES_EXPIRED: it must read the current state again and follow from `head`.
 * Enterprise edition only, like the rest of /api/access-control (404 in oss).
 */
import type { AccessChange, Prisma } from '../../generated/prisma/client.js';
import { Action } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { headRevision } from '../../kernel/one-revision.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { changesPageInput, revisionInput } from './inputs.js';

/** What reading the feed needs. */
export const changeRequirements = {
  read: requirement(
    [],
    () => permission(Action.AccessChangesRead),
    "a Service Admin sees every organization's changes, anyone else those of the organization it acts in and the global ones",
  ),
};

/** One change as both doors answer it. */
export interface ChangeJson {
  revision: number;
  /** ISO 8601, UTC. */
  created: string;
  /** 0 for global objects, or a change spanning several organizations. */
  orgId: number;
  actor: { kind: string; id: number; login: string };
  /** The audit actions of the change, in order (role.update, user_role.add, ...). */
  kinds: string[];
  /** User and service-account ids whose permissions or credentials it may have changed. */
  users: number[];
  /** Role uids it created, changed, deleted, assigned or unassigned. */
  roles: string[];
  teams: number[];
  /** API keys and service-account tokens created or deleted. */
  apiKeys: number[];
}

/** A page of the feed: `changes` after the revision asked, `next` to ask from, `head` the newest revision. */
export interface ChangesPage {
  changes: ChangeJson[];
  /** The revision to pass as `after` next: the last change's, or `after` itself when none was new. */
  next: number;
  /** The newest revision issued (of any organization). */
  head: number;
}

const parse = <T>(text: string): T[] => JSON.parse(text) as T[];

/** JSON shape of a change record. */
export function changeToJson(row: AccessChange): ChangeJson {
  return {
    revision: row.revision,
    created: row.created.toISOString(),
    orgId: row.orgId,
    actor: { kind: row.actorKind, id: row.actorId, login: row.actorLogin },
    kinds: parse<string>(row.kinds),
    users: parse<number>(row.users),
    roles: parse<string>(row.roles),
    teams: parse<number>(row.teams),
    apiKeys: parse<number>(row.apiKeys),
  };
}

/** Milliseconds between two prunes of the feed. */
export const PRUNE_EVERY_MS = 60 * 60_000;

/** What the feed needs: the feature deps, the clock (pruning) and the retention in hours. */
export interface ChangeFeedDeps extends FeatureDeps {
  clock: Clock;
  retentionHours: number;
}

export class ChangeFeedService {
  constructor(private readonly deps: ChangeFeedDeps) {}

  /**
   * GET /api/access-control/changes and GraphQL `accessChanges`: the changes after revision
   * `after` (omitted: from the oldest kept) that the caller may see, in revision order, at most `limit` (default 100,
   * at most 1000), with `next` and `head` (ChangesPage). Needs access.changes:read; the
   * organization rule is in the module comment.
   * @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403), VALIDATION_FAILED (400: a
   *   malformed `after` or `limit`, `limit` above 1000), REVISION_NOT_ISSUED (400: `after` above
   *   the head), CHANGES_EXPIRED (410: changes after `after` were pruned), ACCESS_CONTROL_UNAVAILABLE (404 in oss).
   */
  async page(caller: Principal, raw: unknown): Promise<ChangesPage> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, changeRequirements.read.for({}));
    const input = parseInput(changesPageInput, raw);
    const { limit } = input;
    const { db } = this.deps;
    const [head, horizon] = await Promise.all([headRevision(db), db.accessChangeHorizon.findUnique({ where: { id: 1 } })]);
    const prunedThrough = horizon?.prunedThrough ?? 0;
    const after = input.after ?? prunedThrough;
    if (after > head) throw revisionNotIssued(after, head);
    if (after < prunedThrough)
      throw new DomainError(
        'CHANGES_EXPIRED',
        `changes up to revision ${prunedThrough} are no longer kept: read the current state again and follow the changes after ${head}`,
        { head, prunedThrough },
      );
    const rows = await db.accessChange.findMany({
      where: { AND: [{ revision: { gt: after } }, visibleTo(caller)] },
      orderBy: { revision: 'asc' },
      take: limit,
    });
    // With a full page, the next one starts after its last row. Otherwise everything visible up
    // to the head was read (revisions commit in order, and the head was read first), so the reader
    // may go on from the head, or from a later row committed meanwhile.
    const last = rows.at(-1)?.revision ?? after;
    const next = rows.length === limit ? last : Math.max(last, head);
    return { changes: rows.map(changeToJson), next, head };
  }

  /**
   * Whether `caller` may still read the feed: the permission check of `page`, through the
   * permission cache (no SQL while the caller's cached entry holds). A stream asks it when the
   * revision of its caller's permissions moved (change-stream.ts).
   * @throws DomainError ACCESS_DENIED (403), ACCESS_CONTROL_UNAVAILABLE (404 in oss).
   */
  async mayRead(caller: SignedInPrincipal): Promise<void> {
    this.deps.edition.assertAvailable();
    await this.deps.access.check(caller, changeRequirements.read.for({}));
  }

  /**
   * Deletes the change records older than the retention (by the clock) and moves the horizon to
   * the newest revision deleted. Returns how many were deleted. Runs under the write lock, so
   * replicas pruning at once take turns.
   */
  async prune(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - this.deps.retentionHours * 3_600_000);
    return this.deps.db.$transaction(async (tx) => {
      const newest = await tx.accessChange.findFirst({
        where: { created: { lt: cutoff } },
        orderBy: { revision: 'desc' },
        select: { revision: true },
      });
      if (!newest) return 0;
      const { count } = await tx.accessChange.deleteMany({ where: { revision: { lte: newest.revision } } });
      await tx.accessChangeHorizon.upsert({
        where: { id: 1 },
        create: { id: 1, prunedThrough: newest.revision },
        update: { prunedThrough: newest.revision },
      });
      return count;
    });
  }

  /**
   * Prunes now and then every PRUNE_EVERY_MS (the server's start calls it), logging what was
   * pruned and any failure (tried again at the next turn). Returns the function that stops it.
   */
  schedulePruning(log: Pick<Logger, 'info' | 'warn'>): () => void {
    const run = () =>
      void this.prune().then(
        (pruned) => pruned > 0 && log.info({ pruned }, 'change feed pruned'),
        (error: unknown) =>
          log.warn({ error: error instanceof Error ? error.message : String(error) }, 'change feed not pruned; trying again later'),
      );
    run();
    const timer = setInterval(run, PRUNE_EVERY_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Read-your-writes: the request carries "at least revision `raw`" (the revision a write
   * answered). Every request has already applied each change committed before it arrived
   * (AccessService.authenticate), so a revision that was issued is always met; one above the head
   * was never issued.
   * @throws DomainError VALIDATION_FAILED (400: not a revision), REVISION_NOT_ISSUED (400).
   */
  async requireRevision(raw: unknown): Promise<void> {
    const wanted = parseInput(revisionInput('X-Access-Revision-At-Least'), raw);
    const head = await headRevision(this.deps.db);
    if (wanted > head) throw revisionNotIssued(wanted, head);
  }
}

function revisionNotIssued(revision: number, head: number): DomainError {
  return new DomainError('REVISION_NOT_ISSUED', `revision ${revision} was never issued: the newest is ${head}`, { head });
}

/** The organization rule of the module comment, as a Prisma `where`. */
function visibleTo(caller: SignedInPrincipal): Prisma.AccessChangeWhereInput {
  if (caller.isServiceAdmin) return {};
  return { orgId: { in: [0, caller.orgId] } };
}
