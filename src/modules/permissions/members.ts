/**
 * The members whose permissions are listed (GET /api/access-control/users/:userId/permissions,
 * the check of another user, the console's sources): a user or service account of the caller's
 * organization as the principal it is there, with a cache of those found moments ago.
 *
 * The cache keeps them so a warm listing reads no row: keyed by organization and user id, a
 * RevisionCache (kernel/revision-cache.ts) whose entries are served only while no change to
 * everyone was applied since their read. Every write of a user, a membership or an org role goes
 * through the one write path as such a change, and so does every commit of another connection,
 * so a member removed, disabled or given another org role is read again at the very next
 * request. Bounded in entries and in time. A miss (not a member: 404) is never cached.
 */
import { notFound } from '../../kernel/errors.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { principalOf, type SignedInPrincipal } from '../../kernel/principal.js';
import { RevisionCache } from '../../kernel/revision-cache.js';

/** Members kept at most (each entry is a principal: a few hundred bytes). */
const MAX_MEMBERS = 10_000;
/** Milliseconds an entry may be served; a safety net, changes drop entries at once. */
const MEMBER_TTL_MS = 5 * 60_000;

/** A membership with its user's flags, as the raw statement of `Members.of` reads it. */
interface MemberRow {
  role: string;
  login: string;
  isServiceAccount: boolean | number | bigint;
  isServiceAdmin: boolean | number | bigint;
  isDisabled: boolean | number | bigint;
}

/** A stored flag: a boolean (PostgreSQL) or 0/1 (SQLite). */
const isSet = (flag: boolean | number | bigint): boolean => flag === true || Number(flag) === 1;

/**
 * A member as its permissions are listed: the principal it is in the organization, and whether
 * its account is disabled (it then holds nothing: its own credentials are refused, so the
 * listings and checks of it answer as refused, the same on both doors).
 */
export interface Member {
  principal: SignedInPrincipal;
  disabled: boolean;
}

/** Finds members of the caller's organization, cached at the access revision (module comment). */
export class Members {
  private readonly found: RevisionCache<string, Member>;

  constructor(private readonly deps: Pick<FeatureDeps, 'db' | 'access'>) {
    this.found = new RevisionCache(deps.access.freshness, { maxEntries: MAX_MEMBERS, ttlMs: MEMBER_TTL_MS });
  }

  /**
   * User or service account `userId` of the caller's organization as a principal acting there
   * with its org role there (no credentials: `authMethod` none), and whether it is disabled. One
   * SQL statement on a miss, none on a hit.
   * @throws DomainError USER_NOT_FOUND (404) when it is not a member; DATABASE_UNAVAILABLE (503)
   *   while the change counter cannot know (PostgreSQL's feed reconnecting).
   */
  async of(caller: SignedInPrincipal, userId: number): Promise<Member> {
    return (await this.found.load(`${caller.orgId}:${userId}`, () => this.read(caller, userId))).value;
  }

  /** The member's row read in one statement. @throws as `of`. */
  private async read(caller: SignedInPrincipal, userId: number): Promise<Member> {
    // The membership and the user's row in one statement (Prisma reads a relation in a second
    // one); quoted identifiers, the same text on SQLite and PostgreSQL. Flags come back as 0/1 or
    // booleans as the database stores them.
    const [row] = await this.deps.db.$queryRaw<MemberRow[]>`SELECT "OrgUser"."role", "User"."login",
      "User"."isServiceAccount", "User"."isServiceAdmin", "User"."isDisabled" FROM "OrgUser" JOIN "User" ON "User"."id" = "OrgUser"."userId"
      WHERE "OrgUser"."orgId" = ${caller.orgId} AND "OrgUser"."userId" = ${userId}`;
    if (!row) throw notFound('USER_NOT_FOUND', 'user', userId);
    const user = { id: userId, login: row.login, isServiceAccount: isSet(row.isServiceAccount), isServiceAdmin: isSet(row.isServiceAdmin) };
    return { principal: principalOf(user, caller.orgId, row.role, 'none'), disabled: isSet(row.isDisabled) };
  }
}
