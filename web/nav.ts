/**
 * The console's sections: the navigation and the overview's cards. Each is offered only to those
 * who may use it, and says only what the caller may do there: a card never promises a control
 * its page will not show (the pages test the same permissions).
 */
import { type Access, ESCALATE } from './access.js';
import type { ConsolePath } from './paths.js';

/** What a section offers the caller: its link text and what the caller can do there. */
export interface Offer {
  label: string;
  description: string;
}

export interface Section {
  path: ConsolePath;
  /** The offer to a caller holding `access` (`rbac`: the enterprise edition), or null: not offered. */
  offer: (access: Access, rbac: boolean) => Offer | null;
}

/** Sentence of `parts` joined with "; ", capitalised and ended with a period. */
function sentence(...parts: (string | false)[]): string {
  const text = parts.filter((p): p is string => p !== false).join('; ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * The API key settings page as the caller sees it (api-keys.tsx lists what the same checks
 * allow): "API key settings" to those who may list the organization's keys, "Service account
 * tokens" to those who may only list service accounts, nothing to others.
 */
export function apiKeysOffer(a: Access): Offer | null {
  const keys = a.can('apikey:read', 'apikey:*');
  const accounts = a.can('serviceaccounts:read');
  if (!keys && !accounts) return null;
  const create = (keys && a.can('apikey:create')) || (accounts && (a.can('serviceaccounts:create') || a.can('serviceaccounts:write')));
  const revoke = (keys && a.can('apikey:delete')) || (accounts && (a.can('serviceaccounts:write') || a.can('serviceaccounts:delete')));
  const what = [keys && 'API keys of the organization', accounts && 'service accounts with their tokens'].filter(Boolean).join(' and ');
  return {
    label: keys ? 'API key settings' : 'Service account tokens',
    description: sentence(`${what}: see expiry and last use`, create && 'create them (each secret is shown once)', revoke && 'revoke them'),
  };
}

export const SECTIONS: Section[] = [
  { path: '/', offer: () => ({ label: 'Overview', description: 'Who you are and where to go.' }) },
  {
    path: '/users',
    offer: (a) =>
      a.can('org.users:read') || a.can('users:read', 'global.users:*')
        ? {
            label: 'Users',
            description: sentence(
              'the people who sign in, with their org role and whether they may sign in',
              a.can('users:create') && 'create users',
              a.can('users:write') && 'change their details, password and whether they may sign in',
              a.can('org.users:write') && 'change their org role',
            ),
          }
        : null,
  },
  {
    path: '/teams',
    offer: (a) =>
      a.can('teams:read')
        ? {
            label: 'Teams',
            description: sentence('the teams of the organization with their members and roles', a.can('teams:create') && 'create teams'),
          }
        : null,
  },
  {
    path: '/orgs',
    offer: (a) =>
      a.can('orgs:read', 'orgs:*')
        ? {
            label: 'Organizations',
            description: sentence('every organization of the server', a.can('orgs:create') && 'create, rename and delete them'),
          }
        : null,
  },
  { path: '/api-keys', offer: (a) => apiKeysOffer(a) },
  {
    path: '/roles',
    offer: (a) =>
      a.can('roles:read', 'roles:*')
        ? {
            label: 'Roles',
            description: sentence(
              'basic, fixed, custom and product roles with their permissions',
              a.canManage('roles:write') && 'build and edit custom roles',
            ),
          }
        : null,
  },
  {
    path: '/assignments',
    offer: (a) =>
      a.can('users.roles:read') || a.can('teams.roles:read') || a.can('users.permissions:read')
        ? {
            label: 'Assignments',
            description: sentence(
              "a user's, a team's or a service account's roles, and every permission with where it comes from",
              a.can('roles:read', 'roles:*') &&
                (a.canManage('users.roles:add') || a.canManage('teams.roles:add')) &&
                'assign and remove roles',
            ),
          }
        : null,
  },
  {
    path: '/why',
    offer: (a, rbac) =>
      rbac
        ? {
            label: 'Why?',
            description: a.can('users.permissions:read')
              ? 'May a user do an action on a scope? Allowed or denied, and the roles that grant it.'
              : 'May you do an action on a scope? Allowed or denied, and the roles that grant it.',
          }
        : null,
  },
  {
    path: '/review',
    offer: (a, rbac) =>
      rbac && a.can('access.review:read')
        ? { label: 'Access review', description: 'Who holds an action, and through what: export it as CSV or JSON lines.' }
        : null,
  },
  {
    path: '/basic-roles',
    offer: (a) =>
      a.can('roles:read', 'roles:*')
        ? {
            label: 'Basic roles',
            description: sentence(
              'what Viewer, Editor, Admin and Service Admin hold',
              a.can('roles:write', ESCALATE) && 'reset them to the defaults',
            ),
          }
        : null,
  },
  {
    path: '/access-requests',
    offer: (a, rbac) =>
      rbac && (a.can('access.requests:create') || a.can('access.requests:approve'))
        ? {
            label: 'Access requests',
            description: sentence(
              a.can('access.requests:create') && 'ask for a role for a while, with a reason, and follow your requests',
              a.can('access.requests:approve') && "approve or deny other people's requests for roles you may grant",
            ),
          }
        : null,
  },
];

/** The sections offered to the caller, with their offers, in navigation order. */
export function offeredSections(access: Access, rbac: boolean): (Offer & { path: ConsolePath })[] {
  return SECTIONS.flatMap((s) => {
    const offer = s.offer(access, rbac);
    return offer ? [{ path: s.path, ...offer }] : [];
  });
}
