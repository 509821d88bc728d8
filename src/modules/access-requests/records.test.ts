import { describe, expect, it } from 'vitest';
import { statusAt, statusWhere } from './records.js';

const now = new Date('2030-01-01T12:00:00Z');
const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('statusAt: a pending request past its expiry reads as expired', () => {
  it.each([
    ['pending', 1, 'pending'],
    ['pending', 0, 'expired'],
    ['pending', -1, 'expired'],
    ['approved', -1, 'approved'],
    ['denied', 1, 'denied'],
    ['cancelled', -1, 'cancelled'],
    ['expired', 1, 'expired'],
  ] as const)('%s, expiring in %is: %s', (status, seconds, expected) => {
    expect(statusAt({ status, expiresAt: at(seconds) }, now)).toBe(expected);
  });
});

describe('statusWhere: the same rule as a filter', () => {
  it.each([
    ['pending', { status: 'pending', expiresAt: { gt: now } }],
    ['expired', { OR: [{ status: 'expired' }, { status: 'pending', expiresAt: { lte: now } }] }],
    ['approved', { status: 'approved' }],
    ['denied', { status: 'denied' }],
    ['cancelled', { status: 'cancelled' }],
  ] as const)('%s', (status, where) => {
    expect(statusWhere(status, now)).toEqual(where);
  });
});
