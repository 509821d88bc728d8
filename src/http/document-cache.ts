/**
 * The parse/validate cache of yoga, bounded in bytes: yoga's default keeps
 * 1,024 documents whatever their size, so 240 distinct 0.35 MB documents filled the heap. Here
 * each entry is weighed from its source text (a parsed document with locations weighs about
 * 80 bytes per source character, measured with graphql 16), and the least recently used
 * entries go once `maxBytes` is reached; a document heavier than the whole budget is not kept.
 */
import type { DocumentNode } from 'graphql';
import { LRUCache } from 'lru-cache';

/** Estimated heap bytes of a parsed document per character of its source (AST + locations). */
const AST_BYTES_PER_CHAR = 100;
/** Estimated heap bytes of a cached parse error besides its source text. */
const ERROR_BYTES = 1024;
/** Cached entries are dropped after an hour unused, as yoga's default cache does. */
const TTL_MS = 3_600_000;

interface Cache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
}

/** Options for yoga's `parserAndValidationCache`, weighed in bytes. */
export interface BoundedParserCache {
  documentCache: Cache<DocumentNode>;
  errorCache: Cache<unknown>;
  validationCache: true;
}

function bounded<T extends object>(maxBytes: number, weigh: (key: string) => number): Cache<T> {
  const cache = new LRUCache<string, T>({
    maxSize: maxBytes,
    ttl: TTL_MS,
    sizeCalculation: (_value, key) => Math.max(1, weigh(key)),
  });
  return {
    get: (key) => cache.get(key),
    set: (key, value) => {
      // lru-cache refuses (and warns about) an item larger than maxSize; skip it quietly.
      if (weigh(key) <= maxBytes) cache.set(key, value);
    },
  };
}

/**
 * Document and error caches sharing `maxBytes` (three quarters for documents, one quarter for
 * parse errors). Validation results are cached per document object by yoga, in a WeakMap, so
 * they go when the document goes.
 */
export function boundedParserCache(maxBytes: number): BoundedParserCache {
  const documents = Math.floor(maxBytes * 0.75);
  return {
    documentCache: bounded<DocumentNode>(documents, (source) => source.length * (AST_BYTES_PER_CHAR + 2)),
    errorCache: bounded<object>(maxBytes - documents, (source) => source.length * 2 + ERROR_BYTES),
    validationCache: true,
  };
}
