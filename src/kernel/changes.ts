/**
 * The change records behind the change feed and read-your-writes: every write transaction that
 * records audit events (kernel/audit.ts `recordAudit`) also appends one `AccessChange` row, in the
 * same transaction, summarizing them: its revision, the time, the organization, the actor, the
 * audit actions and the users, roles, teams and API keys they touched.
 *
 * The revision is the row's autoincrement key. Every write transaction holds the write lock
 * (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock: platform/database-postgres.ts) from its
 * first statement to its commit, so revisions are allocated and committed in the same order: a
 * reader that saw revision R has seen every change up to R. `AccessService.write` collects the
 * events of its transaction (`collectChanges`) and appends one row for all of them; a transaction
 * opened elsewhere (provisioning at start, product registration, a sign-in that creates a user)
 * that records events with nothing collecting them gets one row per event, still in its
 * transaction.
 */
import type { Tx } from '../platform/database.js';
import { isLocalOperator, type Principal } from './principal.js';

/** One audit event as a change record reads it (audit.ts AuditChange has this shape). */
export interface NotedChange {
  action: string;
  orgId: number;
  resource: { kind: string; id: string | number };
  before?: unknown;
  after?: unknown;
}

/** What one write transaction changed, as its change record keeps it. */
export interface ChangeSummary {
  /** Organization of every event, 0 when global or when the events span several. */
  orgId: number;
  /** The audit actions, in order. */
  kinds: string[];
  /** User and service-account ids, sorted. */
  users: number[];
  /** Role uids, sorted. */
  roles: string[];
  /** Team ids, sorted. */
  teams: number[];
  /** API key and service-account token ids, sorted. */
  apiKeys: number[];
}

/** A whole positive number from an id or a part of "<a>:<b>"; undefined for anything else. */
function idOf(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** `roleUids` of an assignment's before/after snapshot (assignments/core.ts), if it has them. */
function roleUidsOf(snapshot: unknown): string[] {
  const uids = typeof snapshot === 'object' && snapshot !== null ? (snapshot as { roleUids?: unknown }).roleUids : undefined;
  return Array.isArray(uids) ? uids.filter((uid): uid is string => typeof uid === 'string') : [];
}

/** Collects the audit events of one transaction into one change record (module comment). */
export class ChangeCollector {
  private actor: Principal | undefined;
  private readonly kinds: string[] = [];
  private readonly orgIds = new Set<number>();
  private readonly users = new Set<number>();
  private readonly roles = new Set<string>();
  private readonly teams = new Set<number>();
  private readonly apiKeys = new Set<number>();

  /** Adds one audit event made by `actor`; the first event's actor is the record's. */
  add(actor: Principal, change: NotedChange): void {
    this.actor ??= actor;
    this.kinds.push(change.action);
    const { kind, id } = change.resource;
    const [first, second] = String(id).split(':');
    switch (kind) {
      case 'user':
      case 'service_account':
        this.put(this.users, idOf(id));
        break;
      case 'org_user':
        this.orgIds.add(idOf(first) ?? 0);
        this.put(this.users, idOf(second));
        break;
      case 'team':
        this.put(this.teams, idOf(id));
        break;
      case 'team_member':
        this.put(this.teams, idOf(first));
        this.put(this.users, idOf(second));
        break;
      case 'role':
        this.roles.add(String(id));
        break;
      case 'api_key':
      case 'service_account_token':
        this.put(this.apiKeys, idOf(id));
        break;
      case 'access_request': {
        // Its snapshots name the requester and the role asked for (modules/access-requests/records.ts).
        const { requesterId, roleUid } = (change.after ?? change.before ?? {}) as { requesterId?: unknown; roleUid?: unknown };
        this.put(this.users, idOf(requesterId));
        if (typeof roleUid === 'string') this.roles.add(roleUid);
        break;
      }
    }
    // An assignment names its subject as the resource and its roles in the snapshots: the roles
    // added or removed are the ones in one snapshot and not the other.
    const before = new Set(roleUidsOf(change.before));
    const after = new Set(roleUidsOf(change.after));
    for (const uid of before) if (!after.has(uid)) this.roles.add(uid);
    for (const uid of after) if (!before.has(uid)) this.roles.add(uid);
    this.orgIds.add(kind === 'org' ? (idOf(id) ?? 0) : change.orgId);
  }

  /** True until an event was added. */
  get empty(): boolean {
    return this.kinds.length === 0;
  }

  /** The summary of the events added so far. */
  summary(): ChangeSummary {
    const byNumber = (a: number, b: number) => a - b;
    return {
      orgId: this.orgIds.size === 1 ? ([...this.orgIds][0] as number) : 0,
      kinds: [...this.kinds],
      users: [...this.users].sort(byNumber),
      roles: [...this.roles].sort(),
      teams: [...this.teams].sort(byNumber),
      apiKeys: [...this.apiKeys].sort(byNumber),
    };
  }

  /**
   * Appends the change record of the events added, in `tx`; returns its revision, or undefined
   * when no event was added (nothing is written).
   * @throws whatever the insert throws (the transaction then rolls back).
   */
  async append(tx: Tx): Promise<number | undefined> {
    const actor = this.actor;
    if (!actor) return undefined;
    const summary = this.summary();
    const row = await tx.accessChange.create({
      data: {
        orgId: summary.orgId,
        actorKind: isLocalOperator(actor) ? 'local' : actor.kind,
        actorId: actor.id,
        actorLogin: 'login' in actor ? actor.login : 'name' in actor ? actor.name : '',
        kinds: JSON.stringify(summary.kinds),
        users: JSON.stringify(summary.users),
        roles: JSON.stringify(summary.roles),
        teams: JSON.stringify(summary.teams),
        apiKeys: JSON.stringify(summary.apiKeys),
      },
      select: { revision: true },
    });
    return row.revision;
  }

  private put<T>(set: Set<T>, value: T | undefined): void {
    if (value !== undefined) set.add(value);
  }
}

/** The collector of each transaction `AccessService.write` runs, by its transaction client. */
const collectors = new WeakMap<object, ChangeCollector>();

/** Starts collecting the audit events recorded in `tx`; `AccessService.write` appends them at its end. */
export function collectChanges(tx: Tx): ChangeCollector {
  const collector = new ChangeCollector();
  collectors.set(tx, collector);
  return collector;
}

/**
 * Notes one audit event of `tx` for its change record: added to the transaction's collector,
 * or, in a transaction nothing collects for, appended at once as a record of its own.
 * @throws whatever the insert throws.
 */
export async function noteChange(tx: Tx, actor: Principal, change: NotedChange): Promise<void> {
  const collector = collectors.get(tx);
  if (collector) {
    collector.add(actor, change);
    return;
  }
  const own = new ChangeCollector();
  own.add(actor, change);
  await own.append(tx);
}

/** Listeners told of each commit that wrote a change record (AccessService.commits). */
export class CommitSignal {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` after every such commit; returns the function that stops it. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener. */
  notify(): void {
    for (const listener of this.listeners) listener();
  }
}
