/**
 * When each user and service account was last seen: Grafana's `user.last_seen_at`, shown by the
 * directory (`lastSeenAt`, `lastSeenAtAge` of user searches and organization members).
 *
 * Grafana updates it after every authenticated request of a user or service account, whatever
 * the credential (session, Basic, token), in a goroutine off the request, and only when the
 * stored time is more than 5 minutes old (pkg/services/user/userimpl `shouldUpdateLastSeen`,
 * called from authn's SyncLastSeenHook). Same here: a request whose user was written less than
 * LAST_SEEN_INTERVAL_MS ago costs one in-memory lookup and no SQL; otherwise one UPDATE is sent
 * without the request waiting for it. The memory of recent writes is an LRU of at most
 * TRACKED_USERS ids, so it stays bounded whatever the number of users; a forgotten id only
 * costs one more UPDATE, which itself writes nothing when the stored time is still fresh (another
 * process, or a restart, may have written it).
 *
 * The UPDATE is raw SQL on purpose: Prisma's `update` would also move `updated` (`@updatedAt`),
 * and being seen is not a change of the user (Grafana's UpdateLastSeenAt touches only
 * last_seen_at). Times are stored in the text form Prisma uses for SQLite DateTime columns, so
 * Prisma reads them back and the freshness test compares them as text; PostgreSQL reads the same
 * text as its `timestamp(3)` (the offset is +00:00, and the column holds UTC as Prisma writes it).
 */
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/database.js';

/** Grafana's interval between two writes of one user's last-seen time. */
export const LAST_SEEN_INTERVAL_MS = 5 * 60_000;
/** Ids whose last write is remembered (about 100 bytes each). */
const TRACKED_USERS = 10_000;

/** A time as Prisma stores a SQLite DateTime: ISO 8601 with milliseconds and `+00:00`. */
function storedTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/** Writes users' last-seen times, at most once per LAST_SEEN_INTERVAL_MS each (module comment). */
export class LastSeenTracker {
  /** User id -> time (ms) of its last write by this process. */
  private readonly written = new LRUCache<number, number>({ max: TRACKED_USERS });
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Told of a failed write (the request it came from has already been answered). */
    private readonly onError: (error: unknown, userId: number) => void = () => undefined,
  ) {}

  /**
   * Notes that user (or service account) `userId` was seen now. Returns at once; a due write
   * runs in the background (`settled()` waits for it).
   */
  seen(userId: number): void {
    const now = this.clock.now().getTime();
    const last = this.written.get(userId);
    if (last !== undefined && now - last < LAST_SEEN_INTERVAL_MS) return;
    this.written.set(userId, now);
    const write: Promise<void> = this.write(userId, now)
      .catch((error: unknown) => {
        this.written.delete(userId); // try again on the next request
        this.onError(error, userId);
      })
      .finally(() => this.pending.delete(write));
    this.pending.add(write);
  }

  /** Resolves when every write started so far has finished (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async write(userId: number, now: number): Promise<void> {
    const at = storedTime(now);
    const stale = storedTime(now - LAST_SEEN_INTERVAL_MS);
    await this.db
      .$executeRaw`UPDATE "User" SET "lastSeenAt" = ${at} WHERE "id" = ${userId} AND ("lastSeenAt" IS NULL OR "lastSeenAt" <= ${stale})`;
  }
}
