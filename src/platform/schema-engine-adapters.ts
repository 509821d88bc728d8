/**
 * The driver adapters the schema engine (schema-engine.ts) runs on: better-sqlite3 for SQLite,
 * node-postgres for PostgreSQL, each wrapped where the engine and the adapter disagree (whole
 * scripts, PostgreSQL's `"char"` catalog columns). Connections are tracked so they can be closed.
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import {
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlResultSet,
} from '@prisma/driver-adapter-utils';
import type pg from 'pg';
import type { DatabaseTarget } from './database-url.js';

/**
 * The engine runs a whole migration.sql through the adapter's argument-less `executeRaw` (on the
 * main database when applying, on the shadow database when replaying history), but better-sqlite3
 * prepares exactly one statement and throws "The supplied SQL string contains more than one
 * statement". Argument-less executeRaw therefore goes to `executeScript` (better-sqlite3 `exec`).
 * On PostgreSQL the adapter's executeScript splits the script at every ";", which breaks function
 * bodies (`$$ ... ; ... $$`), so scripts go whole to the server as one simple query (`script`),
 * which PostgreSQL runs as one implicit transaction.
 */
function withScriptExecuteRaw(adapter: SqlDriverAdapter, script: (sql: string) => Promise<void>): SqlDriverAdapter {
  const wrapped: SqlDriverAdapter = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: async (query) => withCharacters(await adapter.queryRaw(query)),
    executeRaw: async (query) => {
      if (query.args.length > 0) return adapter.executeRaw(query);
      await script(query.sql);
      return 0;
    },
    executeScript: script,
    startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
    dispose: () => adapter.dispose(),
  };
  if (adapter.getConnectionInfo) {
    const getConnectionInfo = adapter.getConnectionInfo.bind(adapter);
    wrapped.getConnectionInfo = () => getConnectionInfo();
  }
  return wrapped;
}

/** PostgreSQL type ids: the one-byte internal `"char"` and `text`. */
const CHAR_OID = 18;
const TEXT_OID = 25;

/** Column positions that held `"char"`, by the result's rows array (which the adapter passes on). */
const charColumns = new WeakMap<object, number[]>();

/** Relabels `"char"` result columns as text for the adapter, noting where they were. */
function charAsText<T>(result: T): T {
  for (const one of Array.isArray(result) ? result : [result]) {
    const { fields, rows } = (one ?? {}) as Partial<pg.QueryResult>;
    const positions: number[] = [];
    fields?.forEach((field, i) => {
      if (field.dataTypeID !== CHAR_OID) return;
      field.dataTypeID = TEXT_OID;
      positions.push(i);
    });
    if (positions.length > 0 && rows) charColumns.set(rows, positions);
  }
  return result;
}

/**
 * The engine's connection class on PostgreSQL. Describing a schema (the shadow database of a diff)
 * reads catalog columns of type `"char"` (`pg_constraint.contype`, which PostgreSQL 18 fills for
 * every NOT NULL column), a type @prisma/adapter-pg 7.10 refuses ("Column type 'char' could not be
 * deserialized"), while the engine wants it as a character. Results label such columns text for
 * the adapter, and the engine's queryRaw (withScriptExecuteRaw) labels them Character again.
 */
function engineClientOf(driver: typeof pg): typeof pg.Client {
  return class EngineClient extends driver.Client {
    override query(...args: unknown[]): never {
      const run = driver.Client.prototype.query as (...a: unknown[]) => unknown;
      const last = args.at(-1);
      if (typeof last === 'function') {
        const callback = last as (err: Error | null, result?: unknown) => void;
        return run.apply(this, [
          ...args.slice(0, -1),
          (err: Error | null, result?: unknown) => callback(err, result && charAsText(result)),
        ]) as never;
      }
      const out = run.apply(this, args);
      return (out instanceof Promise ? out.then(charAsText) : out) as never;
    }
  };
}

/** The adapter's result with the `"char"` columns EngineClient noted typed Character. */
function withCharacters(result: SqlResultSet): SqlResultSet {
  const positions = charColumns.get(result.rows);
  if (!positions) return result;
  const columnTypes = [...result.columnTypes];
  for (const i of positions) columnTypes[i] = ColumnTypeEnum.Character;
  return { ...result, columnTypes };
}

/** Runs a script whole on the adapter's node-postgres pool (see withScriptExecuteRaw). */
function pgScript(adapter: SqlDriverAdapter, Pool: typeof pg.Pool): (sql: string) => Promise<void> {
  const driver = (adapter as unknown as { underlyingDriver?: () => unknown }).underlyingDriver?.();
  if (!(driver instanceof Pool)) throw new Error('@prisma/adapter-pg changed: no node-postgres pool behind the adapter');
  return async (sql) => {
    await driver.query(sql);
  };
}

/**
 * Adapter factory for the engine. SQLite: main database at the file (":memory:" when we only
 * diff), shadow database in memory. PostgreSQL: main database at the URL, shadow databases created
 * and dropped on that server by the adapter; one connection per pool, so the engine's session
 * state (its advisory lock) stays on one connection. Connections are tracked so they can be
 * closed: `SchemaEngine.free()` does not dispose them, and an open connection would keep the
 * SQLite file locked or the PostgreSQL database in use.
 */
export async function adapterFactory(
  target: DatabaseTarget | undefined,
  timeout: number,
): Promise<{ factory: SqlMigrationAwareDriverAdapterFactory; closeAll(): Promise<void> }> {
  const opened: SqlDriverAdapter[] = [];
  const track = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    opened.push(adapter);
    return adapter;
  };
  // node-postgres and its adapter are loaded for a PostgreSQL target only.
  const postgres =
    target?.provider === 'postgresql'
      ? await Promise.all([import('pg'), import('@prisma/adapter-pg')]).then(([{ default: driver }, { PrismaPg }]) => ({
          driver,
          PrismaPg,
        }))
      : undefined;
  const wrap = (adapter: SqlDriverAdapter) =>
    withScriptExecuteRaw(adapter, postgres ? pgScript(adapter, postgres.driver.Pool) : (sql) => adapter.executeScript(sql));
  const inner =
    target?.provider === 'postgresql'
      ? new (postgres as NonNullable<typeof postgres>).PrismaPg({
          connectionString: target.url,
          max: 1,
          options: `-c lock_timeout=${timeout}`,
          Client: engineClientOf((postgres as NonNullable<typeof postgres>).driver),
        })
      : new PrismaBetterSqlite3({ url: target ? `file:${target.path}` : ':memory:', timeout });
  return {
    factory: {
      provider: inner.provider,
      adapterName: inner.adapterName,
      connect: async () => track(wrap(await inner.connect())),
      connectToShadowDb: async () => track(wrap(await inner.connectToShadowDb())),
    },
    async closeAll() {
      await Promise.allSettled(opened.splice(0).map((adapter) => adapter.dispose()));
    },
  };
}
