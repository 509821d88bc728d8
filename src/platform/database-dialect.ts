/**
 * Queries written once for both databases where SQLite and PostgreSQL differ: text filters with
 * Grafana's letter-case rules, and the id sequence after explicit ids. The provider is the one
 * `openDatabase` recorded for the client (database.ts providerOf).
 */
import type { Prisma } from '../generated/prisma/client.js';
import { type Db, providerOf, type Tx } from './database.js';

/**
 * A filter for text containing `text`, ignoring the case of ASCII letters on both databases, as
 * Grafana's searches do (LIKE on SQLite, ILIKE on PostgreSQL): SQLite's LIKE already ignores
 * ASCII case, PostgreSQL's LIKE does not, so there Prisma's `mode: 'insensitive'` (ILIKE) is
 * added (under the C locale of our test clusters ILIKE too folds ASCII letters only).
 */
export function containsText(db: Db, text: string): { contains: string } {
  return providerOf(db) === 'postgresql' ? ({ contains: text, mode: 'insensitive' } as { contains: string }) : { contains: text };
}

/**
 * A filter for text starting with `prefix`, letter case included, on both databases. SQLite's
 * LIKE (Prisma's `startsWith`) ignores ASCII case, so there it is a range
 * [prefix, prefix + U+10FFFF), exact under SQLite's code-point order; PostgreSQL's LIKE is
 * case-sensitive and, unlike a range, right under any collation.
 */
export function startsWithExactly(db: Db, prefix: string): { startsWith: string } | { gte: string; lt: string } {
  return providerOf(db) === 'postgresql' ? { startsWith: prefix } : { gte: prefix, lt: `${prefix}\u{10FFFF}` };
}

/**
 * After rows were inserted into `table` with explicit ids (the seed's organization 1): moves
 * PostgreSQL's id sequence past the largest id, so the next generated id does not collide
 * (P2002 on "id"). SQLite needs nothing: its rowid allocation follows explicit ids.
 */
export async function afterExplicitIds(db: Db, tx: Tx, table: Prisma.ModelName): Promise<void> {
  if (providerOf(db) !== 'postgresql') return;
  await tx.$queryRawUnsafe(`SELECT setval(pg_get_serial_sequence('"${table}"', 'id'), (SELECT MAX("id") FROM "${table}"))`);
}

/**
 * A filter for text starting with `prefix`, ignoring the case of ASCII letters on both databases,
 * as Grafana's prefix searches do (LIKE on SQLite, ILIKE on PostgreSQL); see containsText.
 */
export function startsWithText(db: Db, prefix: string): { startsWith: string } {
  return providerOf(db) === 'postgresql' ? ({ startsWith: prefix, mode: 'insensitive' } as { startsWith: string }) : { startsWith: prefix };
}
