/**
 * The one paging rule of every list, on both doors: the directory searches (users, teams,
 * service accounts, organizations, organization members), the audit log, and the lists inside
 * a GraphQL answer that take `first` (Team.members, User.teams).
 *
 * A page size (`perpage` on REST; `perPage`, `first` or `limit` on GraphQL) and a page number
 * (`page`) are read as Grafana reads them (its searches call `c.QueryInt`, i.e. strconv.Atoi, and
 * then replace `perpage <= 0` by 1000 and `page < 1` by 1): a value that is missing or not a whole
 * number is the list's default, and so is one below the smallest. Grafana has no largest page;
 * here a page size above MAX_PAGE_SIZE, or a page number above MAX_PAGE, is refused with 400
 * VALIDATION_FAILED "<field> must be at most <n>", never silently shortened: a client that loops
 * "until a page is shorter than the size I asked" would otherwise stop early and miss rows.
 */
import { z } from 'zod';
import { parseInput } from '../../kernel/inputs.js';

/** Grafana's default `perpage` of its directory searches. */
export const DEFAULT_PER_PAGE = 1000;
/** Largest page size of any list (also Grafana's default page, so every default page is allowed). */
export const MAX_PAGE_SIZE = 1000;
/** Largest page number (GraphQL's Int maximum); pages times sizes stay exact integers. */
export const MAX_PAGE = 2_147_483_647;

/**
 * A whole number as Grafana's QueryInt reads a query string (strconv.Atoi: optional sign,
 * digits), or a GraphQL Int; undefined for anything else (missing, "", "ten", "1.5", " 5").
 */
function wholeNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) return Number(value);
  return undefined;
}

/** `least` and above, else `fallback`; above `max` the schema refuses it. */
const paging = (field: string, least: number, fallback: number, max: number) =>
  z.preprocess(
    (value) => {
      const n = wholeNumber(value);
      return n === undefined || n < least ? fallback : n;
    },
    z.number().max(max, `${field} must be at most ${max}`),
  );

/**
 * A page size `field`: missing, not a whole number or below 1 means `fallback` (the list's
 * default; 0 for "no limit" where a list has one); above MAX_PAGE_SIZE, 400.
 */
export const pageSizeInput = (field: string, fallback: number) => paging(field, 1, fallback, MAX_PAGE_SIZE);

/**
 * A page number `field` counted from `first` (1; 0 for `GET /api/orgs`, whose pages Grafana's
 * store counts from 0): missing, not a whole number or below `first` means `first`; above MAX_PAGE, 400.
 */
export const pageNumberInput = (field: string, first: 0 | 1 = 1) => paging(field, first, first, MAX_PAGE);

/**
 * The page size `value` of `field` under the rule (pageSizeInput), outside an object.
 * @throws DomainError VALIDATION_FAILED (400) "<field> must be at most 1000".
 */
export function pageSize(field: string, value: unknown, fallback: number): number {
  return parseInput(pageSizeInput(field, fallback), value);
}

/**
 * The rows a page size asks for, without refusing: `fallback` when missing, not a whole number
 * or below 1, else the value as given (above the maximum too: such a request is refused when it
 * runs). For the GraphQL cost estimate, which must not throw.
 */
export function requestedRows(value: unknown, fallback: number): number {
  const n = wholeNumber(value);
  return n === undefined || n < 1 ? fallback : n;
}

/** Rows to skip for 1-based `page` of `perPage` (both within the rule's maxima, so the product is exact). */
export function pageOffset(page: number, perPage: number): number {
  return (page - 1) * perPage;
}
