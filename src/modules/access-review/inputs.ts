/**
 * Inputs of the access review: who holds an action (on a scope) in the caller's organization,
 * everything one member or API key holds, and the export of the first as CSV or NDJSON.
 */
import { z } from 'zod';
import { actionProblem, scopeProblem } from '../../kernel/catalogue.js';
import { idInput, OBJECT_ERROR } from '../../kernel/inputs.js';
import { pageSizeInput } from '../shared/paging.js';

/** Subjects of one page of `whoHas` when `first` is not given. */
export const DEFAULT_REVIEW_PAGE = 100;
/** Grants of one page of a subject's access when `first` is not given. */
export const DEFAULT_GRANTS_PAGE = 1000;

const action = z.string({ error: 'action is required and must be a string' }).superRefine((a, ctx) => {
  const problem = actionProblem(a);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const scope = z
  .string({ error: 'scope must be a string' })
  .superRefine((s, ctx) => {
    const problem = scopeProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .nullish()
  .transform((s) => (s ? s : undefined));

/**
 * A position in the review's order (users and service accounts by id, then API keys by id):
 * `u<id>` or `k<id>`, as a page's `endCursor` gives it.
 */
export const reviewCursor = z
  .string({ error: 'after must be a cursor' })
  .regex(/^[uk]\d{1,10}$/, 'after must be a cursor a page answered')
  .nullish()
  .transform((c) => (c ? { kind: c[0] === 'u' ? ('user' as const) : ('apiKey' as const), id: Number(c.slice(1)) } : undefined));

/** Who has `action` (on `scope` when given: a held scope equal to it or a wildcard covering it)? */
export const whoHasInput = z.object(
  {
    action,
    scope,
    first: pageSizeInput('first', DEFAULT_REVIEW_PAGE),
    after: reviewCursor,
  },
  OBJECT_ERROR,
);

/** The export of `whoHas`: its filter and the format. */
export const reviewExportInput = z.object(
  {
    action,
    scope,
    format: z
      .enum(['csv', 'ndjson'], { error: 'format must be csv or ndjson' })
      .nullish()
      .transform((f) => f ?? 'ndjson'),
    /** `true`: count the subjects first and announce them (SUBJECTS_HEADER), for a progress line. */
    count: z
      .enum(['true', 'false'], { error: 'count must be true or false' })
      .nullish()
      .transform((c) => c === 'true'),
  },
  OBJECT_ERROR,
);

/** Everything one subject holds: a user or service account (`userId`) or an API key (`apiKeyId`), exactly one. */
export const subjectAccessInput = z
  .object(
    {
      userId: idInput('userId').nullish(),
      apiKeyId: idInput('apiKeyId').nullish(),
      first: pageSizeInput('first', DEFAULT_GRANTS_PAGE),
      after: z
        .string({ error: 'after must be a cursor' })
        .regex(/^\d{1,10}$/, 'after must be a cursor a page answered')
        .nullish()
        .transform((c) => (c ? Number(c) : 0)),
    },
    OBJECT_ERROR,
  )
  .refine((q) => (q.userId == null) !== (q.apiKeyId == null), {
    message: 'exactly one of userId or apiKeyId is required',
    path: ['userId'],
  });
