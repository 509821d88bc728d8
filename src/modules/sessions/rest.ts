/** REST door of login sessions (Grafana's user auth tokens). */
import { z } from 'zod';
import { idInput } from '../../kernel/inputs.js';
import type { Route } from '../shared/rest.js';
import { sessionRequirements } from './service.js';

/** The body revokeOwn reads (`parseId('authTokenId', body.authTokenId)`), for the OpenAPI document. */
const revokeBody = z.object({ authTokenId: idInput('authTokenId') });

export const sessionRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/user/auth-tokens',
    requires: 'signed-in',
    summary: 'The signed-in user’s sessions',
    handler: ({ principal, services }) => services.sessions.listOwn(principal),
  },
  {
    method: 'POST',
    path: '/api/user/revoke-auth-token',
    requires: 'signed-in',
    summary: 'End one of the signed-in user’s other sessions',
    body: revokeBody,
    handler: ({ principal, services, body }) => services.sessions.revokeOwn(principal, body),
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/logout',
    requires: sessionRequirements.logoutUser,
    summary: 'End every session of a user',
    handler: ({ principal, services, params }) => services.sessions.logoutUser(principal, params.id),
  },
];
