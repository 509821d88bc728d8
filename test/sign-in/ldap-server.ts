/**
 * A real LDAP server for the tests (ldapjs's server, speaking LDAP v3 over TCP) on 127.0.0.1
 * and a free port, seeded with a service bind account, people and their `memberOf` groups.
 * Entries may be changed by the test between logins; every filter the server receives is kept.
 */
import ldap from 'ldapjs';

export const BASE = 'dc=example,dc=org';
export const BIND = { dn: `cn=admin,${BASE}`, password: 'bind-secret' };
export const GROUPS = { admins: `cn=admins,ou=groups,${BASE}`, editors: `cn=editors,ou=groups,${BASE}` };

export interface Person {
  uid: string;
  password: string;
  mail: string;
  givenName: string;
  sn: string;
  memberOf: string[];
}

export interface TestLdap {
  port: number;
  people: Map<string, Person>;
  filters: string[];
  close(): Promise<void>;
}

const norm = (dn: string) => dn.replace(/\s+/g, '').toLowerCase();
const dnOf = (uid: string) => `uid=${uid},ou=people,${BASE}`;

export async function startLdap(people: Person[]): Promise<TestLdap> {
  const directory = new Map(people.map((p) => [p.uid, p]));
  const filters: string[] = [];
  const server = ldap.createServer();
  server.bind(BASE, (req, res, next) => {
    const dn = norm(req.dn.toString());
    const password = String(req.credentials);
    if (dn === norm(BIND.dn) && password === BIND.password) return res.end();
    const person = [...directory.values()].find((p) => norm(dnOf(p.uid)) === dn);
    if (person && person.password === password) return res.end();
    return next(new ldap.InvalidCredentialsError());
  });
  server.search(BASE, (req, res, next) => {
    filters.push(req.filter.toString());
    // ldapjs compares requested names to lower-cased entry names; real servers ignore case.
    res.attributes = res.attributes.map((name) => name.toLowerCase());
    for (const p of directory.values()) {
      const attributes = { uid: p.uid, mail: p.mail, givenname: p.givenName, sn: p.sn, memberof: p.memberOf, objectclass: 'inetOrgPerson' };
      if (req.filter.matches(attributes)) res.send({ dn: dnOf(p.uid), attributes });
    }
    res.end();
    return next();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: server.address().port,
    people: directory,
    filters,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * ldap.toml for the server on `port` (Grafana's format). `catchAll: false` leaves out the
 * `group_dn = "*"` mapping, so a user of neither group matches no mapping.
 */
export function ldapToml(port: number, options: { catchAll?: boolean } = {}): string {
  const catchAll = `
[[servers.group_mappings]]
group_dn = "*"
org_role = "Viewer"
org_id = 1
`;
  return `[[servers]]
host = "127.0.0.1"
port = ${port}
use_ssl = false
start_tls = false
timeout = 2
bind_dn = "${BIND.dn}"
bind_password = "$__env{TEST_LDAP_BIND_PASSWORD}"
search_filter = "(uid=%s)"
search_base_dns = ["ou=people,${BASE}"]

[servers.attributes]
username = "uid"
email = "mail"
name = "givenName"
surname = "sn"
member_of = "memberOf"

[[servers.group_mappings]]
group_dn = "${GROUPS.admins}"
org_role = "Admin"
grafana_admin = true
org_id = 1

[[servers.group_mappings]]
group_dn = "${GROUPS.editors}"
org_role = "Editor"
org_id = 1
${options.catchAll === false ? '' : catchAll}`;
}
