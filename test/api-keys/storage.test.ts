/**
 * Key format and storage: the shape and checksum of issued keys, and the database (SQLite's
 * files; every row of PostgreSQL's tables) holds no key value, only its SHA-256.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_LENGTH, API_KEY_PREFIX, generateApiKey, hashApiKey, isWellFormedApiKey } from '../../src/modules/api-keys/secrets.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createKey } from '../support/subjects.js';

describe('key format', () => {
  it('issues pcs_ + 38 base62 characters with a valid checksum, all different', () => {
    const issued = Array.from({ length: 500 }, generateApiKey);
    expect(new Set(issued).size).toBe(issued.length);
    for (const key of issued) {
      expect(key).toMatch(/^pcs_[0-9A-Za-z]{38}$/);
      expect(key).toHaveLength(API_KEY_LENGTH);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it('draws the secret from all 62 characters', () => {
    const seen = new Set(Array.from({ length: 200 }, generateApiKey).flatMap((k) => [...k.slice(API_KEY_PREFIX.length, -6)]));
    expect(seen.size).toBe(62);
  });

  it('refuses every single-character change of a key through the checksum', () => {
    const key = generateApiKey();
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let tried = 0;
    for (let i = API_KEY_PREFIX.length; i < key.length; i++) {
      for (const c of [alphabet[(alphabet.indexOf(key[i] as string) + 1) % 62], alphabet[(alphabet.indexOf(key[i] as string) + 31) % 62]]) {
        expect(isWellFormedApiKey(key.slice(0, i) + c + key.slice(i + 1))).toBe(false);
        tried++;
      }
    }
    expect(tried).toBe(2 * (API_KEY_LENGTH - API_KEY_PREFIX.length));
  });

  it('hashes with SHA-256 (64 hex characters, the digest of the key), different for different keys', () => {
    const [a, b] = [generateApiKey(), generateApiKey()];
    expect(hashApiKey(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(a)).toBe(createHash('sha256').update(a, 'utf8').digest('hex'));
    expect(hashApiKey(a)).not.toBe(hashApiKey(b));
  });
});

/**
 * What the database holds, as bytes to search. SQLite: the database file and its WAL. PostgreSQL
 * (its files belong to the server): the text of every row of every table of the schema.
 */
async function stored(app: TestApp): Promise<{ files: string[]; contents: Buffer[] }> {
  if (app.database.provider === 'sqlite') {
    const files = [app.database.path, `${app.database.path}-wal`];
    const contents = files.map((file) => readFileSync(file));
    expect(contents[1]?.length ?? 0).toBeGreaterThan(0);
    return { files, contents };
  }
  const db = app.database.prisma;
  const tables = await db.$queryRawUnsafe<{ name: string }[]>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
  );
  const files = tables.map((t) => `table ${t.name}`);
  const contents = await Promise.all(
    tables.map(async (t) => {
      const rows = await db.$queryRawUnsafe<{ row: string }[]>(`SELECT t::text AS row FROM "${t.name}" t`);
      return Buffer.from(rows.map((r) => r.row).join('\n'), 'utf8');
    }),
  );
  return { files, contents };
}

describe('storage', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('the database file and its WAL hold no key value, with or without the prefix; the row holds its SHA-256', async () => {
    const created = [];
    for (const role of ['Viewer', 'Editor', 'Admin']) created.push(await createKey(app, { name: `stored-${role}`, role }));
    // Use each key once, so lastUsedAt writes reach the files too.
    for (const { key } of created) expect((await app.request('/api/auth/keys', { auth: { token: key } })).status).not.toBe(401);

    const { files, contents } = await stored(app);
    for (const { id, key } of created) {
      const secret = key.slice(API_KEY_PREFIX.length);
      for (const [i, bytes] of contents.entries()) {
        for (const needle of [key, secret, secret.slice(0, 16), secret.slice(16)]) {
          expect(bytes.includes(Buffer.from(needle, 'utf8')), `${needle} in ${files[i]}`).toBe(false);
          expect(bytes.includes(Buffer.from(needle, 'utf16le')), `${needle} (UTF-16) in ${files[i]}`).toBe(false);
        }
      }
      const row = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id } });
      expect(row.hash).toBe(hashApiKey(key));
      expect(JSON.stringify(row)).not.toContain(secret);
    }
    // The files do hold what was written: the names are found, so the search itself works.
    expect(contents.some((bytes) => bytes.includes(Buffer.from('stored-Editor')))).toBe(true);
  });
});
