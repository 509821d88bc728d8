/** Time source, injectable so tests can move time without sleeping. */
export interface Clock {
  /** Current time. */
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
