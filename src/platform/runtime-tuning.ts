/**
 * V8 settings the service applies to itself before it compiles any WebAssembly (main.ts calls
 * tuneRuntime first). Measured on the HTTP benchmark's start (RSS 3 s after start):
 *
 * Prisma 7's query compiler (a 3.3 MB WebAssembly module, run for each query shape not yet in its
 * query-plan cache) and the schema engine (5.4 MB, migrations at start) stay on V8's baseline
 * compiler (Liftoff). Otherwise V8 recompiles their hot functions with its optimizing compiler
 * (TurboFan) on a background thread, whose compilation zones (41 MB at peak, measured with
 * heaptrack: `ExecuteTurbofanWasmCompilation` under `BackgroundCompileJob`) stay resident in that
 * thread's malloc arena after they are freed: 13-40 MiB of the idle RSS, varying from start to
 * start with the timing of the compile jobs. Both flags are needed: `--no-wasm-tier-up` stops the
 * eager tier-up, `--no-wasm-dynamic-tiering` the budget-driven one, which is on by default and is
 * not governed by the first in Node 20's V8 (11.3). Liftoff code is enough for code that runs
 * once per query shape (the plan cache answers the rest) and never hot: with both, idle RSS
 * 190-202 -> 145-157 MiB, under load 256-304 -> 195-240 MiB, and the benchmark's request ratios
 * (req/s and server CPU per request, API key and GraphQL viewer) no worse.
 *
 * Flags that must be given before V8 starts (thread pool, heap sizes) are on the command line of
 * `npm start` (package.json), not here.
 */
import { setFlagsFromString } from 'node:v8';

/** Applies the flags above; call before the first WebAssembly module is compiled. */
export function tuneRuntime(): void {
  setFlagsFromString('--no-wasm-tier-up');
  setFlagsFromString('--no-wasm-dynamic-tiering');
}
