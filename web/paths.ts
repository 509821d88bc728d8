/**
 * The console's page paths. The server answers exactly these paths (GET) with the console's page
 * (src/http/console-routes.ts) and the client routes between them (app.tsx), so the list lives here
 * once. Any other path is not the console's.
 */
export const CONSOLE_PATHS = [
  '/',
  '/login',
  '/users',
  '/users/edit',
  '/teams',
  '/teams/edit',
  '/orgs',
  '/api-keys',
  '/roles',
  '/roles/new',
  '/roles/edit',
  '/assignments',
  '/why',
  '/review',
  '/basic-roles',
  '/access-requests',
] as const;

/** A path of the console. */
export type ConsolePath = (typeof CONSOLE_PATHS)[number];

const PATHS: ReadonlySet<string> = new Set(CONSOLE_PATHS);

/** True for a path the console answers. */
export function isConsolePath(path: string): path is ConsolePath {
  return PATHS.has(path);
}
