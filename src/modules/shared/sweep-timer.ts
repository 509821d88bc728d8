/**
 * The timer that writes events due at a moment, once across replicas (assignments' start and end,
 * assignments/boundaries.ts; unanswered access requests' expiry, access-requests/expiry.ts). Every
 * replica runs one per job: it sweeps now, then at the next moment the job knows (at most
 * `maxWaitMs` apart, so a moment written by another replica is found too), and after each commit
 * of this process; one sweep runs at a time (a wake during it sweeps again once it ends); `prune`
 * runs every `pruneEveryMs`. A failure is logged at warn and tried again at the next wake; the
 * sweep itself decides which replica writes (each job claims its rows by a conditional update).
 */
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';

/** What a timer runs. */
export interface SweepJob {
  /** Writes what is due now. */
  sweep(): Promise<unknown>;
  /** The next moment something falls due (ms since the epoch), or null when nothing is waiting. */
  next(): Promise<number | null>;
  /** Deletes what nothing reads any more. */
  prune(): Promise<unknown>;
}

/** Where the timer's time and wakes come from, and what it logs on failure. */
export interface SweepTimerOptions {
  clock: Clock;
  /** This process's commits (AccessService.commits): each one wakes the timer. */
  commits: { listen(listener: () => void): () => void };
  log: Pick<Logger, 'warn'>;
  /** The longest sleep between two sweeps, in milliseconds. */
  maxWaitMs: number;
  /** Milliseconds between two prunes. */
  pruneEveryMs: number;
  /** The warn messages of a failed sweep and a failed prune ("...; trying again later" is added). */
  sweepFailed: string;
  pruneFailed: string;
}

/** Runs `job` (module comment). Returns the function that stops it. */
export function scheduleSweeps(job: SweepJob, options: SweepTimerOptions): () => void {
  const { clock, commits, log, maxWaitMs, pruneEveryMs } = options;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let stopped = false;
  const warn = (what: string) => (error: unknown) =>
    log.warn({ error: error instanceof Error ? error.message : String(error) }, `${what}; trying again later`);
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    again = false;
    clearTimeout(timer);
    job
      .sweep()
      .then(() => job.next())
      .then((next) => {
        const wait = next === null ? maxWaitMs : Math.min(maxWaitMs, Math.max(0, next - clock.now().getTime()));
        if (!stopped) timer = setTimeout(wake, wait);
      })
      .catch((error: unknown) => {
        warn(options.sweepFailed)(error);
        if (!stopped) timer = setTimeout(wake, maxWaitMs);
      })
      .finally(() => {
        running = false;
        timer?.unref();
        if (again) wake();
      });
  };
  const unlisten = commits.listen(() => setImmediate(wake));
  const pruning = setInterval(() => void job.prune().catch(warn(options.pruneFailed)), pruneEveryMs);
  pruning.unref();
  wake();
  return () => {
    stopped = true;
    unlisten();
    clearTimeout(timer);
    clearInterval(pruning);
  };
}
