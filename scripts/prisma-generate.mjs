#!/usr/bin/env node
// Runs `prisma generate` offline, once per database provider: the SQLite client (and the Pothos
// types) from prisma/schema.prisma, then the PostgreSQL client from the schema derived from it
// (scripts/postgresql-schema.mjs). The Prisma CLI insists on locating its schema engine binary at
// start-up (and downloads it when missing); generation never uses it, so any existing file will
// do. Pointing PRISMA_SCHEMA_ENGINE_BINARY at node itself keeps `npm install` free of downloads.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePostgresqlSchema } from './postgresql-schema.mjs';

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

const sqlite = spawnSync(process.execPath, [cli, 'generate'], { stdio: 'inherit', env });
if (sqlite.status !== 0) process.exit(sqlite.status ?? 1);
const postgresql = spawnSync(process.execPath, [cli, 'generate', '--schema', writePostgresqlSchema()], { stdio: 'inherit', env });
process.exit(postgresql.status ?? 1);
