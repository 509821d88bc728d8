/**
 * REST door of API keys, in both editions (service-interface.md "List/Create/Delete API key"),
 * and the JSON shape of a key.
 */
import { z } from 'zod';
import type { ApiKey } from '../../generated/prisma/client.js';
import { jsonId, jsonTime, messageJson, parseBooleanParam, type QueryParam, type Route } from '../shared/rest.js';
import { createApiKeyInput } from './inputs.js';
import { apiKeyRequirements } from './service.js';

/** A key as the REST list answers it (Grafana's ApiKeyDTO); `expiration` only for expiring keys, `lastUsedAt` once used. */
export const apiKeyDto = z
  .strictObject({
    id: jsonId(),
    name: z.string(),
    role: z.string().meta({ description: 'Its org role: Viewer, Editor or Admin' }),
    expiration: jsonTime().optional(),
    lastUsedAt: jsonTime().optional(),
  })
  .meta({ id: 'ApiKeyDTO' });
export type ApiKeyJson = z.infer<typeof apiKeyDto>;

/** A new key or service-account token, the only answer that shows its secret (Grafana's NewApiKeyResult). */
export const newKeyJson = z
  .strictObject({ id: jsonId(), name: z.string(), key: z.string().meta({ description: 'The secret, shown only here' }) })
  .meta({ id: 'NewApiKeyResult' });

const INCLUDE_EXPIRED_PARAM: QueryParam = { name: 'includeExpired', type: 'boolean', description: 'Include expired keys' };

/** JSON shape of a key row (upstream-behaviour.md "API keys": `{id, name, role, expiration?}`). */
export function apiKeyToJson(key: Pick<ApiKey, 'id' | 'name' | 'role' | 'expires' | 'lastUsedAt'>): ApiKeyJson {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    ...(key.expires && { expiration: key.expires.toISOString() }),
    ...(key.lastUsedAt && { lastUsedAt: key.lastUsedAt.toISOString() }),
  };
}

export const apiKeyRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/auth/keys',
    requires: apiKeyRequirements.read,
    summary: 'List the API keys of the current organization',
    query: [INCLUDE_EXPIRED_PARAM],
    response: z.array(apiKeyDto),
    handler: async ({ principal, services, query }) => {
      const keys = await services.apiKeys.list(principal, {
        includeExpired: parseBooleanParam(INCLUDE_EXPIRED_PARAM.name, query.get(INCLUDE_EXPIRED_PARAM.name)),
      });
      return keys.map(apiKeyToJson);
    },
  },
  {
    method: 'POST',
    path: '/api/auth/keys',
    requires: apiKeyRequirements.create,
    summary: 'Create an API key; the key is shown only in this answer',
    body: createApiKeyInput,
    response: newKeyJson,
    handler: ({ principal, services, body }) => services.apiKeys.create(principal, body),
  },
  {
    method: 'DELETE',
    path: '/api/auth/keys/:id',
    requires: apiKeyRequirements.delete,
    summary: 'Delete an API key',
    response: messageJson,
    handler: ({ principal, services, params }) => services.apiKeys.delete(principal, params.id),
  },
];
