/** ApiKey type with its query and mutations; every resolver calls one ApiKeyService method. */

import { isOrgRole } from '../../kernel/principal.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { OrgRoleEnum } from '../shared/org-role.js';
import type { NewApiKey } from './service.js';

builder.prismaObject('ApiKey', {
  description: 'An API key of the current organization. Its value is shown only once, by createApiKey.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    role: t.field({
      type: OrgRoleEnum,
      description: 'The basic role the key acts with: Viewer, Editor or Admin.',
      resolve: (key) => (isOrgRole(key.role) ? key.role : 'None'),
    }),
    expiration: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the key stops working; null for a key that never expires.',
      resolve: (key) => key.expires,
    }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Last authentication with the key, to the minute (written at most once a minute); null if never used.',
    }),
  }),
});

const NewApiKeyType = builder.objectRef<NewApiKey>('NewApiKey').implement({
  description: 'A key just created. `key` is the secret value: it is never shown again.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    key: t.exposeString('key', { description: 'Send it as `Authorization: Bearer <key>` or as basic auth with user `api_key`.' }),
  }),
});

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ required: true, description: 'Unique in the organization; at most 190 characters.' }),
    role: t.field({ type: OrgRoleEnum, required: true, description: 'Viewer, Editor or Admin; not above your own org role.' }),
    secondsToLive: t.int({
      description:
        'Positive: the key expires after that many seconds. Zero, negative or omitted: never, unless the server sets API_KEY_MAX_SECONDS_TO_LIVE (then required and bounded).',
    }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.prismaField({
    type: ['ApiKey'],
    description: 'Keys of the current organization by name. Needs apikey:read on apikey:* (oss: org Admin).',
    args: { includeExpired: t.arg.boolean({ description: 'Include expired keys.' }) },
    resolve: (query, _root, args, ctx) => ctx.services.apiKeys.list(ctx.principal, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: NewApiKeyType,
    extensions: { returnsSecret: true },
    // Nullable so that an error in a later field of the same document stays local to that field:
    // a non-null field would null the whole `data` and lose the secret of a key that exists.
    nullable: true,
    description:
      'Creates a key in the current organization. Needs apikey:create (oss: org Admin). Null, with an error, when it fails; other fields of the document keep their results.',
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.apiKeys.create(ctx.principal, args.input),
  }),
  deleteApiKey: t.field({
    type: MessagePayload,
    description: 'Deletes a key of the current organization; it stops working at once. Needs apikey:delete on apikey:id:<id>.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.apiKeys.delete(ctx.principal, args.id),
  }),
}));
