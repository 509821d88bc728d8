/**
 * What-if: what a proposed set of changes (a role's permissions replaced, an assignment added or
 * removed, a team's role, a team membership, an org role) would do to who may do what in the
 * caller's organization, before anyone saves it (`POST /api/access-control/simulate`, GraphQL
 * `simulateAccessChange`). For every affected user, service account and API key: the
 * permissions gained and lost (PermissionIndex.covers, the kernel's evaluator) and the change
 * that causes each, paged, with people counts per permission; and, per change, whether the
 * caller could make it (authorize.ts: the write path's requirement, the delegation rule, the
 * state it refuses), answered, not thrown.
 *
 * Nothing is written and no cache is read or filled: the subjects the changes can reach are read
 * from the database (load.ts), the changes are applied to that picture in memory (model.ts), and
 * "before" and "after" are evaluated by the same function (picture.ts indexOf). The difference is
 * computed as if every change were made, also those the caller could not make.
 */
import { Action } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import type { FeatureDeps } from '../../kernel/feature-deps.js';
import { requireSignedIn } from '../../kernel/guards.js';
import { parseInput } from '../../kernel/inputs.js';
import { headRevision } from '../../kernel/one-revision.js';
import type { Principal } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import { runSimulation, type SubjectDifference, summaryOf } from './compute.js';
import { type ChangeKind, DEFAULT_SIMULATION_PAGE, MAX_SIMULATED_CHANGES, simulateInput } from './inputs.js';
import { loadPicture, resolveTargets } from './load.js';
import { stepsOf } from './model.js';

export type { SubjectDifference } from './compute.js';

/** What a simulation needs: access:simulate (its own permission: Admin and Service Admin by default, fixed:access:simulator). */
export const simulationRequirements = {
  simulate: requirement([], () => permission(Action.AccessSimulate), 'answers for the organization the caller acts in'),
};

/** Whether the caller could make one change, and if not why (the code and text its write would answer). */
export interface ChangeVerdict {
  /** 0-based index of the change in the request. */
  change: number;
  kind: ChangeKind;
  allowed: boolean;
  refusal: { code: string; message: string; status: number } | null;
}

/** The answer of a simulation (module comment). */
export interface Simulation {
  /** The change feed's newest revision when the simulation read the database: it reflects every change up to it. */
  revision: number;
  /** True when the caller could make every change. */
  allowed: boolean;
  changes: ChangeVerdict[];
  /** Subjects examined: those the changes can reach. */
  examined: number;
  /** Subjects whose permissions would move (all pages). */
  affected: number;
  /** People (subjects) per permission gained and lost, over all pages. */
  summary: { action: string; scope: string; gained: number; lost: number }[];
  /** This page of affected subjects: users and service accounts by id, then API keys by id. */
  subjects: SubjectDifference[];
  /** The cursor to pass as `after` for the next page, null on the last. */
  endCursor: string | null;
  hasNextPage: boolean;
}

const CURSOR_PREFIX = 'sim:';

/** The offset a cursor of this list stands for. @throws DomainError VALIDATION_FAILED (400). */
function offsetOf(after: string | null | undefined): number {
  if (after == null) return 0;
  const text = Buffer.from(after, 'base64url').toString('utf8');
  const n = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!Number.isInteger(n) || n < 0) throw new DomainError('VALIDATION_FAILED', 'after: not a cursor of this list');
  return n;
}

const cursorOf = (offset: number): string => Buffer.from(`${CURSOR_PREFIX}${offset}`).toString('base64url');

export class SimulationService {
  constructor(private readonly deps: FeatureDeps) {}

  /**
   * Simulates `{changes, first?, after?}` (inputs.ts simulateInput) in the caller's organization
   * and answers a Simulation. Needs access:simulate. Reads a fixed number of statements per 500
   * subjects reached; writes nothing.
   * @throws DomainError VALIDATION_FAILED (400: a bad change or cursor), TOO_MANY_CHANGES (400:
   *   more than MAX_SIMULATED_CHANGES), ROLE_IS_FIXED / ROLE_NOT_ASSIGNABLE (400: a change no one
   *   may make), 401, ACCESS_DENIED (403: no access:simulate), ROLE_NOT_FOUND / TEAM_NOT_FOUND /
   *   USER_NOT_FOUND (404: a change names nothing of the organization), 404 in oss.
   */
  async simulate(caller: Principal, rawInput: unknown): Promise<Simulation> {
    this.deps.edition.assertAvailable();
    requireSignedIn(caller);
    const index = await this.deps.access.check(caller, simulationRequirements.simulate.for({}));
    if (typeof rawInput === 'object' && rawInput !== null && Array.isArray((rawInput as { changes?: unknown }).changes)) {
      const count = ((rawInput as { changes: unknown[] }).changes as unknown[]).length;
      if (count > MAX_SIMULATED_CHANGES)
        throw new DomainError('TOO_MANY_CHANGES', `changes: at most ${MAX_SIMULATED_CHANGES} changes in one simulation (got ${count})`);
    }
    const input = parseInput(simulateInput, rawInput);
    const offset = offsetOf(input.after);
    const first = input.first ?? DEFAULT_SIMULATION_PAGE;
    const { db } = this.deps;

    const revision = await headRevision(db);
    const resolved = await resolveTargets(db, caller.orgId, input.changes);
    const steps = stepsOf(input.changes, resolved);
    const picture = await loadPicture(db, caller.orgId, input.changes, resolved, this.deps.clock.now());
    const outcome = runSimulation(picture, steps, { caller, index });

    const changes = outcome.refusals.map((refusal, i): ChangeVerdict => {
      const kind = (input.changes[i] as { kind: ChangeKind }).kind;
      if (!refusal) return { change: i, kind, allowed: true, refusal: null };
      return { change: i, kind, allowed: false, refusal: { code: refusal.code, message: refusal.message, status: refusal.status } };
    });
    const end = offset + first;
    return {
      revision,
      allowed: changes.every((c) => c.allowed),
      changes,
      examined: outcome.examined,
      affected: outcome.affected.length,
      summary: summaryOf(outcome.affected),
      subjects: outcome.affected.slice(offset, end),
      endCursor: end < outcome.affected.length ? cursorOf(end) : null,
      hasNextPage: end < outcome.affected.length,
    };
  }
}
