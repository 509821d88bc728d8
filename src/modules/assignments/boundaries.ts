/**
 * The start and the end of a time-bound assignment as events: when an assignment's notBefore or
 * expiresAt passes, one audit event (`user_role.start` / `user_role.expire`, `team_role.start` /
 * `team_role.expire`) and its own change record are written, so a product following the change
 * feed learns of it without polling. The checks do not wait for it: they read windows at the
 * instant (kernel/held-roles.ts heldAt, the permission cache's `changesAt`).
 *
 * Once across replicas: each boundary is claimed by a conditional update of its row
 * (`startNoted` / `endNoted` from false to true) inside the one write path, whose transactions
 * hold the write lock (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so one replica
 * notes it and another finds it claimed and writes nothing. Every replica runs the timer
 * (`schedule`): it wakes at the next boundary it knows, after each write of its own, and at
 * least every MAX_WAIT_MS (boundaries of assignments another replica wrote).
 *
 * Ended rows grant nothing and stay listed nowhere; they are deleted once the change records
 * of their end are pruned (the change feed's retention, CHANGES_RETENTION_HOURS), every
 * PRUNE_EVERY_MS.
 */
import { recordAudit } from '../../kernel/audit.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { LOCAL_OPERATOR_ID, principalOf, type UserPrincipal } from '../../kernel/principal.js';
import type { Tx } from '../../platform/database.js';
import type { Logger } from '../../platform/logger.js';
import { PRUNE_EVERY_MS } from '../changes/service.js';
import { scheduleSweeps } from '../shared/sweep-timer.js';
import { windowJson } from './window.js';

/** The longest the timer sleeps between two looks at the next boundary, in milliseconds. */
export const MAX_WAIT_MS = 60_000;

/** What the boundary events need: the feature deps and the change feed's retention in hours. */
export interface BoundaryDeps extends FeatureDeps {
  retentionHours: number;
}

/** A boundary due: the assignment row, which table, and whether it starts or ends. */
interface Due {
  table: 'user' | 'team';
  id: number;
  edge: 'start' | 'expire';
}

/** An assignment row as an event describes it. */
interface Row {
  subjectId: number;
  orgId: number;
  uid: string;
  notBefore: Date | null;
  expiresAt: Date | null;
}

/** The actor of the events: the gateway itself (no users row; the change feed shows it as `local`). */
function gateway(orgId: number): UserPrincipal {
  return principalOf(
    { id: LOCAL_OPERATOR_ID, login: 'assignment-window', isServiceAccount: false, isServiceAdmin: false },
    orgId,
    'None',
    'local',
  );
}

const START = (now: Date) => ({ startNoted: false, notBefore: { lte: now } });
const END = (now: Date) => ({ endNoted: false, expiresAt: { lte: now } });
const ROW_SELECT = { orgId: true, notBefore: true, expiresAt: true, role: { select: { uid: true } } } as const;

export class AssignmentBoundaries {
  constructor(private readonly deps: BoundaryDeps) {}

  /**
   * Writes the event of every boundary reached by now (the clock) and not yet noted, each in its
   * own write (one audit event, one change record), starts before ends. Returns how many this
   * call noted (a boundary another replica claimed first is not counted).
   */
  async sweep(): Promise<number> {
    const now = this.deps.clock.now();
    const { db } = this.deps;
    const select = { id: true } as const;
    const [userStarts, teamStarts, userEnds, teamEnds] = await Promise.all([
      db.userRole.findMany({ where: START(now), select }),
      db.teamRole.findMany({ where: START(now), select }),
      db.userRole.findMany({ where: END(now), select }),
      db.teamRole.findMany({ where: END(now), select }),
    ]);
    const due: Due[] = [
      ...userStarts.map((r) => ({ table: 'user' as const, id: r.id, edge: 'start' as const })),
      ...teamStarts.map((r) => ({ table: 'team' as const, id: r.id, edge: 'start' as const })),
      ...userEnds.map((r) => ({ table: 'user' as const, id: r.id, edge: 'expire' as const })),
      ...teamEnds.map((r) => ({ table: 'team' as const, id: r.id, edge: 'expire' as const })),
    ];
    let noted = 0;
    for (const boundary of due) if (await this.note(boundary, now)) noted++;
    return noted;
  }

  /** Claims and writes one boundary; false when it was claimed already (another replica, a change of window). */
  private async note(due: Due, now: Date): Promise<boolean> {
    const reach = due.table === 'user' ? await this.userOf(due.id) : undefined;
    if (due.table === 'user' && reach === undefined) return false;
    return this.deps.access.write(
      async (tx) => {
        const row = await this.claim(tx, due, now);
        if (!row) return false;
        const kind =
          due.table === 'user'
            ? { action: 'user_role', resourceKind: 'user', idField: 'userId' }
            : { action: 'team_role', resourceKind: 'team', idField: 'teamId' };
        const held = { [kind.idField]: row.subjectId, orgId: row.orgId, roleUids: [row.uid], windows: { [row.uid]: windowJson(row) } };
        const none = { [kind.idField]: row.subjectId, orgId: row.orgId, roleUids: [] };
        await recordAudit(tx, gateway(row.orgId), {
          action: `${kind.action}.${due.edge}`,
          orgId: row.orgId,
          resource: { kind: kind.resourceKind, id: row.subjectId },
          before: due.edge === 'start' ? none : held,
          after: due.edge === 'start' ? held : none,
        });
        return true;
      },
      // A user's assignment reaches that user only; a team's, its members (read as they are: global).
      reach === undefined ? {} : { reach: { users: [reach] } },
    );
  }

  private async userOf(id: number): Promise<number | undefined> {
    return (await this.deps.db.userRole.findUnique({ where: { id }, select: { userId: true } }))?.userId;
  }

  /** The conditional update that claims the boundary, then the row it describes; null when claimed already. */
  private async claim(tx: Tx, due: Due, now: Date): Promise<Row | null> {
    const edge = due.edge === 'start' ? START(now) : END(now);
    const data = due.edge === 'start' ? { startNoted: true } : { endNoted: true };
    if (due.table === 'user') {
      const { count } = await tx.userRole.updateMany({ where: { id: due.id, ...edge }, data });
      if (count === 0) return null;
      const r = await tx.userRole.findUniqueOrThrow({ where: { id: due.id }, select: { userId: true, ...ROW_SELECT } });
      return { subjectId: r.userId, orgId: r.orgId, uid: r.role.uid, notBefore: r.notBefore, expiresAt: r.expiresAt };
    }
    const { count } = await tx.teamRole.updateMany({ where: { id: due.id, ...edge }, data });
    if (count === 0) return null;
    const r = await tx.teamRole.findUniqueOrThrow({ where: { id: due.id }, select: { teamId: true, ...ROW_SELECT } });
    return { subjectId: r.teamId, orgId: r.orgId, uid: r.role.uid, notBefore: r.notBefore, expiresAt: r.expiresAt };
  }

  /**
   * The earliest boundary not yet noted (ms since the epoch), or null when none is pending: the
   * timer's next wake.
   */
  async nextBoundary(): Promise<number | null> {
    const { db } = this.deps;
    const [us, ts, ue, te] = await Promise.all([
      db.userRole.aggregate({ _min: { notBefore: true }, where: { startNoted: false, notBefore: { not: null } } }),
      db.teamRole.aggregate({ _min: { notBefore: true }, where: { startNoted: false, notBefore: { not: null } } }),
      db.userRole.aggregate({ _min: { expiresAt: true }, where: { endNoted: false, expiresAt: { not: null } } }),
      db.teamRole.aggregate({ _min: { expiresAt: true }, where: { endNoted: false, expiresAt: { not: null } } }),
    ]);
    const times = [us._min.notBefore, ts._min.notBefore, ue._min.expiresAt, te._min.expiresAt].flatMap((d) => (d ? [d.getTime()] : []));
    return times.length === 0 ? null : Math.min(...times);
  }

  /**
   * Deletes the assignments whose end was noted longer ago than the retention (nothing reads them:
   * they grant nothing, no listing shows them). Returns how many.
   */
  async prune(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - this.deps.retentionHours * 3_600_000);
    const where = { endNoted: true, expiresAt: { lt: cutoff } };
    return this.deps.access.write(
      async (tx) => (await tx.userRole.deleteMany({ where })).count + (await tx.teamRole.deleteMany({ where })).count,
      { grantsNothing: true },
    );
  }

  /**
   * Runs the timer (shared/sweep-timer.ts): sweeps now, then at each next boundary (at most
   * MAX_WAIT_MS apart) and after this process's writes; prunes every PRUNE_EVERY_MS. Returns the
   * function that stops it.
   */
  schedule(log: Pick<Logger, 'warn'>): () => void {
    return scheduleSweeps(
      { sweep: () => this.sweep(), next: () => this.nextBoundary(), prune: () => this.prune() },
      {
        clock: this.deps.clock,
        commits: this.deps.access.commits,
        log,
        maxWaitMs: MAX_WAIT_MS,
        pruneEveryMs: PRUNE_EVERY_MS,
        sweepFailed: 'assignment boundaries not noted',
        pruneFailed: 'ended assignments not pruned',
      },
    );
  }
}
