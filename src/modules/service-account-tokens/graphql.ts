/**
 * GraphQL door of service-account tokens: `ServiceAccount.tokens`, `createServiceAccountToken`,
 * `deleteServiceAccountToken`, `migrateApiKeysToServiceAccounts`; the same service as REST.
 */
import { needs } from '../../kernel/requirements.js';
import { ServiceAccountType } from '../service-accounts/graphql.js';
import { builder, DENIABLE } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import { type TokenJson, tokenRequirements } from './service.js';

const TokenType = builder.objectRef<TokenJson>('ServiceAccountToken').implement({
  description: 'A token of a service account; its value is shown only when created.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    created: t.exposeString('created'),
    expiration: t.exposeString('expiration', { nullable: true }),
    secondsUntilExpiration: t.exposeInt('secondsUntilExpiration', { nullable: true }),
    hasExpired: t.exposeBoolean('hasExpired'),
    lastUsedAt: t.exposeString('lastUsedAt', { nullable: true }),
  }),
});

const NewToken = builder.objectRef<{ id: number; name: string; key: string }>('NewServiceAccountToken').implement({
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    key: t.exposeString('key', { description: 'The token (pcsa_...): shown only now, stored hashed.' }),
  }),
});

const MigrationResult = builder
  .objectRef<{ total: number; migrated: number; failed: number; failedApikeyIDs: number[] }>('ApiKeyMigrationResult')
  .implement({
    fields: (t) => ({
      total: t.exposeInt('total'),
      migrated: t.exposeInt('migrated'),
      failed: t.exposeInt('failed'),
      failedApikeyIDs: t.exposeIntList('failedApikeyIDs'),
    }),
  });

builder.objectField(ServiceAccountType, 'tokens', (t) =>
  t.field({
    type: [TokenType],
    nullable: true,
    description: `Tokens of the service account. ${needs(tokenRequirements.read)} ${DENIABLE}`,
    resolve: (account, _args, ctx) => ctx.services.serviceAccountTokens.list(ctx.principal, account.id),
  }),
);

builder.mutationFields((t) => ({
  createServiceAccountToken: t.field({
    type: NewToken,
    extensions: { returnsSecret: true },
    // Nullable like createApiKey: an error in a later field of the same document stays local to
    // that field instead of nulling `data`, which would lose the secret of a token that exists.
    nullable: true,
    description: `Adds a token to a service account. ${needs(tokenRequirements.create)} Null, with an error, when it fails; other fields of the document keep their results.`,
    args: {
      serviceAccountId: t.arg.int({ required: true }),
      name: t.arg.string({ required: true }),
      secondsToLive: t.arg.int({ description: 'Expiry in seconds; none when omitted or <= 0.' }),
    },
    resolve: (_root, { serviceAccountId, ...input }, ctx) =>
      ctx.services.serviceAccountTokens.create(ctx.principal, serviceAccountId, input),
  }),
  deleteServiceAccountToken: t.field({
    type: MessagePayload,
    description: `Deletes a token; it stops working on the next request. ${needs(tokenRequirements.write)}`,
    args: { serviceAccountId: t.arg.int({ required: true }), tokenId: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.serviceAccountTokens.delete(ctx.principal, args.serviceAccountId, args.tokenId),
  }),
  migrateApiKeysToServiceAccounts: t.field({
    type: MigrationResult,
    description: `Turns every API key of the organization into a service account with one token of the same secret. ${needs(tokenRequirements.migrate)}`,
    resolve: (_root, _args, ctx) => ctx.services.serviceAccountTokens.migrate(ctx.principal),
  }),
}));
