/**
 * Finding users across the service: search pages with each user's last-seen time (Grafana's
 * SearchUsersWithPaging, pkg/services/searchusers) and lookup by login or email
 * (GetUserByLoginOrEmail, pkg/api/user.go). Both need users:read on global.users:* (checked
 * before the options are validated); service accounts are never found. Reading one user by id,
 * and listing an organization's, is service.ts.
 */
import type { Prisma, User } from '../../generated/prisma/client.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { type Clock, systemClock } from '../../platform/clock.js';
import { containsText } from '../../platform/database-dialect.js';
import { ageString, lastSeenAt as lastSeenOf, type SearchPage } from '../shared/directory.js';
import { pageOffset } from '../shared/paging.js';
import { loginOrEmailInput, searchUsersInput } from './inputs.js';
import { PEOPLE, userNotFound, userRequirements } from './rules.js';
import type { UserQuery } from './service.js';

/** A user of a search page, with when it was last seen (any authenticated request) and Grafana's age text of that. */
export type SearchedUser = User & { lastSeenAt: Date; lastSeenAtAge: string };

export interface UserSearchDeps extends FeatureDeps {}

/** User search and lookup: every method authorizes its caller (module comment). */
export class UserSearchService {
  private readonly clock: Clock;

  constructor(private readonly deps: UserSearchDeps) {
    this.clock = deps.clock ?? systemClock;
  }

  /**
   * `GET /api/users`, `/api/users/search` and userSearch (Grafana's SearchUsersWithPaging): every
   * user whose login, email or name contains `query` (case-insensitive for ASCII), by login then
   * email, page `page` (from 1) of `perPage` (default 1000, at most 1000: shared/paging.ts).
   * Needs users:read on global.users:*.
   * @throws DomainError VALIDATION_FAILED (400: query longer than 190 characters), 401, 403.
   */
  async search(caller: Principal, rawOptions: unknown, query: UserQuery = {}): Promise<SearchPage<SearchedUser>> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, userRequirements.search.for({}));
    const { query: text, page, perPage } = parseInput(searchUsersInput, rawOptions ?? {});
    const where: Prisma.UserWhereInput = {
      ...PEOPLE,
      ...(text && {
        OR: [
          { login: containsText(this.deps.db, text) },
          { email: containsText(this.deps.db, text) },
          { name: containsText(this.deps.db, text) },
        ],
      }),
    };
    const { db } = this.deps;
    const [totalCount, users] = await Promise.all([
      db.user.count({ where }),
      db.user.findMany({ ...query, where, orderBy: [{ login: 'asc' }, { email: 'asc' }], skip: pageOffset(page, perPage), take: perPage }),
    ]);
    return { totalCount, rows: this.withLastSeen(users), page, perPage };
  }

  /** `users` with their last-seen time (the stored one, or Grafana's "created - 10 years") and its age. */
  private withLastSeen(users: User[]): SearchedUser[] {
    const now = this.clock.now();
    return users.map((u) => {
      const lastSeenAt = lastSeenOf(u.lastSeenAt, u.created);
      return { ...u, lastSeenAt, lastSeenAtAge: ageString(lastSeenAt, now) };
    });
  }

  /**
   * `GET /api/users/lookup?loginOrEmail=` and userByLoginOrEmail: the user whose login or email
   * is `loginOrEmail`. Needs users:read on global.users:*.
   * @throws DomainError VALIDATION_FAILED (400), 401, 403, USER_NOT_FOUND (404: nobody, "" included).
   */
  async lookup(caller: Principal, rawLoginOrEmail: unknown, query: UserQuery = {}): Promise<User> {
    requireSignedIn(caller);
    await this.deps.access.check(caller, userRequirements.search.for({}));
    const loginOrEmail = parseInput(loginOrEmailInput, rawLoginOrEmail ?? '');
    const user =
      loginOrEmail === ''
        ? null
        : await this.deps.db.user.findFirst({ ...query, where: { ...PEOPLE, OR: [{ login: loginOrEmail }, { email: loginOrEmail }] } });
    if (!user) throw userNotFound(loginOrEmail);
    return user;
  }
}
