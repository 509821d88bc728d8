/**
 * Configuration from the environment, parsed and validated once at start.
 * A bad value stops the service with a message naming the variable.
 *
 * `configSchema` is the one declaration of every setting: each variable carries its default
 * (zod `.default`) and a `description` (zod `.meta`), plus `unset` when having no default means
 * something worth saying. The settings table of docs/operations.md is generated from it
 * (`scripts/settings-table.ts`, kept in sync by test/operations/settings-table.test.ts).
 */
import { z } from 'zod';
import { type AuthConfig, authEnvShape, bool, toAuthConfig } from './config-auth.js';
import { type SecurityConfig, securityEnvShape, toSecurityConfig } from './config-security.js';
import { databaseUrlProblem } from './platform/database-url.js';
import { projectPath } from './platform/paths.js';

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

/** Variables of the service itself; sign-in (config-auth.ts) and limits (config-security.ts) follow. */
/** A duration of access requests in whole seconds, at least a minute; a day by default. */
const accessRequestSeconds = () =>
  z
    .string()
    .default('86400')
    .refine((v) => /^\d{1,8}$/.test(v) && Number(v) >= 60, 'must be a whole number of seconds, at least 60')
    .transform(Number);

const serviceEnvShape = {
  PORT: z
    .string()
    .default('3000')
    .refine((v) => /^\d+$/.test(v) && Number(v) >= 0 && Number(v) <= 65535, 'must be a port number 0-65535')
    .transform(Number)
    .meta({
      description:
        'port to listen on (`0`: any free port); one already in use stops the start with one line, before the database is touched',
    }),
  HOST: z.string().min(1).default('0.0.0.0').meta({ description: 'address to listen on' }),
  DATABASE_URL: z
    .string()
    .default('file:./data/portcullis.db')
    .superRefine((v, ctx) => {
      const problem = databaseUrlProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({
      description:
        'SQLite file `file:<path>` (a relative path is relative to the project folder, the one holding package.json, whatever the working directory, for the server and the CLI alike; directory created when missing), or a PostgreSQL server `postgres://user:password@host:5432/database` (see "PostgreSQL" in docs/operations.md)',
    }),
  ADMIN_LOGIN: z.string().min(1).default('admin').meta({ description: 'login of the first Service Admin, created once' }),
  ADMIN_PASSWORD: z.string().min(1).optional().meta({
    description:
      "the first Service Admin's password, used once when it is created (set on a later start, it is ignored with a warning: change it with `portcullis user set-password`); unset: a random password is shown once, with that command: a framed block on stderr when it is a terminal, else one warn line on stdout whatever `LOG_LEVEL` (never `admin`)",
    unset: 'generated',
  }),
  EDITION: z
    .enum(['enterprise', 'oss'])
    .default('enterprise')
    .meta({ description: '`oss` hides every `/api/access-control/*` path and the GraphQL RBAC fields (404)' }),
  API_KEY_MAX_SECONDS_TO_LIVE: optionalPositiveInt.meta({
    description: "upper bound for an API key's `secondsToLive`",
    unset: 'no limit',
  }),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info').meta({
    description:
      '`fatal` `error` `warn` `info` `debug` `trace` `silent`; JSON lines on stdout (one readable line per entry when stdout is a terminal), one per request at `info` (health, readiness and metrics requests at `debug`)',
  }),
  PROVISIONING_PATH: z.string().min(1).default('./provisioning').meta({
    description:
      'RBAC provisioning files: `access-control/*.yaml`, `plugins/<productId>.json|yaml`; a relative path is relative to the project folder, as for `DATABASE_URL`',
  }),
  SHUTDOWN_TIMEOUT_SECONDS: z
    .string()
    .default('10')
    .refine((v) => /^\d{1,4}$/.test(v) && Number(v) > 0 && Number(v) <= 3600, 'must be a whole number of seconds from 1 to 3600')
    .transform(Number)
    .meta({
      description:
        'on SIGTERM or SIGINT, readiness answers 503, no new connection is accepted and requests in flight get this long to finish; then the database is closed and the process exits 0 (1 when requests had to be cut off)',
    }),
  CHANGES_RETENTION_HOURS: z
    .string()
    .default('168')
    .refine((v) => /^\d{1,6}$/.test(v) && Number(v) > 0, 'must be a whole number of hours, at least 1')
    .transform(Number)
    .meta({
      description:
        'how long the change feed (`GET /api/access-control/changes`) keeps each change; a reader asking for older ones is answered 410 `CHANGES_EXPIRED` and reads the current state again',
    }),
  ACCESS_REQUEST_EXPIRY_SECONDS: accessRequestSeconds().meta({
    description:
      'how long an access request (`POST /api/access-control/requests`) waits for an answer; unanswered by then it is expired and can no longer be approved',
  }),
  ACCESS_REQUEST_MAX_SECONDS: accessRequestSeconds().meta({
    description:
      "longest duration an access request may ask for, whatever the role; a role's `maxAssignmentSeconds` caps it further (400 `ACCESS_REQUEST_TOO_LONG`)",
  }),
  METRICS_ENABLED: bool(false).meta({
    description:
      'serve Prometheus metrics at `GET /metrics` (Grafana `[metrics] enabled`); off by default, unlike Grafana, since the gateway often faces the network: see "Operations" below',
  }),
  METRICS_BASIC_AUTH_USERNAME: z.string().min(1).optional().meta({
    description: '`/metrics` then asks for these basic-auth credentials (Grafana `[metrics] basic_auth_username`)',
    unset: 'none',
  }),
  METRICS_BASIC_AUTH_PASSWORD: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'the password that goes with `METRICS_BASIC_AUTH_USERNAME`; set both or neither', unset: 'none' }),
  COMMIT_SHA: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be a commit id (1-64 letters, digits, ".", "_" or "-")')
    .optional()
    .meta({
      description:
        'the commit the service was built from, shown by `GET /api/health` and `portcullis_build_info`; the Dockerfile sets it from its `COMMIT_SHA` build argument; unset: read from `.git` when running from a checkout',
      unset: '`.git`, else `unknown`',
    }),
};

/** Every setting, in the order the table of docs/operations.md lists them. */
export const configSchema = z.object({
  ...serviceEnvShape,
  ...authEnvShape,
  ...securityEnvShape,
});

/** `/metrics` (Grafana's `[metrics]`). */
export interface MetricsConfig {
  enabled: boolean;
  /** Basic-auth credentials `/metrics` asks for; null: none asked. */
  basicAuth: { username: string; password: string } | null;
}

/** The validated configuration. Durations are in seconds. */
export interface Config {
  port: number;
  host: string;
  /** `file:<path>` (SQLite; a relative path is relative to the project folder) or `postgres://...` (platform/database-url.ts). */
  databaseUrl: string;
  adminLogin: string;
  /** ADMIN_PASSWORD; when unset the seed generates one and prints it once. */
  adminPassword: string | undefined;
  /** `oss` hides every /api/access-control/* path and the GraphQL RBAC fields (404). */
  edition: 'enterprise' | 'oss';
  /** Upper bound for an API key's secondsToLive; undefined = no limit. */
  apiKeyMaxSecondsToLive: number | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** CHANGES_RETENTION_HOURS: hours each change record is kept (modules/changes). */
  changesRetentionHours: number;
  /** ACCESS_REQUEST_EXPIRY_SECONDS and ACCESS_REQUEST_MAX_SECONDS (modules/access-requests). */
  accessRequests: { expirySeconds: number; maxSeconds: number };
  /**
   * PROVISIONING_PATH, absolute (a relative one resolved against the project folder, like
   * DATABASE_URL): holds access-control/*.yaml and plugins/*.json|yaml, applied at start.
   */
  provisioningPath: string;
  /** Seconds requests in flight get to finish after SIGTERM/SIGINT. */
  shutdownTimeoutSeconds: number;
  metrics: MetricsConfig;
  /** COMMIT_SHA, when set (build-info.ts falls back to .git, then `unknown`). */
  commit: string | undefined;
  /** Sessions, brute-force protection, OAuth and LDAP (config-auth.ts). */
  auth: AuthConfig;
  /** Request and GraphQL limits, CORS allow-list (config-security.ts). */
  security: SecurityConfig;
}

/** Thrown by loadConfig; `message` lists every bad variable, one per line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function toMetricsConfig(env: z.output<typeof configSchema>, problems: string[]): MetricsConfig {
  const username = env.METRICS_BASIC_AUTH_USERNAME;
  const password = env.METRICS_BASIC_AUTH_PASSWORD;
  if ((username === undefined) !== (password === undefined)) {
    problems.push(
      `  ${username === undefined ? 'METRICS_BASIC_AUTH_USERNAME' : 'METRICS_BASIC_AUTH_PASSWORD'}: required with the other one`,
    );
  }
  if (username !== undefined && !env.METRICS_ENABLED) {
    problems.push('  METRICS_ENABLED: must be true when METRICS_BASIC_AUTH_USERNAME is set (or unset the credentials)');
  }
  return {
    enabled: env.METRICS_ENABLED,
    basicAuth: username !== undefined && password !== undefined ? { username, password } : null,
  };
}

/**
 * Reads and validates the configuration.
 * @param env the environment (process.env by default); empty strings count as unset.
 * @throws ConfigError naming each invalid variable and why.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.keys(configSchema.shape).map((k) => [k, env[k] === '' ? undefined : env[k]]));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  const problems: string[] = [];
  const auth = toAuthConfig(c, c.PORT, problems);
  const metrics = toMetricsConfig(c, problems);
  const security = toSecurityConfig(c, problems);
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
    provisioningPath: projectPath(c.PROVISIONING_PATH),
    shutdownTimeoutSeconds: c.SHUTDOWN_TIMEOUT_SECONDS,
    changesRetentionHours: c.CHANGES_RETENTION_HOURS,
    accessRequests: { expirySeconds: c.ACCESS_REQUEST_EXPIRY_SECONDS, maxSeconds: c.ACCESS_REQUEST_MAX_SECONDS },
    metrics,
    commit: c.COMMIT_SHA,
    auth,
    security,
  };
}
