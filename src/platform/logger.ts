/** Structured JSON logs (pino). One logger per app; children carry a `component` field. */
import { type Logger, pino } from 'pino';

export type { Logger };

/** A logger at `level`; `silent` for tests. Writes JSON lines to stdout. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'portcullis' } });
}
