/**
 * The one clock of a deployment (the database's, where replicas share one). On
 * PostgreSQL every replica reads time as the database's: the offset between the database's
 * `now()` and this process's clock, read at start and again every REFRESH_MS, is added to the process's time, so replicas whose clocks
 * drift still agree on when an assignment starts or ends. Reading `now()` in every held-roles
 * query instead would cost the hot path nothing more but leave the validations, the cache's
 * expiry and the boundary timer on another clock. On SQLite (one file, one machine) the
 * process's clock is the database's.
 *
 * Each measurement takes SAMPLES readings and keeps the one of the shortest round trip, half of
 * it taken as the reading's moment (NTP's rule): the error of an offset is at most half that
 * round trip, so one reading delayed by a busy machine does not shift every replica's expiry.
 */
import { type Clock, systemClock } from './clock.js';
import { type Db, providerOf } from './database.js';

/** Milliseconds between two readings of the database's clock. */
export const REFRESH_MS = 60_000;

/** Readings per measurement; the one of the shortest round trip is kept. */
export const SAMPLES = 5;

/** A clock `offsetMs` ahead of `base`, the offset measured against a reference (`sync`). */
export class OffsetClock implements Clock {
  private offsetMs = 0;

  /** @param read the reference's time now (PostgreSQL: `SELECT now()`). */
  constructor(
    private readonly read: () => Promise<Date>,
    private readonly base: Clock = systemClock,
  ) {}

  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetMs);
  }

  /** The reference's time minus this process's, in milliseconds, as last measured. */
  get offset(): number {
    return this.offsetMs;
  }

  /**
   * Measures the offset: `samples` readings, the one of the shortest round trip kept (module
   * comment). @throws what `read` throws (the offset is kept).
   */
  async sync(samples = SAMPLES): Promise<void> {
    let best: { roundTrip: number; offset: number } | undefined;
    for (let i = 0; i < samples; i++) {
      const before = this.base.now().getTime();
      const reference = (await this.read()).getTime();
      const after = this.base.now().getTime();
      if (!best || after - before < best.roundTrip) best = { roundTrip: after - before, offset: reference - (before + after) / 2 };
    }
    if (best) this.offsetMs = best.offset;
  }
}

/**
 * The clock of `db`: on PostgreSQL an OffsetClock on its `now()`, measured before this returns and
 * every REFRESH_MS after (a failed reading keeps the last offset); on SQLite the system clock.
 * `stop` ends the refreshing.
 * @throws what the first reading throws.
 */
export async function databaseClock(db: Db): Promise<{ clock: Clock; stop: () => void }> {
  if (providerOf(db) !== 'postgresql') return { clock: systemClock, stop: () => {} };
  const clock = new OffsetClock(async () => {
    const [row] = await db.$queryRaw<{ now: Date }[]>`SELECT now() AS "now"`;
    return row ? new Date(row.now) : new Date();
  });
  await clock.sync();
  const timer = setInterval(() => void clock.sync().catch(() => {}), REFRESH_MS);
  timer.unref();
  return { clock, stop: () => clearInterval(timer) };
}
