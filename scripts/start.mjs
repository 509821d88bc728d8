#!/usr/bin/env node
/**
 * `npm start`: runs the built server (dist/server/main.js, scripts/build-server.mjs) in this
 * process, building it first when it is missing or older than the sources, so a fresh clone
 * after `npm install`, or a checkout with edited sources, still starts what its sources say.
 * Compiled JavaScript starts faster and holds less memory than the sources run through a
 * TypeScript loader; `npm run dev` runs the sources with tsx in watch mode instead.
 *
 * package.json runs it as
 * `node --v8-pool-size=1 --max-semi-space-size=8 --max-old-space-size=1024 scripts/start.mjs`
 * (to save memory; both must be given before V8 starts, so they are on the command line; the
 * flags V8 takes at run time are set by the server itself, src/platform/runtime-tuning.ts):
 * - `--v8-pool-size=1`: V8's background threads (4 by default, whatever the cores) each keep the
 *   malloc arena their compilation and GC work grew, and one thread beside the main one is what
 *   two cores can run at once anyway. Measured with `npm run bench -- http --quick` on 2 cores:
 *   RSS 3 s after start 258 -> 202 MiB, under load 275 -> 247 MiB, server CPU per request no worse.
 * - `--max-semi-space-size=8` (MiB): the young generation grows to 2 x 8 MiB instead of Node 20's
 *   2 x 16 MiB; start-up grows it to the maximum and nothing shrinks it while idle. Measured over
 *   20,000 API-key and 5,000 GraphQL viewer requests (64 connections, 3 alternating pairs):
 *   largest RSS 224-266 -> 199-225 MiB, garbage collection +4 µs per API-key request (10 -> 14)
 *   and +20 µs per viewer request (~60 -> ~80), 2-3 % of their CPU. 4 MiB saved no more under
 *   load and cost more (+3-17 µs per API-key request); 2 MiB made collection 2-3x as costly.
 * - `--max-old-space-size=1024` (MiB): under V8's default limit (about 4 GiB here) the old
 *   generation grows to about 4 times the live heap between full collections, under 1 GiB to
 *   about 1.6 times; the live heap stays flat at ~45 MiB under load (no leak: measured after
 *   forced collections). Measured with the full `npm run bench -- http` on an idle machine
 *   (2026-11-27): largest RSS under load 321 -> 198 MiB, server CPU per request +4 % (API key,
 *   157 -> 164 µs) and +6 % (GraphQL viewer, 437 -> 465 µs), throughput ratios to bare yoga
 *   unchanged (1.67x -> 1.71x, 0.61x -> 0.62x). It is also a hard limit: a heap past 1 GiB
 *   stops the process (every cache of the service is bounded far below it, SECURITY.md
 *   "Resource limits"); to give it more, run `node --max-old-space-size=<MiB> ... scripts/start.mjs`.
 */
import { pathToFileURL } from 'node:url';
import { buildServer, SERVER_ENTRY } from './build-server.mjs';

try {
  await buildServer();
} catch (error) {
  process.stderr.write(
    `portcullis failed to start: building the server failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
await import(pathToFileURL(SERVER_ENTRY).href);
