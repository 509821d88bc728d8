import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ForeignCommits } from '../../kernel/foreign-commits.js';
import { Freshness } from '../../kernel/freshness.js';
import { VerifiedPasswords } from './verified-passwords.js';

const entry = { userId: 7, user: { id: 7, passwordHash: '$argon2id$stub' }, verifiedAt: 1_000 };
const freshness = () => new Freshness(new ForeignCommits(undefined));

describe('VerifiedPasswords', () => {
  it('keys by a hash under a per-process key: neither the password nor its plain SHA-256 appears, and another process gets another key', () => {
    const a = new VerifiedPasswords(freshness());
    const b = new VerifiedPasswords(freshness());
    const key = a.keyOf('alice', 'secret-pw');
    expect(key).not.toContain('secret-pw');
    expect(key).not.toBe(createHash('sha256').update('secret-pw').digest('base64url'));
    expect(key).not.toBe(createHash('sha256').update('alice:secret-pw').digest('base64url'));
    expect(key).toBe(a.keyOf('alice', 'secret-pw'));
    expect(key).not.toBe(b.keyOf('alice', 'secret-pw'));
    // Length-prefixed: moving the boundary between login and password changes the key.
    expect(a.keyOf('ali', 'ce:secret-pw')).not.toBe(a.keyOf('alice', ':secret-pw'));
  });

  it('is SHA3-256 of the key and the length-prefixed pair, for any text', () => {
    const secret = randomBytes(32);
    const passwords = new VerifiedPasswords(freshness(), undefined, secret);
    for (const [login, password] of [
      ['alice', 'secret-pw'],
      ['', ''],
      ['ünïcødé', 'пароль-🔑'],
      ['a'.repeat(300), 'b'.repeat(1000)],
    ] as const) {
      const expected = createHash('sha3-256')
        .update(secret.toString('hex'))
        .update(`${login.length}:${login}\u0000${password}`, 'utf8')
        .digest('base64url');
      expect(passwords.keyOf(login, password)).toBe(expected);
    }
  });

  it.each([
    { name: 'same revision, within the TTL', change: false, now: 60_999, served: true },
    { name: 'a change applied since', change: true, now: 1_001, served: false },
    { name: 'TTL reached', change: false, now: 61_000, served: false },
    { name: 'clock moved back', change: false, now: 999, served: false },
  ])('$name: served $served', ({ change, now, served }) => {
    const applied = freshness();
    const cache = new VerifiedPasswords(applied, { ttlSeconds: 60, maxEntries: 10 });
    cache.set('k', entry, cache.stamp());
    if (change) applied.applyToEveryone();
    expect(cache.get('k', now) !== undefined).toBe(served);
    // A refused entry is dropped, never served later.
    if (!served) expect(cache.get('k', 1_001)).toBeUndefined();
  });

  it('a check that overlapped a change is not stored', () => {
    const applied = freshness();
    const cache = new VerifiedPasswords(applied, { ttlSeconds: 60, maxEntries: 10 });
    const stamp = cache.stamp();
    applied.applyToEveryone();
    cache.set('k', entry, stamp);
    expect(cache.get('k', 1_001)).toBeUndefined();
  });

  it('is off with a TTL of 0 and bounded in entries', () => {
    const off = new VerifiedPasswords(freshness(), { ttlSeconds: 0, maxEntries: 10 });
    off.set('k', entry, off.stamp());
    expect([off.enabled, off.size]).toEqual([false, 0]);
    const small = new VerifiedPasswords(freshness(), { ttlSeconds: 60, maxEntries: 2 });
    for (const k of ['a', 'b', 'c']) small.set(k, entry, small.stamp());
    expect(small.size).toBe(2);
  });
});
