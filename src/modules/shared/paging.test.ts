import { describe, expect, it } from 'vitest';
import { DomainError } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/inputs.js';
import {
  DEFAULT_PER_PAGE,
  MAX_PAGE,
  MAX_PAGE_SIZE,
  pageNumberInput,
  pageOffset,
  pageSize,
  pageSizeInput,
  requestedRows,
} from './paging.js';

/** The answer of parsing `value`, or the 400's message. */
function outcome(schema: Parameters<typeof parseInput>[0], value: unknown): number | string {
  try {
    return parseInput(schema, value) as number;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_FAILED') return `400 ${error.message}`;
    throw error;
  }
}

describe('page size (perpage, perPage, first, limit)', () => {
  // Grafana: perPage := c.QueryInt("perpage"); if perPage <= 0 { perPage = 1000 }. Above the maximum: 400.
  const cases: [string, unknown, number | string][] = [
    ['missing', undefined, DEFAULT_PER_PAGE],
    ['null (GraphQL)', null, DEFAULT_PER_PAGE],
    ['empty query value', '', DEFAULT_PER_PAGE],
    ['not a number', 'ten', DEFAULT_PER_PAGE],
    ['a fraction', '1.5', DEFAULT_PER_PAGE],
    ['spaces around (Atoi refuses them)', ' 5 ', DEFAULT_PER_PAGE],
    ['zero', '0', DEFAULT_PER_PAGE],
    ['negative', '-3', DEFAULT_PER_PAGE],
    ['negative Int', -3, DEFAULT_PER_PAGE],
    ['one', '1', 1],
    ['with a plus sign', '+7', 7],
    ['an Int', 25, 25],
    ['the maximum', String(MAX_PAGE_SIZE), MAX_PAGE_SIZE],
    ['one above the maximum', String(MAX_PAGE_SIZE + 1), `400 perpage must be at most ${MAX_PAGE_SIZE}`],
    ['an Int above the maximum', 5000, `400 perpage must be at most ${MAX_PAGE_SIZE}`],
    ['beyond 64 bits', '99999999999999999999999', `400 perpage must be at most ${MAX_PAGE_SIZE}`],
  ];
  it.each(cases)('%s: %j -> %j', (_name, value, expected) => {
    expect(outcome(pageSizeInput('perpage', DEFAULT_PER_PAGE), value)).toBe(expected);
  });

  it('each list keeps its own default: the audit log 100, "no limit" 0', () => {
    expect(outcome(pageSizeInput('perpage', 100), 'x')).toBe(100);
    expect(outcome(pageSizeInput('limit', 0), '-1')).toBe(0);
    expect(outcome(pageSizeInput('limit', 0), '1001')).toBe('400 limit must be at most 1000');
  });

  it('pageSize reads one value outside an object and names the field in the 400', () => {
    expect(pageSize('first', undefined, 100)).toBe(100);
    expect(pageSize('first', 1000, 100)).toBe(1000);
    expect(() => pageSize('first', 1001, 100)).toThrow(/^first must be at most 1000$/);
  });

  it('requestedRows (the cost estimate) applies the defaults but never refuses', () => {
    expect(requestedRows(undefined, 100)).toBe(100);
    expect(requestedRows(0, 100)).toBe(100);
    expect(requestedRows('abc', 100)).toBe(100);
    expect(requestedRows(50, 100)).toBe(50);
    expect(requestedRows(1_000_000, 100)).toBe(1_000_000);
  });
});

describe('page number (page)', () => {
  // Grafana: page := c.QueryInt("page"); if page < 1 { page = 1 }. GET /api/orgs counts from 0.
  const cases: [string, 0 | 1, unknown, number | string][] = [
    ['missing', 1, undefined, 1],
    ['not a number', 1, 'two', 1],
    ['zero', 1, '0', 1],
    ['negative', 1, -3, 1],
    ['a page', 1, '2', 2],
    ['the largest', 1, MAX_PAGE, MAX_PAGE],
    ['above the largest', 1, String(MAX_PAGE + 1), `400 page must be at most ${MAX_PAGE}`],
    ['orgs: missing', 0, undefined, 0],
    ['orgs: zero', 0, '0', 0],
    ['orgs: negative', 0, '-1', 0],
    ['orgs: a page', 0, 3, 3],
  ];
  it.each(cases)('%s (from %i): %j -> %j', (_name, first, value, expected) => {
    expect(outcome(pageNumberInput('page', first), value)).toBe(expected);
  });

  it('the offset of the largest page of the largest size is an exact integer', () => {
    expect(pageOffset(1, 10)).toBe(0);
    expect(pageOffset(3, 10)).toBe(20);
    expect(Number.isSafeInteger(pageOffset(MAX_PAGE, MAX_PAGE_SIZE))).toBe(true);
  });
});
