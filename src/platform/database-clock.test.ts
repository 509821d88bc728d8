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
    await clock.sync(1);
    expect(clock.offset).toBe(5000);
    expect(clock.now().getTime()).toBe(local + 5000);
    local += 60_000;
    expect(clock.now().getTime()).toBe(local + 5000);
  });

  it('keeps the reading of the shortest round trip: a delayed one does not move the offset', async () => {
    let local = 0;
    // Round trips of 400, 10 and 300 ms; the reference is always 1 s ahead at the moment it answers,
    // which comes at the end of the delay (a reply held up on its way back).
    const trips = [400, 10, 300];
    let i = 0;
    const clock = new OffsetClock(
      async () => {
        local += trips[i++ % trips.length] as number;
        return new Date(local + 1000);
      },
      { now: () => new Date(local) },
    );
    await clock.sync(3);
    // Each reading's error is half its round trip; the 10 ms one is 5 ms off, the others 150-200.
    expect(clock.offset).toBe(1005);
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
