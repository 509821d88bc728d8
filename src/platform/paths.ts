/**
 * Where relative paths point: the project folder (the one holding package.json), whatever the
 * working directory. `npm start`, `npm run cli` and `npx portcullis` started from any folder open
 * the same database (DATABASE_URL) and read the same provisioning files (PROVISIONING_PATH) and
 * ldap.toml (AUTH_LDAP_CONFIG_FILE), so a CLI run from a subfolder never
 * silently creates a second database.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, two levels above this file (src/platform/). */
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `path` made absolute: kept when already absolute, else resolved against the project folder
 * (`./provisioning` -> `<project>/provisioning`).
 */
export function projectPath(path: string): string {
  return isAbsolute(path) ? path : resolve(PROJECT_ROOT, path);
}
