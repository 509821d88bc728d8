/**
 * LDAP users (issue #11 item 3), Grafana's LDAP flow on the `ldapts` client: for each server of
 * ldap.toml in order, bind with `bind_dn` (or, when it contains `%s`, as the user directly),
 * find the user with `search_filter` (the login RFC 4515-escaped), bind as the found entry with
 * the given password, read its groups (`member_of` attribute and/or `group_search_filter`) and
 * map them with `group_mappings` to org roles and the Service Admin flag (`grafana_admin`).
 * With mappings configured, a user matching none is refused (Grafana: "user does not belong to
 * any group mapping"). A directory that cannot be reached answers IDENTITY_PROVIDER_UNAVAILABLE
 * within the server's `timeout`.
 */
import { Client, InvalidCredentialsError } from 'ldapts';
import type { AccessService } from '../../kernel/access.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import { requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import type { OrgRole, Principal } from '../../kernel/principal.js';
import { orgRoleIncludes } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { DirectoryAuthenticator, ExternalIdentity } from '../sign-in/service.js';
import { escapeFilterValue, type LdapServer, type LdapSettings, readLdapSettings } from './settings.js';

/** Grafana's ldap.status:read, held here by Service Admins: users:read on global.users:*. */
export const ldapRequirements = {
  status: requirement([], () => permission(Action.UsersRead, Scope.GlobalUsersAll), 'and Service Admin'),
};

/** One server's reachability, for `GET /api/admin/ldap/status` and the CLI. */
export interface LdapServerStatus {
  host: string;
  port: number;
  available: boolean;
  error: string;
}

type Attrs = Record<string, string[]>;

function url(server: LdapServer): string {
  return `${server.use_ssl ? 'ldaps' : 'ldap'}://${server.host}:${server.port}`;
}

function first(attrs: Attrs, name: string): string {
  return attrs[name.toLowerCase()]?.[0] ?? '';
}

function toAttrs(entry: Record<string, unknown>): Attrs {
  const out: Attrs = {};
  for (const [k, v] of Object.entries(entry)) {
    const values = Array.isArray(v) ? v : [v];
    out[k.toLowerCase()] = values.map((x) => (Buffer.isBuffer(x) ? x.toString('utf8') : String(x)));
  }
  return out;
}

async function connect(server: LdapServer): Promise<Client> {
  const ms = server.timeout * 1000;
  const client = new Client({
    url: url(server),
    timeout: ms,
    connectTimeout: ms,
    // ldapts speaks TLS whenever tlsOptions is given, so only for ldaps://.
    ...(server.use_ssl && { tlsOptions: { rejectUnauthorized: !server.ssl_skip_verify } }),
  });
  if (server.start_tls && !server.use_ssl) await client.startTLS({ rejectUnauthorized: !server.ssl_skip_verify });
  return client;
}

/** Org roles and Service Admin flag from group DNs; null when mappings exist and none match. */
export function mapGroups(server: LdapServer, groups: string[]): Pick<ExternalIdentity, 'orgRoles' | 'isServiceAdmin'> | null {
  if (server.group_mappings.length === 0) return { orgRoles: [{ orgId: 1, role: 'Viewer' }], isServiceAdmin: false };
  const held = new Set(groups.map((g) => g.toLowerCase()));
  const roles = new Map<number, OrgRole>();
  let isServiceAdmin = false;
  for (const m of server.group_mappings) {
    if (m.group_dn !== '*' && !held.has(m.group_dn.toLowerCase())) continue;
    const current = roles.get(m.org_id);
    if (!current || !orgRoleIncludes(current, m.org_role)) roles.set(m.org_id, m.org_role);
    isServiceAdmin ||= m.grafana_admin;
  }
  if (roles.size === 0) return null;
  return { orgRoles: [...roles].map(([orgId, role]) => ({ orgId, role })), isServiceAdmin };
}

export class LdapService implements DirectoryAuthenticator {
  private readonly settings: LdapSettings | null;

  /** @param configFile path of ldap.toml, or null when LDAP is off. @throws Error on a bad file. */
  constructor(
    configFile: string | null,
    private readonly access: AccessService,
  ) {
    this.settings = configFile === null ? null : readLdapSettings(configFile);
  }

  get enabled(): boolean {
    return this.settings !== null;
  }

  /**
   * The directory identity of `login` when `password` binds, else null (unknown user or wrong
   * password). Servers are tried in order; the first that knows the user decides.
   * @throws DomainError IDENTITY_PROVIDER_UNAVAILABLE (401) when no server could be asked.
   */
  async authenticate(login: string, password: string): Promise<ExternalIdentity | null> {
    if (!this.settings || password === '') return null;
    let reached = false;
    let lastError = '';
    for (const server of this.settings.servers) {
      try {
        const found = await this.tryServer(server, login, password);
        reached = true;
        if (found !== undefined) return found;
      } catch (error) {
        lastError = (error as Error).message;
      }
    }
    if (!reached) throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', `LDAP server unavailable: ${lastError}`);
    return null;
  }

  /**
   * Connects and binds with `bind_dn` to every server. Needs a Service Admin (users:read on
   * global.users:*). @throws DomainError LDAP_NOT_ENABLED (400), 401, 403.
   */
  async status(caller: Principal): Promise<LdapServerStatus[]> {
    requireSignedIn(caller);
    await this.access.check(caller, ldapRequirements.status.for({}));
    requireServiceAdmin(caller, 'read the LDAP status');
    if (!this.settings) throw new DomainError('LDAP_NOT_ENABLED', 'LDAP is not enabled');
    return Promise.all(
      this.settings.servers.map(async (server) => {
        const client = await connect(server).catch((e: Error) => e);
        if (client instanceof Error) return { host: server.host, port: server.port, available: false, error: client.message };
        try {
          if (server.bind_dn && !server.bind_dn.includes('%s')) await client.bind(server.bind_dn, server.bind_password);
          else await client.search(server.search_base_dns[0] as string, { scope: 'base', attributes: ['1.1'] });
          return { host: server.host, port: server.port, available: true, error: '' };
        } catch (error) {
          return { host: server.host, port: server.port, available: false, error: (error as Error).message };
        } finally {
          await client.unbind().catch(() => undefined);
        }
      }),
    );
  }

  /** undefined: this server does not know the login; null: known, but refused. */
  private async tryServer(server: LdapServer, login: string, password: string): Promise<ExternalIdentity | null | undefined> {
    const client = await connect(server);
    try {
      const escaped = escapeFilterValue(login);
      if (server.bind_dn.includes('%s')) await client.bind(server.bind_dn.replaceAll('%s', escaped), password);
      else if (server.bind_dn) await client.bind(server.bind_dn, server.bind_password);
      const a = server.attributes;
      let entry: Attrs | undefined;
      let dn = '';
      for (const base of server.search_base_dns) {
        const { searchEntries } = await client.search(base, {
          scope: 'sub',
          filter: server.search_filter.replaceAll('%s', escaped),
          attributes: [a.username, a.email, a.name, a.surname, a.member_of, server.group_search_filter_user_attribute].filter(Boolean),
          sizeLimit: 2,
        });
        if (searchEntries.length > 1) return null; // ambiguous: refuse rather than guess
        if (searchEntries[0]) {
          dn = searchEntries[0].dn;
          entry = toAttrs(searchEntries[0]);
          break;
        }
      }
      if (!entry) return undefined;
      try {
        await client.bind(dn, password);
      } catch (error) {
        if (error instanceof InvalidCredentialsError) return null;
        throw error;
      }
      const groups = [...(entry[a.member_of.toLowerCase()] ?? [])];
      if (server.group_search_filter) {
        const userValue = server.group_search_filter_user_attribute ? first(entry, server.group_search_filter_user_attribute) : dn;
        for (const base of server.group_search_base_dns) {
          const { searchEntries } = await client.search(base, {
            scope: 'sub',
            filter: server.group_search_filter.replaceAll('%s', escapeFilterValue(userValue)),
            attributes: ['1.1'],
          });
          groups.push(...searchEntries.map((g) => g.dn));
        }
      }
      const mapped = mapGroups(server, groups);
      if (!mapped) return null;
      const username = first(entry, a.username) || login;
      const name = [first(entry, a.name), first(entry, a.surname)].filter(Boolean).join(' ');
      return { login: username, email: first(entry, a.email) || `${username}@ldap`, name, ...mapped, groups };
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return server.bind_dn.includes('%s') ? null : Promise.reject(error);
      throw error;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
}
