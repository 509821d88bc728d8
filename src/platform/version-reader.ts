/**
 * Reads of PostgreSQL's change version (`_portcullis_change`, change-feed.ts) that start after
 * the caller asked: what lets a replica know, before it answers from a cache, that it has applied
 * every change committed before the request arrived, whether or not the notifications reached it.
 *
 * Cost: one read at a time, on one connection of its own (`application_name`
 * `portcullis-freshness`, apart from the pool, so writers waiting for the write lock never delay
 * it). Callers that arrive while a read runs cannot use it (it may have started before their
 * request), so they share the next one: under load the cost is one small statement per batch of
 * concurrent requests, and each caller waits for at most two reads.
 */
import pg from 'pg';

/** `application_name` of the freshness connection (pg_stat_activity shows it to operators). */
export const READER_NAME = 'portcullis-freshness';
/** The one statement: the newest committed change version. */
const VERSION_SQL = 'SELECT "version" FROM "_portcullis_change" WHERE "id" = 1';

/**
 * Reads the change version through `client` (one statement; the client's `query_timeout` bounds it).
 * @throws Error on a failed or late read, or when the row is missing (migrations not applied).
 */
export async function readVersion(client: pg.Client): Promise<number> {
  const result = await client.query<{ version: string }>(VERSION_SQL);
  const row = result.rows[0];
  if (!row) throw new Error('_portcullis_change has no row: apply the PostgreSQL migrations');
  return Number(row.version);
}

/** Coalesced reads of the change version that start after they are asked for (module comment). */
export class VersionReader {
  private client: pg.Client | undefined;
  /** The read under way, if any: it may have started before a new caller arrived. */
  private running: Promise<number> | undefined;
  /** The read that starts when `running` ends, shared by every caller that arrived meanwhile. */
  private waiting: Promise<number> | undefined;
  private closed = false;

  /**
   * @param url the PostgreSQL URL (DATABASE_URL)
   * @param timeoutMs milliseconds a connection or a read may take before it fails
   */
  constructor(
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  /**
   * The change version read by a statement that started after this call.
   * @throws Error when the connection or the read fails or takes longer than `timeoutMs` (the
   *   connection is then dropped; the next call opens another).
   */
  latest(): Promise<number> {
    if (this.waiting) return this.waiting;
    if (!this.running) return this.launch();
    const waiting = this.running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.waiting = undefined;
        return this.launch();
      });
    this.waiting = waiting;
    return waiting;
  }

  /** Closes the connection; later calls fail. */
  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private launch(): Promise<number> {
    const read = this.readOnce().finally(() => {
      if (this.running === read) this.running = undefined;
    });
    this.running = read;
    return read;
  }

  private async readOnce(): Promise<number> {
    if (this.closed) throw new Error('the version reader is closed');
    let client = this.client;
    try {
      if (!client) {
        client = new pg.Client({
          connectionString: this.url,
          keepAlive: true,
          connectionTimeoutMillis: this.timeoutMs,
          query_timeout: this.timeoutMs,
          application_name: READER_NAME,
        });
        const opened = client;
        opened.on('error', () => this.drop(opened));
        this.client = opened;
        await opened.connect();
      }
      return await readVersion(client);
    } catch (error) {
      if (client) this.drop(client);
      throw error;
    }
  }

  /** Forgets a failed connection; a stalled one is not waited for. */
  private drop(client: pg.Client): void {
    if (this.client === client) this.client = undefined;
    void client.end().catch(() => undefined);
  }
}
