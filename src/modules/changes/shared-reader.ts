/**
 * The one reader of the change records per replica, shared by every open `accessChanges` stream
 * (streams.ts): when the replica learns of a commit (its own write, a version PostgreSQL
 * announces, the safety-net poll) it reads the records after the last revision it read once, for
 * every organization, keeps them in a window of the newest WINDOW_SIZE, and tells the streams,
 * which take what their caller may see from the window (`take`). A change thus costs one
 * statement per replica, not one per stream: Kubernetes' watch cache serves its watchers the same
 * way. A stream whose cursor is older than the window reads its own pages
 * (ChangeFeedService.page) until it reaches the window.
 *
 * Before the streams are told of a batch, the process has applied every change in it (freshness,
 * kernel/freshness.ts `catchUp`), so a stream that asks the permission cache whether its caller
 * may still read sees the batch's own revocations.
 *
 * Revisions commit in order (kernel/changes.ts), so the window holds every change in
 * (`base`, `reached`] with no gap. A read that fails (the database or PostgreSQL's listener
 * reconnecting) is tried again at the next wake-up; the streams wait meanwhile.
 */
import type { AccessService } from '../../kernel/access.js';
import { headRevision } from '../../kernel/one-revision.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import type { Db } from '../../platform/database.js';
import { type ChangeJson, changeToJson } from './service.js';
import { WakeSignal } from './wake-signal.js';

/** The wake-ups a stream waits on (shared-reader.ts: a new batch of changes read). */
export interface Wakeups {
  /** A number that moves at every wake-up. */
  readonly seq: number;
  /** Resolves true at the next wake-up after `seen` (at once if one came since), false after `ms`. */
  wait(seen: number, ms: number): Promise<boolean>;
}

/** Changes kept in memory for the streams at most (a few hundred bytes each). */
export const WINDOW_SIZE = 5000;
/** Records read by one statement at most. */
const READ_PAGE = 1000;

/** True when `caller` may see `change` (the organization rule of service.ts). */
export function visibleTo(caller: SignedInPrincipal, change: ChangeJson): boolean {
  return caller.isServiceAdmin || change.orgId === 0 || change.orgId === caller.orgId;
}

/** What a stream took from the window: the changes its caller may see, and the revision to go on from. */
export interface Taken {
  changes: ChangeJson[];
  next: number;
}

/** The shared reader of one replica (module comment); also the streams' wake-ups (a new batch). */
export class SharedReader implements Wakeups {
  private window: ChangeJson[] = [];
  /** The window holds every change after `base` up to `reached`; -1 before the first read. */
  private base = -1;
  private reached = -1;
  private readonly batches = new WakeSignal();
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: { db: Db; access: AccessService }) {}

  /** The newest revision read (every change up to it is in the window or older than it); -1 before the first read. */
  get revision(): number {
    return this.reached;
  }

  /** Moved at every batch read (Wakeups). */
  get seq(): number {
    return this.batches.seq;
  }

  /** Resolves true at the next batch after `seen` (at once if one came since), false after `ms` (Wakeups). */
  wait(seen: number, ms: number): Promise<boolean> {
    return this.batches.wait(seen, ms);
  }

  /**
   * Up to `room` changes after `cursor` that `caller` may see, from the window, with the revision
   * to go on from; undefined when the window does not reach back to `cursor` (the stream reads
   * its own page then).
   */
  take(caller: SignedInPrincipal, cursor: number, room: number): Taken | undefined {
    if (this.base < 0 || cursor < this.base) return undefined;
    const changes: ChangeJson[] = [];
    for (let i = this.firstAfter(cursor); i < this.window.length; i++) {
      const change = this.window[i] as ChangeJson;
      if (!visibleTo(caller, change)) continue;
      changes.push(change);
      if (changes.length === room) return { changes, next: change.revision };
    }
    return { changes, next: Math.max(cursor, this.reached) };
  }

  /** Reads the records after the last one read, now or right after the read under way. */
  readonly wake = (): void => {
    if (this.stopped) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = this.readAll().finally(() => {
      this.reading = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  };

  /** Forgets the window (the last stream ended); the next `wake` starts from the head again. */
  reset(): void {
    this.window = [];
    this.base = -1;
    this.reached = -1;
  }

  /** Stops reading and wakes every waiter (the server's shutdown). */
  stop(): void {
    this.stopped = true;
    this.batches.end();
  }

  private async readAll(): Promise<void> {
    try {
      if (this.reached < 0) {
        const head = await headRevision(this.deps.db);
        await this.deps.access.freshness.catchUp();
        if (this.reached < 0) this.base = this.reached = head;
        this.notify();
      }
      for (;;) {
        const from = this.reached;
        const rows = await this.deps.db.accessChange.findMany({
          where: { revision: { gt: from } },
          orderBy: { revision: 'asc' },
          take: READ_PAGE,
        });
        if (rows.length === 0 || this.reached !== from) return;
        await this.deps.access.freshness.catchUp();
        if (this.reached !== from) return;
        this.window.push(...rows.map(changeToJson));
        this.reached = rows.at(-1)?.revision ?? from;
        const extra = this.window.length - WINDOW_SIZE;
        if (extra > 0) this.base = (this.window.splice(0, extra).at(-1) as ChangeJson).revision;
        this.notify();
        if (rows.length < READ_PAGE) return;
      }
    } catch {
      // Tried again at the next wake-up (module comment).
    }
  }

  private notify(): void {
    this.batches.wake();
  }

  /** Index of the first change of the window after `revision` (binary search). */
  private firstAfter(revision: number): number {
    let low = 0;
    let high = this.window.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.window[mid] as ChangeJson).revision <= revision) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
