/**
 * Which user an external identity signs into (Grafana's user sync `getUser`):
 *
 * - An identity with a subject (OAuth: OpenID `sub`) signs into the user bound to (provider,
 *   subject) in UserAuth, the one it created or was linked to: never into a user found by login
 *   or email, whatever the claims say. A subject seen for the first time gets a new user, bound
 *   to it, unless its login or email is taken, which is refused (EXTERNAL_IDENTITY_CONFLICT): the
 *   other user is neither signed into nor rewritten. The one exception is Grafana's
 *   `oauth_allow_insecure_email_lookup` (AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP, default off):
 *   with it on and the provider vouching for the email (`email_verified: true`), the subject is
 *   linked to the local or OAuth user holding that email, if no other subject of this provider
 *   is bound to it already.
 * - A directory identity (LDAP) has no subject: it signs into the user of its login when that
 *   user is the directory's; a login of a local user or another provider's, or an email held by
 *   another user, is the same conflict (the directory's login is what it vouched for; its email
 *   names no one here).
 */
import type { OrgUser, User } from '../../generated/prisma/client.js';
import { AUTH_MODULE } from '../../kernel/auth-module.js';
import { DomainError } from '../../kernel/errors.js';
import type { Db, Tx } from '../../platform/database.js';

/** What matching reads of an identity. */
export interface IdentityKeys {
  login: string;
  email: string;
  subject?: string;
  emailVerified?: boolean;
}

/** A user with its memberships. */
export type ExternalUser = User & { orgs: OrgUser[] };

/** Where an identity signs in: an existing user or none (a new one), and whether its subject is to be bound now. */
export interface ExternalMatch {
  existing: ExternalUser | null;
  /** True when (provider, subject) is not bound yet: the user created or linked gets the binding. */
  bind: boolean;
}

/**
 * The refusal of an identity whose login or email belongs to another user: 409
 * EXTERNAL_IDENTITY_CONFLICT, worded for the OAuth redirect or the directory's login answer.
 */
export function identityConflict(authModule: string): DomainError {
  const prefix = authModule === AUTH_MODULE.oauth ? 'OAuth login failed' : 'Login failed';
  return new DomainError('EXTERNAL_IDENTITY_CONFLICT', `${prefix}: the login or email of this identity belongs to another user`);
}

/**
 * The user `identity` of provider `authModule` signs into (module comment); `allowEmailLookup`
 * is AUTH_OAUTH_ALLOW_INSECURE_EMAIL_LOOKUP.
 * @throws DomainError EXTERNAL_IDENTITY_CONFLICT (409).
 */
export async function matchExternalUser(
  db: Db | Tx,
  identity: IdentityKeys,
  authModule: string,
  allowEmailLookup: boolean,
): Promise<ExternalMatch> {
  const include = { orgs: true } as const;
  if (identity.subject !== undefined) {
    const bound = await db.userAuth.findUnique({
      where: { authModule_authId: { authModule, authId: identity.subject } },
      include: { user: { include } },
    });
    if (bound) return { existing: bound.user, bind: false };
    const holder = await db.user.findFirst({ where: { email: identity.email }, include: { ...include, auths: { where: { authModule } } } });
    const linkable =
      holder &&
      allowEmailLookup &&
      identity.emailVerified === true &&
      !holder.isServiceAccount &&
      (holder.authModule === AUTH_MODULE.local || holder.authModule === authModule) &&
      holder.auths.length === 0;
    if (linkable) return { existing: holder, bind: true };
    if (holder || (await db.user.count({ where: { login: identity.login } })) > 0) throw identityConflict(authModule);
    return { existing: null, bind: true };
  }
  const byLogin = await db.user.findFirst({ where: { login: identity.login, isServiceAccount: false }, include });
  if (byLogin) {
    if (byLogin.authModule !== authModule) throw identityConflict(authModule);
    return { existing: byLogin, bind: false };
  }
  if ((await db.user.count({ where: { OR: [{ login: identity.login }, { email: identity.email }] } })) > 0) {
    throw identityConflict(authModule);
  }
  return { existing: null, bind: false };
}

/**
 * Refuses to give user `userId` an `email` another user holds (an external sign-in never rewrites
 * another identity's email, nor fails on the unique index).
 * @throws DomainError EXTERNAL_IDENTITY_CONFLICT (409).
 */
export async function refuseTakenEmail(tx: Tx, userId: number, email: string, authModule: string): Promise<void> {
  if ((await tx.user.count({ where: { email, id: { not: userId } } })) > 0) throw identityConflict(authModule);
}
