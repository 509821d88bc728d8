import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VerifiedPasswords } from './verified-passwords.js';

const entry = { userId: 7, generation: 3, user: { id: 7, passwordHash: '$argon2id$stub' }, verifiedAt: 1_000 };

describe('VerifiedPasswords', () => {
  it('keys by an HMAC under a per-process key: neither the password nor its plain SHA-256 appears, and another process gets another key', () => {
    const a = new VerifiedPasswords();
    const b = new VerifiedPasswords();
    const key = a.keyOf('alice', 'secret-pw');
    expect(key).not.toContain('secret-pw');
    expect(key).not.toBe(createHash('sha256').update('secret-pw').digest('base64url'));
    expect(key).not.toBe(createHash('sha256').update('alice:secret-pw').digest('base64url'));
    expect(key).toBe(a.keyOf('alice', 'secret-pw'));
    expect(key).not.toBe(b.keyOf('alice', 'secret-pw'));
    // Length-prefixed: moving the boundary between login and password changes the key.
    expect(a.keyOf('ali', 'ce:secret-pw')).not.toBe(a.keyOf('alice', ':secret-pw'));
  });

  it.each([
    { name: 'same generation, within the TTL', generation: 3, now: 60_999, served: true },
    { name: 'another generation', generation: 4, now: 1_001, served: false },
    { name: 'TTL reached', generation: 3, now: 61_000, served: false },
    { name: 'clock moved back', generation: 3, now: 999, served: false },
  ])('$name: served $served', ({ generation, now, served }) => {
    const cache = new VerifiedPasswords({ ttlSeconds: 60, maxEntries: 10 });
    cache.set('k', entry);
    expect(cache.get('k', generation, now) !== undefined).toBe(served);
    // A refused entry is dropped, never served later.
    if (!served) expect(cache.get('k', 3, 1_001)).toBeUndefined();
  });

  it('is off with a TTL of 0 and bounded in entries', () => {
    const off = new VerifiedPasswords({ ttlSeconds: 0, maxEntries: 10 });
    off.set('k', entry);
    expect([off.enabled, off.size]).toEqual([false, 0]);
    const small = new VerifiedPasswords({ ttlSeconds: 60, maxEntries: 2 });
    for (const k of ['a', 'b', 'c']) small.set(k, entry);
    expect(small.size).toBe(2);
  });
});
