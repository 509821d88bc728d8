// Module customization hooks (node:module register) that append the URL of every module the
// process resolves to the file named by PORTCULLIS_MODULE_LOG: test/platform/lazy-modules.test.ts
// reads which packages a started server has loaded. Registered by ./module-log.mjs (--import).
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (process.env.PORTCULLIS_MODULE_LOG) appendFileSync(process.env.PORTCULLIS_MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
