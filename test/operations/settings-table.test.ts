/**
 * The settings table of docs/operations.md is generated from the config schema
 * (scripts/settings-table.ts): it lists every variable `loadConfig` reads, each with a meaning, and
 * the page holds exactly the generated text (run `npm run settings:table` after changing a setting).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { END_MARKER, SETTINGS_PAGE, START_MARKER, settingsTable, withSettingsTable } from '../../scripts/settings-table.js';
import { configSchema, loadConfig } from '../../src/config.js';

const PAGE = readFileSync(SETTINGS_PAGE, 'utf8');

describe('the settings table', () => {
  it('is in docs/operations.md exactly as the config schema generates it', () => {
    expect(PAGE).toContain(START_MARKER);
    expect(PAGE).toContain(END_MARKER);
    expect(withSettingsTable(PAGE), 'docs/operations.md is out of date: run npm run settings:table').toBe(PAGE);
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

  it('refuses a page without the markers', () => {
    expect(() => withSettingsTable('# no table here\n')).toThrow(START_MARKER);
  });
});
