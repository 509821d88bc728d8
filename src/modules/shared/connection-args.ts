/**
 * The arguments of every Relay connection (GraphQL Cursor Connections Specification, the
 * `first`/`after`/`last`/`before` that @pothos/plugin-relay adds to each connection field), read
 * by the paging rule of every list (./paging.ts): a page reads either forwards (`first` rows after
 * `after`) or backwards (`last` rows before `before`), never both at once.
 */
import { z } from 'zod';
import { DomainError } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/inputs.js';
import { pageSizeInput } from './paging.js';

/** The raw arguments of a connection field, as GraphQL passes them. */
export interface ConnectionArgs {
  first?: unknown;
  after?: unknown;
  last?: unknown;
  before?: unknown;
}

/** A page read forwards from the start or after a cursor, or backwards up to a cursor. */
export type ConnectionPage =
  | { forward: true; size: number; after: string | null }
  | { forward: false; size: number; before: string | null };

/** A cursor: opaque text, at most 64 characters (each connection reads its own). */
const cursorText = (field: string) =>
  z
    .string({ error: `${field} must be a cursor` })
    .max(64, 'not a cursor of this connection')
    .nullish();

const connectionArgsInput = (defaultSize: number) =>
  z.object({
    first: pageSizeInput('first', defaultSize),
    last: pageSizeInput('last', defaultSize),
    after: cursorText('after'),
    before: cursorText('before'),
  });

/**
 * The page of a connection's raw arguments: `first`/`last` as any page size (missing or below 1:
 * `defaultSize`), the cursors as given.
 * @throws DomainError VALIDATION_FAILED (400) "first: first must be at most 1000" (likewise `last`), a
 *   cursor that is not a string of at most 64 characters, or forward and backward arguments together.
 */
export function connectionPage(raw: ConnectionArgs, defaultSize: number): ConnectionPage {
  const args = parseInput(connectionArgsInput(defaultSize), raw);
  const backward = raw.last != null || raw.before != null;
  if (backward && (raw.first != null || raw.after != null)) {
    throw new DomainError('VALIDATION_FAILED', 'first/after and last/before cannot be combined: page forwards or backwards');
  }
  return backward
    ? { forward: false, size: args.last, before: args.before ?? null }
    : { forward: true, size: args.first, after: args.after ?? null };
}
