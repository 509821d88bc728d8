// `node --import ./module-log.mjs ...`: logs every resolved module (./module-log-hooks.mjs).
// `require()` (createRequire: packages the server loads lazily and synchronously) passes no
// resolve hook on Node 20, so Module._load is wrapped to log those too.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./module-log-hooks.mjs', import.meta.url);

const load = Module._load;
Module._load = function logged(request, parent, isMain) {
  const loaded = load.call(this, request, parent, isMain);
  const log = process.env.PORTCULLIS_MODULE_LOG;
  if (log && !request.startsWith('node:')) {
    try {
      appendFileSync(log, `${pathToFileURL(Module._resolveFilename(request, parent, isMain)).href}\n`);
    } catch {
      // A built-in module without the node: prefix: nothing to log.
    }
  }
  return loaded;
};
