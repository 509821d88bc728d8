/**
 * createApp: the yoga instance with the REST routes mounted, for a database and configuration.
 * Opens no port: main.ts listens, tests call `app.yoga.fetch(...)`.
 */
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { createAuthenticator } from './http/authenticate.js';
import type { Config } from './config.js';
import { type Clock, systemClock } from './platform/clock.js';
import { DomainError } from './kernel/errors.js';
import { createServices, type Services } from './modules/services.js';
import type { Db } from './platform/database.js';
import { useBadRequestStatus } from './http/use-bad-request-status.js';
import type { GraphQLContext } from './modules/shared/context.js';
import { toGraphQLError } from './http/graphql-errors.js';
import { schema } from './http/schema.js';
import type { Logger } from './platform/logger.js';
import { createRestRouter, errorResponse } from './http/use-rest-routes.js';
import { routes } from './http/routes.js';

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

export function createApp(deps: AppDeps): App {
  const { db, config, log } = deps;
  const services = createServices({ db, config, clock: deps.clock ?? systemClock });
  const authenticate = createAuthenticator({ db, apiKeys: services.apiKeys });
  const rest = createRestRouter({
    routes,
    services,
    authenticate,
    log,
    ...(config.edition === 'oss' && { unavailablePrefix: '/api/access-control/' }),
  });

  const yoga = createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    renderGraphiQL,
    graphiql: {
      title: 'portcullis GraphiQL',
      defaultQuery:
        "# Signed in with your browser's basic-auth prompt.\n{\n  viewer {\n    login\n    orgId\n    orgRole\n    roles { uid name }\n    permissions { action scope }\n  }\n}\n",
    },
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
      {
        async onRequest({ request, url, endResponse }) {
          const response = await rest(request, url);
          if (response) endResponse(response);
        },
        // GraphiQL in a browser: ask for basic credentials once (yoga renders the page before
        // user plugins see the request, so the answer is swapped here); the browser then sends
        // them with every GraphiQL request.
        onResponse({ request, response, setResponse }) {
          if (
            request.method === 'GET' &&
            response.status === 200 &&
            (response.headers.get('content-type') ?? '').startsWith('text/html') &&
            !request.headers.get('authorization')
          ) {
            setResponse(errorResponse(new DomainError('UNAUTHENTICATED', 'Unauthorized'), log));
          }
        },
      },
    ],
  });
  return { yoga, services };
}
