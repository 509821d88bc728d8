import { describe, expect, it } from 'vitest';
import { DomainError } from '../../kernel/errors.js';
import type { ConnectionArgs } from '../shared/connection-args.js';
import { cursorWindow, roleCursor } from './listing-page.js';

/** The window of `args`, or the 400's message. */
function outcome(args: ConnectionArgs): { offset: number; limit: number } | string {
  try {
    return cursorWindow(args);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return `400 ${error.message}`;
    throw error;
  }
}

describe('rolesConnection windows (positions)', () => {
  const cases: [string, ConnectionArgs, { offset: number; limit: number } | string][] = [
    ['first page', { first: 2 }, { offset: 0, limit: 2 }],
    ['after position 3', { first: 2, after: roleCursor(3) }, { offset: 4, limit: 2 }],
    ['last 2 before position 5', { last: 2, before: roleCursor(5) }, { offset: 3, limit: 2 }],
    ['last 10 before position 3: from the start', { last: 10, before: roleCursor(3) }, { offset: 0, limit: 3 }],
    ['before position 0: empty', { last: 2, before: roleCursor(0) }, { offset: 0, limit: 0 }],
    ['last without before', { last: 2 }, '400 last needs before on rolesConnection: positions count from the start'],
    [
      'a cursor of another listing',
      { before: Buffer.from('audit:3').toString('base64url') },
      '400 before: not a cursor of rolesConnection',
    ],
    ['not base64url', { after: '!!' }, '400 after: not a cursor of rolesConnection'],
  ];
  it.each(cases)('%s', (_name, args, expected) => {
    expect(outcome(args)).toEqual(expected);
  });
});
