#!/usr/bin/env node
/**
 * `npm start`: runs the built server (dist/server/main.js, scripts/build-server.mjs) in this
 * process, building it first when it is missing or older than the sources, so a fresh clone
 * after `npm install`, or a checkout with edited sources, still starts what its sources say.
 * Compiled JavaScript starts faster and holds less memory than the sources run through a
 * TypeScript loader; `npm run dev` runs the sources with tsx in watch mode instead.
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
