/**
 * Password hashing with argon2id (@node-rs/argon2, OWASP-recommended parameters by default).
 * Hashes are PHC strings (`$argon2id$v=19$m=...`), so parameters can change without a migration.
 */
import { hash, verify } from '@node-rs/argon2';

/** Hashes a password; takes tens of milliseconds by design. */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** True when `password` matches the PHC `stored` hash; false for a malformed hash. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
