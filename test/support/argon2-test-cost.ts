/**
 * `@node-rs/argon2` at test cost: the real library (real argon2id hashing and verification),
 * whose `hash` and `hashSync` use 256 KiB and one pass unless the caller names its own
 * parameters. vitest.config.ts puts this module in place of the library for the test files of
 * the `app` project only. The service passes no parameters, so it runs with the library's
 * defaults (19 MiB, two passes, OWASP's recommendation): about 25 ms per sign-in by design, and
 * a request-level test suite signs in on nearly every request (with Basic credentials). At test
 * cost a check takes about 0.15 ms; `verify` reads the parameters from the stored hash, so a
 * known and an unknown login still cost the same as each other.
 *
 * Checked at the real cost (the `production-cost` project of vitest.config.ts, which loads the
 * library itself): the hash parameters the service writes (test/platform/password-cost.test.ts),
 * the equal time of known and unknown logins (test/sign-in/credential-abuse.test.ts), and every
 * test that starts the real server or the CLI in a process of its own.
 */
import { createRequire } from 'node:module';
import type * as Argon2 from '@node-rs/argon2';

// require() is Node's own resolution: it loads the library, not this module again (the alias is vite's).
const argon2 = createRequire(import.meta.url)('@node-rs/argon2') as typeof Argon2;

/** The parameters of a hash made at test cost (argon2id, 256 KiB, one pass, one lane). */
export const TEST_COST: Argon2.Options = { memoryCost: 256, timeCost: 1, parallelism: 1 };

export const { Algorithm, Version, verify, verifySync, hashRaw, hashRawSync } = argon2;

export function hash(password: string | Uint8Array, options?: Argon2.Options | null, signal?: AbortSignal | null): Promise<string> {
  return argon2.hash(password, options ?? TEST_COST, signal);
}

export function hashSync(password: string | Uint8Array, options?: Argon2.Options | null): string {
  return argon2.hashSync(password, options ?? TEST_COST);
}
