/**
 * The change feed as a stream (GraphQL `subscription { accessChanges(after) }`, served by
 * graphql-yoga over server-sent events): the changes after `after` in revision order, then each new
 * change as it commits, and a checkpoint (the revision reached, no change) after CHECKPOINT_MS
 * without one, so an idle client knows the stream is alive and where it stands. Every event's
 * revision is also its SSE event id (http/use-sse-event-ids.ts): a client that loses the stream
 * subscribes again with `Last-Event-ID` (what an EventSource sends by itself) or `after` set to
 * the last revision it received and gets exactly what it missed, no duplicate and no gap (the
 * feed's order, service.ts). When both are sent, Last-Event-ID wins: it is the newer position (an
 * EventSource reconnects to the same URL, `after` included).
 *
 * Rules:
 * - one shared reader per replica (shared-reader.ts) reads each new change record once and hands
 *   it to every open stream, which keeps what its caller may see (the organization walls) and
 *   checks the permission again whenever a change can reach its caller (change-stream.ts): a
 *   subscriber whose access.changes:read is revoked gets an ACCESS_DENIED error event and the
 *   stream ends; so does one whose account facts (org role, Service Admin flag, disabled, the API
 *   key's row) changed (CREDENTIALS_CHANGED: subscribe again, with the credentials you have now);
 * - bounded: at most MAX_STREAMS_PER_PRINCIPAL open streams per principal and MAX_STREAMS per
 *   replica (429 TOO_MANY_STREAMS past either); a stream holds at most STREAM_BUFFER events its
 *   client has not taken, and ends with a resync event when the client leaves a full buffer
 *   untouched for SLOW_CONSUMER_MS (change-stream.ts);
 * - wake-ups: a write of this process that committed a change (AccessService.commits), a version
 *   PostgreSQL announces (platform/database.ts watchVersions), and a poll every POLL_MS as a safety
 *   net (SQLite announces nothing of another process's commits). One watcher per replica,
 *   running only while a stream is open; each wake-up has the shared reader read the new records,
 *   and the `accessChanges` streams wake on its batches, the viewer streams on the wake-ups;
 * - `closeAll` (the server's shutdown) ends every stream at once, so shutdown is not held by them.
 */
import type { AccessService } from '../../kernel/access.js';
import type { PermissionPair } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';
import { credentialsChanged, factsHold, sameIndex } from '../../kernel/fence.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { headRevision } from '../../kernel/one-revision.js';
import { type Principal, principalKey, type SignedInPrincipal } from '../../kernel/principal.js';
import { type Db, watchVersions } from '../../platform/database.js';
import { type ChangeEvent, ChangeStream, type ChangeStreamLimits } from './change-stream.js';
import { revisionInput } from './inputs.js';
import type { ChangeFeedService } from './service.js';
import { SharedReader } from './shared-reader.js';
import { WakeSignal } from './wake-signal.js';

export type { ChangeEvent } from './change-stream.js';

/** Open streams per replica. */
export const MAX_STREAMS = 1000;
/** Open streams per principal. */
export const MAX_STREAMS_PER_PRINCIPAL = 5;
/** Milliseconds without a change before a checkpoint is sent. */
export const CHECKPOINT_MS = 15_000;
/** Events a stream holds for its client at most (change-stream.ts). */
export const STREAM_BUFFER = 500;
/** Milliseconds a stream's full buffer waits for its client before the resync event ends it. */
export const SLOW_CONSUMER_MS = 10_000;
/** Milliseconds between two safety-net polls while a stream is open. */
const POLL_MS = 1000;

/** One event of the viewer's stream: its permissions, as of revision `revision` or later. */
export interface PermissionsEvent {
  revision: number;
  permissions: PermissionPair[];
}

export interface ChangeStreamDeps {
  db: Db;
  access: AccessService;
  changes: ChangeFeedService;
}

/** The open streams of one replica (module comment). */
export class ChangeStreams {
  private readonly perPrincipal = new Map<string, number>();
  private total = 0;
  private closed = false;
  /** Moved at every wake-up; a stream compares it to know it missed none. */
  private readonly wakes = new WakeSignal();
  private unwatch: (() => void) | undefined;
  private readonly limits: ChangeStreamLimits;
  private readonly streams = new Set<ChangeStream>();
  /** The one reader of the change records the streams share (shared-reader.ts). */
  private readonly reader: SharedReader;

  /** @param limits the bounds of each stream (defaults CHECKPOINT_MS, STREAM_BUFFER, SLOW_CONSUMER_MS; tests shorten them). */
  constructor(
    private readonly deps: ChangeStreamDeps,
    limits: Partial<ChangeStreamLimits> = {},
  ) {
    this.reader = new SharedReader(deps);
    this.limits = { checkpointMs: CHECKPOINT_MS, bufferSize: STREAM_BUFFER, slowConsumerMs: SLOW_CONSUMER_MS, ...limits };
  }

  /** Streams open now (metrics, tests). */
  get count(): number {
    return this.total;
  }

  /**
   * Opens the stream of `caller` after `resume.lastEventId` (the SSE Last-Event-ID header, which
   * wins), else after `resume.after`, else from the head now (only new changes): checks the
   * caller, the permission, the input and the bounds at once, then returns the stream, which
   * ends when `signal` aborts (the client left) or at `closeAll`.
   * @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403), VALIDATION_FAILED /
   *   REVISION_NOT_ISSUED (400), CHANGES_EXPIRED (410), TOO_MANY_STREAMS (429),
   *   DATABASE_UNAVAILABLE (503: shutting down); the stream itself ends with ACCESS_DENIED,
   *   CREDENTIALS_CHANGED (409) or CHANGES_EXPIRED as its last event, or with a resync event.
   */
  async open(
    caller: Principal,
    resume: { after?: number | null | undefined; lastEventId?: string | null | undefined },
    signal?: AbortSignal,
  ): Promise<AsyncGenerator<ChangeEvent>> {
    requireSignedIn(caller);
    if (this.closed) throw new DomainError('DATABASE_UNAVAILABLE', 'the server is shutting down; subscribe again');
    const lastEventId = resume.lastEventId ? parseInput(revisionInput('Last-Event-ID'), resume.lastEventId) : undefined;
    const after = lastEventId ?? resume.after;
    // Checks the permission and the input before the stream counts; without `after`, from the head now.
    const first = await this.deps.changes.page(caller, { ...(after != null && { after }), limit: 1 });
    const key = this.admit(caller);
    const stopped = () => this.closed || signal?.aborted === true;
    // A copy without the request's fence (kernel/fence.ts): the stream outlives its request, and
    // a change to its caller's permissions is judged by each page's own check, not by the 409 that
    // ends a request whose permissions changed while it was in flight.
    const stream = new ChangeStream({ ...this.deps, reader: this.reader }, { ...caller }, after ?? first.head, this.limits, stopped, () => {
      signal?.removeEventListener('abort', poke);
      this.streams.delete(stream);
      this.release(key);
    });
    const poke = () => stream.poke();
    signal?.addEventListener('abort', poke);
    this.streams.add(stream);
    return stream.start();
  }

  /**
   * Counts a new stream of `caller` within the bounds and starts the watcher; returns its key.
   * @throws DomainError TOO_MANY_STREAMS (429), DATABASE_UNAVAILABLE (503: shutting down).
   */
  private admit(caller: SignedInPrincipal): string {
    if (this.closed) throw new DomainError('DATABASE_UNAVAILABLE', 'the server is shutting down; subscribe again');
    const key = principalKey(caller);
    const mine = this.perPrincipal.get(key) ?? 0;
    if (this.total >= MAX_STREAMS || mine >= MAX_STREAMS_PER_PRINCIPAL)
      throw new DomainError(
        'TOO_MANY_STREAMS',
        `at most ${MAX_STREAMS_PER_PRINCIPAL} change streams per caller and ${MAX_STREAMS} per server are open at once`,
      );
    this.perPrincipal.set(key, mine + 1);
    this.total++;
    this.watch();
    return key;
  }

  /** Uncounts a stream that ended; the watcher stops with the last one. */
  private release(key: string): void {
    const left = (this.perPrincipal.get(key) ?? 1) - 1;
    if (left > 0) this.perPrincipal.set(key, left);
    else this.perPrincipal.delete(key);
    this.total--;
    if (this.total === 0) this.stopWatching();
  }

  /**
   * Opens the stream of the caller's own permissions (GraphQL `viewerPermissionsChanged`): its
   * permissions now, then again whenever a change reaches them (compared with the last sent,
   * so a change that leaves them as they were sends nothing). Needs only credentials; counted
   * against the same bounds as `open`; ends with CREDENTIALS_CHANGED (409) when the caller's
   * account facts changed (disabled, another org role, its API key's row).
   * @throws DomainError UNAUTHENTICATED (401), TOO_MANY_STREAMS (429), DATABASE_UNAVAILABLE (503: shutting down).
   */
  async openViewer(caller: Principal, signal?: AbortSignal): Promise<AsyncGenerator<PermissionsEvent>> {
    requireSignedIn(caller);
    const key = this.admit(caller);
    return this.runViewer({ ...caller }, key, signal);
  }

  private async *runViewer(caller: SignedInPrincipal, key: string, signal?: AbortSignal): AsyncGenerator<PermissionsEvent> {
    let sent: PermissionIndex | undefined;
    let sentAt = -1;
    const abort = () => this.wake();
    signal?.addEventListener('abort', abort);
    try {
      for (;;) {
        const seen = this.seq;
        if (this.closed || signal?.aborted) return;
        // Nothing to do (no SQL) unless a change reached the caller since the last look.
        const { freshness } = this.deps.access;
        freshness.sync();
        const at = freshness.revisionOf(caller);
        if (sent === undefined || at !== sentAt) {
          sentAt = at;
          const revision = this.reader.revision >= 0 ? this.reader.revision : await headRevision(this.deps.db);
          const index = await this.deps.access.permissionsOf(caller);
          if (sent !== undefined && index !== sent && !(await factsHold(caller, this.deps.db))) throw credentialsChanged();
          if (sent === undefined || (index !== sent && !sameIndex(index, sent))) yield { revision, permissions: index.list() };
          sent = index;
        }
        await this.wait(seen, this.limits.checkpointMs);
      }
    } finally {
      signal?.removeEventListener('abort', abort);
      this.release(key);
    }
  }

  /** Ends every stream (the server's shutdown); later subscriptions are refused. */
  closeAll(): void {
    this.closed = true;
    this.reader.stop();
    this.reader.wake();
    this.wakes.end();
    for (const stream of this.streams) stream.poke();
  }

  /** Moved at every wake-up (the viewer streams wait on it; shared-reader.ts Wakeups). */
  get seq(): number {
    return this.wakes.seq;
  }

  private readonly wake = (): void => {
    this.reader.wake();
    this.wakes.wake();
  };

  /** Resolves true at the next wake-up (at once when one came since `seen`, or once closed), false after `ms`. */
  wait(seen: number, ms: number): Promise<boolean> {
    return this.wakes.wait(seen, ms);
  }

  private watch(): void {
    if (this.unwatch) return;
    const fromWrites = this.deps.access.commits.listen(this.wake);
    const fromDatabase = watchVersions(this.deps.db, this.wake);
    const poll = setInterval(this.wake, POLL_MS);
    poll.unref();
    // The shared reader starts from the head now, so the first change is in its window.
    this.reader.wake();
    this.unwatch = () => {
      fromWrites();
      fromDatabase();
      clearInterval(poll);
    };
  }

  private stopWatching(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.reader.reset();
  }
}
