#!/usr/bin/env node
// Launcher of the portcullis CLI (src/cli/index.ts): registers tsx's ESM loader, a runtime
// dependency, so the TypeScript sources run as they are, then hands over the arguments.
import { register } from 'tsx/esm/api';

register();
const { runCli, processIo } = await import('../src/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2), processIo);
