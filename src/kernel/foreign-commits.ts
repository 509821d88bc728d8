/**
 * Commits of other connections (the CLI, another server, a replica), seen through the database's
 * change counter (platform/database.ts: SQLite's `PRAGMA data_version`, PostgreSQL's change
 * feed). The access service asks it at the start of every request and after every load, and
 * drops its caches when it says the counter moved (access.ts module comment).
 */
import { type ChangeCounter, ChangesUnknownError } from '../platform/database.js';
import { DomainError } from './errors.js';

/** The change counter and the last value seen of it. */
export class ForeignCommits {
  private seen: number | undefined;

  /** @param counter the database's change counter; undefined (a foreign client) never moves. */
  constructor(private readonly counter: ChangeCounter | undefined) {
    try {
      this.seen = counter?.();
    } catch {
      this.seen = undefined; // unknown now: the first request that can know sees a move
    }
  }

  /**
   * True when another connection committed since the last call (or since construction).
   * @throws DomainError DATABASE_UNAVAILABLE (503) while the counter cannot know (PostgreSQL's
   *   listener reconnecting): no request may trust a cache meanwhile.
   */
  moved(): boolean {
    if (!this.counter) return false;
    let now: number;
    try {
      now = this.counter();
    } catch (error) {
      if (error instanceof ChangesUnknownError) throw new DomainError('DATABASE_UNAVAILABLE', 'the database is reconnecting; try again');
      throw error;
    }
    if (now === this.seen) return false;
    this.seen = now;
    return true;
  }
}
