/**
 * `portcullis auth ...`: sign-in diagnostics, calling module services only.
 * - `auth ldap-status`: connects and binds to every server of AUTH_LDAP_CONFIG_FILE;
 * - `auth ldap-test --login <login> --password <password>`: the directory identity and the org
 *   roles its groups map to, without signing in or writing anything;
 * - `auth oidc-discovery`: the provider endpoints found from AUTH_GENERIC_OAUTH_ISSUER.
 */
import type { Command } from 'commander';
import { localOperator } from '../kernel/principal.js';
import type { Perform } from './options.js';

/** Adds the `auth` group to `program`. */
export function registerAuthCommands(program: Command, perform: Perform): void {
  const auth = program.command('auth').description('sign-in diagnostics (LDAP, OpenID Connect)');
  auth
    .command('ldap-status')
    .description('Connect and bind to every LDAP server of the configuration.')
    .action(() => perform((services) => services.ldap.status(localOperator(1))));
  auth
    .command('ldap-test')
    .description('Look a user up in the directory and show the mapped org roles (writes nothing).')
    .requiredOption('--login <login>', 'directory login')
    .requiredOption('--password <password>', 'the password to bind with')
    .action((options: { login: string; password: string }) =>
      perform(async (services) => (await services.ldap.authenticate(options.login, options.password)) ?? { found: false }),
    );
  auth
    .command('oidc-discovery')
    .description('Fetch the OpenID provider configuration and show its endpoints.')
    .action(() => perform((services) => services.oauth.describe()));
}
