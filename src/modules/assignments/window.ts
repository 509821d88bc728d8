/**
 * Assignment windows: an assignment is held from `notBefore` (null: from its creation) until
 * `expiresAt` (null: for good). The rules a window must meet when it is given (add, set), pure,
 * with table tests beside them (window.test.ts):
 *  - its end is after its start (ASSIGNMENT_WINDOW_INVALID);
 *  - its end is in the future (ASSIGNMENT_WINDOW_PAST);
 *  - a role with `maxAssignmentSeconds` is assigned only with an end, at most that many seconds
 *    after the moment it starts being held (the later of now and `notBefore`): ASSIGNMENT_TOO_LONG.
 * Basic roles take no window: they are never assigned (assignable.ts, ROLE_NOT_ASSIGNABLE).
 * Time is the clock the services are given (the database's on PostgreSQL: platform/database-clock.ts).
 */
import { DomainError } from '../../kernel/errors.js';

/** When an assignment is held: from `notBefore` until `expiresAt`, each null when unbounded. */
export interface AssignmentWindow {
  notBefore: Date | null;
  expiresAt: Date | null;
}

/** The window of a body's optional `notBefore` and `expiresAt`. */
export function windowOf(input: { notBefore?: Date | null; expiresAt?: Date | null }): AssignmentWindow {
  return { notBefore: input.notBefore ?? null, expiresAt: input.expiresAt ?? null };
}

const ms = (date: Date | null): number | null => (date === null ? null : date.getTime());

/** True when the two windows hold over the same time. */
export function sameWindow(a: AssignmentWindow, b: AssignmentWindow): boolean {
  return ms(a.notBefore) === ms(b.notBefore) && ms(a.expiresAt) === ms(b.expiresAt);
}

/**
 * Checks `window` for role `role` at `now` (rules in the module comment).
 * @throws DomainError ASSIGNMENT_WINDOW_INVALID, ASSIGNMENT_WINDOW_PAST, ASSIGNMENT_TOO_LONG (400).
 */
export function checkWindow(role: { uid: string; maxAssignmentSeconds: number | null }, window: AssignmentWindow, now: Date): void {
  const { notBefore, expiresAt } = window;
  if (notBefore && expiresAt && expiresAt.getTime() <= notBefore.getTime()) {
    throw new DomainError('ASSIGNMENT_WINDOW_INVALID', 'expiresAt must be after notBefore', {
      notBefore: notBefore.toISOString(),
      expiresAt: expiresAt.toISOString(),
    });
  }
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw new DomainError('ASSIGNMENT_WINDOW_PAST', `expiresAt ${expiresAt.toISOString()} is not in the future`, {
      expiresAt: expiresAt.toISOString(),
    });
  }
  const max = role.maxAssignmentSeconds;
  if (max === null) return;
  if (!expiresAt) {
    throw new DomainError('ASSIGNMENT_TOO_LONG', `role "${role.uid}" is assigned for at most ${max} seconds: expiresAt is required`, {
      uid: role.uid,
      maxAssignmentSeconds: max,
    });
  }
  const start = Math.max(now.getTime(), notBefore?.getTime() ?? 0);
  if (expiresAt.getTime() - start > max * 1000) {
    throw new DomainError('ASSIGNMENT_TOO_LONG', `role "${role.uid}" is assigned for at most ${max} seconds`, {
      uid: role.uid,
      maxAssignmentSeconds: max,
    });
  }
}

/** The window as JSON: ISO 8601 strings, or null when unbounded. */
export function windowJson(window: AssignmentWindow): { notBefore: string | null; expiresAt: string | null } {
  return { notBefore: window.notBefore?.toISOString() ?? null, expiresAt: window.expiresAt?.toISOString() ?? null };
}
