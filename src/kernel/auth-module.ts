/**
 * Who manages a user's identity: `User.authModule` and `UserAuth.authModule` (Grafana's
 * user_auth.auth_module), with Grafana's labels for them.
 */

/** `authModule` of users created by each provider (Grafana's user_auth.auth_module). */
export const AUTH_MODULE = { local: '', ldap: 'ldap', oauth: 'oauth_generic_oauth' } as const;

/** Grafana's auth label of a user's identity provider (login.GetAuthProviderLabel); none for local users. */
export function authLabels(authModule: string): string[] {
  if (authModule === AUTH_MODULE.local) return [];
  return [authModule === AUTH_MODULE.ldap ? 'LDAP' : 'Generic OAuth'];
}
