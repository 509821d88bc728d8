#!/usr/bin/env node
// Runs `prisma generate` offline. The Prisma CLI insists on locating its schema engine binary at
// start-up (and downloads it when missing); generation never uses it, so any existing file will
// do. Pointing PRISMA_SCHEMA_ENGINE_BINARY at node itself keeps `npm install` free of downloads.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const cli = require.resolve('prisma/build/index.js');
const env = { ...process.env };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const result = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
