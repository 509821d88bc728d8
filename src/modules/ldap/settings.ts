/**
 * Grafana's `ldap.toml` (https://grafana.com/docs/grafana/latest/setup-grafana/configure-security/configure-authentication/ldap/),
 * read with smol-toml and validated with zod. Only the keys this service uses are read; others
 * are ignored. `grafana_admin` in a group mapping means the Service Admin flag here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Toml from 'smol-toml';
import { z } from 'zod';
import { ORG_ROLES } from '../../kernel/principal.js';

const mapping = z.object({
  group_dn: z.string().min(1),
  org_role: z.enum(ORG_ROLES).default('Viewer'),
  org_id: z.number().int().positive().default(1),
  grafana_admin: z.boolean().default(false),
});

const server = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535).default(389),
  use_ssl: z.boolean().default(false),
  start_tls: z.boolean().default(false),
  ssl_skip_verify: z.boolean().default(false),
  /** Seconds for connect and each operation (Grafana's default is 10; kept short on purpose). */
  timeout: z.number().positive().default(5),
  bind_dn: z.string().default(''),
  bind_password: z.string().default(''),
  search_filter: z.string().default('(cn=%s)'),
  search_base_dns: z.array(z.string().min(1)).min(1),
  group_search_filter: z.string().default(''),
  group_search_base_dns: z.array(z.string()).default([]),
  group_search_filter_user_attribute: z.string().default(''),
  attributes: z
    .object({
      username: z.string().default('cn'),
      email: z.string().default('email'),
      name: z.string().default('givenName'),
      surname: z.string().default('sn'),
      member_of: z.string().default('memberOf'),
    })
    .default({ username: 'cn', email: 'email', name: 'givenName', surname: 'sn', member_of: 'memberOf' }),
  group_mappings: z.array(mapping).default([]),
});

const file = z.object({ servers: z.array(server).min(1, 'ldap.toml needs at least one [[servers]] entry') });

export type LdapServer = z.output<typeof server>;
export type LdapSettings = z.output<typeof file>;

const requirePackage = createRequire(import.meta.url);
/** smol-toml, loaded only when LDAP is configured (a shorter start otherwise). */
const loadToml = (): typeof Toml => requirePackage('smol-toml') as typeof Toml;

/**
 * Reads and validates an ldap.toml file. `$__env{NAME}` in strings is replaced by the
 * variable's value (Grafana's syntax), so bind passwords can stay out of the file.
 * @throws Error naming the file and every problem.
 */
export function readLdapSettings(path: string, env: Record<string, string | undefined> = process.env): LdapSettings {
  let raw: unknown;
  try {
    raw = loadToml().parse(readFileSync(path, 'utf8').replace(/\$__env\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => env[name] ?? ''));
  } catch (error) {
    throw new Error(`cannot read LDAP configuration ${path}: ${(error as Error).message}`);
  }
  const parsed = file.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `invalid LDAP configuration ${path}:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  }
  return parsed.data;
}

/**
 * RFC 4515 escaping of a value placed in a search filter: `\ * ( )` and NUL become `\XX`, so a
 * login like `*)(uid=*` matches only itself (no filter injection).
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
