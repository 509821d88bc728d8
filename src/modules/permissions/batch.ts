/**
 * The batch check (POST /api/access-control/check/batch, GraphQL `checkMany`): up to
 * MAX_BATCH_ITEMS single checks in one request, answered in request order, all at one revision
 * (kernel/one-revision.ts). Each item follows the single check's rules (service.ts `check`): the same
 * requirement to ask about another user, checked on the item's raw `userId` before the item is
 * validated, the same evaluation on the subject's cached permission index, the same reason
 * (kernel/grants.ts). An item that fails alone (refused, malformed, an unknown subject) answers its own
 * error with the code the single check would have answered; the others are still answered.
 *
 * Each subject's index and member row are looked up once per batch. The reasons come from one
 * table per subject, the roles it holds with their permissions and the rows that make them held
 * (kernel/grants.ts grantsOf), read once and kept while the subject's cached index is the same object:
 * every write that can change a role, a team or a membership replaces the indexes it reaches
 * (kernel/access.ts `write`), so a table outlives no change of what it lists.
 */
import { actionProblem, scopeProblem } from '../../kernel/catalogue.js';
import { accessDenied, DomainError, type ErrorCode } from '../../kernel/errors.js';
import { type Evaluator, PermissionIndex, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { type AccessGrant, allowedUntil, grantsOf } from '../../kernel/grants.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { MAX_ID, parseInput } from '../../kernel/inputs.js';
import { atOneRevision } from '../../kernel/one-revision.js';
import { principalKey, type SignedInPrincipal } from '../../kernel/principal.js';
import type { AccessCheck } from './explain.js';
import { batchEnvelope, checkInput, MAX_BATCH_ITEM_ID, MAX_BATCH_ITEMS, MAX_CHECK_SCOPES } from './inputs.js';
import type { Member } from './members.js';

/** The error of one item: the code and message the single check would have answered. */
export interface BatchItemError {
  code: ErrorCode;
  message: string;
}

/** The answer to one item: its id, then the single check's answer or the item's own error. */
export type BatchCheckItem = { id: string } & (({ error: null } & AccessCheck) | ({ error: BatchItemError } & Partial<AccessCheck>));

/** The answer of a batch: the revision every item was answered at, and the items in request order. */
export interface BatchCheck {
  revision: number;
  results: BatchCheckItem[];
}

/** Codes an item answers on its own; any other failure fails the whole batch. */
const ITEM_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['VALIDATION_FAILED', 'ACCESS_DENIED', 'USER_NOT_FOUND']);

/** What the batch needs of the permission service: the single check's rules, shared. */
export interface BatchCheckRules {
  /** The member behind a user id of the caller's organization (members.ts). */
  member(caller: SignedInPrincipal, userId: number): Promise<Member>;
  /** What the caller needs to check the item's raw `userId` when it is not the caller, or null (service.ts). */
  otherUser(caller: SignedInPrincipal, rawItem: unknown): Evaluator | null;
}

/** A subject of the batch, looked up once. */
interface Subject {
  member: Member;
  index: PermissionIndex;
}

/** A reason with its permission as an index, to match target scopes by the evaluator's rule. */
interface Reason {
  grant: AccessGrant;
  matcher: PermissionIndex;
}

/** One subject's reasons, by action, tied to the index object they were read for. */
interface GrantTable {
  key: string;
  byAction: Promise<Map<string, Reason[]>>;
}

/** Answers batch checks (module comment). */
export class BatchChecks {
  private readonly tables = new WeakMap<PermissionIndex, GrantTable>();

  constructor(
    private readonly deps: FeatureDeps,
    private readonly rules: BatchCheckRules,
  ) {}

  /**
   * Answers every item of `{items: [{id, userId?, action, scopes?}]}` (module comment).
   * @throws DomainError BATCH_TOO_LARGE (400: more than MAX_BATCH_ITEMS items), VALIDATION_FAILED
   *   (400: not an object with an `items` array of objects each with a unique string `id`), 401,
   *   DATABASE_BUSY (503: changes committed during every attempt), 404 in oss. An item's
   *   ACCESS_DENIED, VALIDATION_FAILED and USER_NOT_FOUND are its own error.
   */
  async checkMany(caller: SignedInPrincipal, raw: unknown): Promise<BatchCheck> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const count = countOf(raw);
    if (count > MAX_BATCH_ITEMS) {
      throw new DomainError('BATCH_TOO_LARGE', `a batch holds at most ${MAX_BATCH_ITEMS} items; this one has ${count}`);
    }
    const items = itemsOf(raw) ?? parseInput(batchEnvelope, raw).items;
    const { revision, value } = await atOneRevision(this.deps.db, this.deps.access, async () => {
      const callerIndex = await this.deps.access.permissionsOf(caller);
      const subjects = new Map<number | 'caller', Promise<Subject>>();
      const results: BatchCheckItem[] = [];
      for (const item of items) results.push(await this.answer(caller, callerIndex, subjects, item));
      return results;
    });
    return { revision, results: value };
  }

  /** One item, as the single check answers it, or its own error. */
  private async answer(
    caller: SignedInPrincipal,
    callerIndex: PermissionIndex,
    subjects: Map<number | 'caller', Promise<Subject>>,
    raw: { id: string } & Record<string, unknown>,
  ): Promise<BatchCheckItem> {
    const { id, ...rawItem } = raw;
    try {
      const other = this.rules.otherUser(caller, rawItem);
      if (other && !other.evaluate(callerIndex)) {
        throw accessDenied(other.describe());
      }
      const input = wellFormed(rawItem) ?? parseInput(checkInput, rawItem);
      const scopes = input.scopes ?? [];
      const key = other && input.userId != null ? input.userId : 'caller';
      let found = subjects.get(key);
      if (!found) {
        found = this.subject(caller, key);
        subjects.set(key, found);
      }
      const { member, index } = await found;
      const allowed = !member.disabled && permission(input.action, ...scopes).evaluate(index);
      const grantedBy = allowed ? reasons((await this.table(member.principal, index)).get(input.action) ?? [], scopes) : [];
      const missing = allowed ? [] : (scopes.length > 0 ? scopes : ['']).map((scope) => ({ action: input.action, scope }));
      return { id, error: null, allowed, allowedUntil: allowedUntil(grantedBy), grantedBy, missing, subjectDisabled: member.disabled };
    } catch (error) {
      if (error instanceof DomainError && ITEM_CODES.has(error.code)) return { id, error: { code: error.code, message: error.message } };
      throw error;
    }
  }

  /** The caller, or a member of its organization, with its index. */
  private async subject(caller: SignedInPrincipal, key: number | 'caller'): Promise<Subject> {
    const member: Member = key === 'caller' ? { principal: caller, disabled: false } : await this.rules.member(caller, key);
    return { member, index: await this.deps.access.permissionsOf(member.principal) };
  }

  /** The principal's reasons by action, read once per cached index (module comment). */
  private table(principal: SignedInPrincipal, index: PermissionIndex): Promise<Map<string, Reason[]>> {
    const key = principalKey(principal);
    const kept = this.tables.get(index);
    if (kept?.key === key) return kept.byAction;
    const byAction = grantsOf(this.deps.access, principal, null, [], this.deps.clock.now()).then((grants) => {
      const out = new Map<string, Reason[]>();
      for (const grant of grants) {
        const reason = { grant, matcher: PermissionIndex.from([grant.permission]) };
        const list = out.get(grant.permission.action);
        if (list) list.push(reason);
        else out.set(grant.permission.action, [reason]);
      }
      return out;
    });
    byAction.catch(() => this.tables.delete(index));
    this.tables.set(index, { key, byAction });
    return byAction;
  }
}

/**
 * The reasons among `held` (one action's) that grant it on one of `scopes` (any when none): the
 * rule of kernel/grants.ts grantMatches, on indexes built once per table.
 */
function reasons(held: readonly Reason[], scopes: readonly string[]): AccessGrant[] {
  const out: AccessGrant[] = [];
  for (const { grant, matcher } of held) {
    if (scopes.length === 0 || scopes.some((s) => matcher.matches(grant.permission.action, s))) out.push(grant);
  }
  return out;
}

/**
 * An item checkInput accepts as it is, read without zod (a thousand parses cost milliseconds):
 * an action with no actionProblem, scopes absent or at most MAX_CHECK_SCOPES strings with no
 * scopeProblem, userId absent or a whole number from 1 to MAX_ID. Null for anything else, which
 * checkInput then parses, to accept it the same or word the same 400.
 */
function wellFormed(raw: Record<string, unknown>): { userId: number | undefined; action: string; scopes: string[] | undefined } | null {
  const { action, scopes, userId } = raw;
  if (typeof action !== 'string' || actionProblem(action) !== null) return null;
  if (scopes !== undefined && scopes !== null) {
    if (!Array.isArray(scopes) || scopes.length > MAX_CHECK_SCOPES) return null;
    for (const scope of scopes) if (typeof scope !== 'string' || scopeProblem(scope) !== null) return null;
  }
  if (userId !== undefined && userId !== null && !(Number.isInteger(userId) && (userId as number) >= 1 && (userId as number) <= MAX_ID))
    return null;
  return { userId: (userId ?? undefined) as number | undefined, action, scopes: (scopes ?? undefined) as string[] | undefined };
}

/**
 * The items of a body batchEnvelope accepts as it is, read without zod: `items` an array of
 * objects, each with a string `id` of 1 to MAX_BATCH_ITEM_ID characters, no id twice. Null for
 * anything else, which batchEnvelope then parses to word its 400.
 */
function itemsOf(raw: unknown): ({ id: string } & Record<string, unknown>)[] | null {
  const items = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as { items?: unknown }).items : undefined;
  if (!Array.isArray(items)) return null;
  const seen = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return null;
    const { id } = item as { id?: unknown };
    if (typeof id !== 'string' || id.length < 1 || id.length > MAX_BATCH_ITEM_ID || seen.has(id)) return null;
    seen.add(id);
  }
  return items as ({ id: string } & Record<string, unknown>)[];
}

/** The number of items a body holds, 0 when it holds no array (validation words that). */
function countOf(raw: unknown): number {
  const items = typeof raw === 'object' && raw !== null ? (raw as { items?: unknown }).items : undefined;
  return Array.isArray(items) ? items.length : 0;
}
