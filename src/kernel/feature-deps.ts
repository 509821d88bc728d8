/** What every feature service is built on. */
import type { Clock } from '../platform/clock.js';
import type { Db } from '../platform/database.js';
import type { AccessService } from './access.js';
import type { EditionGuard } from './edition.js';

/**
 * What every feature service is built on: the database for reads, the access service for
 * checks and for writes (`access.write`), the edition guard, and the one clock (the database's
 * on PostgreSQL: platform/database-clock.ts; tests set it).
 */
export interface FeatureDeps {
  db: Db;
  access: AccessService;
  edition: EditionGuard;
  clock: Clock;
}
