/**
 * V8 settings the service applies to itself before it compiles any WebAssembly (main.ts calls
 * tuneRuntime first). Measured on the HTTP benchmark's start (issue #20, RSS 3 s after start):
 *
 * - `--no-wasm-tier-up`: Prisma 7's query compiler (a 3.3 MB WebAssembly module, run for each
 *   query shape not yet in its query-plan cache) and the schema engine (5.4 MB, migrations) stay
 *   on V8's baseline compiler (Liftoff). Otherwise V8 recompiles every function of both with its
 *   optimizing compiler on background threads, whose working memory stays in those threads'
 *   malloc arenas: about 50 MB of resident memory for the query compiler alone, for queries that
 *   are compiled once per shape (the plan cache answers the rest) and then never run hot.
 *
 * Flags that must be given before V8 starts (thread pool, heap sizes) are on the command line of
 * `npm start` (package.json), not here.
 */
import { setFlagsFromString } from 'node:v8';

/** Applies the flags above; call before the first WebAssembly module is compiled. */
export function tuneRuntime(): void {
  setFlagsFromString('--no-wasm-tier-up');
}
