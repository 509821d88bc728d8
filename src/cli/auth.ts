/**
 * `portcullis auth ...`: sign-in diagnostics, calling module services only.
 * - `auth ldap-status`: connects and binds to every server of AUTH_LDAP_CONFIG_FILE; exits 1
 *   (IDENTITY_PROVIDER_UNAVAILABLE naming each server's error) when none is available;
 * - `auth ldap-test --login <login> --password <password>`: the directory identity and the org
 *   roles its groups map to, or `{"found": false, "reason"}` saying why there is none (unknown
 *   user, wrong password, no group mapping, ...), without signing in or writing anything;
 * - `auth oidc-discovery`: the provider endpoints found from AUTH_GENERIC_OAUTH_ISSUER.
 */
import type { Command } from 'commander';
import { DomainError } from '../kernel/errors.js';
import { localOperator } from '../kernel/principal.js';
import type { Perform } from './options.js';

/** Adds the `auth` group to `program`. */
export function registerAuthCommands(program: Command, perform: Perform): void {
  const auth = program.command('auth').description('sign-in diagnostics (LDAP, OpenID Connect)');
  auth
    .command('ldap-status')
    .description('Connect and bind to every LDAP server of the configuration.')
    .action(() =>
      perform(async (services) => {
        const servers = await services.ldap.status(localOperator(1));
        if (servers.every((s) => !s.available)) {
          const errors = servers.map((s) => `${s.host}:${s.port} (${s.error})`).join('; ');
          throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', `no LDAP server is available: ${errors}`);
        }
        return servers;
      }),
    );
  auth
    .command('ldap-test')
    .description('Look a user up in the directory and show the mapped org roles, or why it is refused (writes nothing).')
    .requiredOption('--login <login>', 'directory login')
    .requiredOption('--password <password>', 'the password to bind with')
    .action((options: { login: string; password: string }) =>
      perform((services) => services.ldap.diagnose(localOperator(1), options.login, options.password)),
    );
  auth
    .command('oidc-discovery')
    .description('Fetch the OpenID provider configuration and show its endpoints.')
    .action(() => perform((services) => services.oauth.describe()));
}
