/**
 * The change counter of a PostgreSQL database shared by several replicas: the PostgreSQL twin of
 * SQLite's `PRAGMA data_version`, read by the access kernel (kernel/foreign-commits.ts) to drop
 * cached permissions after another replica's write.
 *
 * Design:
 * - the database holds one version row, `_portcullis_change` (prisma/migrations-postgresql,
 *   `..._change_feed`). Triggers on every table permissions depend on bump it once per writing
 *   transaction, inside that transaction, and `NOTIFY portcullis_changes '<version>'`. The bump
 *   holds the row lock until commit, so versions commit in increasing order, one apart, and a
 *   notification arrives (at commit, in commit order) for each;
 * - the guarantee comes from `catchUp`, which the kernel awaits before a request reads any cache:
 *   a read of the version that started after the request arrived (version-reader.ts, shared by
 *   the requests that arrive together). A version above the known one moves the counter, so no
 *   request is answered from a cache older than a commit acknowledged before it arrived, whether
 *   or not the notification came;
 * - the notifications are the fast path: each replica keeps one connection of its own that
 *   LISTENs, and a version above the known one moves the counter between two such reads (a
 *   request in flight sees it at its next check). A notification of one of this process's own
 *   pool connections (its backend pid) does not move it: the kernel invalidated for that write
 *   itself, as data_version ignores a connection's own commits;
 * - reach (change-reach.ts): a notification naming users, the next version after the known one,
 *   queues them for the kernel (`takeTargeted`), which drops their cached permissions only, and
 *   does not move the counter. Every other way of learning of a version (a plain notification, one
 *   that skipped a version, a catch-up or heartbeat read, a write's read) moves it: whatever cannot
 *   be told apart counts as reaching everyone;
 * - every write transaction reads the version after taking the write lock (`observe`), so a write
 *   never decides on a change not yet applied, and again just before its COMMIT (`committed`), so
 *   the process knows its own new version before a `catchUp` could mistake it for another's;
 * - after (re)connecting the listener: LISTEN first, then read the version. A heartbeat reads it
 *   on the listener connection every HEARTBEAT_MS, which also detects a connection that died
 *   silently;
 * - catch-up by revision (change-reach.ts): a reconnection that finds the version moved reads the
 *   change records after the listener's mark and queues the users they name, as a targeted
 *   notification would, or moves the counter when they cannot be attributed to users;
 * - while the listener is down, and while a reconnection reads the records of the gap, the counter
 *   throws ChangesUnknownError: the kernel answers 503 until the listener is back and caught up
 *   (reconnects every RECONNECT_MIN_MS, doubling to RECONNECT_MAX_MS); `catchUp` throws it too
 *   when its read fails or takes READ_TIMEOUT_MS.
 */
import pg from 'pg';
import { announcedUsers, type Mark, reachSince, readMark } from './change-reach.js';
import { type ChangeCounter, ChangesUnknownError } from './database-types.js';
import { VersionReader } from './version-reader.js';

/** The channel the triggers notify on. */
export const CHANGE_CHANNEL = 'portcullis_changes';
/** `application_name` of the listener connection (pg_stat_activity shows it to operators). */
export const LISTENER_NAME = 'portcullis-change-feed';
/** Milliseconds between two heartbeats (version reads) on the listener connection. */
export const HEARTBEAT_MS = 5000;
/** Users queued for the kernel at most; past it the queue counts as one change to everyone. */
const MAX_TARGETED_USERS = 10_000;

/** Milliseconds a heartbeat or catch-up read may take before the connection counts as lost. */
const READ_TIMEOUT_MS = 3000;
const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 2000;

export interface ChangeFeedOptions {
  /** PostgreSQL URL (the service's DATABASE_URL). */
  url: string;
  /** True when `pid` is the backend of one of this process's own pool connections. */
  ownBackend: (pid: number) => boolean;
  log?: ((msg: string, fields?: object) => void) | undefined;
  /** Milliseconds between heartbeats; default HEARTBEAT_MS (tests shorten it). */
  heartbeatMs?: number;
  /** Told of every new version (this process's commits and others'), after the counter took it. */
  onVersion?: () => void;
}

/** One replica's view of the database's change version (module comment). */
export class ChangeFeed {
  /** The newest version known; undefined before the first read. */
  private known: number | undefined;
  /** Changes made by other connections seen so far that can reach anyone: the counter's value. */
  private foreign = 0;
  /** Users named by other connections' targeted commits, not yet taken by the kernel. */
  private targeted: number[] = [];
  private live = false;
  private closed = false;
  private client: pg.Client | undefined;
  private attempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** The last mark taken with every version up to it applied (change-reach.ts). */
  private mark: Mark | undefined;
  /** A mark read is under way; `markAgain`: another notification came meanwhile. */
  private marking = false;
  private markAgain = false;

  /** Reads of the version for `catchUp`, on a connection of their own. */
  private readonly reader: VersionReader;

  private constructor(private readonly options: ChangeFeedOptions) {
    this.reader = new VersionReader(options.url, READ_TIMEOUT_MS);
  }

  /** Connects, listens and reads the version. @throws the first connection's error (the service does not start). */
  static async open(options: ChangeFeedOptions): Promise<ChangeFeed> {
    const feed = new ChangeFeed(options);
    await feed.connect();
    return feed;
  }

  /** The counter (ChangeCounter): moves on every change by another connection. */
  readonly counter: ChangeCounter = () => {
    if (!this.live) throw new ChangesUnknownError('the change feed is reconnecting; changes by other replicas are unknown');
    return this.foreign;
  };

  /** The users named by other connections' targeted commits since the last call ("reach"); they did not move the counter. */
  takeTargeted(): number[] {
    if (this.targeted.length === 0) return [];
    const users = this.targeted;
    this.targeted = [];
    return users;
  }

  /** The change-record revision up to which every change is known to be applied (the mark), if read yet. */
  get appliedRevision(): number | undefined {
    return this.mark?.revision;
  }

  /** Whether the listener is connected and caught up (readiness, tests). */
  get isLive(): boolean {
    return this.live;
  }

  /**
   * A version read inside a write transaction after the write lock: newer than known means a
   * commit whose notification has not arrived yet, which counts now.
   */
  observe(version: number): void {
    if (this.known !== undefined && version > this.known) {
      this.known = version;
      this.foreign++;
    }
  }

  /**
   * Applies every commit made before this call: reads the version (a read that started after
   * the call, shared with concurrent callers: version-reader.ts) and moves the counter when it is
   * above the known one.
   * @throws ChangesUnknownError when the version cannot be read within READ_TIMEOUT_MS.
   */
  async catchUp(): Promise<void> {
    let version: number;
    try {
      version = await this.reader.latest();
    } catch (error) {
      throw new ChangesUnknownError(`the change version cannot be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.observe(version);
  }

  /**
   * A write transaction of this process committed: it read `before` under the write lock and
   * `after` just before its COMMIT (`after - before` is its own bump, 0 or 1). With nothing newer
   * known, `after` is known now without moving the counter: the kernel invalidated for its own
   * write, and no other commit can lie between the two (the lock was held).
   */
  committed(before: number, after: number): void {
    if (this.known === before && after > before) this.known = after;
  }

  /** Stops listening and reconnecting. */
  async close(): Promise<void> {
    this.closed = true;
    this.live = false;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.heartbeatTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
    await this.reader.close();
  }

  private notified(payload: string, own: boolean): void {
    const version = Number.parseInt(payload, 10);
    if (!Number.isFinite(version) || (this.known !== undefined && version <= this.known)) return;
    const next = this.known !== undefined && version === this.known + 1;
    this.known = version;
    if (!own) {
      this.reach(next ? announcedUsers(payload) : undefined);
      this.refreshMark();
    }
    this.options.onVersion?.();
  }

  /** Applies a commit of another connection reaching `users` only, or everyone (undefined). */
  private reach(users: readonly number[] | undefined): void {
    if (users && this.targeted.length + users.length <= MAX_TARGETED_USERS) this.targeted.push(...users);
    else this.foreign++;
  }

  /** Reads a new mark on the listener connection, one read at a time (module comment). */
  private refreshMark(): void {
    const client = this.client;
    if (!client || !this.live || this.marking) {
      this.markAgain = this.marking;
      return;
    }
    this.marking = true;
    this.markAgain = false;
    const take = (mark: Mark) => {
      // Taken only when every version up to it was applied; a later one's notification is coming.
      if (client === this.client && this.known !== undefined && mark.version <= this.known) this.mark = mark;
    };
    // A failed read is left to the heartbeat, which judges the connection.
    void readMark(client)
      .then(take, () => undefined)
      .finally(() => {
        this.marking = false;
        if (this.markAgain) this.refreshMark();
      });
  }

  /** LISTEN, then read the version and catch up by revision (module comment), then go live. */
  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.options.url,
      keepAlive: true,
      connectionTimeoutMillis: READ_TIMEOUT_MS,
      // pg fails a read that takes longer: the connection then counts as lost.
      query_timeout: READ_TIMEOUT_MS,
      application_name: LISTENER_NAME,
    });
    this.client = client;
    // Until live, failures surface as the rejections below; after, as these events.
    let ready = false;
    client.on('error', (error) => ready && this.lost(client, error));
    client.on('end', () => ready && this.lost(client, new Error('connection ended')));
    client.on('notification', (message) => {
      if (client !== this.client || message.channel !== CHANGE_CHANNEL) return;
      this.notified(message.payload ?? '', this.options.ownBackend(message.processId));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      const mark = await readMark(client);
      if (this.closed || client !== this.client) return;
      if (this.known !== undefined && mark.version !== this.known) {
        const users = this.mark ? await reachSince(client, this.mark, mark) : undefined;
        if (this.closed || client !== this.client) return;
        this.reach(users);
        this.options.log?.('change feed caught up by revision', { after: this.mark?.revision, users: users?.length ?? 'everyone' });
      }
      this.known = mark.version;
      this.mark = mark;
    } catch (error) {
      if (this.client === client) this.client = undefined;
      await client.end().catch(() => undefined);
      throw error;
    }
    ready = true;
    this.live = true;
    if (this.attempt > 0) this.options.log?.('change feed caught up', { version: this.known });
    this.attempt = 0;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => void this.beat(client), this.options.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  /** Heartbeat: the version read also catches a notification that never came. */
  private async beat(client: pg.Client): Promise<void> {
    if (!this.live || client !== this.client) return;
    try {
      const mark = await readMark(client);
      if (client !== this.client) return;
      this.observe(mark.version);
      this.mark = mark;
    } catch (error) {
      this.lost(client, error);
    }
  }

  /** The listener connection failed: stop vouching for caches and reconnect. */
  private lost(client: pg.Client, error: unknown): void {
    if (client !== this.client || this.closed) return;
    this.client = undefined;
    this.live = false;
    clearInterval(this.heartbeatTimer);
    void client.end().catch(() => undefined);
    this.options.log?.('change feed lost; answering 503 until caught up', {
      error: error instanceof Error ? error.message : String(error),
    });
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** this.attempt);
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.connect().catch(() => this.scheduleReconnect());
    }, delay);
    this.reconnectTimer.unref();
  }
}
