/**
 * What the signed-in caller may do, from its effective permissions (`viewer.permissions`), so
 * the console shows only the controls the caller may use. A hint for the eye only: the server
 * checks every request itself, and a control shown by mistake just gets its 403.
 *
 * The matching rule is the server's (src/kernel/evaluator.ts): a check without scope needs the
 * action under any scope; with a scope, a held scope equal to it, `*`, or a held `<prefix>:*`
 * the target starts with.
 */

/** One held permission ("" when it has no scope). */
export interface Held {
  action: string;
  scope: string;
}

const DELEGATE = 'permissions:type:delegate';
export const ESCALATE = 'permissions:type:escalate';

export class Access {
  private readonly byAction = new Map<string, string[]>();

  constructor(permissions: readonly Held[]) {
    for (const { action, scope } of permissions) {
      const scopes = this.byAction.get(action);
      if (scopes) scopes.push(scope);
      else this.byAction.set(action, [scope]);
    }
  }

  /** Holds `action` (on `scope` when given). */
  can(action: string, scope?: string): boolean {
    const held = this.byAction.get(action);
    if (!held) return false;
    if (scope === undefined) return true;
    return held.some((h) => h === '*' || (h !== '' && h === scope) || (h.endsWith(':*') && scope.startsWith(h.slice(0, -1))));
  }

  /**
   * A role-management action (roles:write, users.roles:add, ...): held on
   * permissions:type:delegate or :escalate, the two scopes the server accepts for it.
   */
  canManage(action: string): boolean {
    return this.can(action, DELEGATE) || this.can(action, ESCALATE);
  }

  /**
   * Holds every one of `permissions`, as the server's delegation rule counts it
   * (src/kernel/evaluator.ts `PermissionIndex.covers`): a permission without scope is covered by
   * the action under any scope, one with a scope as `can` matches it.
   */
  covers(permissions: readonly Held[]): boolean {
    return permissions.every((p) => (p.scope === '' ? this.can(p.action) : this.can(p.action, p.scope)));
  }

  /** Every held scope of `action`, for suggestions. */
  scopesOf(action: string): string[] {
    return [...new Set(this.byAction.get(action) ?? [])].filter((s) => s !== '').sort();
  }

  /** Every held action, sorted. */
  actions(): string[] {
    return [...this.byAction.keys()].sort();
  }
}
