/**
 * The API key format (42 ASCII characters, safe in headers and URLs, selectable by a double
 * click):
 *
 *     pcs_ <32 base62 characters: the secret> <6 base62 characters: the checksum>
 *
 * - `pcs_` makes a leaked key recognisable; service-account tokens use `pcsa_` instead (Grafana's
 *   `glsa_`), 43 characters; a key migrated to a service account keeps its `pcs_` value.
 * - The prefix (secret scanners, logs, support tickets).
 * - The secret is 32 characters drawn uniformly from [0-9A-Za-z] with `crypto.randomBytes`
 *   (rejection sampling, no modulo bias): 32 x log2(62) ~ 190 bits, above the 128 required.
 * - The checksum is CRC32 of `pcs_<secret>`, base62, left-padded to 6 characters. It lets
 *   verification refuse a mistyped, truncated or made-up key with no database read at all.
 *
 * Storage: only the SHA-256 of the whole key is written. The secret has ~190 bits of entropy, so
 * a fast hash cannot be brute-forced and keeps authentication cheap (no password hash on the key
 * path).
 */
import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/** Prefix of every key this service issues. */
export const API_KEY_PREFIX = 'pcs_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** Prefix of every service-account token this service issues. */
export const SERVICE_ACCOUNT_TOKEN_PREFIX = 'pcsa_';
/** Total length of a key: prefix, secret, checksum. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + SECRET_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = new RegExp(`^(${API_KEY_PREFIX}|${SERVICE_ACCOUNT_TOKEN_PREFIX})[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 x 62: bytes at or above it are dropped so every character is equally likely.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

function checksumOf(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new key: `pcs_` + 32 random base62 characters + 6-character CRC32 checksum (see module comment). */
export function generateApiKey(prefix: typeof API_KEY_PREFIX | typeof SERVICE_ACCOUNT_TOKEN_PREFIX = API_KEY_PREFIX): string {
  const body = prefix + randomBase62(SECRET_LENGTH);
  return body + checksumOf(body);
}

/** True when `key` has the shape of an issued key and its checksum matches. Reads nothing. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length > API_KEY_LENGTH + 1 || !KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  return checksumOf(body) === key.slice(key.length - CHECKSUM_LENGTH);
}

/**
 * SHA-256 of the whole key as lowercase hex (64 characters), the only form stored (`ApiKey.hash`).
 * Node's one-shot `crypto.hash`: no Hash object per call, which the authentication of every
 * request with a key would otherwise build and discard.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
