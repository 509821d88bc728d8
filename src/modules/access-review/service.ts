/**
 * The access review: the questions an auditor asks of one organization. "Who has this action on
 * this scope, and through what" (`whoHas`: users, service accounts and API keys, each with every
 * path: direct role, team role, basic role, Service Admin, API key), "everything this subject can
 * do and why" (`subjectAccess`), and the first exported whole, streamed (`exportWhoHas`).
 *
 * Organization wall: every answer covers the organization the caller acts in and nothing else,
 * also for a Service Admin (it acts in one organization per request). Each page is answered at
 * one revision of the change records, which it states (kernel/one-revision.ts). The paths follow the
 * evaluator's rule (holders.ts for many subjects at once; kernel/grants.ts for one), so a review
 * agrees with every check and with the permission listings.
 */
import { Action } from '../../kernel/catalogue.js';
import { notFound } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { type AccessGrant, grantsOf } from '../../kernel/grants.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { atOneRevision, headRevision } from '../../kernel/one-revision.js';
import { asOrgRole, type Principal, principalOf, type SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Clock } from '../../platform/clock.js';
import { Holders, type ReviewPosition, type ReviewRow, type ReviewSubject } from './holders.js';
import { reviewExportInput, subjectAccessInput, whoHasInput } from './inputs.js';

/** What the review needs (catalogue: access.review:read, fixed:access.review:reader). */
export const accessReviewRequirements = {
  read: requirement([], () => permission(Action.AccessReviewRead), 'covering the organization the caller acts in'),
};

/** The review's dependencies: the feature deps and the clock (which API keys have expired). */
export interface AccessReviewDeps extends FeatureDeps {
  clock: Clock;
}

/** A page of `whoHas`: its rows, the revision it was answered at, and where the next page starts. */
export interface WhoHasPage {
  revision: number;
  rows: ReviewRow[];
  /** The cursor to pass as `after` for the next page; null on the last page. */
  endCursor: string | null;
  hasNextPage: boolean;
}

/** A page of `subjectAccess`. */
export interface SubjectAccessPage {
  revision: number;
  subject: ReviewSubject;
  /** The subject's account is disabled: it holds nothing while disabled. */
  disabled: boolean;
  grants: AccessGrant[];
  endCursor: string | null;
  hasNextPage: boolean;
}

/** An export under way: the revision it started at and its rows, read as they are consumed. */
export interface WhoHasExport {
  revision: number;
  format: 'csv' | 'ndjson';
  /** How many subjects the rows hold, counted at `revision` (Holders.count), when asked for (`count=true`). */
  subjects: number | null;
  rows: AsyncIterable<ReviewRow>;
  /** The head revision now (for the export's trailer: equal to `revision` when nothing changed meanwhile). */
  revisionNow(): Promise<number>;
}

const cursorOf = (p: ReviewPosition): string => `${p.kind === 'user' ? 'u' : 'k'}${p.id}`;

export class AccessReviewService {
  constructor(private readonly deps: AccessReviewDeps) {}

  /** Checks access.review:read; returns the caller. */
  private async authorize(caller: Principal): Promise<SignedInPrincipal> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, accessReviewRequirements.read.for({}));
    return caller;
  }

  /**
   * REST GET /api/access-control/review/who-has, GraphQL `accessReview`: the subjects of the
   * caller's organization holding `action` (on `scope` when given: a held scope equal to it or a
   * wildcard covering it), users and service accounts by id then API keys by id, `first` (default
   * 100, at most 1000) after cursor `after`, each with every path (holders.ts), at one revision.
   * Needs access.review:read.
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), DATABASE_BUSY (503),
   *   404 in oss.
   */
  async whoHas(caller: Principal, raw: unknown): Promise<WhoHasPage> {
    const signedIn = await this.authorize(caller);
    const q = parseInput(whoHasInput, raw);
    const { revision, value } = await atOneRevision(this.deps.db, this.deps.access, async () => {
      const holders = await Holders.of(this.deps.db, signedIn.orgId, q.action, q.scope, this.deps.clock.now());
      const found: { position: ReviewPosition; row: ReviewRow }[] = [];
      for await (const entry of holders.walk(q.after, this.deps.clock.now())) {
        found.push(entry);
        if (found.length > q.first) break;
      }
      return found;
    });
    const page = value.slice(0, q.first);
    const last = page[page.length - 1];
    const hasNextPage = value.length > q.first;
    return { revision, rows: page.map((e) => e.row), endCursor: hasNextPage && last ? cursorOf(last.position) : null, hasNextPage };
  }

  /**
   * REST GET /api/access-control/review/subjects/:kind/:id, GraphQL `subjectAccess`: everything
   * one user, service account (`userId`) or API key (`apiKeyId`) of the caller's organization
   * holds, each permission with the role granting it and how that role reaches it, sorted by
   * action, scope, role name, then source; `first` (default 1000) after cursor `after`. None for
   * a disabled account. Needs access.review:read.
   * @throws DomainError VALIDATION_FAILED (400), 401, ACCESS_DENIED (403), USER_NOT_FOUND /
   *   API_KEY_NOT_FOUND (404: not of the caller's organization), DATABASE_BUSY (503), 404 in oss.
   */
  async subjectAccess(caller: Principal, raw: unknown): Promise<SubjectAccessPage> {
    const signedIn = await this.authorize(caller);
    const q = parseInput(subjectAccessInput, raw);
    const { revision, value } = await atOneRevision(this.deps.db, this.deps.access, async () => {
      const found = await this.subjectOf(signedIn.orgId, q.userId ?? undefined, q.apiKeyId ?? undefined);
      const grants = found.disabled ? [] : await grantsOf(this.deps.access, found.principal, null, [], this.deps.clock.now());
      return { ...found, grants: grants.sort(byActionScopeRoleSource) };
    });
    const grants = value.grants.slice(q.after, q.after + q.first);
    const hasNextPage = q.after + q.first < value.grants.length;
    return {
      revision,
      subject: value.subject,
      disabled: value.disabled,
      grants,
      endCursor: hasNextPage ? String(q.after + q.first) : null,
      hasNextPage,
    };
  }

  /**
   * REST GET /api/access-control/review/who-has/export: `whoHas` whole, as rows read CHUNK
   * members at a time while they are consumed (holders.ts), never the organization at once, and,
   * with `count=true`, how many subjects they hold (counted at the same revision, for a client's
   * progress; two counting statements before the first row, so only when asked). The
   * rows reflect every change up to `revision`; a change committed while the export runs may
   * show in the rows after it (`revisionNow` tells). Needs access.review:read.
   * @throws DomainError as `whoHas`.
   */
  async exportWhoHas(caller: Principal, raw: unknown): Promise<WhoHasExport> {
    const signedIn = await this.authorize(caller);
    const q = parseInput(reviewExportInput, raw);
    const { db, clock } = this.deps;
    const { revision, value } = await atOneRevision(db, this.deps.access, async () => {
      const holders = await Holders.of(db, signedIn.orgId, q.action, q.scope, clock.now());
      return { holders, subjects: q.count ? await holders.count(clock.now()) : null };
    });
    async function* rows(): AsyncGenerator<ReviewRow> {
      for await (const { row } of value.holders.walk(undefined, clock.now())) yield row;
    }
    return { revision, format: q.format, subjects: value.subjects, rows: rows(), revisionNow: () => headRevision(db) };
  }

  /** The subject as a principal of organization `orgId`, with its review shape. */
  private async subjectOf(orgId: number, userId: number | undefined, apiKeyId: number | undefined) {
    if (userId !== undefined) {
      const member = await this.deps.db.orgUser.findUnique({
        where: { orgId_userId: { orgId, userId } },
        select: { role: true, user: { select: { id: true, login: true, isServiceAccount: true, isServiceAdmin: true, isDisabled: true } } },
      });
      if (!member) throw notFound('USER_NOT_FOUND', 'user', userId);
      const principal = principalOf(member.user, orgId, member.role, 'none');
      const subject: ReviewSubject = {
        kind: principal.kind,
        id: userId,
        login: member.user.login,
        orgRole: member.role,
        isServiceAdmin: member.user.isServiceAdmin,
      };
      return { principal, subject, disabled: member.user.isDisabled };
    }
    const key = await this.deps.db.apiKey.findFirst({
      where: { id: apiKeyId, orgId, serviceAccountId: null },
      select: { id: true, name: true, role: true },
    });
    if (!key) throw notFound('API_KEY_NOT_FOUND', 'API key', apiKeyId ?? 0);
    const principal: SignedInPrincipal = {
      kind: 'apiKey',
      id: key.id,
      name: key.name,
      orgId,
      orgRole: asOrgRole(key.role),
      isServiceAdmin: false,
      authMethod: 'api_key',
    };
    const subject: ReviewSubject = { kind: 'apiKey', id: key.id, login: key.name, orgRole: key.role, isServiceAdmin: false };
    return { principal, subject, disabled: false };
  }
}

/** The order of a subject's grants (as the permission sources listing): action, scope, role name, source. */
function byActionScopeRoleSource(a: AccessGrant, b: AccessGrant): number {
  return (
    a.permission.action.localeCompare(b.permission.action) ||
    a.permission.scope.localeCompare(b.permission.scope) ||
    a.role.name.localeCompare(b.role.name) ||
    a.source.localeCompare(b.source)
  );
}
