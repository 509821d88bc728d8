/**
 * Login sessions, Grafana's user auth tokens: a random token in the cookie,
 * only its SHA-256 stored. Every `rotationSeconds` (TOKEN_ROTATION_INTERVAL_MINUTES) a request
 * gets a new token; the previous one stays valid for ROTATION_GRACE_MS so requests already in
 * flight are not logged out. A session ends `idleSeconds` after it was last seen
 * (LOGIN_MAXIMUM_INACTIVE_LIFETIME_DURATION) or `lifetimeSeconds` after it began
 * (LOGIN_MAXIMUM_LIFETIME_DURATION), whichever comes first. Expired rows are deleted when met,
 * and never listed. Also when users and service accounts were last seen, whatever their
 * credential (last-seen.ts).
 */
import { hash, randomBytes } from 'node:crypto';
import type { Session } from '../../generated/prisma/client.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { authorizeAccountControl, DELEGATION_NOTES } from '../../kernel/gains.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId } from '../../kernel/inputs.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { LastSeenTracker } from './last-seen.js';

/** A rotated-away token keeps working this long (Grafana: about a minute). */
export const ROTATION_GRACE_MS = 60_000;
/** lastSeenAt is written at most this often per session. */
const SEEN_WRITE_MS = 60_000;

/** Lifetimes, in seconds. */
export interface SessionSettings {
  rotationSeconds: number;
  idleSeconds: number;
  lifetimeSeconds: number;
}

export interface SessionServiceDeps extends FeatureDeps {
  clock: Clock;
  settings: SessionSettings;
  /** Where a failed last-seen write is reported (it happens after the request was answered). */
  log?: Logger;
}

/** A resolved cookie: the session, and a new token when it was rotated by this request. */
export interface ResolvedSession {
  session: Session;
  rotatedToken: string | null;
}

/** Grafana's `/api/user/auth-tokens` entry (browser details reduced to the user agent). */
export interface SessionJson {
  id: number;
  isActive: boolean;
  authModule: string;
  clientIp: string;
  userAgent: string;
  createdAt: string;
  seenAt: string;
  expiresAt: string;
}

/** Logging out another user: Grafana's users.logout; here users:write on the user (Service Admins). */
export const sessionRequirements = {
  logoutUser: requirement(['id'], ({ id }) => permission(Action.UsersWrite, Scope.globalUser(id)), DELEGATION_NOTES.account),
};

/** SHA-256 of a session token as hex, the only form stored (`tokenHash`): Node's one-shot `crypto.hash`. */
function digest(token: string): string {
  return hash('sha256', token, 'hex');
}

function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export class SessionService {
  private readonly lastSeen: LastSeenTracker;

  constructor(private readonly deps: SessionServiceDeps) {
    this.lastSeen = new LastSeenTracker(deps.db, deps.clock, (err, userId) =>
      deps.log?.warn({ err, userId }, 'could not record when a user was last seen'),
    );
  }

  /**
   * Records that `principal` made an authenticated request: a user's or service account's
   * last-seen time (Grafana's last_seen_at), at most once per 5 minutes each and without
   * waiting for the write (last-seen.ts). API keys and anonymous callers are not users: ignored.
   */
  markSeen(principal: Principal): void {
    if ((principal.kind === 'user' || principal.kind === 'serviceAccount') && principal.id > 0) this.lastSeen.seen(principal.id);
  }

  /** Resolves when every last-seen write started so far has finished (tests, shutdown). */
  seenWritesSettled(): Promise<void> {
    return this.lastSeen.settled();
  }

  /** Starts a session for `userId` (which counts as seeing the user); returns the cookie token (shown only now). */
  async start(userId: number, authMethod: string, meta: { clientIp: string; userAgent: string }): Promise<string> {
    this.lastSeen.seen(userId);
    const token = newToken();
    const now = this.deps.clock.now();
    await this.deps.db.session.create({
      data: {
        userId,
        tokenHash: digest(token),
        authMethod,
        clientIp: meta.clientIp.slice(0, 64),
        userAgent: meta.userAgent.slice(0, 256),
        created: now,
        rotatedAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + this.deps.settings.lifetimeSeconds * 1000),
      },
    });
    return token;
  }

  /**
   * The live session of a cookie token, rotating it when due.
   * @throws DomainError SESSION_EXPIRED (401: unknown, ended, idle or past its lifetime).
   */
  async resolve(token: string): Promise<ResolvedSession> {
    const { db, clock, settings } = this.deps;
    const hash = digest(token);
    const now = clock.now().getTime();
    const session = await db.session.findFirst({ where: { OR: [{ tokenHash: hash }, { prevTokenHash: hash }] } });
    if (!session) throw expired();
    const viaPrevious = session.tokenHash !== hash;
    if (viaPrevious && now - session.rotatedAt.getTime() > ROTATION_GRACE_MS) throw expired();
    if (now >= session.expiresAt.getTime() || now - session.lastSeenAt.getTime() >= settings.idleSeconds * 1000) {
      await db.session.deleteMany({ where: { id: session.id } });
      throw expired();
    }
    if (!viaPrevious && now - session.rotatedAt.getTime() >= settings.rotationSeconds * 1000) {
      const rotatedToken = newToken();
      const { count } = await db.session.updateMany({
        where: { id: session.id, tokenHash: hash },
        data: { tokenHash: digest(rotatedToken), prevTokenHash: hash, rotatedAt: new Date(now), lastSeenAt: new Date(now) },
      });
      // Lost a race with a concurrent rotation: the old token is now the previous one, still valid.
      return { session, rotatedToken: count === 1 ? rotatedToken : null };
    }
    if (now - session.lastSeenAt.getTime() >= SEEN_WRITE_MS) {
      await db.session.updateMany({ where: { id: session.id }, data: { lastSeenAt: new Date(now) } });
    }
    return { session, rotatedToken: null };
  }

  /**
   * Ends the session of a cookie token (logout); unknown tokens are ignored. A logout also applies
   * a change to everyone, so remembered Basic credentials (sign-in/verified-passwords.ts) are
   * checked with the password again: a logout ends every shortcut, not only the cookie.
   */
  async end(token: string): Promise<void> {
    const hash = digest(token);
    const { count } = await this.deps.db.session.deleteMany({ where: { OR: [{ tokenHash: hash }, { prevTokenHash: hash }] } });
    if (count > 0) this.deps.access.invalidate();
  }

  /**
   * `GET /api/user/auth-tokens` and `viewer.sessions`: the caller's live sessions, newest first.
   * Live as `resolve` sees it: before its absolute end and seen (or rotated, which counts as
   * seen) within `idleSeconds`; sessions past either are not listed. @throws DomainError 401.
   */
  async listOwn(caller: Principal): Promise<SessionJson[]> {
    requireSignedIn(caller);
    if (caller.kind !== 'user') return [];
    const now = this.deps.clock.now();
    const idleSince = new Date(now.getTime() - this.deps.settings.idleSeconds * 1000);
    const rows = await this.deps.db.session.findMany({
      where: { userId: caller.id, expiresAt: { gt: now }, lastSeenAt: { gt: idleSince } },
      orderBy: [{ created: 'desc' }, { id: 'desc' }],
    });
    return rows.map((s) => ({
      id: s.id,
      isActive: s.id === caller.sessionId,
      authModule: s.authMethod,
      clientIp: s.clientIp,
      userAgent: s.userAgent,
      createdAt: s.created.toISOString(),
      seenAt: s.lastSeenAt.toISOString(),
      expiresAt: s.expiresAt.toISOString(),
    }));
  }

  /**
   * `POST /api/user/revoke-auth-token` `{authTokenId}`: ends one of the caller's own sessions.
   * @throws DomainError VALIDATION_FAILED (400), CANNOT_REVOKE_ACTIVE_SESSION (400: the one in
   *   use; log out instead), 401, SESSION_NOT_FOUND (404: unknown or someone else's).
   */
  async revokeOwn(caller: Principal, body: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('authTokenId', (body as { authTokenId?: unknown } | null)?.authTokenId);
    if (caller.kind === 'user' && caller.sessionId === id) {
      throw new DomainError('CANNOT_REVOKE_ACTIVE_SESSION', 'Cannot revoke active user auth token');
    }
    const { count } = await this.deps.db.session.deleteMany({ where: { id, userId: caller.kind === 'user' ? caller.id : -1 } });
    if (count === 0) throw notFound('SESSION_NOT_FOUND', 'auth token', id);
    return { message: 'User auth token revoked' };
  }

  /**
   * `POST /api/admin/users/:id/logout`: ends every session of a user. Needs users:write on
   * global.users:id:<id> (Service Admins) and the one delegation rule on the account
   * (kernel/gains.ts authorizeAccountControl: a stronger account's sessions are not the caller's to end). Not for the caller itself: Grafana answers 400 "You
   * cannot logout yourself" (pkg/api/admin_users.go AdminLogoutUser); log out, or revoke the
   * other sessions one by one, instead.
   * @throws DomainError 400 (bad id; BAD_REQUEST for the caller's own id), 401, ACCESS_DENIED (403:
   *   permission or delegation), USER_NOT_FOUND (404).
   */
  async logoutUser(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const index = await this.deps.access.check(caller, sessionRequirements.logoutUser.for({ id }));
    if (caller.kind === 'user' && caller.id === id) throw new DomainError('BAD_REQUEST', 'You cannot logout yourself');
    // No permission changes, but the write invalidates: remembered Basic credentials are fenced
    // by the access revision and must be dropped with the sessions (see `end`).
    await this.deps.access.write(async (tx) => {
      if ((await tx.user.count({ where: { id, isServiceAccount: false } })) === 0) throw notFound('USER_NOT_FOUND', 'user', id);
      await authorizeAccountControl(tx, caller, index, id, `end the sessions of user ${id}`, this.deps.clock.now());
      await tx.session.deleteMany({ where: { userId: id } });
    });
    return { message: 'User logged out' };
  }
}

function expired(): DomainError {
  return new DomainError('SESSION_EXPIRED', 'Session expired or revoked, please log in again');
}
