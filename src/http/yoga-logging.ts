/**
 * Yoga's own log calls, sent to the service's logger without ever printing a GraphQL document or
 * variables. Yoga logs every error it masks by passing the error itself; printing a GraphQLError
 * (`String(error)`) prints the lines of the document around it, so a failed
 * `createUser(input: {password: "..."})` used to put the password in the logs. Here
 * a GraphQL or domain error becomes its code at `debug` (the request log line carries the codes
 * of every failed operation); unexpected errors were already logged with their stack by
 * graphql-errors.ts. Plain messages pass through.
 */
import type { YogaLogger } from 'graphql-yoga';
import type { Logger } from '../platform/logger.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

function isError(value: unknown): value is Error & { extensions?: { code?: unknown }; code?: unknown } {
  return value instanceof Error;
}

/** The `logging` option of createYoga, writing to `log` (see the module comment). */
export function yogaLogging(log: Logger): YogaLogger {
  const write =
    (level: Level) =>
    (...args: unknown[]) => {
      const errors = args.filter(isError);
      // Yoga logs several debug lines per request: nothing to build when that level is off.
      if (!log.isLevelEnabled(errors.length === 0 ? level : 'debug')) return;
      const words = args.filter((a) => !isError(a)).map((a) => (typeof a === 'string' ? a : typeof a));
      if (errors.length === 0) {
        log[level](words.join(' '));
        return;
      }
      for (const error of errors) {
        // Only the code and the error's class: messages of parse and variable errors quote the document or the variables.
        const code = error.extensions?.code ?? (typeof error.code === 'string' ? error.code : undefined);
        log.debug({ error: { name: error.name, ...(code !== undefined && { code: String(code) }) } }, words.join(' ') || 'graphql error');
      }
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
