/**
 * Inputs of access requests, the same on both doors: the request (`{roleUid, durationSeconds,
 * justification}`), a decision's optional comment, the listing's filter and its paging (Grafana's
 * search paging, `perpage` and `page`, the rule of every list: shared/paging.ts).
 */
import { z } from 'zod';
import { idInput, OBJECT_ERROR } from '../../kernel/inputs.js';
import { roleUidInput } from '../roles/inputs.js';
import { pageNumberInput, pageSizeInput } from '../shared/paging.js';

/** Longest justification and decision comment, in characters. */
export const MAX_JUSTIFICATION_LENGTH = 1000;
/** Shortest duration a request may ask for, in seconds. */
export const MIN_REQUEST_SECONDS = 60;
/** Most requests one requester may have pending in one organization at once. */
export const MAX_PENDING_PER_REQUESTER = 10;
/** Requests per page when none is asked for. */
export const DEFAULT_REQUESTS_PAGE_SIZE = 100;

/** Every status a request can be in; `pending` past the request's expiry reads as `expired`. */
export const ACCESS_REQUEST_STATUSES = ['pending', 'approved', 'denied', 'cancelled', 'expired'] as const;
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];

const text = (field: string, min: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(min, `${field} must not be empty`)
    .max(MAX_JUSTIFICATION_LENGTH, `${field} is longer than ${MAX_JUSTIFICATION_LENGTH} characters`);

/**
 * Body of a request: `{roleUid, durationSeconds, justification}`; the duration is a whole number
 * of seconds from MIN_REQUEST_SECONDS (its upper bound is the role's and the setting's, checked by
 * the service: ACCESS_REQUEST_TOO_LONG).
 */
export const createAccessRequestInput = z.object(
  {
    roleUid: roleUidInput('roleUid'),
    durationSeconds: z
      .number({ error: 'durationSeconds is required and must be a whole number of seconds' })
      .int('durationSeconds must be a whole number of seconds')
      .min(MIN_REQUEST_SECONDS, `durationSeconds must be at least ${MIN_REQUEST_SECONDS}`),
    justification: text('justification', 1),
  },
  OBJECT_ERROR,
);

/** Body of approve, deny and cancel: an optional `comment` (absent: ""). */
export const decisionInput = z.object({ comment: text('comment', 0).nullish() }, OBJECT_ERROR).nullish();

/**
 * The listing's filter, every field optional, combined with AND: `status` (a pending request
 * past its expiry counts as expired), `roleUid`, `requesterId`, and `mine` (the caller's own).
 */
export const accessRequestFilterInput = z.object(
  {
    status: z.enum(ACCESS_REQUEST_STATUSES, { error: `status must be one of ${ACCESS_REQUEST_STATUSES.join(', ')}` }).nullish(),
    roleUid: roleUidInput('roleUid').nullish(),
    requesterId: idInput('requesterId').nullish(),
    mine: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ error: 'mine must be a boolean' })).nullish(),
  },
  OBJECT_ERROR,
);
export type AccessRequestFilter = z.output<typeof accessRequestFilterInput>;

/** Paging: `perpage` (default 100, at most 1000) and `page` (from 1). */
export const accessRequestPageInput = z.object({
  perpage: pageSizeInput('perpage', DEFAULT_REQUESTS_PAGE_SIZE),
  page: pageNumberInput('page'),
});
