/**
 * Runs each GraphQL execution as its caller's fenced request (kernel/fence.ts), so every write a
 * resolver makes checks, under SQLite's write lock, that the caller was not demoted meanwhile.
 * Read-your-writes (consistency.ts): an execution whose request carries
 * `X-Access-Revision-At-Least` checks that revision first; one that committed a change record
 * answers its revision in `extensions.revision`.
 */
import type { ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { AccessService } from '../kernel/access.js';
import type { ChangeFeedService } from '../modules/changes/service.js';
import type { GraphQLContext } from '../modules/shared/context.js';
import { AT_LEAST_HEADER } from './consistency.js';

/** Yoga plugin: execution inside `access.run(principal, ...)`, with its revision checked and answered. */
export function useAccessFence(access: AccessService, changes: ChangeFeedService): Plugin<GraphQLContext> {
  return {
    async onExecute({ args, executeFn, setExecuteFn }) {
      // Yoga puts the request in every context beside what the context factory built.
      const { principal, request } = args.contextValue as GraphQLContext & { request?: Request };
      const atLeast = request?.headers.get(AT_LEAST_HEADER) ?? null;
      if (atLeast !== null) await changes.requireRevision(atLeast);
      setExecuteFn((executionArgs) => access.run(principal, () => executeFn(executionArgs)));
      return {
        onExecuteDone({ result, setResult }) {
          const revision = access.committedRevision(principal);
          if (revision === undefined || Symbol.asyncIterator in result) return;
          const single = result as ExecutionResult;
          setResult({ ...single, extensions: { ...single.extensions, revision } });
        },
      };
    },
  };
}
