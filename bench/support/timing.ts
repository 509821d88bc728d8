/**
 * Timing of in-process steps: each variant runs in batches, variants interleaved round by round
 * (forward, then backward) so drift in the machine's load hits them alike; the figures of a
 * variant are the medians over rounds of its mean CPU time (this process's user + system time,
 * all its threads: what the request costs the machine, and far less disturbed by other
 * processes than wall time) and mean wall time per call in a batch.
 */
import { median } from './load.js';

/** One thing to time: `run` does it once (awaited). */
export interface Variant {
  name: string;
  run: () => Promise<unknown> | unknown;
}

/** Microseconds of CPU and of wall time per call. */
export interface Timing {
  cpu: number;
  wall: number;
}

/** Microseconds per call of each variant (medians over `rounds` batches of `batch` calls), by name. */
export async function timeVariants(variants: Variant[], rounds: number, batch: number): Promise<Map<string, Timing>> {
  const samples = new Map<string, Timing[]>(variants.map((v) => [v.name, []]));
  for (const v of variants) for (let i = 0; i < Math.min(batch, 50); i++) await v.run(); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (let i = 0; i < batch; i++) await v.run();
      // One turn of the event loop: work a request defers to the end of its turn (the request
      // log lines, use-request-log.ts) is done, and counted, within its batch.
      await new Promise((resolve) => setImmediate(resolve));
      const used = process.cpuUsage(cpu);
      samples.get(v.name)?.push({ cpu: (used.user + used.system) / batch, wall: ((performance.now() - started) * 1000) / batch });
    }
  }
  return new Map(
    [...samples].map(([name, values]) => [name, { cpu: median(values.map((t) => t.cpu)), wall: median(values.map((t) => t.wall)) }]),
  );
}

/**
 * Wall-time medians, in milliseconds, of `samples` calls of each of `runs`, interleaved call by
 * call (one of each, in order, `samples` times): every median sees the machine's load of the same
 * moments, so a floor measured beside a request is not measured in a busier second.
 */
export async function interleavedMedians<K extends string>(
  samples: number,
  runs: Record<K, () => Promise<unknown>>,
): Promise<Record<K, number>> {
  const entries = Object.entries(runs) as [K, () => Promise<unknown>][];
  const times = new Map<K, number[]>(entries.map(([name]) => [name, []]));
  for (let i = 0; i < samples; i++) {
    for (const [name, run] of entries) {
      const started = performance.now();
      await run();
      times.get(name)?.push(performance.now() - started);
    }
  }
  return Object.fromEntries(entries.map(([name]) => [name, median(times.get(name) ?? [])])) as Record<K, number>;
}
