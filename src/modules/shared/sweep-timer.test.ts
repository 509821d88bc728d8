/** scheduleSweeps (sweep-timer.ts): one sweep at a time, a wake during one sweeps once more, a failure tried again. */
import { describe, expect, it } from 'vitest';
import { type SweepJob, scheduleSweeps } from './sweep-timer.js';

/** A job whose sweeps end when the test says so. */
function heldJob() {
  const ends: Array<(failed?: boolean) => void> = [];
  let started = 0;
  const waiters: Array<() => void> = [];
  const job: SweepJob = {
    sweep: () =>
      new Promise((resolve, reject) => {
        started++;
        for (const w of waiters.splice(0)) w();
        ends.push((failed) => (failed ? reject(new Error('database unavailable')) : resolve(0)));
      }),
    next: async () => null,
    prune: async () => 0,
  };
  const sweepStarted = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => (started >= n ? resolve() : waiters.push(check));
      check();
    });
  return { job, ends, sweepStarted, started: () => started };
}

function commitsSignal() {
  const listeners = new Set<() => void>();
  return {
    listen(listener: () => void) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    commit() {
      for (const listener of listeners) listener();
    },
  };
}

const OPTIONS = { clock: { now: () => new Date() }, maxWaitMs: 60_000, pruneEveryMs: 60_000, sweepFailed: 'x', pruneFailed: 'y' };

describe('scheduleSweeps', () => {
  it('sweeps at start, and once more after commits that came during a sweep, never two at once', async () => {
    const { job, ends, sweepStarted, started } = heldJob();
    const commits = commitsSignal();
    const stop = scheduleSweeps(job, { ...OPTIONS, commits, log: { warn: () => undefined } });
    await sweepStarted(1);
    commits.commit();
    commits.commit();
    await new Promise((r) => setImmediate(r));
    expect(started()).toBe(1);
    ends[0]?.();
    await sweepStarted(2);
    ends[1]?.();
    await new Promise((r) => setImmediate(r));
    expect(started()).toBe(2);
    stop();
    commits.commit();
    await new Promise((r) => setImmediate(r));
    expect(started()).toBe(2);
  });

  it('logs a failed sweep and sweeps again at the next commit', async () => {
    const { job, ends, sweepStarted } = heldJob();
    const commits = commitsSignal();
    const warned: string[] = [];
    const stop = scheduleSweeps(job, { ...OPTIONS, commits, log: { warn: (_o: unknown, m: string) => void warned.push(m) } as never });
    await sweepStarted(1);
    ends[0]?.(true);
    await new Promise((r) => setImmediate(r));
    expect(warned).toEqual(['x; trying again later']);
    commits.commit();
    await sweepStarted(2);
    stop();
  });
});
