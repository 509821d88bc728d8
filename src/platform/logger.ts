/**
 * Structured JSON logs (pino). One logger per app; children carry a `component` field. When
 * stdout is a terminal, the lines are written for people instead (`terminalDestination`:
 * pino-pretty, one coloured line per entry); a pipe, a file or a container's log gets JSON.
 *
 * Off the request path: lines to stdout are written asynchronously and in batches (pino's
 * sonic-boom destination, `minLength`): a line is appended to a buffer, and the buffer is
 * written once it holds LOG_BATCH_BYTES, at the latest LOG_FLUSH_MS after its first line, at
 * once for a line of level warn or above, and synchronously when the process exits. Measured
 * (bench/budget.ts): a write call per request line cost the GraphQL viewer request
 * about 5 % of its CPU in the `write` binding alone; batched, one call carries ~15 lines. Every
 * line is still written (no sampling): request lines carry the request id that audit events
 * and error answers name. A SIGKILL can lose at most the last LOG_FLUSH_MS of info lines. The
 * buffer is bounded (LOG_BUFFER_MAX_BYTES): when stdout is slower than the lines, the lines past
 * it are dropped and their count reported on stderr, rather than memory growing with the load.
 */
import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** Bytes buffered before a write: about fifteen request lines. */
const LOG_BATCH_BYTES = 4096;
/** Longest time, in milliseconds, a line waits in the buffer. */
const LOG_FLUSH_MS = 200;
/**
 * Most bytes waiting in the buffer when stdout is slower than the lines (a pipe whose reader
 * lags): past it, lines are dropped and counted, so memory stays bounded. Measured: a 60 s
 * benchmark whose script read the pipe late held ~200 MiB of unwritten lines without it.
 */
export const LOG_BUFFER_MAX_BYTES = 8 * 1024 * 1024;
/** Milliseconds between two reports (on stderr) of dropped lines. */
const DROP_REPORT_MS = 10_000;
/** pino's level number of `warn`: lines at or above it are written at once. */
const FLUSH_AT_LEVEL = 40;

/**
 * pino's error serializer, less what Prisma renders of a call's arguments: a
 * PrismaClientValidationError (a programming error: inputs are validated before any query)
 * prints the whole `data` it was given, which may hold credential hashes, into its message and
 * so its stack. Its last paragraph (what was wrong) and the stack frames are kept. Every other
 * error is logged as pino logs it: message, stack, code and meta (a Prisma known-request error
 * names the SQLSTATE and the model, not the values).
 */
export function serializeError(error: unknown): unknown {
  const out = pino.stdSerializers.err(error as Error) as unknown as { type?: string; message?: string; stack?: string } | undefined;
  if (out?.type !== 'PrismaClientValidationError') return out;
  const reason =
    String(out.message ?? '')
      .trim()
      .split('\n\n')
      .at(-1) ?? '';
  out.message = `invalid Prisma call (arguments not logged): ${reason}`;
  out.stack = String(out.stack ?? '')
    .split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
  return out;
}

/**
 * A logger at `level`; `silent` for tests. Writes JSON lines to stdout, batched (module
 * comment), or to `destination` as given (tests, benchmarks).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const serializers = { err: serializeError };
  if (destination) return pino({ level, base: { service: 'portcullis' }, serializers }, destination);
  return pino(
    {
      level,
      base: { service: 'portcullis' },
      serializers,
      hooks: {
        logMethod(args, method, lineLevel) {
          method.apply(this, args);
          if (lineLevel >= FLUSH_AT_LEVEL) this.flush();
        },
      },
    },
    logDestination(1),
  );
}

/**
 * The batched destination stdout gets (module comment), for any file descriptor or path:
 * benchmarks write to /dev/null with it, the way the service writes to stdout.
 */
export function logDestination(dest: number | string): ReturnType<typeof pino.destination> {
  const destination = pino.destination({
    dest,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    maxLength: LOG_BUFFER_MAX_BYTES,
    periodicFlush: LOG_FLUSH_MS,
  });
  let dropped = 0;
  let reported = 0;
  destination.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - reported < DROP_REPORT_MS) return;
    reported = now;
    // stderr, not the full buffer: a report of lost lines must not be lost itself.
    process.stderr.write(
      `${JSON.stringify({ level: 40, time: now, service: 'portcullis', dropped, msg: 'log lines dropped: stdout is slower than the logs' })}\n`,
    );
  });
  return destination;
}

/** A stream that may be a terminal: process.stdout, or a stand-in in tests. */
export interface MaybeTerminal extends NodeJS.WritableStream {
  isTTY?: boolean;
}

/**
 * The destination for people when `stdout` is a terminal: pino-pretty writing one line per
 * entry, `[HH:MM:ss.l] LEVEL: (component) message {fields}`, coloured; the
 * `service`, `pid` and `hostname` fields every line carries are left out. Written synchronously:
 * a terminal reads lines as they come and carries no production load. Undefined when `stdout` is
 * not a terminal: the logger then writes batched JSON lines (`createLogger`).
 */
export function terminalDestination(stdout: MaybeTerminal = process.stdout): DestinationStream | undefined {
  if (!stdout.isTTY) return undefined;
  return pretty({
    destination: stdout,
    sync: true,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,service,component',
    messageFormat: '{if component}({component}) {end}{msg}',
    singleLine: true,
  });
}
