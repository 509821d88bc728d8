/**
 * The kernel's one notion of freshness: the revision of the last change this process applied.
 *
 * Every change that can alter what someone may do is applied here before anything else sees it:
 * a write of this process (access.ts `write`) as soon as its transaction ends, a commit of another
 * connection (the CLI, another server, a PostgreSQL replica: foreign-commits.ts) at the next
 * `sync`, which every request runs before it reads any cache. Applying takes the next revision. A change applied to everyone records it as the
 * `revision`; a change that can reach named users only (a role assigned to or removed from a
 * user or service account: access.ts `write` with a `reach`; on PostgreSQL the same write made by
 * another replica, whose notification names them) records it for each of them.
 * `revisionOf(principal)` is the later of the two, so it moves with every change that can reach
 * the principal and with no other.
 *
 * Every cache stamps its entries with the revision read before their load and serves an entry
 * only while that revision is current (revision-cache.ts): a load that overlapped a change is
 * never stored, and no entry survives a change that can reach it. Caches of facts that no
 * targeted change alters (verified credentials, listed members, role listings) use `revision`;
 * the permission cache uses `revisionOf`. The revision is the process's own count: it orders
 * changes as this process applied them, and is not the change feed's revision (changes.ts),
 * which numbers change records across replicas.
 *
 * At most MAX_TARGETED_USERS users are remembered; past that a targeted change applies to
 * everyone, which forgets them all.
 */
import type { ForeignCommits } from './foreign-commits.js';
import type { Principal } from './principal.js';

/**
 * Users whose targeted revision is remembered at most (a number and a short key each: about
 * 100 bytes). One more applies the change to everyone.
 */
export const MAX_TARGETED_USERS = 50_000;

/**
 * The user behind a principal for targeted changes: a user or a service account (also signed in
 * through one of its tokens) is its users row, in every organization; an API key has no users row
 * and is never named by a targeted change.
 */
export function subjectOf(principal: Principal): number | undefined {
  return principal.kind === 'user' || principal.kind === 'serviceAccount' ? principal.id : undefined;
}

/** Told after every change applied to everyone (the caches that must drop their entries at once). */
export type ChangeListener = () => void;

/** The revision of the last change applied, for everyone and per user (module comment). */
export class Freshness {
  /** Revision of the last change applied, to everyone or to named users: no revision is later. */
  private last = 0;
  /** Revision of the last change applied to everyone. */
  private everyone = 0;
  /** Revision of the last targeted change naming each user, when later than `everyone`. */
  private readonly targeted = new Map<number, number>();
  private readonly listeners: ChangeListener[] = [];

  /** @param foreign other connections' commits; `sync` applies them. */
  constructor(private readonly foreign: ForeignCommits) {}

  /** Revision of the last change applied to everyone: the stamp of caches no targeted change alters. */
  get revision(): number {
    return this.everyone;
  }

  /** Revision of the last change applied, to everyone or to named users. */
  get latest(): number {
    return this.last;
  }

  /** Revision of the last change that can reach `principal`'s permissions. */
  revisionOf(principal: Principal): number {
    const user = subjectOf(principal);
    const targeted = user === undefined ? undefined : this.targeted.get(user);
    return targeted === undefined ? this.everyone : targeted;
  }

  /**
   * Applies every commit of another connection seen so far (foreign-commits.ts): one change to
   * everyone when the change counter moved, else one change to the users that other replicas'
   * targeted commits named (PostgreSQL), if any.
   * @throws DomainError DATABASE_UNAVAILABLE (503) while the counter cannot know.
   */
  sync(): void {
    const moved = this.foreign.moved();
    const users = this.foreign.takeTargeted();
    if (moved) this.applyToEveryone();
    else if (users.length > 0) this.applyToUsers(users);
  }

  /**
   * Resolves once every commit of another connection made before the call is applied (on
   * PostgreSQL one read of the change version: foreign-commits.ts `catchUp`), then syncs.
   * @throws DomainError DATABASE_UNAVAILABLE (503) when the change version cannot be read.
   */
  async catchUp(): Promise<void> {
    if (this.foreign.catchesUp) await this.foreign.catchUp();
    this.sync();
  }

  /** Applies a change that can reach anyone: every stamp taken before it is stale. */
  applyToEveryone(): void {
    this.last++;
    this.everyone = this.last;
    this.targeted.clear();
    for (const listener of this.listeners) listener();
  }

  /**
   * Applies a change that can reach users `userIds` only (users and service accounts, in every
   * organization): their stamps are stale, others' hold. Past MAX_TARGETED_USERS remembered users
   * it applies to everyone instead.
   */
  applyToUsers(userIds: readonly number[]): void {
    if (this.targeted.size + userIds.length > MAX_TARGETED_USERS) {
      this.applyToEveryone();
      return;
    }
    this.last++;
    for (const id of userIds) this.targeted.set(id, this.last);
  }

  /** Calls `listener` after every change applied to everyone (caches free their memory at once). */
  onChangeToEveryone(listener: ChangeListener): void {
    this.listeners.push(listener);
  }
}
