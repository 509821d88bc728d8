/** The window rules (window.ts), case by case. */
import { describe, expect, it } from 'vitest';
import { isDomainError } from '../../kernel/errors.js';
import { type AssignmentWindow, checkWindow, sameWindow } from './window.js';

const NOW = new Date('2026-11-28T12:00:00Z');
const at = (minutes: number) => new Date(NOW.getTime() + minutes * 60_000);
const w = (notBefore: Date | null, expiresAt: Date | null): AssignmentWindow => ({ notBefore, expiresAt });

const cases: { name: string; window: AssignmentWindow; max?: number; code?: string }[] = [
  { name: 'no window, no limit', window: w(null, null) },
  { name: 'an end in the future', window: w(null, at(60)) },
  { name: 'a start in the future and a later end', window: w(at(10), at(70)) },
  { name: 'a start in the past', window: w(at(-10), at(10)) },
  { name: 'an end equal to the start', window: w(at(10), at(10)), code: 'ASSIGNMENT_WINDOW_INVALID' },
  { name: 'an end before the start', window: w(at(20), at(10)), code: 'ASSIGNMENT_WINDOW_INVALID' },
  { name: 'an end now', window: w(null, NOW), code: 'ASSIGNMENT_WINDOW_PAST' },
  { name: 'an end in the past', window: w(null, at(-1)), code: 'ASSIGNMENT_WINDOW_PAST' },
  { name: 'a role with a limit, no end', window: w(null, null), max: 3600, code: 'ASSIGNMENT_TOO_LONG' },
  { name: 'a role with a limit, exactly the limit', window: w(null, at(60)), max: 3600 },
  {
    name: 'a role with a limit, one second more',
    window: w(null, new Date(at(60).getTime() + 1000)),
    max: 3600,
    code: 'ASSIGNMENT_TOO_LONG',
  },
  { name: 'the limit counts from a later start', window: w(at(120), at(180)), max: 3600 },
  { name: 'the limit counts from now when the start is past', window: w(at(-120), at(61)), max: 3600, code: 'ASSIGNMENT_TOO_LONG' },
];

describe('checkWindow', () => {
  for (const c of cases) {
    it(c.name, () => {
      const check = () => checkWindow({ uid: 'r', maxAssignmentSeconds: c.max ?? null }, c.window, NOW);
      if (!c.code) {
        expect(check).not.toThrow();
        return;
      }
      try {
        check();
        expect.unreachable('no error');
      } catch (error) {
        expect(isDomainError(error) && error.code).toBe(c.code);
      }
    });
  }
});

describe('sameWindow', () => {
  it('compares moments, not Date objects', () => {
    expect(sameWindow(w(at(1), null), w(new Date(at(1).getTime()), null))).toBe(true);
    expect(sameWindow(w(null, at(1)), w(null, null))).toBe(false);
  });
});
