/**
 * API keys: create, list and delete them, and verify a presented key (authentication).
 *
 * Key format (42 ASCII characters, safe in headers and URLs, selectable by a double click):
 *
 *     pcs_ <32 base62 characters: the secret> <6 base62 characters: the checksum>
 *
 * - `pcs_` makes a leaked key recognisable (secret scanners, logs, support tickets).
 * - The secret is 32 characters drawn uniformly from [0-9A-Za-z] with `crypto.randomBytes`
 *   (rejection sampling, no modulo bias): 32 x log2(62) ~ 190 bits, above the 128 required.
 * - The checksum is CRC32 of `pcs_<secret>`, base62, left-padded to 6 characters. It lets
 *   `verify` refuse a mistyped, truncated or made-up key with no database read at all.
 *
 * Storage: only `hash` = hex SHA-256 of the whole key is written (unique index). The secret has
 * ~190 bits of entropy, so a fast hash cannot be brute-forced and keeps authentication cheap (no
 * password hash on the key path). A key is looked up by its hash and the stored hash is then
 * compared with `crypto.timingSafeEqual`. Nothing reversible is stored; the key is shown once,
 * by `create`.
 *
 * Verification reads one row per request and caches nothing, so deleting a key revokes it on
 * the very next request. Expiry is checked on every use against the injected Clock. `lastUsedAt`
 * is written at most once per key per LAST_USED_INTERVAL_MS (an in-memory throttle, seeded
 * from the stored value), never once per request.
 *
 * Rules: service-interface.md "API key", "List/Create/Delete API key", "Required permissions",
 * "Limits"; upstream-behaviour.md "API keys" (role ceiling 403, duplicate name 409, TTL messages,
 * `{"message": "API key deleted"}`, keys act in their own org with their role's basic role).
 * Editions (issue #4): `enterprise` checks apikey:read on apikey:* / apikey:create /
 * apikey:delete on apikey:id:<id>; `oss` requires the org role Admin, as Grafana OSS does.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { z } from 'zod';
import type { Db } from '../../platform/database.js';
import type { ApiKey, Prisma } from '../../generated/prisma/client.js';
import { type AccessService, requireSignedIn } from '../../kernel/access.js';
import type { Clock } from '../../platform/clock.js';
import { accessDenied, DomainError } from '../../kernel/errors.js';
import { type Evaluator, permission } from '../../kernel/evaluator.js';
import { Action, Scope } from '../../kernel/catalogue.js';
import { type ApiKeyPrincipal, isOrgRole, orgRoleIncludes, type Principal } from '../../kernel/principal.js';
import { isUniqueViolation } from '../roles/service.js';
import { parseInput } from '../../kernel/inputs.js';

// ---------------------------------------------------------------------------------------------
// Key format
// ---------------------------------------------------------------------------------------------

/** Prefix of every key this service issues. */
export const API_KEY_PREFIX = 'pcs_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
/** Total length of a key: prefix, secret, checksum. */
export const API_KEY_LENGTH = API_KEY_PREFIX.length + SECRET_LENGTH + CHECKSUM_LENGTH;
const KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH + CHECKSUM_LENGTH}}$`);

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
export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(SECRET_LENGTH);
  return body + checksumOf(body);
}

/** True when `key` has the shape of an issued key and its checksum matches. Reads nothing. */
export function isWellFormedApiKey(key: string): boolean {
  if (key.length !== API_KEY_LENGTH || !KEY_PATTERN.test(key)) return false;
  const body = key.slice(0, API_KEY_LENGTH - CHECKSUM_LENGTH);
  return checksumOf(body) === key.slice(API_KEY_LENGTH - CHECKSUM_LENGTH);
}

/** SHA-256 of the whole key, the only form stored (`ApiKey.hash` holds it as hex). */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

// ---------------------------------------------------------------------------------------------
// Inputs and outputs
// ---------------------------------------------------------------------------------------------

/** Key name limit: Grafana's api_key.name column (varchar 190). */
export const MAX_API_KEY_NAME_LENGTH = 190;
/** Largest secondsToLive: a GraphQL Int (about 68 years), so both doors accept the same range. */
export const MAX_SECONDS_TO_LIVE = 2_147_483_647;
/** At most one `lastUsedAt` write per key in this many milliseconds. */
export const LAST_USED_INTERVAL_MS = 60_000;
/** Keys whose last write time is remembered; the oldest entry is dropped past this. */
const LAST_USED_CACHE_LIMIT = 10_000;

/** Roles a key may have (service-interface.md "API key"). */
export const API_KEY_ROLES = ['Viewer', 'Editor', 'Admin'] as const;
export type ApiKeyRole = (typeof API_KEY_ROLES)[number];

/** Body of create API key: `{name, role, secondsToLive?}` (service-interface.md "Create API key"). */
export const createApiKeyInput = z.object(
  {
    name: z
      .string({ error: 'name is required and must be a string' })
      .trim()
      .min(1, 'name is required')
      .max(MAX_API_KEY_NAME_LENGTH, `name is longer than ${MAX_API_KEY_NAME_LENGTH} characters`),
    role: z.enum(API_KEY_ROLES, { error: 'role is required and must be one of Viewer, Editor, Admin' }),
    secondsToLive: z
      .number({ error: 'secondsToLive must be a number' })
      .int('secondsToLive must be a whole number of seconds')
      .max(MAX_SECONDS_TO_LIVE, `secondsToLive must be at most ${MAX_SECONDS_TO_LIVE}`)
      .nullish(),
  },
  { error: 'body must be a JSON object' },
);
export type CreateApiKeyInput = z.input<typeof createApiKeyInput>;

/** A key id: a number (GraphQL) or a string of digits (REST path). */
const apiKeyId = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^\d{1,10}$/)
        .transform(Number),
    ],
    { error: 'id must be a positive whole number' },
  )
  .pipe(
    z
      .number()
      .int('id must be a positive whole number')
      .min(1, 'id must be a positive whole number')
      .max(2_147_483_647, 'id must be a positive whole number'),
  );

/** The create response: the only time the key value is shown. */
export interface NewApiKey {
  id: number;
  name: string;
  key: string;
}

/** A key as the REST list answers it; `expiration` only for expiring keys, `lastUsedAt` once used. */
export interface ApiKeyJson {
  id: number;
  name: string;
  role: string;
  expiration?: string;
  lastUsedAt?: string;
}

/** JSON shape of a key row (upstream-behaviour.md "API keys": `{id, name, role, expiration?}`). */
export function apiKeyToJson(key: Pick<ApiKey, 'id' | 'name' | 'role' | 'expires' | 'lastUsedAt'>): ApiKeyJson {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    ...(key.expires && { expiration: key.expires.toISOString() }),
    ...(key.lastUsedAt && { lastUsedAt: key.lastUsedAt.toISOString() }),
  };
}

/** What a Pothos `query` (or any caller) may ask Prisma to load with each key. */
export type ApiKeyQuery = { include?: Prisma.ApiKeyInclude; select?: Prisma.ApiKeySelect };

// ---------------------------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------------------------

export interface ApiKeyServiceDeps {
  db: Db;
  access: AccessService;
  clock: Clock;
  edition: 'enterprise' | 'oss';
  /** `API_KEY_MAX_SECONDS_TO_LIVE`: when set, every key must expire within it. */
  maxSecondsToLive: number | undefined;
}

const invalidKey = () => new DomainError('INVALID_API_KEY', 'Invalid API key');
const expiredKey = () => new DomainError('EXPIRED_API_KEY', 'Expired API key');

export class ApiKeyService {
  /** Key id -> time (ms) of its last `lastUsedAt` write, or of the stored value seen. */
  private readonly lastUsedWrites = new Map<number, number>();

  constructor(private readonly deps: ApiKeyServiceDeps) {}

  /**
   * Keys of the caller's organization ordered by name; expired ones (expiry at or before now)
   * only with includeExpired. Needs apikey:read on apikey:* (enterprise) or org Admin (oss).
   * @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403).
   */
  async list(caller: Principal, options: { includeExpired?: boolean | null }, query: ApiKeyQuery = {}): Promise<ApiKey[]> {
    await this.authorize(caller, permission(Action.ApiKeyRead, Scope.ApiKeysAll));
    const now = this.deps.clock.now();
    return this.deps.db.apiKey.findMany({
      ...query,
      where: { orgId: caller.orgId, ...(options.includeExpired ? {} : { OR: [{ expires: null }, { expires: { gt: now } }] }) },
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
    });
  }

  /**
   * Creates a key in the caller's organization (the X-Service-Org-Id one, else its default) and
   * returns it with its value, the only time the value is shown. `secondsToLive` > 0 sets an
   * expiry; 0, negative or absent means none, unless `apiKeyMaxSecondsToLive` is set, then it is
   * required and bounded. Needs apikey:create (enterprise) or org Admin (oss), and an org role
   * at least the key's role.
   * @throws DomainError VALIDATION_FAILED (400: name, role, secondsToLive),
   *   API_KEY_TTL_REQUIRED (400: "Number of seconds before expiration should be set"),
   *   API_KEY_TTL_TOO_LONG (400: "Number of seconds before expiration is greater than the global
   *   limit"), ACCESS_DENIED (403: permission or role above the caller's), UNAUTHENTICATED (401),
   *   API_KEY_ALREADY_EXISTS (409: the name is taken in this organization).
   */
  async create(caller: Principal, rawInput: unknown): Promise<NewApiKey> {
    await this.authorize(caller, permission(Action.ApiKeyCreate));
    const input = parseInput(createApiKeyInput, rawInput);
    if (!orgRoleIncludes(caller.orgRole, input.role)) {
      throw new DomainError('ACCESS_DENIED', `cannot create an API key with role ${input.role}, above your org role ${caller.orgRole}`, {
        role: input.role,
        orgRole: caller.orgRole,
      });
    }
    const seconds = input.secondsToLive ?? 0;
    const max = this.deps.maxSecondsToLive;
    if (max !== undefined) {
      if (seconds <= 0) throw new DomainError('API_KEY_TTL_REQUIRED', 'Number of seconds before expiration should be set', { max });
      if (seconds > max) {
        throw new DomainError('API_KEY_TTL_TOO_LONG', 'Number of seconds before expiration is greater than the global limit', { max });
      }
    }
    const expires = seconds > 0 ? new Date(this.deps.clock.now().getTime() + seconds * 1000) : null;

    const key = generateApiKey();
    try {
      const row = await this.deps.db.apiKey.create({
        data: { orgId: caller.orgId, name: input.name, role: input.role, hash: hashApiKey(key).toString('hex'), expires },
        select: { id: true, name: true },
      });
      return { id: row.id, name: row.name, key };
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new DomainError('API_KEY_ALREADY_EXISTS', `an API key named "${input.name}" already exists in this organization`, {
          name: input.name,
        });
      }
      throw error;
    }
  }

  /**
   * Deletes a key of the caller's organization; it stops authenticating at once.
   * `rawId` is a number or a string of digits. Needs apikey:delete on apikey:id:<id> (apikey:*
   * covers it) in enterprise, org Admin in oss.
   * @throws DomainError VALIDATION_FAILED (400: id), UNAUTHENTICATED (401), ACCESS_DENIED (403),
   *   API_KEY_NOT_FOUND (404: unknown id or a key of another organization).
   */
  async delete(caller: Principal, rawId: unknown): Promise<{ message: string }> {
    requireSignedIn(caller);
    const id = parseInput(apiKeyId, rawId);
    await this.authorize(caller, permission(Action.ApiKeyDelete, Scope.apiKey(id)));
    const { count } = await this.deps.db.apiKey.deleteMany({ where: { id, orgId: caller.orgId } });
    if (count === 0) throw new DomainError('API_KEY_NOT_FOUND', `API key ${id} not found`, { id });
    this.lastUsedWrites.delete(id);
    // The key's cached permission index must not outlive it (ids are never reused, but be safe).
    this.deps.access.invalidate();
    return { message: 'API key deleted' };
  }

  /**
   * Authenticates a presented key: the principal of a live key, acting in the key's organization
   * with the key's role. A malformed key (shape or checksum) is refused before any SQL.
   * Implements the `ApiKeyVerifier` seam of src/auth/authenticate.ts.
   * @throws DomainError INVALID_API_KEY (401: malformed, unknown or deleted),
   *   EXPIRED_API_KEY (401: expiry at or before the clock's now).
   */
  async verify(key: string): Promise<ApiKeyPrincipal> {
    if (!isWellFormedApiKey(key)) throw invalidKey();
    const digest = hashApiKey(key);
    const row = await this.deps.db.apiKey.findUnique({
      where: { hash: digest.toString('hex') },
      select: { id: true, name: true, orgId: true, role: true, hash: true, expires: true, lastUsedAt: true },
    });
    if (!row) throw invalidKey();
    const stored = Buffer.from(row.hash, 'hex');
    if (stored.length !== digest.length || !timingSafeEqual(stored, digest)) throw invalidKey();
    const now = this.deps.clock.now();
    if (row.expires && row.expires.getTime() <= now.getTime()) throw expiredKey();
    if (!isOrgRole(row.role) || row.role === 'None') throw invalidKey();
    await this.recordUse(row.id, row.lastUsedAt, now);
    return {
      kind: 'apiKey',
      id: row.id,
      name: row.name,
      orgId: row.orgId,
      orgRole: row.role,
      isServiceAdmin: false,
      authMethod: 'api_key',
    };
  }

  /**
   * Writes `lastUsedAt = now` unless this key was written (or seen stored) less than
   * LAST_USED_INTERVAL_MS ago. A failed write never fails the request; the next use retries.
   */
  private async recordUse(id: number, stored: Date | null, now: Date): Promise<void> {
    const last = Math.max(this.lastUsedWrites.get(id) ?? Number.NEGATIVE_INFINITY, stored?.getTime() ?? Number.NEGATIVE_INFINITY);
    if (now.getTime() - last < LAST_USED_INTERVAL_MS) return;
    // Claimed before the write, so concurrent requests of the same key do not write as well.
    this.lastUsedWrites.delete(id);
    this.lastUsedWrites.set(id, now.getTime());
    if (this.lastUsedWrites.size > LAST_USED_CACHE_LIMIT) {
      const oldest = this.lastUsedWrites.keys().next().value;
      if (oldest !== undefined) this.lastUsedWrites.delete(oldest);
    }
    try {
      await this.deps.db.apiKey.updateMany({ where: { id }, data: { lastUsedAt: now } });
    } catch {
      this.lastUsedWrites.delete(id);
    }
  }

  /**
   * enterprise: the permission check; oss: org role Admin (Grafana OSS guards these routes with
   * reqOrgAdmin). @throws DomainError UNAUTHENTICATED (401), ACCESS_DENIED (403).
   */
  private async authorize(caller: Principal, evaluator: Evaluator): Promise<void> {
    requireSignedIn(caller);
    if (this.deps.edition === 'enterprise') {
      await this.deps.access.check(caller, evaluator);
    } else if (caller.orgRole !== 'Admin') {
      throw accessDenied('org role Admin');
    }
  }
}
