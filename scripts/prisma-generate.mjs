#!/usr/bin/env node
// Runs `prisma generate` offline. The Prisma CLI insists on locating its schema engine binary at
// start-up (and downloads it when missing); generation never uses it, so any existing file will
// do. Pointing PRISMA_SCHEMA_ENGINE_BINARY at node itself keeps `npm install` free of downloads.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
// No telemetry call home: the network may be closed, and a hanging request would stall installs.
env.CHECKPOINT_DISABLE = '1';
// The pothos generator is found on PATH, as npm scripts would have it.
const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin');
env.PATH = `${bin}${delimiter}${env.PATH ?? ''}`;
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
