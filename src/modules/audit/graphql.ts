/**
 * GraphQL door of the audit log: the AuditEvent type, its Relay connection and
 * `auditEvents(filter, first, after, last, before)`, calling AuditService.connection (the REST listing calls
 * AuditService.list on the same rules).
 */
import type { AuditEvent } from '../../generated/prisma/client.js';
import { needs } from '../../kernel/requirements.js';
import { builder } from '../shared/builder.js';
import { MAX_PAGE_SIZE } from '../shared/paging.js';
import { AUDIT_ACTOR_KINDS, DEFAULT_AUDIT_PAGE_SIZE } from './inputs.js';
import { auditRequirements, auditSnapshotValue } from './service.js';

const AuditActor = builder.objectRef<AuditEvent>('AuditActor').implement({
  description: 'Who made a change.',
  fields: (t) => ({
    kind: t.string({
      description: `${AUDIT_ACTOR_KINDS.join(', ')} (local: the CLI and provisioning files).`,
      resolve: (e) => e.actorKind,
    }),
    id: t.int({ description: 'The user, service account or API key id; 0 for the local operator.', resolve: (e) => e.actorId }),
    login: t.string({ description: "The login, or an API key's name.", resolve: (e) => e.actorLogin }),
    authMethod: t.string({ description: 'basic, session, api_key, ldap, oauth or local.', resolve: (e) => e.authMethod }),
  }),
});

const AuditResource = builder.objectRef<AuditEvent>('AuditResource').implement({
  description: 'The changed object.',
  fields: (t) => ({
    kind: t.string({ description: 'role, user, team, api_key, service_account_token, ...', resolve: (e) => e.resourceKind }),
    id: t.string({ description: 'Its id, or uid for a role.', resolve: (e) => e.resourceId }),
  }),
});

const AuditEventObject = builder.objectRef<AuditEvent>('AuditEvent').implement({
  description: 'One change, recorded in the same transaction as the change itself. Secrets are never recorded.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    created: t.expose('created', { type: 'DateTime' }),
    orgId: t.exposeInt('orgId', { description: 'The organization of the change; 0 for global objects.' }),
    action: t.exposeString('action', { description: '"<resource>.<verb>": role.create, user_role.add, api_key.delete, ...' }),
    actor: t.field({ type: AuditActor, resolve: (e) => e }),
    clientAddress: t.exposeString('clientAddress', { description: 'The client address of the request; "" outside HTTP (CLI, start-up).' }),
    requestId: t.exposeString('requestId', { description: 'The X-Request-Id of the request; "" outside HTTP.' }),
    resource: t.field({ type: AuditResource, resolve: (e) => e }),
    before: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The object before the change; null for a creation.',
      resolve: (e) => auditSnapshotValue(e.before),
    }),
    after: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The object after the change; null for a deletion.',
      resolve: (e) => auditSnapshotValue(e.after),
    }),
  }),
});

const AuditEventFilter = builder.inputType('AuditEventFilter', {
  description: 'Every field is optional; they combine with AND.',
  fields: (t) => ({
    action: t.string({ description: 'Exactly this action, e.g. role.create.' }),
    actionPrefix: t.string({ description: 'Actions starting with it (case-sensitive), e.g. "role." or "user_role.".' }),
    resourceKind: t.string({ description: 'role, user, team, api_key, service_account_token, ...' }),
    resourceId: t.string({ description: "The changed object's id or uid." }),
    actorKind: t.string({ description: AUDIT_ACTOR_KINDS.join(', ') }),
    actorId: t.int({ description: "The actor's id (0: the local operator)." }),
    actorLogin: t.string({ description: "The actor's login, or an API key's name." }),
    orgId: t.int({ description: "One organization's events, 0 for global ones. Service Admins only (others see their organization's)." }),
    from: t.field({ type: 'DateTime', description: 'Created at or after.' }),
    to: t.field({ type: 'DateTime', description: 'Created at or before.' }),
  }),
});

builder.queryField('auditEvents', (t) =>
  t.connection(
    {
      type: AuditEventObject,
      description: `Audit events (changes to roles, assignments, basic roles, API keys, tokens, users, teams and memberships), newest first: \`first\` after cursor \`after\`, or \`last\` before cursor \`before\` (default ${DEFAULT_AUDIT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}). ${needs(auditRequirements.read)}`,
      args: { filter: t.arg({ type: AuditEventFilter }) },
      resolve: (_root, args, ctx) => ctx.services.audit.connection(ctx.principal, args.filter, args),
    },
    {
      name: 'AuditEventConnection',
      description: 'Audit events, newest first.',
      fields: (c) => ({
        totalCount: c.int({
          description: 'Events matching the filter, on every page.',
          resolve: (connection) => connection.totalCount(),
        }),
      }),
    },
    { name: 'AuditEventEdge' },
  ),
);
