/** Structured JSON logs (pino). One logger per app; children carry a `component` field. */
import { type DestinationStream, type Logger, pino } from 'pino';

export type { Logger };

/** A logger at `level`; `silent` for tests. Writes JSON lines to stdout, or to `destination`. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return destination ? pino({ level, base: { service: 'portcullis' } }, destination) : pino({ level, base: { service: 'portcullis' } });
}

/** The destination stdout gets (pino's default), for another file: benchmarks write to /dev/null with it. */
export function logDestination(path: string): DestinationStream {
  return pino.destination({ dest: path, sync: false });
}
