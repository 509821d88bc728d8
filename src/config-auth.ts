/**
 * The sign-in part of the configuration: session cookie and
 * lifetimes, brute-force protection, generic OAuth and LDAP. Names follow Grafana's `[auth]`,
 * `[security]`, `[auth.generic_oauth]` and `[auth.ldap]` keys, upper-cased, with the section
 * as prefix where Grafana has one. Merged into the one schema of config.ts.
 */
import { z } from 'zod';
import type { OAuthSettings } from './modules/oauth/service.js';
import { projectPath } from './platform/paths.js';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, M: 2_592_000 };

/**
 * Grafana's duration syntax: `<n><unit>` with s, m, h, d, w or M (30 days); a bare number means
 * days (Grafana's rule for the login lifetimes). @returns seconds, or null when malformed.
 */
export function parseDuration(value: string): number | null {
  const match = /^(\d{1,9})([smhdwM]?)$/.exec(value.trim());
  if (!match) return null;
  const seconds = Number(match[1]) * (UNITS[match[2] || 'd'] as number);
  return seconds > 0 ? seconds : null;
}

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((v, ctx) => {
      const seconds = parseDuration(v);
      if (seconds === null) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 10m, 12h, 7d, 2w (a bare number is days)' });
        return z.NEVER;
      }
      return seconds;
    });

/** A yes/no variable: `true` or `1`, `false` or `0`; `fallback` when unset. Every boolean setting reads this way. */
export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

const positiveInt = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => /^\d{1,6}$/.test(v) && Number(v) > 0, 'must be a positive whole number')
    .transform(Number);

const optionalUrl = z.url({ error: 'must be an absolute URL' }).optional();

/** Environment variables of sign-in, with Grafana's defaults. */
export const authEnvShape = {
  NODE_ENV: z.string().optional().meta({
    description:
      "`production` turns off the Pothos Prisma plugin's warnings about unused `query` arguments (src/modules/shared/builder.ts); nothing else depends on it (the first Service Admin's password is generated in every environment)",
    unset: 'unset',
  }),
  LOGIN_COOKIE_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1-64 letters, digits, "_", "." or "-"')
    .default('portcullis_session')
    .meta({ description: 'session cookie (HttpOnly, SameSite=Lax, Path=/)' }),
  COOKIE_SECURE: bool(false).meta({
    description: '`Secure` cookie; also on when `ROOT_URL` is https, and per request when it arrived over TLS',
  }),
  TRUST_PROXY: bool(false).meta({
    description:
      'behind one reverse proxy: its `X-Forwarded-Proto: https` counts as TLS (Secure cookie) and the last `X-Forwarded-For` entry is the client address for throttling; off, both headers are ignored',
  }),
  TOKEN_ROTATION_INTERVAL_MINUTES: positiveInt('10').meta({ description: 'a session token is replaced this often' }),
  LOGIN_MAXIMUM_INACTIVE_LIFETIME_DURATION: duration('7d').meta({
    description: 'a session ends after this long unused (`10m`, `12h`, `7d`, `2w`, `1M`; bare number = days)',
  }),
  LOGIN_MAXIMUM_LIFETIME_DURATION: duration('30d').meta({ description: 'a session ends this long after login' }),
  DISABLE_BRUTE_FORCE_LOGIN_PROTECTION: bool(false).meta({ description: 'turns the failed-login counters off' }),
  BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: positiveInt('5').meta({
    description:
      'password checks that may fail per login name and per account in the window, reserved before each check; the name then answers 429; per client address 5x as many',
  }),
  BASIC_AUTH_CACHE_SECONDS: z
    .string()
    .default('60')
    .refine((v) => /^\d{1,4}$/.test(v) && Number(v) <= 3600, 'must be a whole number of seconds from 0 to 3600')
    .transform(Number)
    .meta({
      description:
        'a Basic-auth login and password that passed a check is not checked with argon2 again for this long (a keyed hash of them under a per-process key is kept, dropped by any password change, disable, deletion or logout, never honoured for a locked name or account); 0 turns it off',
    }),
  BRUTE_FORCE_LOGIN_PROTECTION_WINDOW: duration('5m').meta({ description: 'the window of the failed-login counters' }),
  ROOT_URL: optionalUrl.meta({
    description: 'public URL (OAuth redirect URI: `<ROOT_URL>login/generic_oauth`)',
    unset: '`http://localhost:<PORT>/`',
  }),
  AUTH_GENERIC_OAUTH_ENABLED: bool(false).meta({ description: 'OAuth 2 / OpenID Connect login, see "Sign-in" in docs/sign-in.md' }),
  AUTH_GENERIC_OAUTH_NAME: z.string().default('OAuth').meta({ description: "the provider's name on the login page" }),
  AUTH_GENERIC_OAUTH_CLIENT_ID: z.string().optional().meta({ description: 'client id (required when OAuth is on)', unset: 'none' }),
  AUTH_GENERIC_OAUTH_CLIENT_SECRET: z.string().optional().meta({ description: 'client secret (confidential clients)', unset: 'none' }),
  AUTH_GENERIC_OAUTH_SCOPES: z
    .string()
    .default('openid email profile')
    .meta({ description: 'scopes asked for, separated by spaces or commas' }),
  AUTH_GENERIC_OAUTH_ISSUER: optionalUrl.meta({
    description: 'OpenID Connect issuer, whose discovery document gives the endpoints',
    unset: 'none',
  }),
  AUTH_GENERIC_OAUTH_AUTH_URL: optionalUrl.meta({ description: 'authorization endpoint, without an issuer', unset: 'none' }),
  AUTH_GENERIC_OAUTH_TOKEN_URL: optionalUrl.meta({ description: 'token endpoint, without an issuer', unset: 'none' }),
  AUTH_GENERIC_OAUTH_API_URL: optionalUrl.meta({
    description: 'user-info endpoint; without an issuer the claims come from it (or from an ID token verified with `JWK_SET_URL`)',
    unset: 'none',
  }),
  AUTH_GENERIC_OAUTH_JWK_SET_URL: optionalUrl.meta({
    description:
      "the provider's signing keys (JWKS), without an issuer: its ID token is then required and verified (signature, audience, expiry, nonce); an unverified ID token is never read",
    unset: 'none',
  }),
  AUTH_GENERIC_OAUTH_LOGIN_ATTRIBUTE_PATH: z
    .string()
    .optional()
    .meta({ description: 'JMESPath to the login in the claims', unset: 'none' }),
  AUTH_GENERIC_OAUTH_EMAIL_ATTRIBUTE_PATH: z
    .string()
    .optional()
    .meta({ description: 'JMESPath to the email in the claims', unset: 'none' }),
  AUTH_GENERIC_OAUTH_NAME_ATTRIBUTE_PATH: z
    .string()
    .optional()
    .meta({ description: 'JMESPath to the display name in the claims', unset: 'none' }),
  AUTH_GENERIC_OAUTH_ROLE_ATTRIBUTE_PATH: z
    .string()
    .optional()
    .meta({ description: 'JMESPath giving `Viewer`, `Editor`, `Admin` or `GrafanaAdmin`, applied at every login', unset: 'none' }),
  AUTH_GENERIC_OAUTH_ALLOW_SIGN_UP: bool(true).meta({ description: 'an unknown OAuth user is created at its first login' }),
  AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP: bool(false).meta({
    description:
      "Grafana's `oauth_allow_insecure_email_lookup`: an OAuth subject seen for the first time may be linked to the existing local (or OAuth) user holding its email, when the provider says `email_verified: true`; off, it gets an account of its own or is refused when its login or email is taken",
  }),
  AUTH_GENERIC_OAUTH_USE_PKCE: bool(true).meta({ description: 'PKCE on the authorization code flow' }),
  AUTH_LDAP_ENABLED: bool(false).meta({ description: 'LDAP users, see "Sign-in" in docs/sign-in.md' }),
  AUTH_LDAP_CONFIG_FILE: z.string().default('ldap.toml').meta({
    description:
      "the LDAP servers, in Grafana's `ldap.toml` format; a relative path is relative to the project folder, as for `DATABASE_URL`",
  }),
};

const authEnvSchema = z.object(authEnvShape);
type AuthEnv = z.output<typeof authEnvSchema>;

/** Generic OAuth settings (Grafana `[auth.generic_oauth]`), present only when enabled. */
export type OAuthConfig = OAuthSettings;

/** Sign-in settings; durations in seconds. */
export interface AuthConfig {
  production: boolean;
  cookieName: string;
  cookieSecure: boolean;
  /**
   * TRUST_PROXY: the service is reached through one reverse proxy, so `X-Forwarded-Proto: https`
   * makes the cookie Secure and the last `X-Forwarded-For` entry is the client address.
   */
  trustProxy: boolean;
  rotationSeconds: number;
  idleSeconds: number;
  lifetimeSeconds: number;
  /** BASIC_AUTH_CACHE_SECONDS: how long a verified Basic credential is honoured (sign-in/verified-passwords.ts); 0: never. */
  basicAuthCacheSeconds: number;
  /** null when DISABLE_BRUTE_FORCE_LOGIN_PROTECTION is true. */
  bruteForce: { maxAttempts: number; windowSeconds: number } | null;
  rootUrl: string;
  oauth: OAuthConfig | null;
  /** AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP: a new OAuth subject with a verified email may be linked to the user holding it. */
  oauthAllowInsecureEmailLookup: boolean;
  /** Absolute path of ldap.toml (a relative one resolved against the project folder), or null when LDAP is off. */
  ldapConfigFile: string | null;
}

/**
 * Builds the sign-in slice from the parsed variables.
 * @returns an error message per variable in `problems` (OAuth on without a client id, ...).
 */
export function toAuthConfig(env: AuthEnv, port: number, problems: string[]): AuthConfig {
  const rootUrl = (env.ROOT_URL ?? `http://localhost:${port}/`).replace(/\/*$/, '/');
  let oauth: OAuthConfig | null = null;
  if (env.AUTH_GENERIC_OAUTH_ENABLED) {
    if (!env.AUTH_GENERIC_OAUTH_CLIENT_ID) problems.push('  AUTH_GENERIC_OAUTH_CLIENT_ID: required when AUTH_GENERIC_OAUTH_ENABLED');
    if (!env.AUTH_GENERIC_OAUTH_ISSUER && !(env.AUTH_GENERIC_OAUTH_AUTH_URL && env.AUTH_GENERIC_OAUTH_TOKEN_URL)) {
      problems.push('  AUTH_GENERIC_OAUTH_ISSUER: required (or AUTH_URL and TOKEN_URL) when AUTH_GENERIC_OAUTH_ENABLED');
    }
    // Without discovery nothing verifies an ID token's signature unless keys are given: the claims need a trusted source.
    if (!env.AUTH_GENERIC_OAUTH_ISSUER && !env.AUTH_GENERIC_OAUTH_API_URL && !env.AUTH_GENERIC_OAUTH_JWK_SET_URL) {
      problems.push(
        "  AUTH_GENERIC_OAUTH_API_URL: required (or AUTH_GENERIC_OAUTH_JWK_SET_URL) without AUTH_GENERIC_OAUTH_ISSUER: the claims come from the user-info endpoint or from an ID token verified with the provider's keys",
      );
    }
    oauth = {
      name: env.AUTH_GENERIC_OAUTH_NAME,
      clientId: env.AUTH_GENERIC_OAUTH_CLIENT_ID ?? '',
      clientSecret: env.AUTH_GENERIC_OAUTH_CLIENT_SECRET,
      scopes: env.AUTH_GENERIC_OAUTH_SCOPES.split(/[\s,]+/).filter(Boolean),
      issuer: env.AUTH_GENERIC_OAUTH_ISSUER,
      authUrl: env.AUTH_GENERIC_OAUTH_AUTH_URL,
      tokenUrl: env.AUTH_GENERIC_OAUTH_TOKEN_URL,
      apiUrl: env.AUTH_GENERIC_OAUTH_API_URL,
      jwkSetUrl: env.AUTH_GENERIC_OAUTH_JWK_SET_URL,
      loginAttributePath: env.AUTH_GENERIC_OAUTH_LOGIN_ATTRIBUTE_PATH,
      emailAttributePath: env.AUTH_GENERIC_OAUTH_EMAIL_ATTRIBUTE_PATH,
      nameAttributePath: env.AUTH_GENERIC_OAUTH_NAME_ATTRIBUTE_PATH,
      roleAttributePath: env.AUTH_GENERIC_OAUTH_ROLE_ATTRIBUTE_PATH,
      allowSignUp: env.AUTH_GENERIC_OAUTH_ALLOW_SIGN_UP,
      usePkce: env.AUTH_GENERIC_OAUTH_USE_PKCE,
      redirectUri: `${rootUrl}login/generic_oauth`,
    };
  }
  return {
    production: env.NODE_ENV === 'production',
    cookieName: env.LOGIN_COOKIE_NAME,
    cookieSecure: env.COOKIE_SECURE || rootUrl.startsWith('https:'),
    trustProxy: env.TRUST_PROXY,
    rotationSeconds: env.TOKEN_ROTATION_INTERVAL_MINUTES * 60,
    idleSeconds: env.LOGIN_MAXIMUM_INACTIVE_LIFETIME_DURATION,
    lifetimeSeconds: env.LOGIN_MAXIMUM_LIFETIME_DURATION,
    basicAuthCacheSeconds: env.BASIC_AUTH_CACHE_SECONDS,
    bruteForce: env.DISABLE_BRUTE_FORCE_LOGIN_PROTECTION
      ? null
      : { maxAttempts: env.BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS, windowSeconds: env.BRUTE_FORCE_LOGIN_PROTECTION_WINDOW },
    rootUrl,
    oauth,
    oauthAllowInsecureEmailLookup: env.AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP,
    ldapConfigFile: env.AUTH_LDAP_ENABLED ? projectPath(env.AUTH_LDAP_CONFIG_FILE) : null,
  };
}
