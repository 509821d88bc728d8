/**
 * The hardening of the yoga instance in one place (SECURITY.md): yoga options for
 * CORS, body size, multipart, the health check and the parse cache, and the GraphQL plugins that
 * go first (content type, CSRF, the gate, body limit) and last (limits, fence, headers).
 */
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import type { Plugin, YogaServerOptions } from 'graphql-yoga';
import type { SecurityConfig } from '../config-security.js';
import type { AccessService } from '../kernel/access.js';
import type { ChangeFeedService } from '../modules/changes/service.js';
import type { GraphQLContext } from '../modules/shared/context.js';
import type { Logger } from '../platform/logger.js';
import { boundedParserCache } from './document-cache.js';
import type { RequestAuth } from './request-auth.js';
import { useAccessFence } from './use-access-fence.js';
import { useBodyLimit } from './use-body-limit.js';
import { useGraphQLGate, useJsonPosts } from './use-graphql-gate.js';
import { graphqlLimitPlugins } from './use-graphql-limits.js';
import { useSecurityHeaders } from './use-security-headers.js';

export interface HardeningDeps {
  security: SecurityConfig;
  auth: RequestAuth;
  access: AccessService;
  /** Read-your-writes' revision check (use-access-fence.ts). */
  changes: ChangeFeedService;
  log: Logger;
}

/**
 * Yoga's built-in health check answers 200 to every URL that ends with its endpoint, any method;
 * it cannot be removed, so its endpoint is set to text no URL can end with (a space and a NUL
 * are always percent-encoded), and `GET /api/health` is a row of the router (probes.ts) instead.
 */
const NO_URL_ENDS_WITH_THIS = ' \u0000';

const CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const CORS_HEADERS = [
  'authorization',
  'content-type',
  'x-service-org-id',
  'x-grafana-org-id',
  'x-graphql-yoga-csrf',
  'x-access-revision-at-least',
  'last-event-id',
];

type Options = Pick<
  YogaServerOptions<Record<string, never>, GraphQLContext>,
  'cors' | 'healthCheckEndpoint' | 'maxRequestBodySize' | 'multipart' | 'parserAndValidationCache' | 'batching'
>;

/** The options, and the plugins to list first and last. */
export function hardening(deps: HardeningDeps): { options: Options; first: Plugin[]; last: Plugin[] } {
  const { security } = deps;
  const allowed = new Set(security.corsAllowedOrigins);
  const options: Options = {
    // Credentialed CORS only for configured origins; none configured: no CORS headers at all.
    cors:
      allowed.size === 0
        ? false
        : (request) => {
            const origin = request.headers.get('origin');
            if (!origin || !allowed.has(origin)) return false;
            return { origin: [origin], credentials: true, methods: CORS_METHODS, allowedHeaders: CORS_HEADERS, maxAge: 600 };
          },
    healthCheckEndpoint: NO_URL_ENDS_WITH_THIS,
    maxRequestBodySize: false, // useBodyLimit below: the same limit, without a stream per request
    multipart: false,
    batching: false,
    parserAndValidationCache: boundedParserCache(security.graphqlParseCacheBytes),
  };
  return {
    options,
    first: [
      // A POST that is not JSON: 415 naming the content type to send, before CSRF prevention's 403.
      useJsonPosts(deps.log),
      // GET (no content type) needs a header a cross-site page cannot add without a preflight.
      useCSRFPrevention({ requestHeaders: ['x-graphql-yoga-csrf'] }),
      useGraphQLGate({ auth: deps.auth, log: deps.log, maxDocumentBytes: security.graphqlMaxDocumentBytes }),
      useBodyLimit(security.maxRequestBodyBytes, deps.log),
    ],
    last: [
      ...graphqlLimitPlugins({
        maxTokens: security.graphqlMaxTokens,
        maxDepth: security.graphqlMaxDepth,
        maxAliases: security.graphqlMaxAliases,
        maxDirectives: security.graphqlMaxDirectives,
        maxCost: security.graphqlMaxCost,
        maxListDepth: security.graphqlMaxListDepth,
      }),
      useAccessFence(deps.access, deps.changes) as Plugin,
      useSecurityHeaders(),
    ],
  };
}
