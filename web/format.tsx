/** Formatting for people: dates, roles (kind, title, how a role reaches a user), permissions, counts. */

const DATE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A timestamp for people; `never` when null. */
export function when(value: string | null | undefined, never = 'Never'): string {
  if (!value) return never;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : DATE.format(date);
}

export type RoleKind = 'basic' | 'fixed' | 'product' | 'custom';

/** The kind of a role, from its name's prefix (Grafana's naming). */
export function roleKind(name: string): RoleKind {
  if (name.startsWith('basic:')) return 'basic';
  if (name.startsWith('fixed:')) return 'fixed';
  if (name.startsWith('plugins:')) return 'product';
  return 'custom';
}

/** A role's kind as a coloured tag (basic, fixed, product, custom). */
export function KindTag({ name }: { name: string }) {
  const kind = roleKind(name);
  return <span class={`kind kind-${kind}`}>{kind}</span>;
}

/** What people call a role: its display name, else its name. */
export function roleTitle(role: { name: string; displayName: string }): string {
  return role.displayName || role.name;
}

/** `name` with a line-break opportunity after each colon (`fixed:<wbr>users:<wbr>reader`). */
function breakable(name: string) {
  return name.split(':').flatMap((part, i) => (i === 0 ? [part] : [':', <wbr key={i} />, part]));
}

/**
 * A role as people read it, in one inline box: its title and, when the title is a display name,
 * the role's name beside it in monospace (a role without a display name shows its name once).
 */
export function RoleName({ role }: { role: { name: string; displayName: string } }) {
  return (
    <span class="role-name">
      <span class="role-title">{breakable(roleTitle(role))}</span>
      {role.displayName && role.displayName !== role.name && (
        <>
          {' '}
          <span class="mono muted">{breakable(role.name)}</span>
        </>
      )}
    </span>
  );
}

/** How a role reaches a user, for people: direct, team X, basic role Viewer... */
export function sourceLabel(source: string): string {
  if (source === 'direct') return 'Assigned directly';
  if (source.startsWith('team:')) return `Team ${source.slice('team:'.length)}`;
  if (source.startsWith('basic:')) {
    const role = source.slice('basic:'.length);
    return `Basic role ${role.charAt(0).toUpperCase()}${role.slice(1)}`;
  }
  if (source === 'service-admin') return 'Service Admin';
  if (source === 'api-key') return 'API key role';
  return source;
}

/** A permission as text: `action on scope`, or the action alone. */
export function permissionText(p: { action: string; scope: string }): string {
  return p.scope ? `${p.action} on ${p.scope}` : p.action;
}

/** `1 role`, `3 roles`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
