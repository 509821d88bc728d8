/**
 * The console's pages, path -> title. The server answers exactly these paths (GET) with the
 * console's page (src/http/use-console.ts) and the client routes between them (app.tsx), so the
 * list lives here once. Any other path is not the console's.
 */
export const CONSOLE_PAGES = {
  '/': 'Overview',
  '/login': 'Sign in',
  '/api-keys': 'API key settings',
  '/roles': 'Roles',
  '/roles/new': 'New role',
  '/roles/edit': 'Edit role',
  '/assignments': 'Assignments',
  '/why': 'Why: check access',
  '/basic-roles': 'Basic roles',
} as const;

/** A path of the console. */
export type ConsolePath = keyof typeof CONSOLE_PAGES;

/** True for a path the console answers. */
export function isConsolePath(path: string): path is ConsolePath {
  return Object.hasOwn(CONSOLE_PAGES, path);
}
