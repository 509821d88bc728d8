/**
 * Types shared by database.ts (the public face) and its two providers (database-sqlite.ts,
 * database-postgres.ts), kept apart so the providers need not import database.ts.
 */
import type pg from 'pg';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/**
 * The database client every module uses. It is the type of the SQLite client; the PostgreSQL
 * client, generated from the same models (scripts/postgresql-schema.mjs), is used behind it.
 */
export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

/**
 * A number that changes whenever another connection commits a change (SQLite: `PRAGMA
 * data_version`; PostgreSQL: the change feed's count of foreign changes, change-feed.ts).
 * @throws ChangesUnknownError (PostgreSQL) while it cannot know whether others changed anything.
 */
export type ChangeCounter = () => number;

/**
 * The change counter cannot tell whether other replicas committed changes (PostgreSQL: the
 * listener connection is lost and not yet caught up). Serving from caches now could serve stale
 * permissions, so callers answer 503 until it recovers.
 */
export class ChangesUnknownError extends Error {
  override name = 'ChangesUnknownError';
}

/** What openDatabase hands a provider. */
export interface ProviderOpenOptions {
  /** Milliseconds a statement waits for a lock held by another connection. */
  busyTimeoutMs: number;
  migrate: boolean;
  migrationsDir?: string | undefined;
  log?: ((msg: string, fields?: object) => void) | undefined;
  /** Every SQL statement Prisma sent, with its duration in milliseconds. */
  onQuery: (sql: string, ms: number) => void;
  /** PostgreSQL: told of every new change version announced (any connection's commit). */
  onVersion?: () => void;
}

/** A provider's opened client. */
export interface OpenedClient {
  prisma: Db;
  /** Undefined when the provider has none (never, today). */
  changeCounter: ChangeCounter | undefined;
  /**
   * PostgreSQL: applies every commit made before the call to the change counter (a read of the
   * change version started after it, change-feed.ts `catchUp`). Undefined on SQLite, whose
   * counter is exact at every reading.
   * @throws ChangesUnknownError when the version cannot be read.
   */
  catchUp?: () => Promise<void>;
  /** PostgreSQL: false while the change feed cannot know other replicas' changes (readiness). */
  changesKnown?: () => boolean;
  /**
   * PostgreSQL: the users named by other connections' commits that announced they can reach
   * those users only (change-feed.ts "reach"), since the last call; such commits do not move
   * the change counter.
   */
  takeTargeted?: () => number[];
  /** PostgreSQL: the change-record revision up to which every change is known applied (change-reach.ts, the mark). */
  appliedRevision?: () => number | undefined;
  /** PostgreSQL: the node-postgres pool Prisma runs on, for stores that share the database (login counters). */
  pool?: pg.Pool;
  close(): Promise<void>;
}
