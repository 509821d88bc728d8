/**
 * Read-your-writes on both doors. A write that committed a change record answers its revision
 * (REST: the `X-Access-Revision` header; GraphQL: `extensions.revision`); a later request to any
 * replica may carry `X-Access-Revision-At-Least: <revision>` to be answered at that revision or
 * later. Every request already applies each change committed before it arrived
 * (AccessService.authenticate), so the header is met at once when the revision was issued, and
 * answered 400 REVISION_NOT_ISSUED when it never was (ChangeFeedService.requireRevision).
 */

/** The answer header carrying the revision a write committed. */
export const REVISION_HEADER = 'x-access-revision';
/** The request header asking for an answer at a revision or later. */
export const AT_LEAST_HEADER = 'x-access-revision-at-least';
