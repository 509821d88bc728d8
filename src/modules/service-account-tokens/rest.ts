/** REST door of service-account tokens and the API key migration (Grafana's paths and shapes). */
import { z } from 'zod';
import { newKeyJson } from '../api-keys/rest.js';
import { jsonCount, jsonId, jsonTime, messageJson, type Route } from '../shared/rest.js';
import { createTokenInput } from './inputs.js';
import { tokenRequirements } from './service.js';

/** A token as listed (Grafana's TokenDTO): the unset times and countdown are left out, not null. */
export const tokenDto = z
  .strictObject({
    id: jsonId(),
    name: z.string(),
    created: jsonTime(),
    expiration: jsonTime().optional(),
    secondsUntilExpiration: jsonCount().optional(),
    hasExpired: z.boolean(),
    lastUsedAt: jsonTime().optional(),
  })
  .meta({ id: 'TokenDTO' });

/** Grafana's MigrationResult of `POST /api/serviceaccounts/migrate`. */
const migrationResultJson = z
  .strictObject({ total: jsonCount(), migrated: jsonCount(), failed: jsonCount(), failedApikeyIDs: z.array(jsonId()) })
  .meta({ id: 'MigrationResult' });

export const serviceAccountTokenRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/serviceaccounts/:id/tokens',
    requires: tokenRequirements.read,
    summary: 'List the tokens of a service account',
    response: z.array(tokenDto),
    // Grafana's TokenDTO types these as date-time strings and numbers: an unset one is left out, not null.
    handler: async ({ principal, services, params }) =>
      (await services.serviceAccountTokens.list(principal, params.id)).map((t) =>
        Object.fromEntries(Object.entries(t).filter(([, value]) => value !== null)),
      ),
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts/:id/tokens',
    requires: tokenRequirements.create,
    summary: 'Create a service-account token; the key is shown only in this answer',
    body: createTokenInput,
    response: newKeyJson,
    handler: ({ principal, services, params, body }) => services.serviceAccountTokens.create(principal, params.id, body),
  },
  {
    method: 'DELETE',
    path: '/api/serviceaccounts/:id/tokens/:tokenId',
    requires: tokenRequirements.write,
    summary: 'Delete a service-account token',
    response: messageJson,
    handler: ({ principal, services, params }) => services.serviceAccountTokens.delete(principal, params.id, params.tokenId),
  },
  {
    method: 'POST',
    path: '/api/serviceaccounts/migrate',
    requires: tokenRequirements.migrate,
    summary: 'Turn every API key of the organization into a service account with one token',
    response: migrationResultJson,
    handler: ({ principal, services }) => services.serviceAccountTokens.migrate(principal),
  },
];
