#!/usr/bin/env node
/**
 * `npm start`: runs the built server (dist/server/main.js, scripts/build-server.mjs) in this
 * process, building it first when it is missing or older than the sources, so a fresh clone
 * after `npm install`, or a checkout with edited sources, still starts what its sources say.
 * Compiled JavaScript starts faster and holds less memory than the sources run through a
 * TypeScript loader; `npm run dev` runs the sources with tsx in watch mode instead.
 *
 * package.json runs it as `node --v8-pool-size=1 scripts/start.mjs` (issue #20, memory): V8's
 * background threads (4 by default, whatever the cores) each keep the malloc arena their
 * compilation and GC work grew, and one thread beside the main one is what two cores can run at
 * once anyway. Measured with `npm run bench -- http --quick` on 2 cores: RSS 3 s after start
 * 258 -> 202 MiB, under load 275 -> 247 MiB, server CPU per request no worse. The flag must be
 * given before V8 starts, so it is on the command line; the flags V8 takes at run time are set by
 * the server itself (src/platform/runtime-tuning.ts).
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
