/**
 * Password hashing with argon2id (@node-rs/argon2, OWASP-recommended parameters by default).
 * Hashes are PHC strings (`$argon2id$v=19$m=...`), so parameters can change without a migration.
 *
 * A login without a usable hash (unknown user, service account, external
 * user) is verified against a dummy hash with the same parameters, so it costs the same time as
 * a known user with a wrong password and the answer time does not reveal which logins exist.
 */

/**
 * The argon2 binding (a native addon), loaded by the first hash or check: a start on an existing
 * database and a service answering API keys only never load it (memory and start time).
 */
const argon2 = () => import('@node-rs/argon2');

let dummyHash: Promise<string> | undefined;

/** Hashes a password; takes tens of milliseconds by design. */
export async function hashPassword(password: string): Promise<string> {
  return (await argon2()).hash(password);
}

/**
 * What checks a password against a stored hash: verifyPassword, or in tests a wrapper that counts
 * or holds the checks (the sign-in module receives it, so every real check goes through it).
 */
export type PasswordVerifier = (stored: string | null, password: string) => Promise<boolean>;

/**
 * True when `password` matches the PHC `stored` hash; false for a malformed hash. With `stored`
 * null the password is checked against a dummy hash (same cost) and the answer is always false.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  const { hash, verify } = await argon2();
  if (stored === null) {
    dummyHash ??= hash('portcullis-dummy-password-never-matches');
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
