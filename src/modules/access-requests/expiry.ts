/**
 * Unanswered access requests expire: a pending request past its `expiresAt` reads as expired at
 * once, everywhere (records.ts statusAt: it can no longer be approved), and its expiry is written
 * to the audit log and the change feed (`access_request.expire`) as its own change, once across
 * replicas, as assignments/boundaries.ts notes assignment boundaries: each request is claimed by
 * a conditional update of its row (pending and past its expiry, to expired) inside the one write
 * path, whose transactions hold the write lock, so one replica writes the event and any other
 * finds it claimed and writes nothing. Every replica runs the timer (`schedule`): it wakes at the
 * next expiry it knows, after each write of its own, and at least every MAX_WAIT_MS. Requests
 * answered (or expired) longer ago than the change feed's retention (CHANGES_RETENTION_HOURS),
 * whose granted window ended as long ago, are deleted every PRUNE_EVERY_MS, so the table holds
 * what the feed can still name and no more; their events stay in the audit log.
 */
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { LOCAL_OPERATOR_ID, principalOf, type UserPrincipal } from '../../kernel/principal.js';
import type { Logger } from '../../platform/logger.js';
import { PRUNE_EVERY_MS } from '../changes/service.js';
import { scheduleSweeps } from '../shared/sweep-timer.js';
import { auditRequest, REQUEST_INCLUDE } from './records.js';

/** The longest the timer sleeps between two looks at the next expiry, in milliseconds. */
export const MAX_WAIT_MS = 60_000;

/** The most expiries one sweep writes; the rest are still due, so the next wake comes at once. */
export const MAX_PER_SWEEP = 500;

/** What the expiry needs: the feature deps and the change feed's retention in hours. */
export interface AccessRequestExpiryDeps extends FeatureDeps {
  retentionHours: number;
}

/** The actor of the events: the gateway itself (no users row; the change feed shows it as `local`). */
function gateway(orgId: number): UserPrincipal {
  return principalOf(
    { id: LOCAL_OPERATOR_ID, login: 'access-request-expiry', isServiceAccount: false, isServiceAdmin: false },
    orgId,
    'None',
    'local',
  );
}

const DUE = (now: Date) => ({ status: 'pending', expiresAt: { lte: now } });

export class AccessRequestExpiry {
  constructor(private readonly deps: AccessRequestExpiryDeps) {}

  /**
   * Writes the expiry of every request pending past its expiry at the clock's now, each in its
   * own write (one audit event, one change record). Returns how many this call wrote (one another
   * replica claimed first is not counted). At most MAX_PER_SWEEP a call.
   */
  async sweep(): Promise<number> {
    const now = this.deps.clock.now();
    const due = await this.deps.db.accessRequest.findMany({
      where: DUE(now),
      select: { id: true },
      orderBy: { id: 'asc' },
      take: MAX_PER_SWEEP,
    });
    let noted = 0;
    for (const { id } of due) {
      const claimed = await this.deps.access.write(
        async (tx) => {
          const { count } = await tx.accessRequest.updateMany({ where: { id, ...DUE(now) }, data: { status: 'expired' } });
          if (count === 0) return false;
          const row = await tx.accessRequest.findUniqueOrThrow({ where: { id }, include: REQUEST_INCLUDE });
          await auditRequest(tx, gateway(row.orgId), row, 'expire', 'expired');
          return true;
        },
        { grantsNothing: true },
      );
      if (claimed) noted++;
    }
    return noted;
  }

  /**
   * Deletes the requests no longer pending whose own expiry and granted window both ended longer
   * ago than the retention (module comment). Returns how many.
   */
  async prune(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - this.deps.retentionHours * 3_600_000);
    const where = {
      status: { not: 'pending' },
      expiresAt: { lt: cutoff },
      OR: [{ grantExpiresAt: null }, { grantExpiresAt: { lt: cutoff } }],
    };
    return this.deps.access.write(async (tx) => (await tx.accessRequest.deleteMany({ where })).count, { grantsNothing: true });
  }

  /** The earliest expiry of a pending request (ms since the epoch), or null when none is pending: the timer's next wake. */
  async nextExpiry(): Promise<number | null> {
    const { _min } = await this.deps.db.accessRequest.aggregate({ _min: { expiresAt: true }, where: { status: 'pending' } });
    return _min.expiresAt ? _min.expiresAt.getTime() : null;
  }

  /**
   * Runs the timer (shared/sweep-timer.ts): sweeps now, then at each next expiry (at most
   * MAX_WAIT_MS apart) and after this process's writes; prunes every PRUNE_EVERY_MS. Returns the
   * function that stops it.
   */
  schedule(log: Pick<Logger, 'warn'>): () => void {
    return scheduleSweeps(
      { sweep: () => this.sweep(), next: () => this.nextExpiry(), prune: () => this.prune() },
      {
        clock: this.deps.clock,
        commits: this.deps.access.commits,
        log,
        maxWaitMs: MAX_WAIT_MS,
        pruneEveryMs: PRUNE_EVERY_MS,
        sweepFailed: 'access request expiries not noted',
        pruneFailed: 'answered access requests not pruned',
      },
    );
  }
}
