/**
 * Answers read at one revision of the change records (changes.ts): the revision is the newest
 * change record's, and a read is stamped with it only when no change was committed or applied
 * while it ran (the head revision and the process's freshness, freshness.ts `latest`, both the
 * same after it as before), so every part of the answer (the items of a batch check, the rows of
 * an access review page) sees the same state. Every request has already applied each change
 * committed before it arrived (AccessService.authenticate), so the cached permission indexes the
 * read uses are at that revision too.
 */
import type { Db } from '../platform/database.js';
import type { AccessService } from './access.js';
import { DomainError } from './errors.js';

/** Attempts of `atOneRevision` before it gives up (each ends when a change came meanwhile). */
const MAX_ATTEMPTS = 5;

/** The newest change record's revision, 0 before the first one (one statement). */
export async function headRevision(db: Db): Promise<number> {
  const row = await db.accessChange.findFirst({ orderBy: { revision: 'desc' }, select: { revision: true } });
  return row?.revision ?? 0;
}

/**
 * Runs `read` until it ran wholly at one revision (module comment). Returns its value with that
 * revision. Two statements besides `read`'s own.
 * @throws DomainError DATABASE_BUSY (503) when changes kept coming during MAX_ATTEMPTS reads;
 *   DATABASE_UNAVAILABLE (503) while other connections' commits cannot be known; whatever `read`
 *   throws.
 */
export async function atOneRevision<T>(db: Db, access: AccessService, read: () => Promise<T>): Promise<{ revision: number; value: T }> {
  const { freshness } = access;
  for (let attempt = 1; ; attempt++) {
    freshness.sync();
    const applied = freshness.latest;
    const revision = await headRevision(db);
    const value = await read();
    const head = await headRevision(db);
    freshness.sync();
    if (head === revision && freshness.latest === applied) return { revision, value };
    if (attempt >= MAX_ATTEMPTS) throw new DomainError('DATABASE_BUSY', 'access changed during every attempt to answer; try again');
  }
}
