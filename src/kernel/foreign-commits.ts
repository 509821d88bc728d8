/**
 * Commits of other connections (the CLI, another server, a replica), seen through the database's
 * change counter (platform/database.ts: SQLite's `PRAGMA data_version`, PostgreSQL's change
 * feed). The access service catches up at the start of every request (`catchUp`: on PostgreSQL
 * one read of the change version that started after the request arrived, shared by the requests
 * arriving together; nothing on SQLite, whose counter is exact at every reading), asks `moved`
 * before every cache lookup and after every load, and drops its caches when the counter moved
 * (access.ts module comment).
 */
import { type ChangeCounter, ChangesUnknownError } from '../platform/database.js';
import { DomainError } from './errors.js';

const unavailable = () => new DomainError('DATABASE_UNAVAILABLE', 'the database is reconnecting; try again');

/** The change counter and the last value seen of it. */
export class ForeignCommits {
  private seen: number | undefined;

  /**
   * @param counter the database's change counter; undefined (a foreign client) never moves.
   * @param catchUpCounter the database's catch-up (platform/database.ts `catchUpOf`), undefined
   *   where the counter needs none.
   * @param targeted the users named by other connections' targeted commits since the last call
   *   (platform/database.ts `targetedChangesOf`: PostgreSQL), undefined where commits name none.
   */
  constructor(
    private readonly counter: ChangeCounter | undefined,
    private readonly catchUpCounter?: () => Promise<void>,
    private readonly targeted?: () => number[],
  ) {
    try {
      this.seen = counter?.();
    } catch {
      this.seen = undefined; // unknown now: the first request that can know sees a move
    }
  }

  /** True when `catchUp` does any work (PostgreSQL); on SQLite callers need not await it. */
  get catchesUp(): boolean {
    return this.catchUpCounter !== undefined;
  }

  /**
   * Resolves once the counter reflects every commit made before the call; `moved` then says
   * whether any of them was another connection's. Free on SQLite.
   * @throws DomainError DATABASE_UNAVAILABLE (503) when PostgreSQL's change version cannot be read.
   */
  async catchUp(): Promise<void> {
    if (!this.catchUpCounter) return;
    try {
      await this.catchUpCounter();
    } catch (error) {
      if (error instanceof ChangesUnknownError) throw unavailable();
      throw error;
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
      if (error instanceof ChangesUnknownError) throw unavailable();
      throw error;
    }
    if (now === this.seen) return false;
    this.seen = now;
    return true;
  }

  /**
   * The users named by other connections' commits that can reach those users only, since the
   * last call (their commits do not move `moved`); empty where commits name none (SQLite).
   */
  takeTargeted(): number[] {
    return this.targeted?.() ?? [];
  }
}
