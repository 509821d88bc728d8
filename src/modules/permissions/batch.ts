/**
 * The batch check (POST /api/access-control/check/batch, GraphQL `checkMany`): up to
 * MAX_BATCH_ITEMS single checks in one request, answered in request order, all at one revision
 * (kernel/revision.ts). Each item follows the single check's rules (service.ts `check`): the same
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
import { accessDenied, DomainError, type ErrorCode } from '../../kernel/errors.js';
import { type Evaluator, type PermissionIndex, permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { type AccessGrant, grantMatches, grantsOf } from '../../kernel/grants.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { principalKey, type SignedInPrincipal } from '../../kernel/principal.js';
import { atOneRevision } from '../../kernel/revision.js';
import type { AccessCheck } from './explain.js';
import { batchEnvelope, checkInput, MAX_BATCH_ITEMS } from './inputs.js';
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

/** One subject's reasons, by action, tied to the index object they were read for. */
interface GrantTable {
  key: string;
  byAction: Promise<Map<string, AccessGrant[]>>;
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
    const { items } = parseInput(batchEnvelope, raw);
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
      const input = parseInput(checkInput, rawItem);
      const scopes = input.scopes ?? [];
      const key = other && input.userId != null ? input.userId : 'caller';
      let found = subjects.get(key);
      if (!found) {
        found = this.subject(caller, key);
        subjects.set(key, found);
      }
      const { member, index } = await found;
      const allowed = !member.disabled && permission(input.action, ...scopes).evaluate(index);
      const grantedBy = allowed
        ? ((await this.table(member.principal, index)).get(input.action) ?? []).filter((g) =>
            grantMatches(g.permission, input.action, scopes),
          )
        : [];
      const missing = allowed ? [] : (scopes.length > 0 ? scopes : ['']).map((scope) => ({ action: input.action, scope }));
      return { id, error: null, allowed, grantedBy, missing, subjectDisabled: member.disabled };
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
  private table(principal: SignedInPrincipal, index: PermissionIndex): Promise<Map<string, AccessGrant[]>> {
    const key = principalKey(principal);
    const kept = this.tables.get(index);
    if (kept?.key === key) return kept.byAction;
    const byAction = grantsOf(this.deps.access, principal, null, []).then((grants) => {
      const out = new Map<string, AccessGrant[]>();
      for (const grant of grants) {
        const list = out.get(grant.permission.action);
        if (list) list.push(grant);
        else out.set(grant.permission.action, [grant]);
      }
      return out;
    });
    byAction.catch(() => this.tables.delete(index));
    this.tables.set(index, { key, byAction });
    return byAction;
  }
}

/** The number of items a body holds, 0 when it holds no array (validation words that). */
function countOf(raw: unknown): number {
  const items = typeof raw === 'object' && raw !== null ? (raw as { items?: unknown }).items : undefined;
  return Array.isArray(items) ? items.length : 0;
}
