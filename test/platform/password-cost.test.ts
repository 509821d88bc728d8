/**
 * The password-hash cost the service writes: argon2id with the library's defaults, OWASP's
 * recommendation (19 MiB, two passes, one lane). Runs in the `production-cost` project of
 * vitest.config.ts, where the library is not swapped for its test-cost stand-in
 * (test/support/argon2-test-cost.ts); this file proves that it is not.
 */
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/platform/passwords.js';

describe('password hashes', () => {
  it('are argon2id at 19 MiB, two passes, one lane', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/);
    expect(await verifyPassword(stored, 'correct horse')).toBe(true);
    expect(await verifyPassword(stored, 'correct horse ')).toBe(false);
  });
});
