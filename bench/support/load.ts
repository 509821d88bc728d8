/**
 * Load generation with autocannon (as a library) and the statistics the benchmarks print:
 * requests per second, latency percentiles, medians over rounds, ratios.
 */
import autocannon from 'autocannon';

/** One request shape driven by autocannon. */
export interface Target {
  name: string;
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What one autocannon run measured: 2xx per second, latency percentiles (ms), failures; the server's CPU per request. */
export interface LoadResult {
  rps: number;
  /** CPU time of the server per answered request, microseconds (set by the caller). */
  cpuUs?: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Drives `target` on 127.0.0.1:`port` with `connections` for `seconds`. */
export async function drive(port: number, target: Target, connections: number, seconds: number): Promise<LoadResult> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${target.path}`,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    ...(target.body !== undefined && { body: target.body }),
    connections,
    duration: seconds,
  });
  return {
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The median of `values` (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Medians of each figure over rounds; failures summed. */
export function medianResult(rounds: LoadResult[]): LoadResult {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    cpuUs: median(rounds.map((r) => r.cpuUs ?? Number.NaN)),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

/** A number with thousands separators and `digits` decimals. */
export const fmt = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Mebibytes with one decimal. */
export const mib = (bytes: number) => `${fmt(bytes / 1024 / 1024, 0)} MiB`;

/** Prints rows as an aligned Markdown table (so the output pastes into the README). */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(row));
}
