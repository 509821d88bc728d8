/**
 * Inputs of the change feed, on both doors: `after` (a revision; omitted: from the oldest kept) and
 * `limit` (default 100, at most 1000: the paging rule of every list, shared/paging.ts), and the
 * read-your-writes header's revision.
 */
import { z } from 'zod';
import { wholeNumberText } from '../../kernel/inputs.js';
import { pageSizeInput } from '../shared/paging.js';

/** Changes per page when none is asked for. */
export const DEFAULT_CHANGES_LIMIT = 100;
const MAX_INT = 2_147_483_647;

/** A revision: a whole number 0..2^31-1, from a GraphQL Int or a REST query string or header of digits. */
export const revisionInput = (field: string) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? (wholeNumberText(value) ?? value) : value),
    z
      .number({ error: `${field} must be a revision (a whole number)` })
      .int(`${field} must be a revision (a whole number)`)
      .min(0, `${field} must be at least 0`)
      .max(MAX_INT, `${field} is too large`),
  );

/** `GET /api/access-control/changes` query and GraphQL `accessChanges` arguments. */
export const changesPageInput = z.object({
  after: revisionInput('after').nullish(),
  limit: pageSizeInput('limit', DEFAULT_CHANGES_LIMIT),
});
