/**
 * GraphQL door of the change feed: `accessChanges(after, limit)`, calling
 * ChangeFeedService.page on the same rules as `GET /api/access-control/changes`.
 */
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import { markEventId } from '../shared/event-ids.js';
import { MAX_PAGE_SIZE } from '../shared/paging.js';
import { PermissionEntry } from '../shared/permission.js';
import { DEFAULT_CHANGES_LIMIT } from './inputs.js';
import { type ChangeJson, type ChangesPage, changeRequirements } from './service.js';
import {
  CHECKPOINT_MS,
  type ChangeEvent,
  MAX_STREAMS_PER_PRINCIPAL,
  type PermissionsEvent,
  SLOW_CONSUMER_MS,
  STREAM_BUFFER,
} from './streams.js';

type WithRequest = { request?: Request };

const ChangeActor = builder.objectRef<ChangeJson['actor']>('AccessChangeActor').implement({
  description: 'Who made a change.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'user, serviceAccount, apiKey or local (the CLI and provisioning files).' }),
    id: t.exposeInt('id', { description: 'The user, service account or API key id; 0 for the local operator.' }),
    login: t.exposeString('login', { description: "The login, or an API key's name." }),
  }),
});

const AccessChange = builder.objectRef<ChangeJson>('AccessChange').implement({
  description: 'One change to who may do what: everything one write transaction changed, at its revision.',
  fields: (t) => ({
    revision: t.exposeInt('revision', { description: 'Increases in commit order; pass the last one applied as `after`.' }),
    created: t.string({ description: 'When it was committed (ISO 8601, UTC).', resolve: (c) => c.created }),
    orgId: t.exposeInt('orgId', { description: 'Its organization; 0 for global objects or a change spanning several.' }),
    actor: t.field({ type: ChangeActor, resolve: (c) => c.actor }),
    kinds: t.exposeStringList('kinds', { description: 'The audit actions of the change, in order (role.update, user_role.add, ...).' }),
    users: t.exposeIntList('users', { description: 'User and service-account ids whose permissions or credentials it may have changed.' }),
    roles: t.exposeStringList('roles', { description: 'Role uids it created, changed, deleted, assigned or unassigned.' }),
    teams: t.exposeIntList('teams'),
    apiKeys: t.exposeIntList('apiKeys', { description: 'API keys and service-account tokens created or deleted.' }),
  }),
});

const AccessChangePage = builder.objectRef<ChangesPage>('AccessChangePage').implement({
  description: 'A page of the change feed.',
  fields: (t) => ({
    changes: t.field({ type: [AccessChange], resolve: (p) => p.changes }),
    next: t.exposeInt('next', { description: 'The revision to pass as `after` for the next page.' }),
    head: t.exposeInt('head', { description: 'The newest revision issued.' }),
  }),
});

builder.queryField('accessChanges', (t) =>
  t.field({
    type: AccessChangePage,
    description: `Changes to who may do what after a revision, in revision order (REST: GET /api/access-control/changes). Follow with after = next; CHANGES_EXPIRED (410): read the current state again and follow from head. ${needs(changeRequirements.read)}`,
    args: {
      after: t.arg.int({ description: 'Changes after this revision (omitted: from the oldest kept).' }),
      limit: t.arg.int({ description: `At most this many changes (default ${DEFAULT_CHANGES_LIMIT}, at most ${MAX_PAGE_SIZE}).` }),
    },
    resolve: (_root, args, ctx) => ctx.services.changes.page(ctx.principal, { after: args.after, limit: args.limit }),
  }),
);

const AccessChangeEvent = builder.objectRef<ChangeEvent>('AccessChangeEvent').implement({
  description:
    'One event of the accessChanges stream: a change, a checkpoint (change null) at the revision reached, or a resync (the last event of a client that fell behind). Its revision is also its SSE event id.',
  fields: (t) => ({
    revision: t.exposeInt('revision', {
      description:
        "The change's revision, the revision reached (a checkpoint), or the last revision delivered (a resync). Subscribe again with Last-Event-ID or after = the last one.",
    }),
    change: t.field({ type: AccessChange, nullable: true, description: 'Null for a checkpoint or a resync.', resolve: (e) => e.change }),
    resync: t.boolean({
      description: `True on the last event of a stream whose client left ${STREAM_BUFFER} undelivered events untaken for ${SLOW_CONSUMER_MS / 1000} s: the stream ends; subscribe again after its revision.`,
      resolve: (e) => e.resync === true,
    }),
  }),
});

builder.subscriptionField('accessChanges', (t) =>
  t.field({
    type: AccessChangeEvent,
    description: `The change feed as a stream (server-sent events: send Accept: text/event-stream): the changes after \`after\` (omitted: only new ones), then each change as it commits, and a checkpoint after ${CHECKPOINT_MS / 1000} s without one. Each event's SSE id is its revision: a client resuming with the Last-Event-ID header gets exactly what it missed (Last-Event-ID wins over \`after\`). Permission and organization walls as accessChanges, checked again at every change: revoked, the stream ends with an error. At most ${MAX_STREAMS_PER_PRINCIPAL} open streams per caller (429 TOO_MANY_STREAMS). ${needs(changeRequirements.read)}`,
    args: {
      after: t.arg.int({
        description: 'Changes after this revision: the last one received, to resume without a gap (a Last-Event-ID header wins).',
      }),
    },
    subscribe: (_root, args, ctx) =>
      ctx.services.changeStreams.open(
        ctx.principal,
        { after: args.after, lastEventId: ctx.lastEventId },
        (ctx as typeof ctx & WithRequest).request?.signal,
      ),
    resolve: (event, _args, ctx) => {
      markEventId((ctx as typeof ctx & WithRequest).request, String(event.revision));
      return event;
    },
  }),
);

const ViewerPermissionsEvent = builder.objectRef<PermissionsEvent>('ViewerPermissionsEvent').implement({
  description: "The signed-in caller's permissions, sent by viewerPermissionsChanged.",
  fields: (t) => ({
    revision: t.exposeInt('revision', { description: 'They hold as of this revision of the change feed or later.' }),
    permissions: t.field({ type: [PermissionEntry], description: 'Sorted by action, then scope.', resolve: (e) => e.permissions }),
  }),
});

builder.subscriptionField('viewerPermissionsChanged', (t) =>
  t.field({
    type: ViewerPermissionsEvent,
    description: `The signed-in caller's permissions now, then again each time a change reaches them (server-sent events: send Accept: text/event-stream), so a frontend never polls. Needs only credentials. Ends with CREDENTIALS_CHANGED when the account itself changed (disabled, another org role): sign in again. At most ${MAX_STREAMS_PER_PRINCIPAL} open streams per caller (429 TOO_MANY_STREAMS).`,
    subscribe: (_root, _args, ctx) =>
      ctx.services.changeStreams.openViewer(ctx.principal, (ctx as typeof ctx & WithRequest).request?.signal),
    resolve: (event) => event,
  }),
);
