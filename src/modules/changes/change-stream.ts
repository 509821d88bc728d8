/**
 * One `accessChanges` stream (streams.ts opens and counts them): a reader that moves the cursor
 * through the feed into a bounded buffer, and the client's side that takes events from it.
 *
 * Where the changes come from: the replica's shared reader (shared-reader.ts), which reads each
 * new record once for every stream; the stream takes from its window what its caller may see (the
 * organization walls of service.ts). A cursor older than the window reads its own pages
 * (ChangeFeedService.page, which checks the permission at every page) until it reaches it.
 *
 * The permission is checked again, through the permission cache, whenever the revision of the
 * caller's permissions moved (kernel/freshness.ts `revisionOf`: a change that names the caller,
 * its team, a role it holds, or reaches everyone), before any change read after it is queued; the
 * caller's account facts (kernel/fence.ts `factsHold`, one statement) are read again when a change
 * names the caller (its user or API key) or names nothing at all. Other changes cost the stream no
 * SQL.
 *
 * The slow-consumer bound: the buffer holds at most `bufferSize` events the client has not taken.
 * While it is full the reader reads nothing; when the client then takes no event for
 * `slowConsumerMs`, the buffer is dropped and replaced by one resync event (the revision of the
 * last event the client took) and the stream ends: the client subscribes again with `after` (or
 * Last-Event-ID) set to that revision, and gets exactly what it missed. Memory per stream is
 * bounded by the buffer whatever the client does (Kubernetes' watch cache ends a watcher whose
 * buffer stays full the same way).
 *
 * Errors (ACCESS_DENIED after a revocation, CREDENTIALS_CHANGED, CHANGES_EXPIRED, a database
 * failure) are queued after the events read before them and end the stream when the client
 * reaches them.
 */
import type { AccessService } from '../../kernel/access.js';
import { credentialsChanged, factsHold } from '../../kernel/fence.js';
import { subjectOf } from '../../kernel/freshness.js';
import type { SignedInPrincipal } from '../../kernel/principal.js';
import type { Db } from '../../platform/database.js';
import type { ChangeFeedService, ChangeJson } from './service.js';
import type { SharedReader, Taken } from './shared-reader.js';

/** One event of a stream: a change, a checkpoint (`change` null) at the revision reached, or the resync that ends a slow client's stream. */
export interface ChangeEvent {
  revision: number;
  change: ChangeJson | null;
  /** True on the last event of a stream whose client fell behind its buffer (module comment). */
  resync?: true;
}

/** The bounds of one stream. */
export interface ChangeStreamLimits {
  /** Milliseconds without a change before a checkpoint is sent. */
  checkpointMs: number;
  /** Events held for the client at most. */
  bufferSize: number;
  /** Milliseconds a full buffer waits for the client to take an event before the resync. */
  slowConsumerMs: number;
}

type Item = { event: ChangeEvent } | { error: unknown };

/** One stream of the feed from revision `from` (module comment). */
export class ChangeStream {
  private readonly queue: Item[] = [];
  /** The revision of the last event the client took (a resync's revision). */
  private taken: number;
  private finished = false;
  private left = false;
  private ended = false;
  /** The client's side, waiting for an event. */
  private readonly eventWaiters = new Set<() => void>();
  /** The reader, waiting for the client to take events (full buffer) or for a wake-up (idle). */
  private readonly readerWaiters = new Set<() => void>();

  /**
   * A stream that reads nothing until `start`. `stopped()` is asked before every read (the server
   * closing, the request aborted); `onEnd` is called once, when the reader stops for good or the
   * client leaves.
   */
  constructor(
    private readonly deps: { db: Db; access: AccessService; changes: ChangeFeedService; reader: SharedReader },
    private readonly caller: SignedInPrincipal,
    from: number,
    private readonly limits: ChangeStreamLimits,
    private readonly stopped: () => boolean,
    private readonly onEnd: () => void,
  ) {
    this.taken = from;
    this.checkedAt = deps.access.freshness.revisionOf(caller);
  }

  /** The revision of the caller's permissions (freshness.ts `revisionOf`) its permission was last checked at. */
  private checkedAt: number;

  /** Starts reading from the revision given; answers the client's side (`events`). */
  start(): AsyncGenerator<ChangeEvent> {
    void this.read(this.taken);
    return this.events();
  }

  /** Wakes whatever waits, to see `stopped()` (the request aborted, the server closes). */
  poke(): void {
    for (const waiter of [...this.readerWaiters, ...this.eventWaiters]) waiter();
  }

  /** The client's side: the events in order, then the end (or the queued error). */
  private async *events(): AsyncGenerator<ChangeEvent> {
    try {
      for (;;) {
        const item = this.queue.shift();
        if (item === undefined) {
          if (this.finished || this.stopped()) return;
          await new Promise<void>((resolve) => this.eventWaiters.add(resolve));
          this.eventWaiters.clear();
          continue;
        }
        for (const waiter of [...this.readerWaiters]) waiter();
        if ('error' in item) throw item.error;
        this.taken = item.event.revision;
        yield item.event;
      }
    } finally {
      this.left = true;
      this.queue.length = 0;
      this.poke();
      this.end();
    }
  }

  private push(item: Item): void {
    this.queue.push(item);
    for (const waiter of [...this.eventWaiters]) waiter();
  }

  private done(): boolean {
    return this.left || this.stopped();
  }

  private async read(from: number): Promise<void> {
    let cursor = from;
    const { changes, db } = this.deps;
    // When the last event was queued (ms, monotonic): a checkpoint follows checkpointMs without
    // one, however often the stream was woken meanwhile (the replica's poll wakes it every second).
    let lastEventAt = performance.now();
    try {
      for (;;) {
        const seen = this.deps.reader.seq;
        if (this.done()) return;
        const room = this.limits.bufferSize - this.queue.length;
        if (room <= 0) {
          if (!(await this.roomMade())) return this.resync();
          continue;
        }
        const page: Taken & { checked?: true } = this.deps.reader.take(this.caller, cursor, room) ?? (await this.ownPage(cursor, room));
        if (!page.checked && this.deps.access.freshness.revisionOf(this.caller) !== this.checkedAt) {
          // Checked before anything read after the move is queued; then taken again.
          this.checkedAt = this.deps.access.freshness.revisionOf(this.caller);
          await changes.mayRead(this.caller);
          continue;
        }
        if (this.done()) return;
        const read = page.changes;
        for (const change of read) this.push({ event: { revision: change.revision, change } });
        if (read.length > 0) lastEventAt = performance.now();
        cursor = page.next;
        const facts = page.checked ? read.length > 0 : read.some((change) => namesCaller(this.caller, change));
        if (facts && !(await factsHold(this.caller, db))) throw credentialsChanged();
        if (read.length === room) continue;
        await this.idle(seen);
        if (performance.now() - lastEventAt >= this.limits.checkpointMs && this.queue.length === 0 && !this.done()) {
          this.push({ event: { revision: cursor, change: null } });
          lastEventAt = performance.now();
        }
      }
    } catch (error) {
      if (!this.done()) this.push({ error });
    } finally {
      this.finished = true;
      this.poke();
      this.end();
    }
  }

  /** A page read for this stream alone (its cursor is older than the shared window); the page checks the permission. */
  private async ownPage(cursor: number, room: number): Promise<Taken & { checked: true }> {
    this.checkedAt = this.deps.access.freshness.revisionOf(this.caller);
    const page = await this.deps.changes.page(this.caller, { after: cursor, limit: room });
    return { changes: page.changes, next: page.next, checked: true };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }

  /** Waits for a wake-up after `seen` or a poke: true; false after checkpointMs without either (then a checkpoint is due). */
  private idle(seen: number): Promise<boolean> {
    return new Promise((resolve) => {
      const poked = () => {
        this.readerWaiters.delete(poked);
        resolve(true);
      };
      this.readerWaiters.add(poked);
      void this.deps.reader.wait(seen, this.limits.checkpointMs).then((woken) => {
        this.readerWaiters.delete(poked);
        resolve(woken);
      });
    });
  }

  /**
   * Waits while the buffer is full: true once the client took half of it (or the stream stops),
   * false when it took nothing for slowConsumerMs.
   */
  private roomMade(): Promise<boolean> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => finish(false), this.limits.slowConsumerMs);
      };
      const finish = (made: boolean) => {
        clearTimeout(timer);
        this.readerWaiters.delete(took);
        resolve(made);
      };
      const took = () => {
        if (this.done() || this.queue.length <= this.limits.bufferSize / 2) finish(true);
        else arm();
      };
      this.readerWaiters.add(took);
      arm();
    });
  }

  /** Drops what the client did not take and ends with one resync event (module comment). */
  private resync(): void {
    this.queue.length = 0;
    this.push({ event: { revision: this.taken, change: null, resync: true } });
  }
}

/**
 * True when `change` may have changed the account facts behind `caller` (fence.ts `factsHold`):
 * it names its user or API key, or names nothing at all in an organization the caller can be in.
 */
function namesCaller(caller: SignedInPrincipal, change: ChangeJson): boolean {
  if (caller.kind === 'apiKey' ? change.apiKeys.includes(caller.id) : change.users.includes(subjectOf(caller) ?? -1)) return true;
  const unattributed = change.users.length + change.roles.length + change.teams.length + change.apiKeys.length === 0;
  return unattributed && (change.orgId === 0 || change.orgId === caller.orgId);
}
