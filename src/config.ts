/**
 * Configuration from the environment, parsed and validated once at start.
 * A bad value stops the service with a message naming the variable (issue #2 item 4).
 */
import { z } from 'zod';
import { type AuthConfig, authEnvShape, toAuthConfig } from './config-auth.js';
import { type SecurityConfig, securityEnvShape, toSecurityConfig } from './config-security.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const optionalPositiveInt = z
  .string()
  .trim()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v === '') return undefined;
    if (!/^\d+$/.test(v) || Number(v) <= 0 || !Number.isSafeInteger(Number(v))) {
      ctx.addIssue({ code: 'custom', message: 'must be a positive whole number of seconds' });
      return z.NEVER;
    }
    return Number(v);
  });

const schema = z.object({
  PORT: z
    .string()
    .default('3000')
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 0 && Number(v) <= 65535, 'must be a port number 0-65535')
    .transform(Number),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .default('file:./data/portcullis.db')
    .refine((v) => v.startsWith('file:') && v.length > 'file:'.length, 'must be a SQLite URL of the form file:<path>'),
  ADMIN_LOGIN: z.string().min(1).default('admin'),
  ADMIN_PASSWORD: z.string().min(1).optional(),
  EDITION: z.enum(['enterprise', 'oss']).default('enterprise'),
  API_KEY_MAX_SECONDS_TO_LIVE: optionalPositiveInt,
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  PROVISIONING_PATH: z.string().min(1).default('./provisioning'),
  ...authEnvShape,
  ...securityEnvShape,
});

/** The validated configuration. Durations are in seconds. */
export interface Config {
  port: number;
  host: string;
  /** `file:<path>`; the path is relative to the working directory unless absolute. */
  databaseUrl: string;
  adminLogin: string;
  /** ADMIN_PASSWORD; when unset the seed generates one and prints it once (issue #10 item 4). */
  adminPassword: string | undefined;
  /** `oss` hides every /api/access-control/* path and the GraphQL RBAC fields (404). */
  edition: 'enterprise' | 'oss';
  /** Upper bound for an API key's secondsToLive; undefined = no limit. */
  apiKeyMaxSecondsToLive: number | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** PROVISIONING_PATH: holds access-control/*.yaml and plugins/*.json|yaml, applied at start. */
  provisioningPath: string;
  /** Sessions, brute-force protection, OAuth and LDAP (config-auth.ts). */
  auth: AuthConfig;
  /** Request and GraphQL limits, CORS allow-list (config-security.ts, issue #10). */
  security: SecurityConfig;
}

/** Thrown by loadConfig; `message` lists every bad variable, one per line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads and validates the configuration.
 * @param env the environment (process.env by default); empty strings count as unset.
 * @throws ConfigError naming each invalid variable and why.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.keys(schema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const problems: string[] = [];
  const auth = toAuthConfig(c, c.PORT, problems);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return {
    port: c.PORT,
    host: c.HOST,
    databaseUrl: c.DATABASE_URL,
    adminLogin: c.ADMIN_LOGIN,
    adminPassword: c.ADMIN_PASSWORD,
    edition: c.EDITION,
    apiKeyMaxSecondsToLive: c.API_KEY_MAX_SECONDS_TO_LIVE,
    logLevel: c.LOG_LEVEL,
    provisioningPath: c.PROVISIONING_PATH,
    auth,
    security: toSecurityConfig(c),
  };
}
