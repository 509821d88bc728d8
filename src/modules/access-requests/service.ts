/**
 * Just-in-time access requests: a user asks for a role of the organization it acts in, for a
 * duration and with a justification; someone who may assign that role approves it (a time-bound
 * assignment from the approval on: decisions.ts) or denies it; the requester may cancel it while
 * it is pending; nobody answering before its expiry (ACCESS_REQUEST_EXPIRY_SECONDS) leaves it
 * expired (expiry.ts). Every step is an audit event and a change record, written through the one
 * write path.
 *
 * Who may do what (kernel/catalogue.ts; fixed roles fixed:access.requests:requester and
 * :approver; basic Viewer and up may request, basic Admin reads and decides):
 * - request: `access.requests:create`, as a user (a service account or API key asks nobody), for a
 *   role the caller can see that is not a basic role (ROLE_NOT_ASSIGNABLE), for at most the role's
 *   `maxAssignmentSeconds` and ACCESS_REQUEST_MAX_SECONDS (ACCESS_REQUEST_TOO_LONG); at most
 *   MAX_PENDING_PER_REQUESTER pending at once (TOO_MANY_ACCESS_REQUESTS), one pending per role
 *   (ACCESS_REQUEST_DUPLICATE), none for a role held for good already (ACCESS_REQUEST_ROLE_HELD);
 * - read: one's own requests always; everyone's of the organization with `access.requests:read`;
 * - cancel: the requester only.
 * Organization wall: every read and answer is of the organization the caller acts in; another
 * organization's request is 404. Pattern: Azure PIM's and Google PAM's request, approve, expire.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import { BASIC_PREFIX } from '../../kernel/builtin-roles.js';
import { Action } from '../../kernel/catalogue.js';
import { roleManagement } from '../../kernel/delegation.js';
import { DomainError, notFound } from '../../kernel/errors.js';
import { all, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseId, parseInput } from '../../kernel/inputs.js';
import type { Principal, SignedInPrincipal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { assignableRole } from '../assignments/service.js';
import type { SearchPage } from '../shared/directory.js';
import { pageOffset } from '../shared/paging.js';
import {
  type AccessRequestFilter,
  accessRequestFilterInput,
  accessRequestPageInput,
  createAccessRequestInput,
  decisionInput,
  MAX_PENDING_PER_REQUESTER,
} from './inputs.js';
import {
  type AccessRequestView,
  auditRequest,
  heldForGood,
  notPending,
  pendingAt,
  REQUEST_INCLUDE,
  requestIn,
  roleHeld,
  settle,
  statusWhere,
  viewAt,
} from './records.js';

/** What each operation needs (module comment). */
export const accessRequestRequirements = {
  create: requirement([], () => permission(Action.AccessRequestsCreate), 'as a user, for a role that is not a basic role'),
  read: requirement([], () => permission(Action.AccessRequestsRead), "to read everyone's; a requester always reads its own"),
  decide: requirement(
    [],
    () => all(permission(Action.AccessRequestsApprove), roleManagement(Action.UsersRolesAdd)),
    "and every permission of the role until the grant's end (delegation in time), never on one's own request",
  ),
  cancel: requirement([], () => permission(Action.AccessRequestsCreate), 'as the requester, while it is pending'),
};

/** The settings of access requests (ACCESS_REQUEST_EXPIRY_SECONDS, ACCESS_REQUEST_MAX_SECONDS). */
export interface AccessRequestSettings {
  /** Seconds a request waits for an answer. */
  expirySeconds: number;
  /** Longest duration any request may ask for, in seconds. */
  maxSeconds: number;
}

export interface AccessRequestDeps extends FeatureDeps {
  settings: AccessRequestSettings;
}

/** A role as the request form offers it. */
export interface RequestableRole {
  uid: string;
  name: string;
  displayName: string;
  description: string;
  group: string;
  /** The longest duration a request may ask for, in seconds. */
  maxRequestSeconds: number;
}

export class AccessRequestService {
  constructor(private readonly deps: AccessRequestDeps) {}

  /**
   * Asks for a role: body `{roleUid, durationSeconds, justification}` (inputs.ts). Returns the
   * pending request, which expires `expirySeconds` from now.
   * @throws DomainError VALIDATION_FAILED / ROLE_NOT_ASSIGNABLE / ACCESS_REQUEST_TOO_LONG (400),
   *   UNAUTHENTICATED (401), ACCESS_DENIED (403), ROLE_NOT_FOUND (404), ACCESS_REQUEST_DUPLICATE /
   *   ACCESS_REQUEST_ROLE_HELD (409), TOO_MANY_ACCESS_REQUESTS (429), 404 in oss.
   */
  async create(caller: Principal, rawInput: unknown): Promise<AccessRequestView> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, accessRequestRequirements.create.for({}));
    const input = parseInput(createAccessRequestInput, rawInput);
    if (caller.kind !== 'user') throw new DomainError('ACCESS_DENIED', 'only a user requests access', { needed: 'a user' });
    const now = this.deps.clock.now();
    const { orgId } = caller;
    const id = await this.deps.access.write(
      async (tx) => {
        const role = await assignableRole(tx, caller, input.roleUid, orgId);
        const cap = Math.min(this.deps.settings.maxSeconds, role.maxAssignmentSeconds ?? Number.POSITIVE_INFINITY);
        if (input.durationSeconds > cap) {
          throw new DomainError('ACCESS_REQUEST_TOO_LONG', `role "${role.uid}" may be requested for at most ${cap} seconds`, {
            uid: role.uid,
            maxAssignmentSeconds: cap,
          });
        }
        // Read under the write lock: two requests of one requester are counted one after the other.
        const pending = await tx.accessRequest.findMany({
          where: { orgId, requesterId: caller.id, ...pendingAt(now) },
          select: { roleId: true },
        });
        if (pending.some((r) => r.roleId === role.id)) {
          throw new DomainError('ACCESS_REQUEST_DUPLICATE', `a request for role "${role.uid}" is already pending`, { uid: role.uid });
        }
        if (pending.length >= MAX_PENDING_PER_REQUESTER) {
          throw new DomainError('TOO_MANY_ACCESS_REQUESTS', `at most ${MAX_PENDING_PER_REQUESTER} requests may be pending at once`);
        }
        if (await heldForGood(tx, caller.id, orgId, role.id)) throw roleHeld(role.uid);
        const row = await tx.accessRequest.create({
          data: {
            orgId,
            requesterId: caller.id,
            roleId: role.id,
            durationSeconds: input.durationSeconds,
            justification: input.justification,
            created: now,
            expiresAt: new Date(now.getTime() + this.deps.settings.expirySeconds * 1000),
          },
          include: REQUEST_INCLUDE,
        });
        await auditRequest(tx, caller, row, 'create', 'pending');
        return row.id;
      },
      { grantsNothing: true },
    );
    return viewAt(await requestIn(this.deps.db, orgId, id), now);
  }

  /**
   * The roles the caller may ask for: every role of its organization and every global role, not
   * basic, not hidden, by name, each with the longest duration a request may ask for it
   * (`maxRequestSeconds`: the smaller of its maxAssignmentSeconds and ACCESS_REQUEST_MAX_SECONDS).
   * A requester need not read roles (roles:read) to choose one.
   * @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403: no access.requests:create), 404 in oss.
   */
  async requestableRoles(caller: Principal): Promise<RequestableRole[]> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, accessRequestRequirements.create.for({}));
    const rows = await this.deps.db.role.findMany({
      where: { orgId: { in: [0, caller.orgId] }, hidden: false, NOT: { name: { startsWith: BASIC_PREFIX } } },
      select: { uid: true, name: true, displayName: true, description: true, group: true, maxAssignmentSeconds: true },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
    const cap = this.deps.settings.maxSeconds;
    return rows.map(({ maxAssignmentSeconds, ...r }) => ({ ...r, maxRequestSeconds: Math.min(cap, maxAssignmentSeconds ?? cap) }));
  }

  /**
   * Requests of the organization the caller acts in matching the filter (inputs.ts), newest
   * first, in pages of `perpage` (default 100, at most 1000), page `page` (from 1). Without
   * `access.requests:read` only the caller's own are listed (and asking for another requester's is 403).
   * @throws DomainError VALIDATION_FAILED (400), UNAUTHENTICATED (401), ACCESS_DENIED (403), 404 in oss.
   */
  async list(caller: Principal, rawFilter: unknown, rawPaging: unknown): Promise<SearchPage<AccessRequestView>> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const filter = parseInput(accessRequestFilterInput, rawFilter ?? {});
    const { perpage: perPage, page } = parseInput(accessRequestPageInput, rawPaging ?? {});
    const readsAll = await this.deps.access.can(caller, accessRequestRequirements.read.for({}));
    const own = this.ownId(caller);
    const othersAsked = filter.requesterId != null && filter.requesterId !== own;
    if (!readsAll && (own === undefined || othersAsked)) await this.deps.access.check(caller, accessRequestRequirements.read.for({}));
    const now = this.deps.clock.now();
    const where = this.whereOf(caller.orgId, filter, own, readsAll, now);
    const [totalCount, rows] = await Promise.all([
      this.deps.db.accessRequest.count({ where }),
      this.deps.db.accessRequest.findMany({
        where,
        include: REQUEST_INCLUDE,
        orderBy: { id: 'desc' },
        skip: pageOffset(page, perPage),
        take: perPage,
      }),
    ]);
    return { totalCount, rows: rows.map((r) => viewAt(r, now)), page, perPage };
  }

  /**
   * One request: the caller's own, or any of its organization with `access.requests:read`.
   * @throws DomainError VALIDATION_FAILED (400: id), UNAUTHENTICATED (401), ACCESS_REQUEST_NOT_FOUND
   *   (404: none, another organization's, or another requester's without the read permission), 404 in oss.
   */
  async get(caller: Principal, rawId: unknown): Promise<AccessRequestView> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const id = parseId('id', rawId);
    const row = await requestIn(this.deps.db, caller.orgId, id);
    if (row.requesterId !== this.ownId(caller) && !(await this.deps.access.can(caller, accessRequestRequirements.read.for({})))) {
      throw notFound('ACCESS_REQUEST_NOT_FOUND', 'access request', id);
    }
    return viewAt(row, this.deps.clock.now());
  }

  /**
   * The requester withdraws its pending request; body `{comment?}`. Returns it cancelled.
   * @throws DomainError VALIDATION_FAILED (400), UNAUTHENTICATED (401), ACCESS_DENIED (403: not the
   *   requester), ACCESS_REQUEST_NOT_FOUND (404), ACCESS_REQUEST_NOT_PENDING (409), 404 in oss.
   */
  async cancel(caller: Principal, rawId: unknown, rawInput: unknown): Promise<AccessRequestView> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    await this.deps.access.check(caller, accessRequestRequirements.cancel.for({}));
    const id = parseId('id', rawId);
    const input = parseInput(decisionInput, rawInput);
    const row = await this.get(caller, id);
    if (row.requesterId !== this.ownId(caller)) {
      throw new DomainError('ACCESS_DENIED', 'only the requester cancels an access request', { needed: 'the requester' });
    }
    const now = this.deps.clock.now();
    if (row.state !== 'pending') throw notPending(id, row.state);
    await this.deps.access.write((tx) => settle(tx, row, 'cancelled', { by: caller, comment: input?.comment ?? '' }, now), {
      grantsNothing: true,
    });
    return viewAt(await requestIn(this.deps.db, caller.orgId, id), now);
  }

  /** The user id a request of the caller's would carry; undefined for an API key (which requests nothing). */
  private ownId(caller: SignedInPrincipal): number | undefined {
    return caller.kind === 'apiKey' ? undefined : caller.id;
  }

  /**
   * The filter as a Prisma `where`, walled by organization and, for a caller that does not read
   * everyone's, by requester (`own`, the caller's user id).
   */
  private whereOf(
    orgId: number,
    filter: AccessRequestFilter,
    own: number | undefined,
    readsAll: boolean,
    now: Date,
  ): Prisma.AccessRequestWhereInput {
    const and: Prisma.AccessRequestWhereInput[] = [{ orgId }];
    if (!readsAll || filter.mine) and.push({ requesterId: own ?? -1 });
    if (filter.requesterId != null) and.push({ requesterId: filter.requesterId });
    if (filter.roleUid != null) and.push({ role: { uid: filter.roleUid } });
    if (filter.status != null) and.push(statusWhere(filter.status, now));
    return { AND: and };
  }
}
