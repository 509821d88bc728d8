/**
 * databaseOpenProblem: each connection failure of PostgreSQL at start is told as one line naming
 * DATABASE_URL (password hidden), the host and port, and what to check.
 */
import { describe, expect, it } from 'vitest';
import { databaseOpenProblem, maskedDatabaseUrl } from './database-open-problem.js';

const URL = 'postgres://app:s3cret@db.example:6543/portcullis';

/** An error as node-postgres or Node's sockets throw it: a message and a `code`. */
function coded(code: string, message = `failure ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe('databaseOpenProblem', () => {
  it.each([
    [coded('ECONNREFUSED'), /nothing listens on db\.example:6543 \(ECONNREFUSED\): is PostgreSQL running, and on that port\?/],
    [new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], ''), /nothing listens on db\.example:6543/],
    [coded('ENOTFOUND'), /the host "db\.example" is unknown \(ENOTFOUND\)/],
    [coded('EAI_AGAIN'), /the host "db\.example" is unknown \(EAI_AGAIN\)/],
    [
      coded('28P01', 'password authentication failed for user "app"'),
      /refused user "app" \(28P01: password authentication failed.*check the user and password/,
    ],
    [coded('28000'), /refused user "app" \(28000/],
    [coded('3D000'), /the database "portcullis" does not exist on db\.example:6543 \(3D000\): create it/],
    [coded('ETIMEDOUT'), /connecting to db\.example:6543 timed out/],
    [new Error('Connection terminated due to connection timeout'), /timed out/],
    [new Error('wrapped', { cause: coded('ECONNREFUSED') }), /ECONNREFUSED/],
  ])('%s', (error, cause) => {
    const line = databaseOpenProblem(error, URL);
    expect(line).toMatch(/^DATABASE_URL postgres:\/\/app:\*\*\*@db\.example:6543\/portcullis could not be used: /);
    expect(line).toMatch(cause);
    expect(line).not.toContain('s3cret');
  });

  it('names the default port when the URL has none', () => {
    expect(databaseOpenProblem(coded('ECONNREFUSED'), 'postgres://app@db.example/portcullis')).toContain('db.example:5432');
  });

  it('leaves other errors and SQLite alone (their own message stays)', () => {
    expect(databaseOpenProblem(new Error('migration 0003 failed'), URL)).toBeUndefined();
    expect(databaseOpenProblem(coded('ECONNREFUSED'), 'file:./data/x.db')).toBeUndefined();
  });
});

describe('maskedDatabaseUrl', () => {
  it('hides the password, in the user part and as a query parameter', () => {
    expect(maskedDatabaseUrl(URL)).toBe('postgres://app:***@db.example:6543/portcullis');
    expect(maskedDatabaseUrl('postgres://app@h/db?password=x')).toBe('postgres://app@h/db?password=***');
  });
});
