import { describe, expect, it } from 'vitest';
import { DomainError } from '../../kernel/errors.js';
import { type ConnectionArgs, connectionPage } from './connection-args.js';

/** The page of `args`, or the 400's message. */
function outcome<T>(read: () => T): T | string {
  try {
    return read();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return `400 ${error.message}`;
    throw error;
  }
}

describe('connection arguments (first/after or last/before)', () => {
  const cases: [string, ConnectionArgs, ReturnType<typeof connectionPage> | string][] = [
    ['nothing: forwards from the start', {}, { forward: true, size: 100, after: null }],
    ['first and after', { first: 5, after: 'c' }, { forward: true, size: 5, after: 'c' }],
    ['first 0 is the default (the paging rule)', { first: 0 }, { forward: true, size: 100, after: null }],
    [
      'null arguments (GraphQL variables)',
      { first: null, after: null, last: null, before: null },
      { forward: true, size: 100, after: null },
    ],
    ['last and before', { last: 3, before: 'c' }, { forward: false, size: 3, before: 'c' }],
    ['last alone', { last: 3 }, { forward: false, size: 3, before: null }],
    ['before alone: default size', { before: 'c' }, { forward: false, size: 100, before: 'c' }],
    ['first above 1000', { first: 1001 }, '400 first: first must be at most 1000'],
    ['last above 1000', { last: 1001, before: 'c' }, '400 last: last must be at most 1000'],
    ['a cursor too long', { after: 'x'.repeat(65) }, '400 after: not a cursor of this connection'],
    ['both directions', { first: 2, last: 2 }, '400 first/after and last/before cannot be combined: page forwards or backwards'],
    ['after with before', { after: 'a', before: 'b' }, '400 first/after and last/before cannot be combined: page forwards or backwards'],
  ];
  it.each(cases)('%s', (_name, args, expected) => {
    expect(outcome(() => connectionPage(args, 100))).toEqual(expected);
  });
});
