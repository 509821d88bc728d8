/**
 * Shapes every directory feature (users, organizations, teams, service accounts) answers the
 * way Grafana does: avatar addresses, "last seen" times and their age text, search paging, and
 * Go-style case-insensitive JSON keys. One copy each, used by both doors (paging: ./paging.ts).
 */
import { createHash } from 'node:crypto';
import type { Prisma, Team } from '../../generated/prisma/client.js';
import type { PermissionIndex } from '../../kernel/evaluator.js';

/**
 * Grafana's avatar address of `text` (an email): `/avatar/<md5 of the lower-cased text>`; with
 * no text, of `<fallback with only letters and digits>@localhost` (dtos.GetGravatarUrlWithDefault).
 */
export function avatarUrl(text: string, fallback = ''): string {
  const source = text !== '' ? text : `${fallback.replace(/[^a-zA-Z0-9]+/g, '')}@localhost`;
  return `/avatar/${createHash('md5').update(source.toLowerCase(), 'utf8').digest('hex')}`;
}

/**
 * Grafana's age text of a time (util.GetAgeString): whole years "3y", else months "2M", days
 * "5d", hours "4h", minutes "7m", else "< 1 minute".
 */
export function ageString(then: Date, now: Date): string {
  const minutes = Math.max(0, (now.getTime() - then.getTime()) / 60_000);
  const units: [number, string][] = [
    [525_600, 'y'],
    [43_800, 'M'],
    [1_440, 'd'],
    [60, 'h'],
    [1, 'm'],
  ];
  for (const [size, unit] of units) {
    const amount = Math.floor(minutes / size);
    if (amount > 0) return `${amount}${unit}`;
  }
  return '< 1 minute';
}

/** A user never seen is shown as seen this many years before its creation, as Grafana stores it. */
const NEVER_SEEN_YEARS = 10;

/**
 * When a user was last seen: its stored `lastSeenAt` (its last authenticated request, any
 * credential: modules/sessions/last-seen.ts), or for a user never seen Grafana's "created minus
 * 10 years" (new users get that last_seen_at).
 */
export function lastSeenAt(seen: Date | null | undefined, created: Date): Date {
  if (seen) return seen;
  const never = new Date(created);
  never.setUTCFullYear(never.getUTCFullYear() - NEVER_SEEN_YEARS);
  return never;
}

/** One page of a directory search (Grafana's SearchTeamQueryResult / SearchOrgServiceAccountsResult). */
export interface SearchPage<T> {
  totalCount: number;
  page: number;
  perPage: number;
  rows: T[];
  /** Per row id, the caller's actions on it; only when the search asked for `accessControl`. */
  accessControl?: Map<number, Record<string, boolean>>;
}

/**
 * A search page of `rows` (one page of `totalCount` matches for `params`), with each row's
 * `accessControl` metadata when the search asked for it; `scopeOf(id)` is a row's scope.
 */
export function searchPage<T extends { id: number }>(
  params: { page: number; perPage: number; accessControl?: boolean | null | undefined },
  totalCount: number,
  rows: T[],
  index: PermissionIndex,
  scopeOf: (id: number) => string,
): SearchPage<T> {
  const page: SearchPage<T> = { totalCount, page: params.page, perPage: params.perPage, rows };
  if (params.accessControl) page.accessControl = new Map(rows.map((r) => [r.id, accessControlMetadata(index, scopeOf(r.id))]));
  return page;
}

/**
 * Grafana's JSON of a search page: `{totalCount, <key>: rows as JSON, page, perPage}`
 * (SearchTeamQueryResult `teams`, SearchOrgServiceAccountsResult `serviceAccounts`).
 */
export function searchPageJson<T extends { id: number }, J>(
  page: SearchPage<T>,
  key: string,
  toJson: (row: T, accessControl?: Record<string, boolean>) => J,
): Record<string, unknown> {
  return {
    totalCount: page.totalCount,
    [key]: page.rows.map((r) => toJson(r, page.accessControl?.get(r.id))),
    page: page.page,
    perPage: page.perPage,
  };
}

/**
 * Grafana's `accessControl` metadata of one object: every action `index` holds on a scope that
 * covers `scope` (`teams:id:7`, `serviceaccounts:id:3`), as `{action: true}`. Scopeless
 * permissions cover no object. Source: Grafana's accesscontrol.GetResourcesMetadata.
 */
export function accessControlMetadata(index: PermissionIndex, scope: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const { action } of index.list()) if (!(action in out) && index.matches(action, scope)) out[action] = true;
  return out;
}

/**
 * A JSON body with its keys matched to `keys` in any case, as Go's JSON decoding does for
 * Grafana (its OpenAPI spells UpdateTeamCommand `Name`, `Email`); other values pass unchanged.
 */
export function grafanaBody(body: unknown, keys: readonly string[]): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const known = keys.find((k) => k.toLowerCase() === key.toLowerCase()) ?? key;
    if (!(known in out) || known === key) out[known] = value;
  }
  return out;
}

/** Grafana's TeamDTO. */
export interface TeamJson {
  id: number;
  orgId: number;
  name: string;
  email: string;
  avatarUrl: string;
  memberCount: number;
  /** The caller's team permission in Grafana (0 member, 4 admin); this service has no team admins. */
  permission: number;
  accessControl?: Record<string, boolean>;
}

/** Loads each team's member count with it. */
export const WITH_MEMBER_COUNT = { include: { _count: { select: { members: true } } } } satisfies { include: Prisma.TeamInclude };
/** A team row with its member count. */
export type CountedTeam = Team & { _count: { members: number } };

/** A team row loaded WITH_MEMBER_COUNT as Grafana's TeamDTO. */
export function teamToJson(team: CountedTeam, accessControl?: Record<string, boolean>): TeamJson {
  return {
    id: team.id,
    orgId: team.orgId,
    name: team.name,
    email: team.email,
    avatarUrl: avatarUrl(team.email, team.name),
    memberCount: team._count.members,
    permission: 0,
    ...(accessControl && { accessControl }),
  };
}
