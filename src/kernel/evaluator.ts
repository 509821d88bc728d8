/**
 * Permission evaluation: an index over a principal's permissions, built once per principal and
 * reused for every check, and composable evaluators (permission / all / any) checked against it.
 *
 * Rules (upstream-behaviour.md "Permission evaluation", Grafana's accesscontrol evaluator):
 * - a check names an action and zero or more target scopes; the holder needs the action, and
 *   when targets are given one of its scopes for that action must match one of the targets;
 * - a held scope ending in `*` (`*` alone, or after `:`) matches every target starting with the
 *   part before the `*`; any other held scope must equal the target; a held "" (no scope)
 *   matches no target.
 *
 * Cost: a check is one Map lookup plus, for wildcard holders, one Set lookup per `:` in the
 * target, independent of how many permissions the principal holds (see bench/evaluator.ts).
 */
import type { PermissionPair } from './catalogue.js';

interface ActionScopes {
  /** Held `*`: matches every target. */
  all: boolean;
  /** Held scopes without wildcard (including ""). */
  exact: Set<string>;
  /** Held wildcard scopes, stored without the trailing `*` (each ends with `:`). */
  prefixes: Set<string>;
  /** The same prefixes as an array, scanned with startsWith while there are few of them. */
  prefixList: string[];
}

/**
 * Up to this many wildcard prefixes per action a check scans them with `startsWith` (no
 * allocation); past it, it looks up each `:`-bounded prefix of the target in the Set, whose cost
 * does not grow with the number held. Measured with bench/evaluator.ts.
 */
const PREFIX_SCAN_LIMIT = 8;

/**
 * A permission held only through time-bound assignments: held until `until` (milliseconds since
 * the epoch, the latest end among them). The delegation rule reads it (`through`).
 */
export interface EndingPermission extends PermissionPair {
  until: number;
}

/** Immutable index of a set of permissions, keyed by action. */
export class PermissionIndex {
  private readonly byAction: Map<string, ActionScopes>;
  /** `pairs()`, once asked (the index is immutable). */
  private sortedPairs: readonly Readonly<PermissionPair>[] | undefined;
  /** `scopeMap()`, once asked. */
  private scopes: Readonly<Record<string, readonly string[]>> | undefined;
  /** The held permissions that end, each with its end; [] when every one is held for good. */
  readonly ending: readonly EndingPermission[];

  private constructor(byAction: Map<string, ActionScopes>, ending: readonly EndingPermission[]) {
    this.byAction = byAction;
    this.ending = ending;
  }

  /** An index with no permissions (anonymous callers). */
  static readonly EMPTY = PermissionIndex.from([]);

  /**
   * Builds the index; duplicates collapse. O(n) in the number of permissions. `ending`: those of
   * `permissions` held only until a moment (EndingPermission), none by default.
   */
  static from(permissions: Iterable<PermissionPair>, ending: readonly EndingPermission[] = []): PermissionIndex {
    const byAction = new Map<string, ActionScopes>();
    for (const { action, scope } of permissions) {
      let entry = byAction.get(action);
      if (!entry) {
        entry = { all: false, exact: new Set(), prefixes: new Set(), prefixList: [] };
        byAction.set(action, entry);
      }
      if (scope === '*') entry.all = true;
      else if (scope.endsWith(':*')) {
        const prefix = scope.slice(0, -1);
        if (!entry.prefixes.has(prefix)) {
          entry.prefixes.add(prefix);
          entry.prefixList.push(prefix);
        }
      } else entry.exact.add(scope);
    }
    return new PermissionIndex(byAction, ending);
  }

  /**
   * The index of what is held at least until `end` (milliseconds since the epoch; null: for
   * good): this one less the ending permissions that end before it. The delegation rule's view
   * (delegation.ts): a caller whose hold ends at T grants nothing past T.
   */
  through(end: number | null): PermissionIndex {
    if (this.ending.length === 0) return this;
    const dropped = new Set<string>();
    const kept: EndingPermission[] = [];
    for (const e of this.ending) {
      if (end === null || e.until < end) dropped.add(`${e.action}\u0000${e.scope}`);
      else kept.push(e);
    }
    if (dropped.size === 0) return this;
    return PermissionIndex.from(
      this.pairs().filter((p) => !dropped.has(`${p.action}\u0000${p.scope}`)),
      kept,
    );
  }

  /** True when any permission with this action is held, whatever its scope. */
  hasAction(action: string): boolean {
    return this.byAction.has(action);
  }

  /** True when a held scope for `action` matches `target` (rules in the module comment). */
  matches(action: string, target: string): boolean {
    const entry = this.byAction.get(action);
    if (!entry) return false;
    if (entry.all) return true;
    if (target !== '' && entry.exact.has(target)) return true;
    const list = entry.prefixList;
    if (list.length <= PREFIX_SCAN_LIMIT) {
      for (let i = 0; i < list.length; i++) if (target.startsWith(list[i] as string)) return true;
      return false;
    }
    for (let i = target.indexOf(':'); i !== -1; i = target.indexOf(':', i + 1)) {
      if (entry.prefixes.has(target.slice(0, i + 1))) return true;
    }
    return false;
  }

  /**
   * Delegation: true when holding `permission` grants nothing this index does not already
   * grant. A role scope is covered by an equal held scope or a held wildcard whose prefix it
   * starts with (so `users:*` is not covered by `users:id:*`); a scopeless role permission
   * passes only scopeless checks, so holding the action under any scope covers it.
   * Source: upstream-behaviour.md "Delegation".
   */
  covers(permission: PermissionPair): boolean {
    if (permission.scope === '') return this.hasAction(permission.action);
    return this.matches(permission.action, permission.scope);
  }

  /** The permissions of `wanted` this index does not cover; [] when delegation is allowed. */
  uncovered(wanted: Iterable<PermissionPair>): PermissionPair[] {
    const missing: PermissionPair[] = [];
    for (const permission of wanted) if (!this.covers(permission)) missing.push(permission);
    return missing;
  }

  /** Map action -> sorted scopes, the shape of GET /api/access-control/user/permissions (a new object each call). */
  toScopeMap(): Record<string, string[]> {
    return Object.fromEntries(Object.entries(this.scopeMap()).map(([action, scopes]) => [action, [...scopes]]));
  }

  /**
   * `toScopeMap()` made once and deeply frozen: the same object for every request of a cached
   * index, so the REST door serializes and compresses it once (http/answer-cache.ts).
   */
  scopeMap(): Readonly<Record<string, readonly string[]>> {
    if (!this.scopes) {
      const out: Record<string, string[]> = {};
      for (const { action, scope } of this.pairs()) {
        const scopes = out[action];
        if (scopes) scopes.push(scope);
        else out[action] = [scope];
      }
      for (const scopes of Object.values(out)) Object.freeze(scopes);
      this.scopes = Object.freeze(out);
    }
    return this.scopes;
  }

  /** Every held permission, sorted by action then scope (a new array each call). */
  list(): PermissionPair[] {
    return [...this.pairs()];
  }

  /**
   * The sorted pairs, computed once and deeply frozen: an index never changes after `from`, and
   * a cached one is listed by every request of its principal (else the sort would run on each of
   * them; the same array lets the REST door reuse its JSON, http/answer-cache.ts).
   */
  pairs(): readonly Readonly<PermissionPair>[] {
    if (!this.sortedPairs) {
      const out: Readonly<PermissionPair>[] = [];
      for (const action of [...this.byAction.keys()].sort()) {
        for (const scope of this.scopesOf(action)) out.push(Object.freeze({ action, scope }));
      }
      this.sortedPairs = Object.freeze(out);
    }
    return this.sortedPairs;
  }

  /** Number of distinct (action, scope) pairs held. */
  get size(): number {
    let n = 0;
    for (const e of this.byAction.values()) n += (e.all ? 1 : 0) + e.exact.size + e.prefixes.size;
    return n;
  }

  private scopesOf(action: string): string[] {
    const e = this.byAction.get(action);
    if (!e) return [];
    const scopes = [...e.exact, ...[...e.prefixes].map((p) => `${p}*`)];
    if (e.all) scopes.push('*');
    return scopes.sort();
  }
}

/** A composable access check. `describe` is what a 403 names as "Permissions needed". */
export interface Evaluator {
  evaluate(index: PermissionIndex): boolean;
  describe(): string;
  /** The same for people: `roles:read on roles:*`, joined with "and" / "or". */
  summary(): string;
}

/** Needs `action`, and when scopes are given, a held scope matching one of them. */
export function permission(action: string, ...scopes: string[]): Evaluator {
  return {
    evaluate(index) {
      if (scopes.length === 0) return index.hasAction(action);
      for (const target of scopes) if (index.matches(action, target)) return true;
      return false;
    },
    describe() {
      return scopes.length === 0 ? `action: ${action}` : `action: ${action} scopes: ${scopes.join(', ')}`;
    },
    summary() {
      return scopes.length === 0 ? action : `${action} on ${scopes.join(' or ')}`;
    },
  };
}

/** Passes when every evaluator passes (and when given none). */
export function all(...evaluators: Evaluator[]): Evaluator {
  return {
    evaluate: (index) => evaluators.every((e) => e.evaluate(index)),
    describe: () =>
      evaluators.length === 1 ? (evaluators[0] as Evaluator).describe() : `all(${evaluators.map((e) => e.describe()).join(' ')})`,
    summary: () => evaluators.map((e) => e.summary()).join(' and '),
  };
}

/** Passes when at least one evaluator passes (never when given none). */
export function any(...evaluators: Evaluator[]): Evaluator {
  return {
    evaluate: (index) => evaluators.some((e) => e.evaluate(index)),
    describe: () =>
      evaluators.length === 1 ? (evaluators[0] as Evaluator).describe() : `any(${evaluators.map((e) => e.describe()).join(' ')})`,
    summary: () => evaluators.map((e) => e.summary()).join(' or '),
  };
}
