/**
 * A counter that moves at every wake-up, and the waits on it: what a change stream waits on
 * between two reads (shared-reader.ts `Wakeups`: the shared reader's new batches, and streams.ts's
 * wake-ups for the viewer's streams).
 */
export class WakeSignal {
  private count = 0;
  private ended = false;
  private readonly waiters = new Set<() => void>();

  /** Moves at every wake-up. */
  get seq(): number {
    return this.count;
  }

  /** Moves the counter and wakes every waiter. */
  wake(): void {
    this.count++;
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Wakes every waiter; from now on every wait answers at once (the server's shutdown). */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Resolves true at the next wake-up after `seen` (at once if one came since, or once ended), false after `ms`. */
  wait(seen: number, ms: number): Promise<boolean> {
    if (this.count !== seen || this.ended) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(woken);
      };
      const waiter = () => done(true);
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(waiter);
    });
  }
}
