// The PostgreSQL data model, derived from prisma/schema.prisma (the one source of truth for the
// models). Prisma generates one client per provider, so the PostgreSQL client is generated from
// this derived text: the same models with `provider = "postgresql"`, the client written to
// src/generated/prisma-postgresql, and no Pothos generator (the Pothos types come from the SQLite
// client and describe the same models). Used by scripts/prisma-generate.mjs (writes the file) and
// scripts/migration-create.ts (diffs the PostgreSQL migrations against it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The source of truth: prisma/schema.prisma (SQLite). */
export const SQLITE_SCHEMA_PATH = join(root, 'prisma', 'schema.prisma');
/** Where the derived PostgreSQL schema is written (generated, not committed). */
export const POSTGRESQL_SCHEMA_PATH = join(root, 'src', 'generated', 'postgresql', 'schema.prisma');

const HEADER = '// GENERATED from prisma/schema.prisma by scripts/postgresql-schema.mjs: edit that file instead.\n';

/**
 * Replaces exactly one match of `pattern` in `text`.
 * @param {string} text
 * @param {RegExp} pattern
 * @param {string} replacement
 * @param {string} what named in the error
 */
function replaceOnce(text, pattern, replacement, what) {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`));
  if (matches?.length !== 1) {
    throw new Error(`prisma/schema.prisma: expected exactly one ${what}, found ${matches?.length ?? 0}`);
  }
  return text.replace(pattern, replacement);
}

/**
 * The PostgreSQL schema for a SQLite schema text: datasource provider switched, client output
 * moved next to the derived file, Pothos generator dropped. Models are copied unchanged.
 * @param {string} sqlite the text of prisma/schema.prisma
 * @returns {string}
 * @throws Error when the blocks it rewrites are not found exactly once (the schema changed shape).
 */
export function derivePostgresqlSchema(sqlite) {
  let text = replaceOnce(sqlite, /provider\s*=\s*"sqlite"/, 'provider = "postgresql"', 'sqlite datasource provider');
  text = replaceOnce(text, /generator pothos \{[^}]*\}\n*/, '', 'pothos generator block');
  // Relative to the derived file in src/generated/postgresql/.
  text = replaceOnce(text, /output\s*=\s*"\.\.\/src\/generated\/prisma"/, 'output       = "../prisma-postgresql"', 'client output');
  return HEADER + text;
}

/**
 * Writes the derived schema to POSTGRESQL_SCHEMA_PATH from prisma/schema.prisma.
 * @returns {string} the path written
 */
export function writePostgresqlSchema() {
  mkdirSync(dirname(POSTGRESQL_SCHEMA_PATH), { recursive: true });
  writeFileSync(POSTGRESQL_SCHEMA_PATH, derivePostgresqlSchema(readFileSync(SQLITE_SCHEMA_PATH, 'utf8')), 'utf8');
  return POSTGRESQL_SCHEMA_PATH;
}
