/**
 * GraphQL door of the access review: `accessReview` (who has an action and through what) and
 * `subjectAccess` (everything one subject can do and why). Resolvers call AccessReviewService,
 * the same the REST routes call; the streamed export is REST's (rest.ts).
 */
import { needs } from '../../kernel/requirements.js';
import { AccessGrant } from '../permissions/graphql.js';
import { builder } from '../shared/builder.js';
import { PermissionEntry } from '../shared/permission.js';
import type { ReviewPath, ReviewRow, ReviewSubject } from './holders.js';
import { DEFAULT_GRANTS_PAGE, DEFAULT_REVIEW_PAGE } from './inputs.js';
import { accessReviewRequirements, type SubjectAccessPage, type WhoHasPage } from './service.js';

const AccessReviewSubject = builder.objectRef<ReviewSubject>('AccessReviewSubject').implement({
  description: 'A user, service account or API key of the organization.',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'user, serviceAccount or apiKey.' }),
    id: t.exposeInt('id', { description: 'User, service account or API key id.' }),
    login: t.exposeString('login', { description: 'Login, or the API key’s name.' }),
    orgRole: t.exposeString('orgRole', { description: 'Org role in the organization, or the API key’s role.' }),
    isServiceAdmin: t.exposeBoolean('isServiceAdmin'),
  }),
});

const AccessReviewPath = builder.objectRef<ReviewPath>('AccessReviewPath').implement({
  description: 'One way a subject holds the action: the role, how it reaches the subject, and its matching permission.',
  fields: (t) => ({
    roleUid: t.string({ resolve: (p) => p.role.uid }),
    roleName: t.string({ resolve: (p) => p.role.name }),
    source: t.exposeString('source', { description: 'direct, team:<name>, basic:<viewer|editor|admin>, service-admin or api-key.' }),
    permission: t.field({ type: PermissionEntry, resolve: (p) => p.permission }),
  }),
});

const AccessReviewRow = builder.objectRef<ReviewRow>('AccessReviewRow').implement({
  description: 'A subject holding the action, with every path.',
  fields: (t) => ({
    subject: t.field({ type: AccessReviewSubject, resolve: (r) => r.subject }),
    paths: t.field({ type: [AccessReviewPath], resolve: (r) => r.paths }),
  }),
});

const AccessReviewConnection = builder.objectRef<WhoHasPage>('AccessReviewConnection').implement({
  description: 'A page of accessReview, answered at one revision.',
  fields: (t) => ({
    revision: t.exposeInt('revision', { description: 'The change-feed revision the page was answered at.' }),
    rows: t.field({ type: [AccessReviewRow], resolve: (p) => p.rows }),
    endCursor: t.exposeString('endCursor', { nullable: true, description: 'Pass as after for the next page; null on the last.' }),
    hasNextPage: t.exposeBoolean('hasNextPage'),
  }),
});

const SubjectAccessConnection = builder.objectRef<SubjectAccessPage>('SubjectAccessConnection').implement({
  description: 'A page of everything one subject can do and why, answered at one revision.',
  fields: (t) => ({
    revision: t.exposeInt('revision', { description: 'The change-feed revision the page was answered at.' }),
    subject: t.field({ type: AccessReviewSubject, resolve: (p) => p.subject }),
    disabled: t.exposeBoolean('disabled', { description: 'The account is disabled: it holds nothing while disabled.' }),
    grants: t.field({ type: [AccessGrant], resolve: (p) => p.grants }),
    endCursor: t.exposeString('endCursor', { nullable: true }),
    hasNextPage: t.exposeBoolean('hasNextPage'),
  }),
});

builder.queryFields((t) => ({
  accessReview: t.field({
    type: AccessReviewConnection,
    description: `Who in the current organization holds action (on scope when given: a held scope equal to it or a wildcard covering it), and through what: users and service accounts by id, then API keys by id; first (default ${DEFAULT_REVIEW_PAGE}, at most 1000) after the cursor after. Disabled accounts and expired keys hold nothing. The whole answer streamed as CSV or NDJSON: GET /api/access-control/review/who-has/export. ${needs(accessReviewRequirements.read)}`,
    args: {
      action: t.arg.string({ required: true }),
      scope: t.arg.string(),
      first: t.arg.int(),
      after: t.arg.string(),
    },
    resolve: (_root, args, ctx) => ctx.services.accessReview.whoHas(ctx.principal, args),
  }),
  subjectAccess: t.field({
    type: SubjectAccessConnection,
    description: `Everything a user or service account (userId) or API key (apiKeyId) of the current organization can do, each permission with the role granting it and how that role reaches it, by action, scope, role name, then source; first (default ${DEFAULT_GRANTS_PAGE}) after the cursor after. Exactly one of userId and apiKeyId. ${needs(accessReviewRequirements.read)}`,
    args: { userId: t.arg.int(), apiKeyId: t.arg.int(), first: t.arg.int(), after: t.arg.string() },
    resolve: (_root, args, ctx) => ctx.services.accessReview.subjectAccess(ctx.principal, args),
  }),
}));
