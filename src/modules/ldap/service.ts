/**
 * LDAP users, Grafana's LDAP flow on the `ldapts` client: for each server of
 * ldap.toml in order, bind with `bind_dn` (or, when it contains `%s`, as the user directly),
 * find the user with `search_filter` (the login RFC 4515-escaped), bind as the found entry with
 * the given password, read its groups (`member_of` attribute and/or `group_search_filter`) and
 * map them with `group_mappings` to org roles and the Service Admin flag (`grafana_admin`).
 * With mappings configured, a user matching none is refused (Grafana: "user does not belong to
 * any group mapping"). A directory that cannot be reached answers IDENTITY_PROVIDER_UNAVAILABLE
 * within the server's `timeout`, with a generic message: the servers' addresses and the network
 * error are for the log (and for Service Admins: the status route, the CLI), never for a caller
 * that has not signed in.
 */
import type { Client } from 'ldapts';
import type { AccessService } from '../../kernel/access.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { DomainError } from '../../kernel/errors.js';
import { permission } from '../../kernel/evaluator.js';
import { requireServiceAdmin, requireSignedIn } from '../../kernel/guards.js';
import type { OrgRole, Principal } from '../../kernel/principal.js';
import { orgRoleIncludes } from '../../kernel/principal.js';
import { requirement } from '../../kernel/requirements.js';
import type { Logger } from '../../platform/logger.js';
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

/** Why the directory refused a login (`auth ldap-test`). */
export const REFUSAL = {
  unknownUser: 'unknown user: no server found the login',
  wrongPassword: 'wrong password: the user exists but the password does not bind',
  noGroupMapping: 'no group mapping: the password binds but the user belongs to no group of group_mappings',
  ambiguous: 'ambiguous login: the search filter matches several entries',
  emptyPassword: 'empty password: refused without asking the directory',
  refusedBind: 'wrong password or unknown user: bind_dn binds as the user, so the two cannot be told apart',
} as const;

/** What `auth ldap-test` prints: the identity the login maps to, or why there is none. */
export type LdapDiagnosis =
  | ({ found: true } & ExternalIdentity)
  /** `server`: the one that refused; `unreachable`: servers that could not be asked, with their errors. */
  | { found: false; reason: string; server?: string; unreachable?: string[] };

/** One server's answer about a login: it does not know it, it refuses it (and why), or the identity. */
type ServerAnswer = { kind: 'unknown' } | { kind: 'refused'; reason: string } | { kind: 'found'; identity: ExternalIdentity };

/** Every server's answer: the first that knows the login decides; `unreachable` lists the servers that could not be asked. */
type DirectoryAnswer = { answer: ServerAnswer; server?: string; unreachable: string[] };

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

let ldapts: Promise<typeof import('ldapts')> | undefined;
/** The ldapts client library, loaded on the first LDAP connection: most services configure no LDAP. */
const loadLdapts = () => {
  ldapts ??= import('ldapts');
  return ldapts;
};

/** True when `error` is ldapts's answer to a wrong password (LDAP result 49, invalidCredentials). */
async function isInvalidCredentials(error: unknown): Promise<boolean> {
  return error instanceof (await loadLdapts()).InvalidCredentialsError;
}

async function connect(server: LdapServer): Promise<Client> {
  const ms = server.timeout * 1000;
  const { Client } = await loadLdapts();
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

  /**
   * @param configFile path of ldap.toml, or null when LDAP is off.
   * @param log where an unreachable directory's details go (the caller only sees a generic message).
   * @throws Error on a bad file.
   */
  constructor(
    configFile: string | null,
    private readonly access: AccessService,
    private readonly log?: Logger,
  ) {
    this.settings = configFile === null ? null : readLdapSettings(configFile);
  }

  get enabled(): boolean {
    return this.settings !== null;
  }

  /**
   * The directory identity of `login` when `password` binds, else null (unknown user, wrong
   * password, no group mapping). Servers are tried in order; the first that knows the user decides.
   * @throws DomainError IDENTITY_PROVIDER_UNAVAILABLE (401, "Identity provider unavailable")
   *   when no server could be asked; which servers and why is logged (warn), not answered.
   */
  async authenticate(login: string, password: string): Promise<ExternalIdentity | null> {
    const { answer, unreachable } = await this.ask(login, password);
    if (answer.kind === 'found') return answer.identity;
    if (answer.kind === 'unknown' && unreachable.length > 0 && unreachable.length === this.settings?.servers.length) {
      this.log?.warn({ servers: unreachable }, 'LDAP server unavailable');
      throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', 'Identity provider unavailable');
    }
    return null;
  }

  /**
   * `portcullis auth ldap-test`: what `authenticate` decides for `login` and `password`, and why,
   * without signing in or writing anything: `{found: true, ...identity}` or `{found: false,
   * reason, server}` (REFUSAL: unknown user, wrong password, no group mapping, ...). Needs a
   * Service Admin, like the status.
   * @throws DomainError LDAP_NOT_ENABLED (400), 401, 403, IDENTITY_PROVIDER_UNAVAILABLE (401)
   *   naming each server and its error (the CLI's operator may see them).
   */
  async diagnose(caller: Principal, login: string, password: string): Promise<LdapDiagnosis> {
    await this.requireStatusReader(caller, 'test an LDAP login');
    const { answer, server, unreachable } = await this.ask(login, password);
    if (answer.kind === 'found') return { found: true, ...answer.identity };
    if (answer.kind === 'refused') return { found: false, reason: answer.reason, ...(server && { server }) };
    if (unreachable.length === this.settings?.servers.length) {
      throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE', `LDAP server unavailable: ${unreachable.join('; ')}`);
    }
    return { found: false, reason: REFUSAL.unknownUser, ...(unreachable.length > 0 && { unreachable }) };
  }

  /** Asks every server in order until one knows the login (module comment). */
  private async ask(login: string, password: string): Promise<DirectoryAnswer> {
    if (!this.settings) return { answer: { kind: 'unknown' }, unreachable: [] };
    if (password === '') return { answer: { kind: 'refused', reason: REFUSAL.emptyPassword }, unreachable: [] };
    const unreachable: string[] = [];
    for (const server of this.settings.servers) {
      const name = `${server.host}:${server.port}`;
      try {
        const answer = await this.tryServer(server, login, password);
        if (answer.kind !== 'unknown') return { answer, server: name, unreachable };
      } catch (error) {
        unreachable.push(`${name} (${(error as Error).message})`);
      }
    }
    return { answer: { kind: 'unknown' }, unreachable };
  }

  /**
   * Connects and binds with `bind_dn` to every server. Needs a Service Admin (users:read on
   * global.users:*). @throws DomainError LDAP_NOT_ENABLED (400), 401, 403.
   */
  async status(caller: Principal): Promise<LdapServerStatus[]> {
    const settings = await this.requireStatusReader(caller, 'read the LDAP status');
    return Promise.all(
      settings.servers.map(async (server) => {
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

  /** A Service Admin's check (ldap.status:read) and the settings. @throws DomainError 401, 403, LDAP_NOT_ENABLED (400). */
  private async requireStatusReader(caller: Principal, what: string): Promise<LdapSettings> {
    requireSignedIn(caller);
    await this.access.check(caller, ldapRequirements.status.for({}));
    requireServiceAdmin(caller, what);
    if (!this.settings) throw new DomainError('LDAP_NOT_ENABLED', 'LDAP is not enabled');
    return this.settings;
  }

  /** What one server says about the login. @throws the client's error when the server cannot be asked. */
  private async tryServer(server: LdapServer, login: string, password: string): Promise<ServerAnswer> {
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
        if (searchEntries.length > 1) return { kind: 'refused', reason: REFUSAL.ambiguous }; // refuse rather than guess
        if (searchEntries[0]) {
          dn = searchEntries[0].dn;
          entry = toAttrs(searchEntries[0]);
          break;
        }
      }
      if (!entry) return { kind: 'unknown' };
      try {
        await client.bind(dn, password);
      } catch (error) {
        if (await isInvalidCredentials(error)) return { kind: 'refused', reason: REFUSAL.wrongPassword };
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
      if (!mapped) return { kind: 'refused', reason: REFUSAL.noGroupMapping };
      const username = first(entry, a.username) || login;
      const name = [first(entry, a.name), first(entry, a.surname)].filter(Boolean).join(' ');
      return { kind: 'found', identity: { login: username, email: first(entry, a.email) || `${username}@ldap`, name, ...mapped, groups } };
    } catch (error) {
      if (server.bind_dn.includes('%s') && (await isInvalidCredentials(error))) return { kind: 'refused', reason: REFUSAL.refusedBind };
      throw error;
    } finally {
      await client.unbind().catch(() => undefined);
    }
  }
}
