/**
 * Inputs of the questions products ask: Grafana's permission search
 * (`GET /api/access-control/users/permissions/search`) and the check with its reason
 * (`POST /api/access-control/check`, GraphQL `checkAccess`).
 */
import { z } from 'zod';
import { actionProblem, MAX_ACTION_LENGTH, scopeProblem } from '../../kernel/catalogue.js';
import { idInput, OBJECT_ERROR } from '../../kernel/inputs.js';

/** Most target scopes one check may name. */
export const MAX_CHECK_SCOPES = 100;

const action = z.string({ error: 'action is required and must be a string' }).superRefine((a, ctx) => {
  const problem = actionProblem(a);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const scope = z.string({ error: 'scopes[] must be a string' }).superRefine((s, ctx) => {
  const problem = scopeProblem(s);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
const optionalText = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .max(MAX_ACTION_LENGTH, `${field} is too long`)
    .nullish()
    .transform((v) => (v ? v : undefined));

/**
 * Query of the search: `actionPrefix`, `action`, `scope`, `userId`, `userLogin`; at least one of
 * the two action filters (Grafana answers 400 otherwise).
 */
export const permissionSearchInput = z
  .object(
    {
      actionPrefix: optionalText('actionPrefix'),
      action: optionalText('action'),
      scope: optionalText('scope'),
      userId: idInput('userId').nullish(),
      userLogin: optionalText('userLogin'),
    },
    OBJECT_ERROR,
  )
  .refine((q) => q.action !== undefined || q.actionPrefix !== undefined, {
    message: 'at least one of action or actionPrefix is required',
    path: ['action'],
  });

/** Body of a check: `{userId?, action, scopes?}`; no userId checks the caller. */
export const checkInput = z.object(
  {
    userId: idInput('userId').nullish(),
    action,
    scopes: z
      .array(scope, { error: 'scopes must be an array of strings' })
      .max(MAX_CHECK_SCOPES, `at most ${MAX_CHECK_SCOPES} scopes`)
      .nullish(),
  },
  OBJECT_ERROR,
);
