/**
 * Injected database failures for the "nothing half-written" tests, on either database: a trigger
 * that makes matching inserts fail, as SQLite (RAISE) or PostgreSQL (a plpgsql function) spell it.
 */
import type { TestApp } from './app.js';

/**
 * Makes every insert into `table` whose new row matches `when` (SQL over `NEW`, e.g.
 * `NEW."roleId" = 3`; omitted: every insert) fail with `message`.
 * @returns the function that removes the trigger again.
 */
export async function failInserts(app: TestApp, name: string, table: string, message: string, when?: string): Promise<() => Promise<void>> {
  const db = app.database.prisma;
  if (app.database.provider === 'postgresql') {
    await db.$executeRawUnsafe(
      `CREATE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`,
    );
    await db.$executeRawUnsafe(
      `CREATE TRIGGER "${name}" BEFORE INSERT ON "${table}" FOR EACH ROW ${when ? `WHEN (${when})` : ''} EXECUTE FUNCTION "${name}"()`,
    );
    return async () => {
      await db.$executeRawUnsafe(`DROP TRIGGER "${name}" ON "${table}"`);
      await db.$executeRawUnsafe(`DROP FUNCTION "${name}"()`);
    };
  }
  await db.$executeRawUnsafe(
    `CREATE TRIGGER "${name}" BEFORE INSERT ON "${table}" ${when ? `WHEN ${when}` : ''} BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  );
  return async () => {
    await db.$executeRawUnsafe(`DROP TRIGGER "${name}"`);
  };
}
