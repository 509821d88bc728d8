/**
 * `npm run postgres:local` keeps its cluster and password outside data/, so the README's start over
 * (`rm -rf data`) cannot delete them; git ignores their folder, and the README says where it is,
 * how to remove it, and how to choose the service's port.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, LOCAL_DIR, SETTINGS } from '../../scripts/postgres-local.js';
import { projectPath } from '../../src/platform/paths.js';

describe('the local PostgreSQL cluster', () => {
  it('lives outside data/, in a folder git ignores', () => {
    for (const path of [LOCAL_DIR, DATA_DIR, SETTINGS]) {
      expect(relative(projectPath('data'), path).split(sep)[0], path).toBe('..');
      expect(relative(projectPath('.'), path).startsWith('..'), path).toBe(false);
    }
    // Exit 0: ignored (git check-ignore exits 1 for a path it would track).
    for (const path of [DATA_DIR, SETTINGS]) execFileSync('git', ['check-ignore', '-q', path], { cwd: projectPath('.') });
  });

  it('the README says where it is, how to remove it, and how to choose the port', () => {
    const readme = readFileSync(projectPath('README.md'), 'utf8');
    expect(readme).toContain(`\`${relative(projectPath('.'), LOCAL_DIR)}/\``);
    expect(readme).toContain('`rm -rf .postgres-local`');
    expect(readme).toContain('`PORT=8080 npm start`');
  });
});
