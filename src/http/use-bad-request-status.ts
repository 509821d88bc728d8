/**
 * GraphQL parse and validation errors are the client's bad input: answer them 400, as the REST
 * door answers a malformed body. Yoga marks them 400 only for `application/graphql-response+json`
 * (`extensions.http.spec`) and answers 200 to plain `application/json` clients; this plugin drops
 * that distinction. Codes stay yoga's: GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED.
 */
import type { Plugin } from 'graphql-yoga';

const BAD_REQUEST_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED']);

interface HttpExtension {
  spec?: boolean;
  status?: number;
}

/** Yoga plugin: parse and validation errors always set HTTP 400. */
export function useBadRequestStatus(): Plugin {
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors) return;
      for (const error of result.errors) {
        const http = error.extensions?.http as HttpExtension | undefined;
        if (http && BAD_REQUEST_CODES.has(String(error.extensions?.code))) http.spec = false;
      }
    },
  };
}
