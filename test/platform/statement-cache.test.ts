/**
 * SQLite's prepared statements are kept by SQL text and reused (src/platform/database-sqlite.ts
 * StatementCache): one statement serves calls with other arguments, inside and outside
 * transactions, rolled back or not, and past the cache's bound the evicted texts are prepared
 * again. Every answer is the one a fresh statement would give.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATEMENT_CACHE_SIZE } from '../../src/platform/database-sqlite.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { onPostgres } from '../support/postgres.js';
import { createUser } from '../support/subjects.js';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe.skipIf(onPostgres)('reused prepared statements (SQLite)', () => {
  it('one statement, other arguments: each call answers its own rows, also a missing row', async () => {
    const a = await createUser(app, 'stmt-a');
    const b = await createUser(app, 'stmt-b');
    for (let i = 0; i < 3; i++) {
      for (const user of [a, b]) {
        const row = await app.database.prisma.user.findUnique({ where: { id: user.id }, select: { login: true } });
        expect(row?.login).toBe(user.login);
      }
    }
    const missing = await app.database.prisma.user.findUnique({ where: { id: 2_000_000_000 }, select: { login: true } });
    expect(missing).toBeNull();
  });

  it('a rolled-back transaction leaves nothing, a committed one its row, through the same statements', async () => {
    const login = 'stmt-tx';
    await expect(
      app.database.prisma.$transaction(async (tx) => {
        await tx.user.create({ data: { login, email: `${login}@example.test`, name: login, orgId: 1 } });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await app.database.prisma.user.count({ where: { login } })).toBe(0);
    await app.database.prisma.$transaction(async (tx) => {
      await tx.user.create({ data: { login, email: `${login}@example.test`, name: login, orgId: 1 } });
    });
    expect(await app.database.prisma.user.count({ where: { login } })).toBe(1);
  });

  it(`past ${STATEMENT_CACHE_SIZE} distinct texts, evicted ones are prepared again and answer right`, async () => {
    const texts = STATEMENT_CACHE_SIZE + 20;
    for (let i = 0; i < texts; i++) {
      const [row] = await app.database.prisma.$queryRawUnsafe<{ n: number; k: number }[]>(`SELECT ${i} AS n, ? AS k`, i * 2);
      expect([Number(row?.n), Number(row?.k)]).toEqual([i, i * 2]);
    }
    const [first] = await app.database.prisma.$queryRawUnsafe<{ n: number; k: number }[]>('SELECT 0 AS n, ? AS k', 7);
    expect([Number(first?.n), Number(first?.k)]).toEqual([0, 7]);
  });
});
