/** The source of truth: prisma/schema.prisma (SQLite). */
export const SQLITE_SCHEMA_PATH: string;
/** Where the derived PostgreSQL schema is written (generated, not committed). */
export const POSTGRESQL_SCHEMA_PATH: string;
/** The PostgreSQL schema text for the text of prisma/schema.prisma (see the .mjs). */
export function derivePostgresqlSchema(sqlite: string): string;
/** Writes the derived schema to POSTGRESQL_SCHEMA_PATH; returns that path. */
export function writePostgresqlSchema(): string;
