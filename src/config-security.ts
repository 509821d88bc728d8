/**
 * The hardening part of the configuration (SECURITY.md "Resource limits"): request and
 * GraphQL limits, the time a request may take to arrive and the connections one client address
 * may hold open, the parse cache bound and the CORS allow-list. Merged into the one schema of config.ts; every
 * variable is in the configuration table of docs/operations.md and SECURITY.md says why each default is what it is.
 */
import { z } from 'zod';

const limit = (fallback: number, max: number) =>
  z
    .string()
    .default(String(fallback))
    .refine((v) => /^\d{1,10}$/.test(v) && Number(v) > 0 && Number(v) <= max, `must be a whole number from 1 to ${max}`)
    .transform(Number);

/** Origins as the browser sends them: scheme://host[:port], no path. */
const origins = z
  .string()
  .default('')
  .transform((v, ctx) => {
    const list = v
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o.length > 0);
    for (const origin of list) {
      let parsed: URL | undefined;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = undefined;
      }
      if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
        ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin such as https://app.example.com` });
        return z.NEVER;
      }
    }
    return list;
  });

/** Environment variables of the limits, with their defaults. */
export const securityEnvShape = {
  CORS_ALLOWED_ORIGINS: origins.meta({
    description:
      'comma-separated origins (`https://app.example.com`) allowed credentialed cross-origin requests; none: no CORS headers at all',
    unset: 'none',
  }),
  MAX_REQUEST_BODY_BYTES: limit(1024 * 1024, 64 * 1024 * 1024).meta({
    description: 'largest request body on REST and GraphQL: 413 on `Content-Length`, or as soon as the streamed bytes pass it',
  }),
  GRAPHQL_MAX_DOCUMENT_BYTES: limit(100_000, 16 * 1024 * 1024).meta({
    description: 'largest GraphQL document (`query` text), 413 before parsing',
  }),
  GRAPHQL_MAX_TOKENS: limit(2_000, 1_000_000).meta({ description: 'lexer tokens per GraphQL document (GraphQL Armor), 400' }),
  GRAPHQL_MAX_DEPTH: limit(12, 1_000).meta({ description: 'field nesting depth, fragments flattened (GraphQL Armor), 400' }),
  GRAPHQL_MAX_ALIASES: limit(30, 10_000).meta({ description: 'aliases per operation (GraphQL Armor), 400' }),
  GRAPHQL_MAX_DIRECTIVES: limit(20, 10_000).meta({ description: 'directives per operation (GraphQL Armor), 400' }),
  GRAPHQL_MAX_COST: limit(50_000_000, 1_000_000_000).meta({
    description:
      'estimated operation cost: 1 per field, a list counting its selection once per row it may answer (`first`/`perPage`, its bound, else 100), 400',
  }),
  GRAPHQL_MAX_LIST_DEPTH: limit(3, 100).meta({ description: 'lists nested inside one another, fragments flattened, 400' }),
  GRAPHQL_PARSE_CACHE_BYTES: limit(16 * 1024 * 1024, 1024 * 1024 * 1024).meta({
    description: 'bytes of parsed documents kept by the parse/validate cache',
  }),
  GRAPHQL_COMPILE_AFTER: limit(3, 1_000_000_000).meta({
    description:
      'executions of one cached document after which it is compiled (graphql-jit) and run as compiled code; rarer documents run interpreted (use-execution.ts)',
  }),
  GRAPHQL_COMPILES_PER_MINUTE: limit(60, 100_000).meta({
    description: 'documents compiled per minute at most; past it, documents run interpreted until the next minute',
  }),
  REQUEST_TIMEOUT_SECONDS: limit(30, 3600).meta({
    description:
      "a request's headers and body must have arrived this long after its first byte; else 408 and the connection is closed (Node's `requestTimeout`; a slow answer is not cut)",
  }),
  HEADERS_TIMEOUT_SECONDS: limit(10, 3600).meta({
    description:
      "a request's headers, and a new connection's first request, must have arrived within this (Node's `headersTimeout`), at most `REQUEST_TIMEOUT_SECONDS`; else 408 and closed",
  }),
  MAX_CONNECTIONS_PER_CLIENT: limit(64, 100_000).meta({
    description:
      "connections one client address (the socket's) may hold open at once; one more gets 429 `TOO_MANY_CONNECTIONS` and is closed, the others are served. Not applied with `TRUST_PROXY`, where every connection comes from the proxy (bound clients there)",
  }),
};

type SecurityEnv = { [K in keyof typeof securityEnvShape]: z.output<(typeof securityEnvShape)[K]> };

/** Limits of the HTTP doors. Sizes are in bytes. */
export interface SecurityConfig {
  /** Origins allowed credentialed cross-origin requests; empty = no CORS headers at all. */
  corsAllowedOrigins: string[];
  /** Largest request body (REST and GraphQL): refused on Content-Length or while streaming. */
  maxRequestBodyBytes: number;
  /** Largest GraphQL document (the `query` text), checked before parsing. */
  graphqlMaxDocumentBytes: number;
  /** GraphQL lexer tokens per document (graphql-armor max-tokens). */
  graphqlMaxTokens: number;
  /** Field nesting depth, fragments flattened (graphql-armor max-depth). */
  graphqlMaxDepth: number;
  /** Aliases per operation (graphql-armor max-aliases). */
  graphqlMaxAliases: number;
  /** Directives per operation (graphql-armor max-directives). */
  graphqlMaxDirectives: number;
  /** Estimated cost per operation: 1 per field, lists multiplying their selection by their bound (use-graphql-limits.ts). */
  graphqlMaxCost: number;
  /** Lists nested inside one another, fragments flattened (use-graphql-limits.ts). */
  graphqlMaxListDepth: number;
  /** Bytes of parsed documents kept by the parse/validate cache (estimated from their text). */
  graphqlParseCacheBytes: number;
  /** Executions of one cached document before it is compiled (use-execution.ts). */
  graphqlCompileAfter: number;
  /** Compilations per minute at most (use-execution.ts). */
  graphqlCompilesPerMinute: number;
  /** Milliseconds from a request's first byte to its last (headers and body), else 408 (Node's requestTimeout). */
  requestTimeoutMs: number;
  /** Milliseconds for a request's headers, and a new connection's first ones (Node's headersTimeout); at most requestTimeoutMs. */
  headersTimeoutMs: number;
  /** Connections one socket address may hold open at once (node-server.ts); not applied behind a trusted proxy. */
  maxConnectionsPerClient: number;
}

/**
 * The SecurityConfig of validated variables; settings that contradict each other add a line to
 * `problems` (headers cannot have longer than the whole request, which Node refuses at start).
 */
export function toSecurityConfig(env: SecurityEnv, problems: string[]): SecurityConfig {
  if (env.HEADERS_TIMEOUT_SECONDS > env.REQUEST_TIMEOUT_SECONDS) {
    problems.push('  HEADERS_TIMEOUT_SECONDS: must not be larger than REQUEST_TIMEOUT_SECONDS');
  }
  return {
    corsAllowedOrigins: env.CORS_ALLOWED_ORIGINS,
    maxRequestBodyBytes: env.MAX_REQUEST_BODY_BYTES,
    graphqlMaxDocumentBytes: env.GRAPHQL_MAX_DOCUMENT_BYTES,
    graphqlMaxTokens: env.GRAPHQL_MAX_TOKENS,
    graphqlMaxDepth: env.GRAPHQL_MAX_DEPTH,
    graphqlMaxAliases: env.GRAPHQL_MAX_ALIASES,
    graphqlMaxDirectives: env.GRAPHQL_MAX_DIRECTIVES,
    graphqlMaxCost: env.GRAPHQL_MAX_COST,
    graphqlMaxListDepth: env.GRAPHQL_MAX_LIST_DEPTH,
    graphqlParseCacheBytes: env.GRAPHQL_PARSE_CACHE_BYTES,
    graphqlCompileAfter: env.GRAPHQL_COMPILE_AFTER,
    graphqlCompilesPerMinute: env.GRAPHQL_COMPILES_PER_MINUTE,
    requestTimeoutMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
    headersTimeoutMs: env.HEADERS_TIMEOUT_SECONDS * 1000,
    maxConnectionsPerClient: env.MAX_CONNECTIONS_PER_CLIENT,
  };
}
