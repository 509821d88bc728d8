/**
 * The table of settings in docs/operations.md ("Configuration"), generated from the one config
 * schema (src/config.ts): every environment variable with its default and meaning, in declaration
 * order. `npm run settings:table` rewrites docs/operations.md between the markers; with `--check`
 * it only exits 1 when the page differs. test/operations/settings-table.test.ts fails while the
 * page is out of sync.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { configSchema } from '../src/config.js';

/** The markers around the generated table in docs/operations.md. */
export const START_MARKER = '<!-- settings:start -->';
export const END_MARKER = '<!-- settings:end -->';

/** The page that holds the table. */
export const SETTINGS_PAGE = new URL('../docs/operations.md', import.meta.url);

interface SettingSchema {
  description?: string;
  default?: unknown;
  /** What an unset variable without a default means (`.meta({ unset })` in the schema). */
  unset?: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The Markdown table: one row per variable of `configSchema`. @throws Error for an undescribed variable. */
export function settingsTable(): string {
  // The input side is what an operator writes: strings, with zod's defaults.
  const json = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, SettingSchema> };
  const rows = Object.entries(json.properties).map(([name, setting]) => {
    if (!setting.description) throw new Error(`${name} has no description in the config schema`);
    const fallback =
      setting.default === undefined || setting.default === '' ? (setting.unset ?? 'unset') : `\`${String(setting.default)}\``;
    return `| \`${name}\` | ${cell(fallback)} | ${cell(setting.description)} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `page` with the table between the markers replaced. @throws Error when a marker is missing. */
export function withSettingsTable(page: string): string {
  const start = page.indexOf(START_MARKER);
  const end = page.indexOf(END_MARKER);
  if (start === -1 || end < start) throw new Error(`docs/operations.md needs ${START_MARKER} and then ${END_MARKER}`);
  return `${page.slice(0, start + START_MARKER.length)}\n${settingsTable()}\n${page.slice(end)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const page = readFileSync(SETTINGS_PAGE, 'utf8');
  const updated = withSettingsTable(page);
  if (process.argv.includes('--check')) {
    if (updated !== page) {
      console.error('docs/operations.md settings table is out of date: run npm run settings:table');
      process.exit(1);
    }
    console.log('docs/operations.md settings table is up to date');
  } else {
    writeFileSync(SETTINGS_PAGE, updated);
    console.log(updated === page ? 'docs/operations.md settings table unchanged' : 'docs/operations.md settings table written');
  }
}
