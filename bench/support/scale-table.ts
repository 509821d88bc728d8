/**
 * The table of the scale benchmark (bench/scale.ts): each figure on the large and on the small
 * database, and their ratio (flat in size: close to 1x).
 */
import { HEAVY_ROLES } from '../scale-db.js';
import { fmt, mib, printTable } from './load.js';

/** What one run of bench/scale.ts measures on one database (its module comment). */
export interface Figures {
  /** Medians of the service's own time (its request log's `ms`, 0.1 ms steps) of each kind of request. */
  servedColdMs: number;
  servedWarmMs: number;
  servedAssignMs: number;
  servedCreateMs: number;
  servedPageCachedMs: number;
  /** The first writes after start, their code not yet compiled. */
  firstAssignMs: number;
  firstCreateMs: number;
  startMs: number;
  rssIdle: number;
  coldMs: number;
  coldStartMs: number;
  warmMs: number;
  warmIdentityMs: number;
  coldCpuMs: number;
  warmCpuMs: number;
  assignCpuMs: number;
  createCpuMs: number;
  bareCpuMs: number;
  listingBytes: number;
  listingSentBytes: number;
  listingEncoding: string;
  settingsMs: number;
  bareSmallMs: number;
  bareListingMs: number;
  bareYogaMs: number;
  assignMs: number;
  createMs: number;
  rolesColdMs: number;
  rolesMs: number;
  rolesBytes: number;
  pageColdMs: number;
  pageMs: number;
  pageCachedMs: number;
  pageBytes: number;
  rssAfter: number;
}

const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`;
const kb = (n: number) => (Number.isNaN(n) ? 'streamed' : `${fmt(n / 1e3, 1)} kB`);
/** The figures that are numbers (every one but the listing's encoding). */
type Measured = { [K in keyof Figures]: Figures[K] extends number ? K : never }[keyof Figures];

/** Prints the figures of both databases side by side. */
export function printScaleTable(large: Figures, little: Figures, options: { pageSize: number; cpuRequests: number }): void {
  const row = (name: string, key: Measured, show: (n: number) => string) => [
    name,
    show(large[key]),
    show(little[key]),
    `${fmt(large[key] / little[key], 2)}x`,
  ];
  /** A write's rows: warmed, the service's own time, and the first ones after start. */
  const writeRows = (name: string, warmed: Measured, served: Measured, first: Measured) => [
    row(`${name} (code warmed by 200 writes)`, warmed, ms),
    row("  the service's own time (its log)", served, ms),
    row('  the same among the first writes after start', first, ms),
  ];
  printTable(
    ['figure', 'large', 'small', 'large / small'],
    [
      row('start (spawn to listening)', 'startMs', ms),
      row('RSS 3 s after start', 'rssIdle', mib),
      row(`cold permission listing, ${HEAVY_ROLES}-role user (code warmed by other listings)`, 'coldMs', ms),
      row('  the same among the first requests after start', 'coldStartMs', ms),
      row("  the service's own time (its log, code warmed)", 'servedColdMs', ms),
      row(`warm permission listing, ${HEAVY_ROLES}-role user`, 'warmMs', ms),
      row("  the service's own time (its log)", 'servedWarmMs', ms),
      row('  the same, Accept-Encoding: identity', 'warmIdentityMs', ms),
      row('  its size, JSON', 'listingBytes', kb),
      row(`  its size as sent (${large.listingEncoding})`, 'listingSentBytes', kb),
      row('floor: GET /api/frontend/settings of the service (from memory)', 'settingsMs', ms),
      row('floor: bare node:http, 3 bytes', 'bareSmallMs', ms),
      row("floor: bare node:http, the listing's bytes sent from memory", 'bareListingMs', ms),
      row('floor: bare graphql-yoga, GET { __typename }', 'bareYogaMs', ms),
      ...writeRows('assign a role to a user', 'assignMs', 'servedAssignMs', 'firstAssignMs'),
      ...writeRows('create a role', 'createMs', 'servedCreateMs', 'firstCreateMs'),
      row('GET /api/access-control/roles, cold (after a role write)', 'rolesColdMs', ms),
      row('GET /api/access-control/roles, warm', 'rolesMs', ms),
      row('GET /api/access-control/roles size', 'rolesBytes', (n) => `${fmt(n / 1e6, 2)} MB`),
      row(`a page of ${options.pageSize} roles, cold (after a role write)`, 'pageColdMs', ms),
      row(`a page of ${options.pageSize} roles, again (from the database too)`, 'pageMs', ms),
      row(`a page of ${options.pageSize} roles, listing cached`, 'pageCachedMs', ms),
      row("  the service's own time (its log)", 'servedPageCachedMs', ms),
      row(`a page of ${options.pageSize} roles, size`, 'pageBytes', kb),
      row('server CPU per request: cold listing', 'coldCpuMs', ms),
      row(`server CPU per request: warm listing (${options.cpuRequests} requests)`, 'warmCpuMs', ms),
      row('server CPU per request: assign a role', 'assignCpuMs', ms),
      row('server CPU per request: create a role', 'createCpuMs', ms),
      row(`floor: bare node:http's CPU per request, 3 bytes`, 'bareCpuMs', ms),
      row('RSS after the figures', 'rssAfter', mib),
    ],
  );
}
