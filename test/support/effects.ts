/**
 * What a request left behind, read straight from the database (so a test asserts the effect, not
 * only the answer), and Grafana's avatar URLs computed the way Grafana computes them (md5 of the
 * email, or of `<name letters and digits>@localhost`), independently of the service's code.
 */
import { createHash } from 'node:crypto';
import type { AuditEvent } from '../../src/generated/prisma/client.js';
import type { TestApp } from './app.js';

/** An audit event as the tests compare it: the row with `before` and `after` parsed (null when absent). */
export type ParsedAuditEvent = Omit<AuditEvent, 'before' | 'after'> & { before: unknown; after: unknown };

/** The audit events of `action` on `resourceId`, oldest first, with parsed snapshots. */
export async function auditOf(app: TestApp, action: string, resourceId: string | number): Promise<ParsedAuditEvent[]> {
  const rows = await app.database.prisma.auditEvent.findMany({ where: { action, resourceId: String(resourceId) }, orderBy: { id: 'asc' } });
  return rows.map((r) => ({ ...r, before: r.before && JSON.parse(r.before), after: r.after && JSON.parse(r.after) }));
}

/** The user ids of team `teamId`'s members, ascending. */
export async function teamMemberIds(app: TestApp, teamId: number): Promise<number[]> {
  const rows = await app.database.prisma.teamMember.findMany({ where: { teamId }, orderBy: { userId: 'asc' } });
  return rows.map((m) => m.userId);
}

/** Hex md5 of `text`. */
export const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

/** Grafana's avatar URL of an email address. */
export const emailAvatar = (email: string): string => `/avatar/${md5(email)}`;

/** Grafana's avatar URL of something without an email (a team, a service account): by its name's letters and digits. */
export const nameAvatar = (name: string): string => emailAvatar(`${name.replace(/[^a-zA-Z0-9]+/g, '')}@localhost`.toLowerCase());
