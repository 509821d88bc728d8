import { describe, expect, it } from 'vitest';
import { COLON_LOOKALIKES, isReservedRoleName, lookalikeForm } from './lookalikes.js';

const u = (codePoint: number) => String.fromCodePoint(codePoint);

// Look-alikes of the reserved prefixes, each refused (lookalikes.ts lists where they come from).
describe('reserved role name prefixes', () => {
  const reserved: [string, string][] = [
    ['fixed + U+0903 DEVANAGARI SIGN VISARGA + a', `fixed${u(0x0903)}a`],
    ['fixed + U+1361 ETHIOPIC WORDSPACE + a', `fixed${u(0x1361)}a`],
    ['a space before the colon', 'fixed :a'],
    ['a tab before the colon', 'fixed\t:a'],
    ['spaces around and inside', ' f i x e d : a'],
    ['no-break, ideographic and narrow spaces', `fixed${u(0xa0)}${u(0x3000)}${u(0x202f)}:a`],
    ['next line U+0085 and line separator U+2028', `basic${u(0x85)}${u(0x2028)}:a`],
    ['braille blank U+2800', `plugins${u(0x2800)}:a`],
    ['zero-width joiner', `man${u(0x200d)}aged:a`],
    ['exact', 'fixed:a'],
    ['upper case', 'MANAGED:users:1:permissions'],
    ['fullwidth colon U+FF1A', `plugins${u(0xff1a)}a`],
    ['vertical two dot leader U+FE30 (NFKC "..")', `basic${u(0xfe30)}a`],
    ['small colon U+FE55', `basic${u(0xfe55)}a`],
    ['Cyrillic і and a ratio sign', `f${u(0x0456)}xed${u(0x2236)}a`],
    ['visarga after an accent', `fíxed${u(0x0903)}a`],
    ['colon with a combining mark', `fixed:${u(0x0301)}a`],
    ['f with hook and modifier colon', `${u(0x0192)}ixed${u(0xa789)}a`],
  ];
  it.each(reserved)('refused: %s', (_label, name) => {
    expect(isReservedRoleName(name)).toBe(true);
  });

  it.each(COLON_LOOKALIKES.map((c) => [`U+${c.toString(16).toUpperCase().padStart(4, '0')}`, c] as const))(
    'every listed colon look-alike reads as ":": %s',
    (_label, c) => {
      expect(lookalikeForm(`x${u(c)}y`)).toBe('x:y');
      for (const prefix of ['fixed', 'basic', 'plugins', 'managed']) expect(isReservedRoleName(`${prefix}${u(c)}a`)).toBe(true);
    },
  );

  const allowed = [
    'custom:fixed:a',
    'fixedly:a',
    'basics reader',
    'plugin:a',
    'fixed a',
    'fixed-price editor',
    'my basic: role',
    'managed services',
    'Reports: editor',
    'fixed',
    'Équipe: lecteurs',
    '報告:閲覧',
  ];
  it.each(allowed)('allowed: %s', (name) => {
    expect(isReservedRoleName(name)).toBe(false);
  });
});
