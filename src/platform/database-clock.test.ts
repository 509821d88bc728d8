/** OffsetClock (database-clock.ts): the process's time moved by the offset measured to a reference. */
import { describe, expect, it } from 'vitest';
import { OffsetClock } from './database-clock.js';

describe('OffsetClock', () => {
  it('reads as the reference once synced, half the round trip taken as the reading moment', async () => {
    let local = 1_000_000;
    const base = { now: () => new Date(local) };
    // The reference is 5 s ahead; the reading takes 10 ms of local time.
    const clock = new OffsetClock(async () => {
      local += 5;
      const reference = new Date(local + 5000);
      local += 5;
      return reference;
    }, base);
    expect(clock.now().getTime()).toBe(local);
    await clock.sync();
    expect(clock.offset).toBe(5000);
    expect(clock.now().getTime()).toBe(local + 5000);
    local += 60_000;
    expect(clock.now().getTime()).toBe(local + 5000);
  });

  it('keeps the last offset when a reading fails', async () => {
    let fail = false;
    const clock = new OffsetClock(
      async () => {
        if (fail) throw new Error('database unavailable');
        return new Date(2000);
      },
      { now: () => new Date(1000) },
    );
    await clock.sync();
    fail = true;
    await expect(clock.sync()).rejects.toThrow('database unavailable');
    expect(clock.offset).toBe(1000);
  });
});
