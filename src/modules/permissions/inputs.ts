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

/** Most items one batch check may hold (POST /api/access-control/check/batch, GraphQL `checkMany`). */
export const MAX_BATCH_ITEMS = 1000;
/** Longest item id of a batch check, characters. */
export const MAX_BATCH_ITEM_ID = 128;

/**
 * One item of a batch check as the OpenAPI document declares it: the single check's body plus
 * the caller's `id`, echoed in its answer. Each item is validated on its own (checkInput), so a
 * bad item answers its own error and the others are still answered.
 */
const batchItemShape = z.object({
  id: z.string().min(1).max(MAX_BATCH_ITEM_ID).meta({ description: 'The caller’s name for the item, echoed in its answer.' }),
  userId: idInput('userId').nullish(),
  action: z.string(),
  scopes: z.array(z.string()).max(MAX_CHECK_SCOPES).nullish(),
});

/** Body of a batch check as declared (OpenAPI): `{items: [...]}`, at most MAX_BATCH_ITEMS. */
export const batchCheckBody = z.object({
  items: z
    .array(batchItemShape)
    .max(MAX_BATCH_ITEMS)
    .meta({ description: `At most ${MAX_BATCH_ITEMS} items (400 BATCH_TOO_LARGE above); answered in this order.` }),
});

/**
 * What the service reads of a batch before the items: an object whose `items` is an array of
 * objects, each with a unique string `id`; the count is checked apart (BATCH_TOO_LARGE).
 */
export const batchEnvelope = z.object(
  {
    items: z
      .array(
        z.looseObject({
          id: z
            .string({ error: 'id is required and must be a string' })
            .min(1, 'id must not be empty')
            .max(MAX_BATCH_ITEM_ID, `id is longer than ${MAX_BATCH_ITEM_ID} characters`),
        }),
        { error: 'items must be an array of objects' },
      )
      .superRefine((items, ctx) => {
        const seen = new Set<string>();
        items.forEach((item, i) => {
          if (seen.has(item.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `id "${item.id}" appears twice` });
          seen.add(item.id);
        });
      }),
  },
  OBJECT_ERROR,
);
