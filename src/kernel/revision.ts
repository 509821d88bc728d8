/**
 * Answers read at one revision of the change records (changes.ts): the revision is the newest
 * change record's, and a read is stamped with it only when no change committed while it ran, so
 * every part of the answer (the items of a batch check, the rows of an access review page) sees
 * the same state. Every request has already applied each change committed before it arrived
 * (AccessService.authenticate), so the cached permission indexes the read uses are at that
 * revision too.
 */
import type { Db } from '../platform/database.js';
import type { AccessService } from './access.js';
import { DomainError } from './errors.js';

/** Attempts of `atOneRevision` before it gives up (each ends when a change committed meanwhile). */
const MAX_ATTEMPTS = 5;

/** The newest change record's revision, 0 before the first one (one statement). */
export async function headRevision(db: Db): Promise<number> {
  const row = await db.accessChange.findFirst({ orderBy: { revision: 'desc' }, select: { revision: true } });
  return row?.revision ?? 0;
}

/**
 * Runs `read` until it ran wholly at one revision: the head revision and the access generation
 * (AccessService.currentGeneration) the same before and after it. Returns its value with that
 * revision. Two statements besides `read`'s own.
 * @throws DomainError DATABASE_BUSY (503) when changes kept committing during MAX_ATTEMPTS reads;
 *   whatever `read` throws.
 */
export async function atOneRevision<T>(db: Db, access: AccessService, read: () => Promise<T>): Promise<{ revision: number; value: T }> {
  for (let attempt = 1; ; attempt++) {
    const generation = access.currentGeneration();
    const revision = await headRevision(db);
    const value = await read();
    if ((await headRevision(db)) === revision && access.currentGeneration() === generation) return { revision, value };
    if (attempt >= MAX_ATTEMPTS) throw new DomainError('DATABASE_BUSY', 'access changed during every attempt to answer; try again');
  }
}
