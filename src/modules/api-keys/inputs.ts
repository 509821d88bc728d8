/**
 * Inputs of API keys (service-interface.md "Create API key", "API key"; upstream-behaviour.md
 * "API keys" for the limits).
 */
import { z } from 'zod';
import { OBJECT_ERROR } from '../../kernel/inputs.js';

/** Key name limit: Grafana's api_key.name column (varchar 190). */
export const MAX_API_KEY_NAME_LENGTH = 190;
/** Largest secondsToLive: a GraphQL Int (about 68 years), so both doors accept the same range. */
export const MAX_SECONDS_TO_LIVE = 2_147_483_647;

/** Roles a key may have (service-interface.md "API key"). */
export const API_KEY_ROLES = ['Viewer', 'Editor', 'Admin'] as const;

/** Body of create API key: `{name, role, secondsToLive?}` (service-interface.md "Create API key"). */
export const createApiKeyInput = z.object(
  {
    name: z
      .string({ error: 'name is required and must be a string' })
      .trim()
      .min(1, 'name is required')
      .max(MAX_API_KEY_NAME_LENGTH, `name is longer than ${MAX_API_KEY_NAME_LENGTH} characters`),
    role: z.enum(API_KEY_ROLES, { error: 'role is required and must be one of Viewer, Editor, Admin' }),
    secondsToLive: z
      .number({ error: 'secondsToLive must be a number' })
      .int('secondsToLive must be a whole number of seconds')
      .max(MAX_SECONDS_TO_LIVE, `secondsToLive must be at most ${MAX_SECONDS_TO_LIVE}`)
      .nullish(),
  },
  OBJECT_ERROR,
);
