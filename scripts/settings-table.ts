/**
 * README's table of settings, generated from the one config schema (src/config.ts): every
 * environment variable with its default and meaning, in declaration order.
 * `npm run settings:table` rewrites README.md between the markers; with `--check` it only exits 1
 * when README differs. test/operations/settings-table.test.ts fails while README is out of sync.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { configSchema } from '../src/config.js';

/** The markers around the generated table in README.md. */
export const START_MARKER = '<!-- settings:start -->';
export const END_MARKER = '<!-- settings:end -->';

const README = new URL('../README.md', import.meta.url);

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

/** `readme` with the table between the markers replaced. @throws Error when a marker is missing. */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(START_MARKER);
  const end = readme.indexOf(END_MARKER);
  if (start === -1 || end < start) throw new Error(`README.md needs ${START_MARKER} and then ${END_MARKER}`);
  return `${readme.slice(0, start + START_MARKER.length)}\n${settingsTable()}\n${readme.slice(end)}`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const readme = readFileSync(README, 'utf8');
  const updated = withSettingsTable(readme);
  if (process.argv.includes('--check')) {
    if (updated !== readme) {
      console.error('README.md settings table is out of date: run npm run settings:table');
      process.exit(1);
    }
    console.log('README.md settings table is up to date');
  } else {
    writeFileSync(README, updated);
    console.log(updated === readme ? 'README.md settings table unchanged' : 'README.md settings table written');
  }
}
