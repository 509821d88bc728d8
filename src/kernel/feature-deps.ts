/** What every feature service is built on. */
import type { Db } from '../platform/database.js';
import type { AccessService } from './access.js';
import type { EditionGuard } from './edition.js';

/**
 * What every feature service is built on: the database for reads, the access service for
 * checks and for writes (`access.write`), and the edition guard.
 */
export interface FeatureDeps {
  db: Db;
  access: AccessService;
  edition: EditionGuard;
}
