/**
 * GraphQL results in the order the query asked for them (GraphQL spec, "Response Format",
 * §7.2.2: "the response map … should have its fields in the same order as the selection set").
 * The executor bundled with graphql-yoga on Node 20 (@graphql-tools/executor 2.0.1) writes the
 * fields that resolve at once before the awaited ones, so `{ viewer { roles { name } login } }`
 * came back as `{login, roles}`; its fix (2.0.3) needs Node 22. graphql-js's own `execute`, the
 * reference implementation for the same schema, keeps the order, so it executes every document.
 */
import { execute } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Yoga plugin: executes with graphql-js's `execute`. Must come before any plugin that wraps the execute function (the access fence), so they wrap this one. */
export function useOrderedExecution(): Plugin {
  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn(execute);
    },
  };
}
