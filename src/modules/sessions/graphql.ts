/**
 * GraphQL door of login sessions: `Viewer.sessions` (the caller's own) and `revokeSession`,
 * calling the same SessionService as the REST routes.
 */
import { Viewer } from '../permissions/graphql.js';
import { builder } from '../shared/builder.js';
import { MessagePayload } from '../shared/message.js';
import type { SessionJson } from './service.js';

const SessionType = builder.objectRef<SessionJson>('Session').implement({
  description: 'A login session (cookie) of the caller. The token itself is never shown.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    isActive: t.exposeBoolean('isActive', { description: 'True for the session of this request.' }),
    authModule: t.exposeString('authModule', { description: 'password, oauth_generic_oauth, ...' }),
    clientIp: t.exposeString('clientIp'),
    userAgent: t.exposeString('userAgent'),
    createdAt: t.exposeString('createdAt'),
    seenAt: t.exposeString('seenAt'),
    expiresAt: t.exposeString('expiresAt', { description: 'Absolute end (LOGIN_MAXIMUM_LIFETIME_DURATION).' }),
  }),
});

builder.objectField(Viewer, 'sessions', (t) =>
  t.field({
    type: [SessionType],
    description: "The caller's live login sessions, newest first (none for keys and tokens).",
    resolve: (principal, _args, ctx) => ctx.services.sessions.listOwn(principal),
  }),
);

builder.mutationField('revokeSession', (t) =>
  t.field({
    type: MessagePayload,
    description: 'Ends one of your own sessions (not the one in use: log out instead).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.sessions.revokeOwn(ctx.principal, { authTokenId: args.id }),
  }),
);
