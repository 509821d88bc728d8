import { describe, expect, it } from 'vitest';
import { acceptsVersion, bumpedVersion, MAX_CREATE_VERSION, MAX_ROLE_VERSION } from './role-version.js';

const MAX = MAX_ROLE_VERSION;

describe('acceptsVersion', () => {
  const cases: { sent: number; stored: number; accepted: boolean; why: string }[] = [
    { sent: 1, stored: 0, accepted: true, why: 'higher' },
    { sent: 7, stored: 3, accepted: true, why: 'any higher version, not only the next' },
    { sent: 3, stored: 3, accepted: false, why: 'equal is a conflict below the ceiling' },
    { sent: 2, stored: 3, accepted: false, why: 'lower' },
    { sent: MAX, stored: MAX_CREATE_VERSION, accepted: true, why: 'the highest creatable version has a next one' },
    { sent: MAX, stored: MAX, accepted: true, why: 'at the ceiling the ceiling again' },
    { sent: MAX - 1, stored: MAX, accepted: false, why: 'lower than the ceiling' },
    { sent: MAX_CREATE_VERSION, stored: MAX_CREATE_VERSION, accepted: false, why: 'equal one below the ceiling' },
  ];
  it.each(cases)('$sent over $stored -> $accepted ($why)', ({ sent, stored, accepted }) => {
    expect(acceptsVersion(sent, stored)).toBe(accepted);
  });
});

describe('bumpedVersion', () => {
  it.each([
    [0, 1],
    [41, 42],
    [MAX_CREATE_VERSION, MAX],
    [MAX, MAX],
  ])('%i -> %i', (stored, next) => {
    expect(bumpedVersion(stored)).toBe(next);
  });
});
