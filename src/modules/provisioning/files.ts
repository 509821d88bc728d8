/**
 * Reading provisioning files: `<path>/access-control/*.yaml|yml` and
 * `<path>/plugins/*.json|yaml|yml`, in name order, parsed by the `yaml` library (JSON is YAML)
 * with a LineCounter, so every problem found later, in the parsed data or while applying it,
 * names the file, the line and column, and the path inside the document.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import type * as Yaml from 'yaml';
import type { z } from 'zod';
import { DomainError } from '../../kernel/errors.js';

/** A path inside a document: keys and indexes, e.g. `['roles', 2, 'from', 0]`. */
export type DocPath = readonly (string | number)[];

/** A parsed file: its data and a way to point at any path in it. */
export interface SourceFile {
  /** Shown in errors: relative to the working directory when inside it. */
  readonly name: string;
  /** The file name without its extension (a product file's id). */
  readonly stem: string;
  readonly data: unknown;
  /** `<file>:<line>:<col> (<path>)` of the deepest node of `path` that exists. */
  where(path: DocPath): string;
}

/** One problem of a provisioning run. */
export interface Problem {
  where: string;
  message: string;
}

/** `roles[2].from[0]` */
export function showPath(path: DocPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * The provisioning failure: 400 PROVISIONING_INVALID whose message names the first problem
 * (`<file>:<line>:<col> <path>: <problem>`) and says nothing was applied; all in details.issues.
 */
export function provisioningError(problems: Problem[]): DomainError {
  const first = problems[0] ?? { where: '', message: 'invalid provisioning files' };
  return new DomainError('PROVISIONING_INVALID', `provisioning failed, nothing was applied: ${first.where}: ${first.message}`, {
    issues: problems.map((p) => ({ path: p.where, message: p.message })),
  });
}

/** Thrown while applying: the file and path of the problem. */
export function problemAt(file: SourceFile, path: DocPath, message: string): DomainError {
  return provisioningError([{ where: file.where(path), message }]);
}

/** The files of `dir` with one of `extensions`, by name; none when `dir` does not exist. */
function listFiles(dir: string, extensions: readonly string[]): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((f) => extensions.some((ext) => f.toLowerCase().endsWith(ext)))
    .sort()
    .map((f) => join(dir, f));
}

const requirePackage = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;
/**
 * The `yaml` package, loaded when the first provisioning file is read (a shorter start:
 * most starts have no provisioning folder and never parse YAML).
 */
const loadYaml = (): typeof Yaml => {
  yaml ??= requirePackage('yaml') as typeof Yaml;
  return yaml;
};

function displayName(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

/**
 * Reads and parses one file.
 * @throws DomainError PROVISIONING_INVALID for unreadable files and YAML/JSON syntax errors.
 */
function readSource(path: string): SourceFile {
  const name = displayName(path);
  const { LineCounter, parseDocument } = loadYaml();
  const lineCounter = new LineCounter();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw provisioningError([{ where: name, message: `cannot read the file (${(error as Error).message})` }]);
  }
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `${name}:${line}:${col}`;
  };
  const syntax = doc.errors[0];
  if (syntax) throw provisioningError([{ where: at(syntax.pos[0]), message: `invalid YAML: ${syntax.message.split('\n')[0]}` }]);
  const where = (path: DocPath): string => {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return `${at(range[0])}${path.length > 0 ? ` ${showPath(path)}` : ''}`;
    }
    return `${name}${path.length > 0 ? ` ${showPath(path)}` : ''}`;
  };
  return { name, stem: stemOf(path), data: doc.toJS(), where };
}

/**
 * Parses `value` (found at `path` in `file`) with `schema`.
 * @throws DomainError PROVISIONING_INVALID listing every issue with its line and path below `path`.
 */
export function parseAt<T extends z.ZodType>(file: SourceFile, path: DocPath, schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw provisioningError(
    result.error.issues.map((i) => ({ where: file.where([...path, ...(i.path as (string | number)[])]), message: i.message })),
  );
}

/** A file name without its directory and extension: a product file's product id. */
function stemOf(path: string): string {
  return (path.split(/[\\/]/).pop() ?? '').replace(/\.[^.]+$/, '');
}

/**
 * Refuses two product files for one product (`plugins/billing.json` and `plugins/billing.yml`):
 * each would replace the other's registration, so which one won would depend on name order.
 * @throws DomainError PROVISIONING_INVALID naming every such file.
 */
function refuseDuplicateProducts(paths: readonly string[]): void {
  const byProduct = new Map<string, string[]>();
  for (const path of paths) {
    const productId = stemOf(path);
    byProduct.set(productId, [...(byProduct.get(productId) ?? []), displayName(path)]);
  }
  const problems = [...byProduct.entries()]
    .filter(([, files]) => files.length > 1)
    .map(([productId, files]) => ({
      where: files.join(', '),
      message: `${files.length} files register product "${productId}"; keep one file per product`,
    }));
  if (problems.length > 0) throw provisioningError(problems);
}

/**
 * Every provisioning file under `root`: the access-control ones and the product ones.
 * @throws DomainError PROVISIONING_INVALID for an unreadable file, a syntax error, or two product
 *   files for one product id.
 */
export function readProvisioning(root: string): { accessControl: SourceFile[]; products: SourceFile[] } {
  const productPaths = listFiles(join(root, 'plugins'), ['.json', '.yaml', '.yml']);
  refuseDuplicateProducts(productPaths);
  return {
    accessControl: listFiles(join(root, 'access-control'), ['.yaml', '.yml']).map(readSource),
    products: productPaths.map(readSource),
  };
}
