/**
 * What another connection's commit can reach, as a replica learns it (change-feed.ts): from a
 * notification's payload (`<version>:users=<id>,...`, `announcedUsers`), or, after notifications
 * were missed (the listener connection lost), from the change records (kernel/changes.ts):
 * catch-up by revision, instead of dropping everything.
 *
 * Notifications: a transaction that can change the permissions of named users only (a role
 * assigned to or removed from them) says so before its first change (database.ts `announceReach`,
 * a transaction-local setting), and its notification carries them: `<version>:users=<id>,...`
 * (prisma/migrations-postgresql, `..._change_reach`).
 *
 * Catch-up: the replica keeps a mark, the change version and the newest change-record revision
 * read by one statement (one snapshot), taken when every version up to it was applied (at
 * connect, at every heartbeat, after a burst of notifications). Every writing transaction bumps
 * the version once, and one run by AccessService.write appends one record in the same
 * transaction, so the commits after a mark are the version's steps since it and their records
 * those after its revision. After a gap, the records after the mark name what to drop:
 * - every record a role assignment of users (its audit actions all `user_role.*`: the writes
 *   AccessService.write runs with `reach`, whose notification names the same users), and one
 *   record per version step: those users only;
 * - anything else (another kind of change, a version step without its record, more than
 *   MAX_CATCH_UP records, records pruned since the mark): everyone.
 */
import type pg from 'pg';

/**
 * The users a notification's payload names (`<version>:users=<id>,...`), or undefined for a
 * plain version or anything malformed (which then counts as reaching everyone).
 */
export function announcedUsers(payload: string): number[] | undefined {
  const match = /^\d+:users=(\d+(?:,\d+)*)$/.exec(payload);
  if (!match?.[1]) return undefined;
  const ids = match[1].split(',').map(Number);
  return ids.every((id) => Number.isSafeInteger(id) && id > 0) ? ids : undefined;
}

/** A change version and the newest change-record revision, read in one snapshot. */
export interface Mark {
  version: number;
  revision: number;
}

/** Records read by one catch-up at most; a longer gap counts as a change to everyone. */
export const MAX_CATCH_UP = 1000;

const MARK_SQL = `SELECT c."version", (SELECT COALESCE(MAX(a."revision"), 0) FROM "AccessChange" a) AS "revision"
  FROM "_portcullis_change" c WHERE c."id" = 1`;
const RECORDS_SQL = `SELECT "kinds", "users",
  (SELECT COALESCE(MAX(h."prunedThrough"), 0) FROM "AccessChangeHorizon" h) AS "prunedThrough"
  FROM "AccessChange" WHERE "revision" > $1 AND "revision" <= $2 ORDER BY "revision" LIMIT $3`;

/**
 * Reads the mark through `client` (one statement; the client's `query_timeout` bounds it).
 * @throws Error on a failed or late read, or when the version row is missing (migrations not applied).
 */
export async function readMark(client: pg.Client): Promise<Mark> {
  const result = await client.query<{ version: string; revision: string }>(MARK_SQL);
  const row = result.rows[0];
  if (!row) throw new Error('_portcullis_change has no row: apply the PostgreSQL migrations');
  return { version: Number(row.version), revision: Number(row.revision) };
}

/** One change record as the catch-up reads it: its JSON columns as stored. */
export interface RecordReach {
  kinds: string;
  users: string;
}

const ids = (text: string): unknown[] => {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
};

/**
 * The users that `records` (the records of `steps` version steps, in order) can reach, or
 * undefined when they can reach anyone (module comment's rule).
 */
export function reachOf(records: readonly RecordReach[], steps: number): number[] | undefined {
  if (records.length !== steps || records.length > MAX_CATCH_UP) return undefined;
  const users = new Set<number>();
  for (const record of records) {
    const kinds = ids(record.kinds);
    const named = ids(record.users);
    if (kinds.length === 0 || !kinds.every((kind) => typeof kind === 'string' && kind.startsWith('user_role.'))) return undefined;
    if (named.length === 0 || !named.every((id) => Number.isSafeInteger(id) && (id as number) > 0)) return undefined;
    for (const id of named) users.add(id as number);
  }
  return [...users];
}

/**
 * The users the commits between mark `from` and mark `to` can reach (module comment), read
 * through `client` in one statement (bounded by its `query_timeout`); undefined for everyone.
 * @throws Error on a failed or late read.
 */
export async function reachSince(client: pg.Client, from: Mark, to: Mark): Promise<number[] | undefined> {
  if (to.version < from.version || to.revision < from.revision) return undefined;
  const result = await client.query<RecordReach & { prunedThrough: string }>(RECORDS_SQL, [from.revision, to.revision, MAX_CATCH_UP + 1]);
  if (result.rows.some((row) => Number(row.prunedThrough) > from.revision)) return undefined;
  return reachOf(result.rows, to.version - from.version);
}
