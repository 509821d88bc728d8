/**
 * Opens the SQLite database: creates its directory, switches it to WAL, applies pending
 * migrations, then returns a Prisma client on the better-sqlite3 driver adapter.
 */
import { mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import BetterSqlite3 from 'better-sqlite3';
import { type Prisma, PrismaClient } from '../generated/prisma/client.js';
import { migrateDatabase } from './migrations.js';

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** Milliseconds a connection waits for a lock held by another connection (SQLite busy timeout). */
export const BUSY_TIMEOUT_MS = 5000;

export interface OpenDatabaseOptions {
  /** `file:<path>` (relative to the working directory) */
  databaseUrl: string;
  log?: (msg: string, fields?: object) => void;
  /** Called with every SQL statement Prisma sends; tests count them to catch N+1. */
  onQuery?: (sql: string) => void;
  migrationsDir?: string;
}

export interface Database {
  prisma: Db;
  /** Absolute path of the database file. */
  path: string;
  close(): Promise<void>;
}

/** Absolute file path of a `file:` URL; relative paths resolve against the working directory. */
export function databasePath(databaseUrl: string): string {
  const raw = databaseUrl.replace(/^file:/, '').replace(/\?.*$/, '');
  return isAbsolute(raw) ? raw : resolve(process.cwd(), raw);
}

/**
 * Opens (creating when missing) and migrates the database.
 * @throws Error when a migration fails or an applied migration was edited afterwards.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const path = databasePath(options.databaseUrl);
  mkdirSync(dirname(path), { recursive: true });

  const raw = new BetterSqlite3(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    raw.pragma('journal_mode = WAL');
  } finally {
    raw.close();
  }
  await migrateDatabase(path, {
    ...(options.migrationsDir && { migrationsDir: options.migrationsDir }),
    ...(options.log && { log: options.log }),
  });

  const adapter = new PrismaBetterSqlite3({ url: `file:${path}`, timeout: BUSY_TIMEOUT_MS });
  const prisma = options.onQuery ? new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] }) : new PrismaClient({ adapter });
  if (options.onQuery) {
    const onQuery = options.onQuery;
    (prisma as PrismaClient<'query'>).$on('query', (e) => onQuery(e.query));
  }
  await prisma.$connect();
  return { prisma, path, close: () => prisma.$disconnect() };
}

/** True when a Prisma error is a unique-constraint violation (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'P2002';
}
