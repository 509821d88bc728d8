/**
 * GraphQL door of the batch check: `checkMany`, the twin of POST /api/access-control/check/batch
 * (batch.ts). The resolver calls PermissionService.checkMany, the same the REST route calls.
 */
import { builder } from '../shared/builder.js';
import { PermissionEntry } from '../shared/permission.js';
import type { BatchCheck, BatchCheckItem, BatchItemError } from './batch.js';
import { AccessGrant } from './graphql.js';
import { MAX_BATCH_ITEMS, MAX_CHECK_SCOPES } from './inputs.js';
import { permissionRequirements } from './service.js';

const CheckManyItemInput = builder.inputType('CheckManyItemInput', {
  description: 'One check of checkMany: the arguments of checkAccess and an id echoed in its answer.',
  fields: (t) => ({
    id: t.string({ required: true, description: 'The caller’s name for the item (unique in the batch), echoed in its answer.' }),
    userId: t.int({ description: 'A user or service account of the current organization; default the caller.' }),
    action: t.string({ required: true }),
    scopes: t.stringList({ description: `Target scopes (at most ${MAX_CHECK_SCOPES}); one of them must be covered.` }),
  }),
});

const CheckManyError = builder.objectRef<BatchItemError>('CheckManyError').implement({
  description: 'Why one item of checkMany was not answered: the code and message checkAccess would have answered.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'ACCESS_DENIED, VALIDATION_FAILED or USER_NOT_FOUND.' }),
    message: t.exposeString('message'),
  }),
});

const CheckManyItem = builder.objectRef<BatchCheckItem>('CheckManyItem').implement({
  description: 'The answer to one item of checkMany: checkAccess’s fields, or its own error (then the others are null).',
  fields: (t) => ({
    id: t.exposeString('id'),
    allowed: t.boolean({ nullable: true, resolve: (c) => c.allowed ?? null }),
    grantedBy: t.field({ type: [AccessGrant], nullable: true, resolve: (c) => c.grantedBy ?? null }),
    missing: t.field({
      type: [PermissionEntry],
      nullable: true,
      description: 'When denied: the action on each target scope; holding any one of them would do.',
      resolve: (c) => c.missing ?? null,
    }),
    subjectDisabled: t.boolean({ nullable: true, resolve: (c) => c.subjectDisabled ?? null }),
    error: t.field({ type: CheckManyError, nullable: true, resolve: (c) => c.error }),
  }),
});

const CheckManyResult = builder.objectRef<BatchCheck>('CheckManyResult').implement({
  description: 'The answer of checkMany: every item in request order, all at one revision.',
  fields: (t) => ({
    revision: t.exposeInt('revision', { description: 'The change-feed revision every item was answered at.' }),
    results: t.field({ type: [CheckManyItem], resolve: (b) => b.results }),
  }),
});

builder.queryField('checkMany', (t) =>
  t.field({
    type: CheckManyResult,
    description: `Up to ${MAX_BATCH_ITEMS} checkAccess questions in one request (400 BATCH_TOO_LARGE above), answered in request order at one revision; an item that is bad alone (refused, malformed, an unknown user) carries its own error and the others are answered. Each item as checkAccess: ${permissionRequirements.checkUser.text()}.`,
    args: { items: t.arg({ type: [CheckManyItemInput], required: true }) },
    resolve: (_root, args, ctx) => ctx.services.permissions.checkMany(ctx.principal, args),
  }),
);
