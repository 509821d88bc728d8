/**
 * Inputs of users (createUser, updateUser), shared by every door. Password policy: Grafana's
 * default (at least 4 characters); logins may not be `api_key`, which basic auth reserves.
 */
import { z } from 'zod';
import { emailInput, MAX_NAME_LENGTH, orgRoleInput } from '../../kernel/inputs.js';

/** Shortest password accepted (Grafana's default policy: at least 4 characters). */
export const MIN_PASSWORD_LENGTH = 4;
export const MAX_PASSWORD_LENGTH = 256;

/** `api_key` as a basic-auth login means "the password is an API key" (service-interface.md). */
const RESERVED_LOGINS = new Set(['api_key']);

const login = z
  .string({ error: 'login is required and must be a string' })
  .trim()
  .min(1, 'login is required')
  .max(MAX_NAME_LENGTH, `login is longer than ${MAX_NAME_LENGTH} characters`)
  // Basic auth splits "login:password" at the first colon, so a colon would make it unusable.
  .regex(/^[^\s:]+$/, 'login must not contain white space or ":"')
  .refine((v) => !RESERVED_LOGINS.has(v), 'login "api_key" is reserved for API key authentication');
const password = z
  .string({ error: 'password is required and must be a string' })
  .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `password is longer than ${MAX_PASSWORD_LENGTH} characters`);
const displayName = z
  .string({ error: 'name must be a string' })
  .trim()
  .max(MAX_NAME_LENGTH, `name is longer than ${MAX_NAME_LENGTH} characters`);

/** createUser input. `orgRole` defaults to Viewer; `isServiceAdmin` needs a Service Admin. */
export const createUserInput = z.object(
  {
    login,
    email: emailInput('email'),
    name: displayName.nullish(),
    password,
    orgRole: orgRoleInput.nullish(),
    isServiceAdmin: z.boolean({ error: 'isServiceAdmin must be a boolean' }).nullish(),
  },
  { error: 'input must be an object' },
);

/** updateUser input: omitted fields keep their value. */
export const updateUserInput = z.object(
  {
    login: login.nullish(),
    email: emailInput('email').nullish(),
    name: displayName.nullish(),
    password: password.nullish(),
    isServiceAdmin: z.boolean({ error: 'isServiceAdmin must be a boolean' }).nullish(),
  },
  { error: 'input must be an object' },
);
