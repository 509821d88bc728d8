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
  healthMs: number;
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
const row = (name: string, a: number, b: number, show: (n: number) => string) => [name, show(a), show(b), `${fmt(a / b, 2)}x`];

/** Prints the figures of both databases side by side. */
export function printScaleTable(large: Figures, little: Figures, options: { pageSize: number; cpuRequests: number }): void {
  printTable(
    ['figure', 'large', 'small', 'large / small'],
    [
      row('start (spawn to listening)', large.startMs, little.startMs, ms),
      row('RSS 3 s after start', large.rssIdle, little.rssIdle, mib),
      row(`cold permission listing, ${HEAVY_ROLES}-role user (code warmed by other listings)`, large.coldMs, little.coldMs, ms),
      row('  the same among the first requests after start', large.coldStartMs, little.coldStartMs, ms),
      row("  the service's own time (its log, code warmed)", large.servedColdMs, little.servedColdMs, ms),
      row(`warm permission listing, ${HEAVY_ROLES}-role user`, large.warmMs, little.warmMs, ms),
      row("  the service's own time (its log)", large.servedWarmMs, little.servedWarmMs, ms),
      row('  the same, Accept-Encoding: identity', large.warmIdentityMs, little.warmIdentityMs, ms),
      row('  its size, JSON', large.listingBytes, little.listingBytes, kb),
      row(`  its size as sent (${large.listingEncoding})`, large.listingSentBytes, little.listingSentBytes, kb),
      row('floor: GET /api/health of the service', large.healthMs, little.healthMs, ms),
      row('floor: bare node:http, 3 bytes', large.bareSmallMs, little.bareSmallMs, ms),
      row("floor: bare node:http, the listing's bytes sent from memory", large.bareListingMs, little.bareListingMs, ms),
      row('floor: bare graphql-yoga, GET { __typename }', large.bareYogaMs, little.bareYogaMs, ms),
      row('assign a role to a user (code warmed by 200 writes)', large.assignMs, little.assignMs, ms),
      row("  the service's own time (its log)", large.servedAssignMs, little.servedAssignMs, ms),
      row('  the same among the first writes after start', large.firstAssignMs, little.firstAssignMs, ms),
      row('create a role (code warmed by 200 writes)', large.createMs, little.createMs, ms),
      row("  the service's own time (its log)", large.servedCreateMs, little.servedCreateMs, ms),
      row('  the same among the first writes after start', large.firstCreateMs, little.firstCreateMs, ms),
      row('GET /api/access-control/roles, cold (after a role write)', large.rolesColdMs, little.rolesColdMs, ms),
      row('GET /api/access-control/roles, warm', large.rolesMs, little.rolesMs, ms),
      row('GET /api/access-control/roles size', large.rolesBytes, little.rolesBytes, (n) => `${fmt(n / 1e6, 2)} MB`),
      row(`a page of ${options.pageSize} roles, cold (after a role write)`, large.pageColdMs, little.pageColdMs, ms),
      row(`a page of ${options.pageSize} roles, again (from the database too)`, large.pageMs, little.pageMs, ms),
      row(`a page of ${options.pageSize} roles, listing cached`, large.pageCachedMs, little.pageCachedMs, ms),
      row("  the service's own time (its log)", large.servedPageCachedMs, little.servedPageCachedMs, ms),
      row(`a page of ${options.pageSize} roles, size`, large.pageBytes, little.pageBytes, kb),
      row('server CPU per request: cold listing', large.coldCpuMs, little.coldCpuMs, ms),
      row(`server CPU per request: warm listing (${options.cpuRequests} requests)`, large.warmCpuMs, little.warmCpuMs, ms),
      row('server CPU per request: assign a role', large.assignCpuMs, little.assignCpuMs, ms),
      row('server CPU per request: create a role', large.createCpuMs, little.createCpuMs, ms),
      row(`floor: bare node:http's CPU per request, 3 bytes`, large.bareCpuMs, little.bareCpuMs, ms),
      row('RSS after the figures', large.rssAfter, little.rssAfter, mib),
    ],
  );
}
