/** The console's sections: the navigation and the overview's cards, each shown to those who may use it. */
import type { Access } from './access.js';
import type { ConsolePath } from './paths.js';

export interface Section {
  path: ConsolePath;
  label: string;
  description: string;
  visible: (access: Access, rbac: boolean) => boolean;
}

export const SECTIONS: Section[] = [
  { path: '/', label: 'Overview', description: 'Who you are and where to go.', visible: () => true },
  {
    path: '/api-keys',
    label: 'API key settings',
    description: 'API keys of the organization and service-account tokens: create (the secret is shown once), see expiry, revoke.',
    visible: (a) => a.can('apikey:read') || a.can('serviceaccounts:read'),
  },
  {
    path: '/roles',
    label: 'Roles',
    description: 'Basic, fixed, custom and product roles with their permissions; build and edit custom roles.',
    visible: (a) => a.can('roles:read', 'roles:*'),
  },
  {
    path: '/assignments',
    label: 'Assignments',
    description: "A user's, a team's or a service account's roles, and every permission with where it comes from.",
    visible: (a) => a.can('users.roles:read') || a.can('teams.roles:read') || a.can('users.permissions:read'),
  },
  {
    path: '/why',
    label: 'Why?',
    description: 'May a user do an action on a scope? Allowed or denied, and the roles that grant it.',
    visible: (_, rbac) => rbac,
  },
  {
    path: '/basic-roles',
    label: 'Basic roles',
    description: 'What Viewer, Editor, Admin and Service Admin hold, and the reset to the defaults.',
    visible: (a) => a.can('roles:read', 'roles:*'),
  },
];
