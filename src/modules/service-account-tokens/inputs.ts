/** Inputs of service-account tokens: the create body, an API key's without `role` (a token acts with its account's). */
import { z } from 'zod';
import { OBJECT_ERROR } from '../../kernel/inputs.js';
import { createApiKeyInput } from '../api-keys/inputs.js';

/** `POST /api/serviceaccounts/:id/tokens` body: `{name, secondsToLive?}`. */
export const createTokenInput = z.object(
  { name: createApiKeyInput.shape.name, secondsToLive: createApiKeyInput.shape.secondsToLive },
  OBJECT_ERROR,
);
