/**
 * `portcullis user create`: a user who joins an organization, optionally a Service Admin.
 * `portcullis user set-password`: a local user's new password (Grafana's `grafana cli admin
 * reset-admin-password`), the way back in when the Service Admin's password is lost or
 * ADMIN_PASSWORD was set after the first start (kernel/seed.ts adminPasswordIgnoredNotice).
 * `portcullis user unlock <login>`: lifts the sign-in lock failed passwords put on a user
 * (users/admin.ts unlock). On PostgreSQL the counters are in the database, shared by every
 * process; on SQLite they are in the server's memory, which the CLI cannot reach: it refuses
 * with LOGIN_COUNTERS_NOT_SHARED and names the REST route that can.
 */
import type { Command } from 'commander';
import { DomainError } from '../kernel/errors.js';
import { localOperator } from '../kernel/principal.js';
import { DEFAULT_ORG_ID, ORG_ROLE_PLACEHOLDER, orgOption, type Perform, spellUsage } from './options.js';

interface UserCreateOptions {
  login: string;
  email: string;
  password: string;
  name?: string;
  orgRole?: string;
  serviceAdmin?: boolean;
  org: number;
}

/**
 * Adds the `user` group to `program`. `user create` prints
 * `{ id, login, email, name, orgId, isServiceAdmin }` (never the password).
 */
export function registerUserCommands(program: Command, perform: Perform): void {
  const user = program.command('user').description('users of the service');
  spellUsage(
    user
      .command('create')
      .description('Create a user who joins organization --org (default 1) with --org-role (default Viewer).')
      .requiredOption('--login <login>', 'login name')
      .requiredOption('--email <email>', 'email address')
      .requiredOption('--password <password>', 'password')
      .option('--name <name>', 'display name')
      .option(`--org-role ${ORG_ROLE_PLACEHOLDER}`, 'role in the organization (default Viewer)')
      .option('--service-admin', 'make the user a Service Admin')
      .addOption(orgOption()),
  ).action((options: UserCreateOptions) =>
    perform(async (services) => {
      const created = await services.users.create(localOperator(options.org), {
        login: options.login,
        email: options.email,
        password: options.password,
        name: options.name,
        orgRole: options.orgRole,
        isServiceAdmin: options.serviceAdmin === true,
      });
      const { id, login, email, name, isServiceAdmin } = created;
      return { id, login, email, name, orgId: options.org, isServiceAdmin };
    }),
  );
  spellUsage(
    user
      .command('set-password')
      .description("Set a local user's password (found by login or email); its sessions end.")
      .requiredOption('--login <login>', 'login or email of the user')
      .requiredOption('--password <password>', 'the new password'),
  ).action((options: { login: string; password: string }) =>
    perform(async (services) => {
      const operator = localOperator(DEFAULT_ORG_ID);
      const found = await services.userSearch.lookup(operator, options.login);
      const { message } = await services.userAdmin.setPassword(operator, found.id, { password: options.password });
      return { id: found.id, login: found.login, message };
    }),
  );
  user
    .command('unlock')
    .description('Lift the sign-in lock of a user (found by login or email) after too many wrong passwords (429 LOGIN_BLOCKED).')
    .argument('<login>', 'login or email of the user')
    .action((login: string) =>
      perform(async (services) => {
        const operator = localOperator(DEFAULT_ORG_ID);
        const found = await services.userSearch.lookup(operator, login);
        if (!services.loginThrottle.shared) {
          throw new DomainError(
            'LOGIN_COUNTERS_NOT_SHARED',
            `on SQLite the failed-login counters live in the running server's memory, out of this command's reach: ` +
              `lift the lock with POST /api/admin/users/${found.id}/unlock (or the GraphQL mutation unlockUser) as a Service Admin, ` +
              'or restart the server, which clears every lock',
          );
        }
        const { message } = await services.userAdmin.unlock(operator, found.id);
        return { id: found.id, login: found.login, message };
      }),
    );
}
