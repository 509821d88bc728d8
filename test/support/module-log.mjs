// `node --import ./module-log.mjs ...`: logs every resolved module (./module-log-hooks.mjs).
import { register } from 'node:module';

register('./module-log-hooks.mjs', import.meta.url);
