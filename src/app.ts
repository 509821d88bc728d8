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
import { routes } from './http/routes.js';
import { schema } from './http/schema.js';
import { useBadRequestStatus } from './http/use-bad-request-status.js';
import { useGraphiQLAuth } from './http/use-graphiql-auth.js';
import { useRestRoutes } from './http/use-rest-routes.js';
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
  const authenticate = createAuthenticator({ db, apiKeys: services.apiKeys });

  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
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
        return { principal: await authenticate(request), services };
      } catch (error) {
        throw toGraphQLError(error, log);
      }
    },
    plugins: [
      useBadRequestStatus(),
      useRestRoutes({
        routes,
        services,
        authenticate,
        log,
        ...(config.edition === 'oss' && { unavailablePrefix: '/api/access-control/' }),
      }),
      useGraphiQLAuth(log),
    ],
  });
  return { yoga, services };
}
