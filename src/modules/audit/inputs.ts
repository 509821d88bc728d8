/**
 * Inputs of the audit log: the filter both doors take (REST query string,
 * GraphQL `AuditEventFilter`), and the two ways of paging, Grafana's search paging on REST
 * (`perpage`, `page`, as `/api/users/search`) and Relay's cursor paging on GraphQL
 * (`first`/`after` or `last`/`before`: shared/connection-args.ts).
 */
import { z } from 'zod';
import { OBJECT_ERROR, wholeNumberText } from '../../kernel/inputs.js';
import { pageNumberInput, pageSizeInput } from '../shared/paging.js';

/** Events per page when none is asked for (at most MAX_PAGE_SIZE, the rule of every list: shared/paging.ts). */
export const DEFAULT_AUDIT_PAGE_SIZE = 100;
/** Longest text filter accepted (actions, kinds, ids and logins are far shorter). */
const MAX_FILTER_LENGTH = 190;
const MAX_INT = 2_147_483_647;

/** Actor kinds recorded (kernel/audit.ts): users, service accounts, API keys, the local operator. */
export const AUDIT_ACTOR_KINDS = ['user', 'serviceAccount', 'apiKey', 'local'] as const;

const text = (field: string) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} must not be empty`)
    .max(MAX_FILTER_LENGTH, `${field} is longer than ${MAX_FILTER_LENGTH} characters`)
    .nullish();

/** A whole number 0..2^31-1, from a GraphQL Int or a REST query string of digits. */
const wholeNumber = (field: string, min: number) =>
  z.preprocess(
    (value) => (typeof value === 'string' ? (wholeNumberText(value) ?? value) : value),
    z
      .number({ error: `${field} must be a whole number` })
      .int(`${field} must be a whole number`)
      .min(min, `${field} must be at least ${min}`)
      .max(MAX_INT, `${field} is too large`),
  );

/**
 * A time: a Date (GraphQL DateTime), an ISO 8601 string, or milliseconds since the epoch as a
 * string of digits (Grafana's `from`/`to` in its annotation and search APIs).
 */
const time = (field: string) =>
  z.preprocess(
    (value) => {
      if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return new Date(Number(value));
      if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) return new Date(value);
      return value;
    },
    z
      .date({ error: `${field} must be an ISO 8601 time or milliseconds since the epoch` })
      .refine((d) => !Number.isNaN(d.getTime()), `${field} must be an ISO 8601 time or milliseconds since the epoch`),
  );

/**
 * The filter of an audit listing; every field is optional and they combine with AND.
 * - `action`: exactly this action (`role.create`); `actionPrefix`: actions starting with it
 *   (`role.`, `user_role.`), compared case-sensitively;
 * - `resourceKind` / `resourceId`: the changed object (`role` + uid, `user` + id, ...);
 * - `actorKind` / `actorId` / `actorLogin`: who made the change (`actorLogin` is the login, or
 *   an API key's name);
 * - `orgId`: events of one organization, 0 for global ones (Service Admins only: anyone else
 *   sees the organization it acts in);
 * - `from` / `to`: creation time bounds, both inclusive.
 */
export const auditFilterInput = z
  .object(
    {
      action: text('action'),
      actionPrefix: text('actionPrefix'),
      resourceKind: text('resourceKind'),
      resourceId: text('resourceId'),
      actorKind: z.enum(AUDIT_ACTOR_KINDS, { error: `actorKind must be one of ${AUDIT_ACTOR_KINDS.join(', ')}` }).nullish(),
      actorId: wholeNumber('actorId', 0).nullish(),
      actorLogin: text('actorLogin'),
      orgId: wholeNumber('orgId', 0).nullish(),
      from: time('from').nullish(),
      to: time('to').nullish(),
    },
    OBJECT_ERROR,
  )
  .refine((f) => !f.from || !f.to || f.from.getTime() <= f.to.getTime(), { message: 'from must not be after to', path: ['from'] });

/** A parsed filter. */
export type AuditFilter = z.output<typeof auditFilterInput>;

/** REST paging, Grafana's search style: `perpage` (default 100, at most 1000) and `page` (from 1), as every list (shared/paging.ts). */
export const auditPageInput = z.object({
  perpage: pageSizeInput('perpage', DEFAULT_AUDIT_PAGE_SIZE),
  page: pageNumberInput('page'),
});
