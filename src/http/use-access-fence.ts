/**
 * Runs each GraphQL execution as its caller's fenced request (kernel/fence.ts), so every write a
 * resolver makes checks, under SQLite's write lock, that the caller was not demoted meanwhile.
 */
import type { Plugin } from 'graphql-yoga';
import type { AccessService } from '../kernel/access.js';
import type { GraphQLContext } from '../modules/shared/context.js';

/** Yoga plugin: execution inside `access.run(principal, ...)`. */
export function useAccessFence(access: AccessService): Plugin<GraphQLContext> {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const { principal } = args.contextValue as GraphQLContext;
      setExecuteFn((executionArgs) => access.run(principal, () => executeFn(executionArgs)));
    },
  };
}
