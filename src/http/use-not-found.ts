/**
 * The answer for a path nothing answered: 404 `{"message":"Not found","code":"NOT_FOUND"}`, the
 * REST door's shape (REST answers its own /api/ paths), instead of yoga's empty 404 body
 *. List it after every plugin that answers paths of its own (REST, sign-in, the web
 * console): its onRequest then runs only for requests none of them ended. The GraphQL endpoint
 * is left to yoga (GraphiQL, operations, its 405 for other methods).
 */
import type { Plugin } from 'graphql-yoga';
import { DomainError } from '../kernel/errors.js';
import type { Logger } from '../platform/logger.js';
import { errorResponse } from './responses.js';

/** Yoga plugin: the JSON 404 above for every path but `graphqlEndpoint`. */
export function useNotFound(graphqlEndpoint: string, log: Logger): Plugin {
  return {
    onRequest({ url, endResponse }) {
      if (url.pathname === graphqlEndpoint) return;
      endResponse(errorResponse(new DomainError('NOT_FOUND', 'Not found'), log));
    },
  };
}
