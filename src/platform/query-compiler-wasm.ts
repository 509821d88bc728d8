/**
 * Prisma 7's query compiler (WebAssembly) loaded without keeping its text in the JavaScript heap
 * to save memory. The generated client loads it by importing
 * `@prisma/client/runtime/query_compiler_fast_bg.<provider>.wasm-base64.mjs`, a module whose one
 * export is the module's bytes as a 4.4 MB base64 string: as an ES module it is never unloaded,
 * so its source text and the string stay in the heap for the life of the process (8.4 MB of the
 * idle service's ~40 MB of heap, measured with a heap snapshot). Here the same file is read as
 * text, decoded and compiled, and nothing of it is kept but the compiled module.
 *
 * Plugged in through the client's `__internal.configOverride` option (Prisma 7.10's
 * getPrismaClient: the generated config passes through it before the engine reads
 * `compilerWasm.getQueryCompilerWasmModule`); `@prisma/client` is pinned (package.json), and a
 * change there fails the start loudly (no string found) or falls back to the import.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

/** What the generated client hands the query engine about its compiler (the part used here). */
interface CompilerConfig {
  compilerWasm?: { getQueryCompilerWasmModule: () => Promise<WebAssembly.Module>; [key: string]: unknown };
  [key: string]: unknown;
}

/** The compiled query compiler of `provider` (`sqlite`, `postgresql`), from the file the generated client imports. */
async function compileQueryCompiler(provider: string): Promise<WebAssembly.Module> {
  // The CommonJS twin of the .mjs the generated client imports: same string, `module.exports = { wasm }`.
  const file = createRequire(import.meta.url).resolve(`@prisma/client/runtime/query_compiler_fast_bg.${provider}.wasm-base64.js`);
  const text = await readFile(file, 'utf8');
  const start = text.indexOf('"');
  const end = text.indexOf('"', start + 1);
  if (start < 0 || end < 0) throw new Error(`${file}: no base64 string found (did @prisma/client change?)`);
  return new WebAssembly.Module(Buffer.from(text.slice(start + 1, end), 'base64'));
}

/**
 * The `__internal` option of a PrismaClient for `provider`: the generated configuration with the
 * compiler loaded by compileQueryCompiler instead of an import.
 */
export function queryCompilerOverride(provider: string): { configOverride: (config: CompilerConfig) => CompilerConfig } {
  return {
    configOverride: (config) =>
      config.compilerWasm
        ? { ...config, compilerWasm: { ...config.compilerWasm, getQueryCompilerWasmModule: () => compileQueryCompiler(provider) } }
        : config,
  };
}
