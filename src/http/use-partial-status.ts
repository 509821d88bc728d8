/**
 * A partial answer is a 200. Fields a caller may be refused although it may
 * read their parent are nullable (shared/builder.ts DENIABLE), so a denial there answers null
 * with an error for that field while the rest of the data arrives. Yoga would still take the
 * HTTP status from the error's `extensions.http.status` (403), and HTTP clients that treat a 4xx
 * as a failure (Apollo Client's HttpLink, `fetch` wrappers) would drop the data that did arrive.
 * So a result in which data arrived (a root field answered with a value) is a 200, as the
 * GraphQL-over-HTTP specification asks of a response with data; the errors keep their codes
 * (ACCESS_DENIED...) and paths. A result where nothing arrived (no data, a refused non-null root
 * field, or every root field null, as a refused nullable `createApiKey`) keeps its status from
 * the code table, as on the REST door.
 */
import type { Plugin } from 'graphql-yoga';

interface HttpExtension {
  status?: number;
}

/** Yoga plugin: results in which data arrived are answered 200 (module comment). */
export function usePartialStatus(): Plugin {
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors || result.data == null) return;
      if (!Object.values(result.data).some((value) => value !== null)) return;
      for (const error of result.errors) {
        const http = error.extensions?.http as HttpExtension | undefined;
        if (http) delete http.status;
      }
    },
  };
}
