/**
 * Waiting for another connection's commit to reach an app, as a state, never a
 * sleep. The app learns of other connections' commits through its change counter
 * (platform/database.ts `changeCounterOf`): on SQLite `PRAGMA data_version`, which moves at the
 * commit itself, so the very next request sees the change; on PostgreSQL the change feed's count,
 * which moves when the NOTIFY arrives on the listener connection, milliseconds after the commit
 * (the bound is 100 ms; it cannot be "the very next request": the writer's answer and the
 * notification travel on two connections). A test of "a write by another connection applies"
 * marks the counter before the write, waits for it to move after, then asserts the next request.
 * On PostgreSQL a write that names its users (an assignment: platform/change-reach.ts) does not move
 * the counter: its users' entries are dropped instead. So a write that appended change records is
 * seen once the listener's applied revision (`appliedRevisionOf`) reaches the newest record; a
 * write that appended none (a bare statement of a test) once the counter moved.
 */
import type { Db } from '../../src/platform/database.js';
import { appliedRevisionOf, ChangesUnknownError, changeCounterOf } from '../../src/platform/database.js';
import { onPostgres } from './postgres.js';

/** How long a PostgreSQL notification may take on a loaded test machine before the wait fails. */
const NOTIFY_TIMEOUT_MS = 10_000;

/** The counter's value, or undefined while it cannot know (PostgreSQL listener reconnecting). */
function read(counter: () => number): number | undefined {
  try {
    return counter();
  } catch (error) {
    if (error instanceof ChangesUnknownError) return undefined;
    throw error;
  }
}

/**
 * Marks `db`'s change counter now; the returned `seen()` resolves once it moved past the mark,
 * i.e. once the app knows of a commit another connection made since. On SQLite it must have
 * moved already (the very next request sees the change); on PostgreSQL it waits for the
 * notification, up to NOTIFY_TIMEOUT_MS.
 * @throws Error (from `seen`) when the counter did not move: the app never learnt of the commit.
 */
export function watchForeignCommits(db: Db): { seen(): Promise<void> } {
  const counter = changeCounterOf(db);
  if (!counter) throw new Error('not a client opened by openDatabase: it has no change counter');
  const mark = read(counter);
  if (mark === undefined) throw new Error('the change counter cannot know right now (change feed reconnecting)');
  const appliedAtMark = appliedRevisionOf(db) ?? 0;
  const moved = () => (read(counter) ?? mark) > mark;
  return {
    seen: async () => {
      if (moved()) return;
      if (!onPostgres) throw new Error('SQLite: the change counter did not move at the commit of another connection');
      const [head] = await db.$queryRawUnsafe<{ revision: number }[]>(
        'SELECT COALESCE(MAX("revision"), 0)::int AS "revision" FROM "AccessChange"',
      );
      const newest = Number(head?.revision ?? 0);
      const applied = () => newest > appliedAtMark && (appliedRevisionOf(db) ?? 0) >= newest;
      const deadline = Date.now() + NOTIFY_TIMEOUT_MS;
      while (!moved() && !applied()) {
        if (Date.now() > deadline) throw new Error(`no notification of the other connection's commit within ${NOTIFY_TIMEOUT_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    },
  };
}
