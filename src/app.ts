/**
 * Composition root: the feature services on a database, the authenticator, and the yoga
 * instance with its plugins (REST routes, GraphiQL prompt, status of bad requests). Opens no
 * port: main.ts listens, tests call `app.yoga.fetch(...)`.
 */
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from './config.js';
import { createAuthenticator } from './http/authenticate.js';
import { toGraphQLError } from './http/graphql-errors.js';
import { hardening } from './http/hardening.js';
import { createRequestAuth } from './http/request-auth.js';
import { routes } from './http/routes.js';
import { schema } from './http/schema.js';
import { useBadRequestStatus } from './http/use-bad-request-status.js';
import { useGraphiQLAuth } from './http/use-graphiql-auth.js';
import { useLoginRoutes } from './http/use-login-routes.js';
import { useRestRoutes } from './http/use-rest-routes.js';
import { useSecretsAlone } from './http/use-secrets-alone.js';
import { createServices, type Services } from './modules/services.js';
import type { GraphQLContext } from './modules/shared/context.js';
import { type Clock, systemClock } from './platform/clock.js';
import type { Db } from './platform/database.js';
import type { Logger } from './platform/logger.js';

export interface AppDeps {
  db: Db;
  config: Config;
  log: Logger;
  clock?: Clock;
}

export interface App {
  yoga: YogaServerInstance<Record<string, never>, GraphQLContext>;
  services: Services;
}

const DEFAULT_QUERY =
  "# Signed in with your browser's basic-auth prompt.\n{\n  viewer {\n    login\n    orgId\n    orgRole\n    roles { uid name }\n    permissions { action scope }\n  }\n}\n";

/** Builds the app for a database and configuration. */
export function createApp(deps: AppDeps): App {
  const { db, config, log } = deps;
  const services = createServices({ db, config, clock: deps.clock ?? systemClock });
  const cookie = { name: config.auth.cookieName, secure: config.auth.cookieSecure, maxAgeSeconds: config.auth.lifetimeSeconds };
  const loginRoutes = useLoginRoutes({
    services,
    cookie,
    rootUrl: config.auth.rootUrl,
    allowSignUp: config.auth.oauth?.allowSignUp ?? false,
    trustProxy: config.auth.trustProxy,
    log,
  });
  const auth = createRequestAuth(services.access, createAuthenticator({ services, cookie }));
  const hardened = hardening({ security: config.security, auth, access: services.access, db, log });

  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    ...hardened.options,
    renderGraphiQL,
    graphiql: { title: 'portcullis GraphiQL', defaultQuery: DEFAULT_QUERY },
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error(args.map(String).join(' ')),
    },
    maskedErrors: { maskError: (error) => toGraphQLError(error, log) },
    context: async ({ request }) => {
      try {
        return { principal: await auth(request), services };
      } catch (error) {
        throw toGraphQLError(error, log);
      }
    },
    plugins: [
      loginRoutes, // first: records the client address before anything authenticates
      ...hardened.first,
      useBadRequestStatus(),
      useSecretsAlone(),
      useRestRoutes({
        routes,
        services,
        authenticate: auth,
        log,
        maxBodyBytes: config.security.maxRequestBodyBytes,
        ...(config.edition === 'oss' && { unavailablePrefix: '/api/access-control/' }),
      }),
      useGraphiQLAuth(auth, log),
      ...hardened.last,
    ],
  });
  return { yoga, services };
}
