/**
 * Composition root: the feature services on a database, the authenticator, the one router of
 * every path but /graphql (probes, metrics, console, GraphiQL's files, API reference, REST and
 * sign-in routes: http/router.ts), the yoga instance with its plugins, and the Node listener
 * that serves it compressed. Opens no port: main.ts listens, tests call
 * `app.yoga.fetch(...)` (answers as yoga makes them, never compressed).
 */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from './config.js';
import { createAuthenticator } from './http/authenticate.js';
import { type Listener, withCompression } from './http/compression.js';
import { consoleRoutes } from './http/console-routes.js';
import { graphiqlAssetRoute } from './http/graphiql-assets.js';
import { toGraphQLError } from './http/graphql-errors.js';
import { hardening } from './http/hardening.js';
import { metricsRoutes } from './http/metrics-route.js';
import { openApiRoutes } from './http/openapi-routes.js';
import { Lifecycle, probeRoutes } from './http/probes.js';
import { createRequestAuth } from './http/request-auth.js';
import { restRoutes } from './http/rest-door.js';
import { createRouter } from './http/router.js';
import { routes } from './http/routes.js';
import { schema } from './http/schema.js';
import { useBadRequestStatus } from './http/use-bad-request-status.js';
import { useConnection } from './http/use-connection.js';
import { type ExecutionCounters, useExecution } from './http/use-execution.js';
import { graphiqlOptions, renderGraphiQL, useGraphiQLAuth } from './http/use-graphiql-auth.js';
import { usePartialStatus } from './http/use-partial-status.js';
import { useRequestLog } from './http/use-request-log.js';
import { useRouter } from './http/use-router.js';
import { useSecretsAlone } from './http/use-secrets-alone.js';
import { useSseEventIds } from './http/use-sse-event-ids.js';
import { yogaLogging } from './http/yoga-logging.js';
import { isDomainError } from './kernel/errors.js';
import { createServices, type Services } from './modules/services.js';
import type { GraphQLContext } from './modules/shared/context.js';
import { buildInfo } from './platform/build-info.js';
import { type Clock, systemClock } from './platform/clock.js';
import { type Db, observeQueryTime } from './platform/database.js';
import type { Logger } from './platform/logger.js';
import { createMetrics, type Metrics } from './platform/metrics.js';
import type { PasswordVerifier } from './platform/passwords.js';

export interface AppDeps {
  db: Db;
  config: Config;
  log: Logger;
  clock?: Clock;
  /** Checks passwords (default: platform/passwords.ts verifyPassword); tests count or hold the checks through it. */
  verifyPassword?: PasswordVerifier;
  /**
   * Benchmarks only (bench/budget.ts): rewrites the list of yoga plugins below, so each one's
   * cost can be measured by leaving it out. Never set by the service.
   */
  editPlugins?: (plugins: Plugin[]) => Plugin[];
}

export interface App {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  services: Services;
  /** starting -> ready -> shutting down, moved by main.ts; read by `GET /api/ready`. */
  lifecycle: Lifecycle;
  /** The Prometheus registry and its recorders (platform/metrics.ts). */
  metrics: Metrics;
  /** The Node request listener main.ts serves: yoga, its answers compressed (http/compression.ts). */
  listener: Listener;
  /** Documents compiled and executions run compiled or interpreted so far (http/use-execution.ts). */
  execution: ExecutionCounters;
}

/** Builds the app for a database and configuration. */
export function createApp(deps: AppDeps): App {
  const { db, config, log } = deps;
  const services = createServices({
    db,
    config,
    clock: deps.clock ?? systemClock,
    log,
    ...(deps.verifyPassword && { verifyPassword: deps.verifyPassword }),
  });
  const build = buildInfo(config.commit);
  const lifecycle = new Lifecycle();
  const metrics = createMetrics({ build, enabled: config.metrics.enabled, cacheEntries: () => services.access.cachedPrincipals });
  services.access.observeCache(metrics);
  observeQueryTime(db, metrics.queryTime);
  const cookie = { name: config.auth.cookieName, secure: config.auth.cookieSecure, maxAgeSeconds: config.auth.lifetimeSeconds };
  const authenticator = createAuthenticator({
    services,
    cookie,
    onFailure: (method, error) => metrics.authFailure(method, isDomainError(error) ? error.code : 'INTERNAL'),
  });
  const auth = createRequestAuth(services.access, authenticator);
  const hardened = hardening({ security: config.security, auth, access: services.access, changes: services.changes, log });

  const unavailablePrefix = config.edition === 'oss' ? '/api/access-control/' : undefined;
  const consolePages = consoleRoutes({ log, oauthName: services.oauth.name });
  // Every path but /graphql, one row each: the probes first (no credentials, no body).
  const router = createRouter([
    ...probeRoutes(db, lifecycle, build.commit),
    ...metricsRoutes(metrics, config.metrics),
    ...consolePages.routes, // its page answers GET /login before the sign-in routes' minimal one
    graphiqlAssetRoute, // GraphiQL's content-hashed files: public, no credentials
    ...openApiRoutes({ routes, cookieName: config.auth.cookieName, ...(unavailablePrefix && { unavailablePrefix }) }),
    ...restRoutes({
      routes,
      site: { cookie, rootUrl: config.auth.rootUrl, allowSignUp: config.auth.oauth?.allowSignUp ?? false, log },
      services,
      authenticate: auth,
      log,
      maxBodyBytes: config.security.maxRequestBodyBytes,
      rootUrl: config.auth.rootUrl,
      allowedOrigins: config.security.corsAllowedOrigins,
    }),
  ]);

  const execution: ExecutionCounters = { compiled: 0, compiledRuns: 0, interpretedRuns: 0 };
  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    ...hardened.options,
    renderGraphiQL,
    graphiql: graphiqlOptions(auth),
    logging: yogaLogging(log),
    maskedErrors: { maskError: (error) => toGraphQLError(error, log) },
    context: async ({ request }) => {
      try {
        return { principal: await auth(request), services, lastEventId: request.headers.get('last-event-id') };
      } catch (error) {
        throw toGraphQLError(error, log);
      }
    },
    plugins: (deps.editPlugins ?? ((plugins: Plugin[]) => plugins))([
      useConnection(config.auth.trustProxy), // records the client address before anything authenticates
      // Every path but /graphql, matched once; before the GraphQL plugins, so the probes answer even when all else is busy.
      useRouter({ router, console: consolePages, graphqlEndpoint: '/graphql', log, ...(unavailablePrefix && { unavailablePrefix }) }),
      useExecution({
        hotAfter: config.security.graphqlCompileAfter,
        compilesPerMinute: config.security.graphqlCompilesPerMinute,
        counters: execution,
      }), // before the plugins that wrap execution (the access fence in hardened)
      ...hardened.first,
      useBadRequestStatus(),
      usePartialStatus(), // a result with data is a 200
      useSseEventIds(), // SSE events carry the id their resolver names (accessChanges: the revision)
      useSecretsAlone(),
      useGraphiQLAuth(auth, log),
      ...hardened.last,
      useRequestLog({ log, metrics }), // last: logs, counts and labels the answer as sent
    ]),
  });
  return { yoga, services, lifecycle, metrics, listener: withCompression(yoga), execution };
}
