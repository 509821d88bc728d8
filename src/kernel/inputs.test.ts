import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import { PermissionIndex } from './evaluator.js';
import { permittedIds } from './guards.js';
import { idFromText, MAX_ID, parseId, wholeNumberText } from './inputs.js';

// The one id rule (kernel/inputs.ts): what text names an id, and what every door answers otherwise.
describe('id from text', () => {
  const cases: { text: string; whole: number | null; id: number | null; why: string }[] = [
    { text: '1', whole: 1, id: 1, why: 'smallest id' },
    { text: '42', whole: 42, id: 42, why: 'plain digits' },
    { text: '007', whole: 7, id: 7, why: 'leading zeros are digits' },
    { text: String(MAX_ID), whole: MAX_ID, id: MAX_ID, why: 'largest id' },
    { text: String(MAX_ID + 1), whole: MAX_ID + 1, id: null, why: 'above the largest id' },
    { text: '9999999999', whole: 9_999_999_999, id: null, why: 'ten digits, out of range' },
    { text: '12345678901', whole: null, id: null, why: 'eleven digits' },
    { text: '0', whole: 0, id: null, why: 'ids start at 1' },
    { text: '', whole: null, id: null, why: 'empty' },
    { text: '-1', whole: null, id: null, why: 'sign' },
    { text: '+1', whole: null, id: null, why: 'plus sign' },
    { text: ' 1', whole: null, id: null, why: 'leading space' },
    { text: '1 ', whole: null, id: null, why: 'trailing space' },
    { text: '1.0', whole: null, id: null, why: 'fraction' },
    { text: '1e3', whole: null, id: null, why: 'exponent' },
    { text: '0x10', whole: null, id: null, why: 'hexadecimal' },
    { text: 'abc', whole: null, id: null, why: 'letters' },
    { text: '١٢', whole: null, id: null, why: 'non-ASCII digits' },
    { text: '*', whole: null, id: null, why: 'a wildcard is no id' },
  ];
  it.each(cases)('$text -> $id ($why)', ({ text, whole, id }) => {
    expect(wholeNumberText(text)).toBe(whole);
    expect(idFromText(text)).toBe(id);
  });
});

describe('parseId: both doors', () => {
  const accepted: { value: unknown; id: number }[] = [
    { value: 5, id: 5 },
    { value: '5', id: 5 },
    { value: MAX_ID, id: MAX_ID },
    { value: String(MAX_ID), id: MAX_ID },
    { value: '007', id: 7 },
  ];
  it.each(accepted)('$value -> $id', ({ value, id }) => {
    expect(parseId('teamId', value)).toBe(id);
  });

  const refused: { value: unknown; message: string }[] = [
    { value: 0, message: 'teamId must be a positive whole number' },
    { value: '0', message: 'teamId must be a positive whole number' },
    { value: -3, message: 'teamId must be a positive whole number' },
    { value: 1.5, message: 'teamId must be a positive whole number' },
    { value: MAX_ID + 1, message: 'teamId is too large' },
    { value: '9999999999', message: 'teamId is too large' },
    { value: '12345678901', message: 'teamId is required and must be a positive whole number' },
    { value: 'abc', message: 'teamId is required and must be a positive whole number' },
    { value: '-1', message: 'teamId is required and must be a positive whole number' },
    { value: undefined, message: 'teamId is required and must be a positive whole number' },
    { value: null, message: 'teamId is required and must be a positive whole number' },
    // Past the fast path of valid ids: what it must leave to the schema.
    { value: Number.NaN, message: 'teamId' },
    { value: Number.POSITIVE_INFINITY, message: 'teamId' },
    { value: ' 5', message: 'teamId is required and must be a positive whole number' },
    { value: '5.0', message: 'teamId is required and must be a positive whole number' },
  ];
  it.each(refused)('$value -> 400', ({ value, message }) => {
    let thrown: unknown;
    try {
      parseId('teamId', value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DomainError);
    expect((thrown as DomainError).code).toBe('VALIDATION_FAILED');
    expect((thrown as DomainError).message).toContain(message);
  });
});

// guards.permittedIds reads ids out of held scopes with the same rule.
describe('permittedIds', () => {
  const idx = (...scopes: string[]) => PermissionIndex.from(scopes.map((scope) => ({ action: 'teams:read', scope })));
  const cases: { held: string[]; ids: 'all' | number[]; why: string }[] = [
    { held: ['teams:*'], ids: 'all', why: 'area wildcard' },
    { held: ['teams:id:*'], ids: 'all', why: 'id wildcard' },
    { held: ['teams:id:3', 'teams:id:12'], ids: [3, 12], why: 'exact ids' },
    { held: ['teams:id:0', 'teams:id:x', 'teams:id:1e3', 'teams:id:-2'], ids: [], why: 'no id in any of them' },
    { held: [`teams:id:${MAX_ID + 1}`], ids: [], why: 'out of range' },
    { held: ['users:id:4'], ids: [], why: 'another area' },
    { held: [], ids: [], why: 'nothing held' },
  ];
  it.each(cases)('$held -> $ids ($why)', ({ held, ids }) => {
    const got = permittedIds(idx(...held), 'teams:read', 'teams:id:');
    // A set of ids: the order is the index's, not part of the rule.
    expect(got === 'all' ? got : [...got].sort((a, b) => a - b)).toEqual(ids);
  });
});
