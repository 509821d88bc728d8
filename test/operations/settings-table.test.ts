/**
 * README's settings table is generated from the config schema (scripts/settings-table.ts): it
 * lists every variable `loadConfig` reads, each with a meaning, and README holds exactly the
 * generated text (run `npm run settings:table` after changing a setting).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END_MARKER, START_MARKER, settingsTable, withSettingsTable } from '../../scripts/settings-table.js';
import { configSchema, loadConfig } from '../../src/config.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the settings table', () => {
  it('is in README exactly as the config schema generates it', () => {
    expect(README).toContain(START_MARKER);
    expect(README).toContain(END_MARKER);
    expect(withSettingsTable(README), 'README.md is out of date: run npm run settings:table').toBe(README);
  });

  it('has one row per variable, each with a default or what unset means, and a meaning', () => {
    const rows = settingsTable().split('\n').slice(2);
    expect(rows.map((r) => /^\| `([A-Z0-9_]+)` \|/.exec(r)?.[1])).toEqual(Object.keys(configSchema.shape));
    for (const row of rows)
      expect(
        row.split(' | ').every((cell) => cell.trim().length > 1),
        row,
      ).toBe(true);
  });

  it('shows the defaults loadConfig applies', () => {
    const table = settingsTable();
    const config = loadConfig({});
    expect(table).toContain(`| \`PORT\` | \`${config.port}\` |`);
    expect(table).toContain(`| \`SHUTDOWN_TIMEOUT_SECONDS\` | \`${config.shutdownTimeoutSeconds}\` |`);
    expect(table).toContain(`| \`METRICS_ENABLED\` | \`${String(config.metrics.enabled)}\` |`);
    expect(table).toContain(`| \`MAX_REQUEST_BODY_BYTES\` | \`${config.security.maxRequestBodyBytes}\` |`);
    expect(table).toContain('| `ADMIN_PASSWORD` | generated |');
  });

  it('refuses a README without the markers', () => {
    expect(() => withSettingsTable('# no table here\n')).toThrow(START_MARKER);
  });
});
