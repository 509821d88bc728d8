/**
 * Reserved role names compared as a reader sees them: a
 * custom role may not be named so that it reads as one of the service's `fixed:`, `basic:`,
 * product `plugins:` or Grafana's `managed:` roles, whatever the code points used to write it.
 *
 * The comparison form (`lookalikeForm`) is built in this order:
 * 1. every character whose Unicode confusable skeleton is ":" becomes ":" (COLON_LOOKALIKES),
 *    before anything else, since NFKC would turn some of them into something else (U+FE30 into
 *    "..") and mark removal would drop others (U+0903 DEVANAGARI SIGN VISARGA is a mark);
 * 2. NFKC (fullwidth and compatibility letters become ASCII), then ":" mapping again;
 * 3. all white space removed (Unicode White_Space: space, tab, no-break and ideographic spaces,
 *    U+0085...), with invisible (Default_Ignorable) characters and U+2800 BRAILLE PATTERN BLANK;
 * 4. lower case, accents and other combining marks dropped ("i" + U+0307), then the confusable
 *    skeleton of Unicode TR39 (`unhomoglyph`, confusables.txt: Cyrillic "і", Greek "ο" become
 *    "i", "o"), marks dropped again, hooked letters mapped, lower case again.
 */
import unhomoglyph from 'unhomoglyph';
import { BASIC_PREFIX, FIXED_PREFIX, MANAGED_PREFIX, PRODUCT_PREFIX } from './builtin-roles.js';

/**
 * Characters read as ":", mapped to ":" before any other step.
 * - Unicode confusables.txt (TR39 data, 15.1 and 16.0 alike), every line whose target is
 *   003A COLON: U+0903 U+0A83 DEVANAGARI/GUJARATI SIGN VISARGA, U+FF1A FULLWIDTH COLON, U+0589
 *   ARMENIAN FULL STOP, U+0703 U+0704 SYRIAC SUPRALINEAR/SUBLINEAR COLON, U+16EC RUNIC MULTIPLE
 *   PUNCTUATION, U+FE30 PRESENTATION FORM FOR VERTICAL TWO DOT LEADER, U+1803 U+1809 MONGOLIAN
 *   (MANCHU) FULL STOP, U+205A TWO DOT PUNCTUATION, U+05C3 HEBREW PUNCTUATION SOF PASUQ, U+02F8
 *   MODIFIER LETTER RAISED COLON, U+A789 MODIFIER LETTER COLON, U+2236 RATIO, U+02D0 MODIFIER
 *   LETTER TRIANGULAR COLON, U+A4FD LISU LETTER TONE MYA JEU. `unhomoglyph` (confusables 13.0)
 *   knows the same ones, but only after marks were kept, so they are listed here too.
 * - whose NFKC form is ":": U+FE13 PRESENTATION FORM FOR VERTICAL COLON, U+FE55 SMALL COLON.
 * - not in confusables.txt but drawn as two stacked dots in common fonts (a security report named
 *   the first two): U+1361 ETHIOPIC WORDSPACE, U+2806 BRAILLE PATTERN DOTS-23, U+1365 ETHIOPIC
 *   COLON, U+0A03 GURMUKHI SIGN VISARGA, U+0983 BENGALI SIGN VISARGA, U+0F7F TIBETAN SIGN RNAM
 *   BCAD, U+0F14 TIBETAN MARK GTER TSHEG, U+A6F4 BAMUM COLON.
 */
export const COLON_LOOKALIKES: readonly number[] = [
  0x0903, 0x0a83, 0xff1a, 0x0589, 0x0703, 0x0704, 0x16ec, 0xfe30, 0x1803, 0x1809, 0x205a, 0x05c3, 0x02f8, 0xa789, 0x2236, 0x02d0, 0xa4fd,
  0xfe13, 0xfe55, 0x1361, 0x2806, 0x1365, 0x0a03, 0x0983, 0x0f7f, 0x0f14, 0xa6f4,
];
const COLONS = new RegExp(`[${COLON_LOOKALIKES.map((c) => `\\u{${c.toString(16)}}`).join('')}]`, 'gu');
const toColons = (text: string): string => text.replace(COLONS, ':');

/** White space of every kind, invisible characters and the blank braille cell: removed. */
const BLANKS = /[\s\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]/gu;

/**
 * Latin letters with a hook, stroke or tail that neither NFKD nor `unhomoglyph` take to their
 * base letter ("ƒ", "ɨ", "ȼ"... are taken there), for the letters of the reserved prefixes: each
 * followed by its base letter.
 */
const HOOKED_LETTERS = new Map(
  'ƈc ꞓc ȿs ɲn ꞑn ꬻn ꝑp ꞡg ⱥa ᶏa ᶍx ʉu ᶂf ꝼf ᶁd ᶅl ᶊs ᶀb ᶈp'.split(' ').map((pair) => [...pair] as [string, string]),
);
const unhook = (text: string): string => Array.from(text, (c) => HOOKED_LETTERS.get(c) ?? c).join('');

/** Base letters only: compatibility decomposition (NFKD), combining marks dropped. */
const withoutMarks = (text: string): string => text.normalize('NFKD').replace(/\p{M}/gu, '');

/**
 * The form a name is compared in (steps in the module comment): two names that read alike have
 * the same form. Not for display: "m" may become "rn".
 */
export function lookalikeForm(text: string): string {
  const spaced = toColons(toColons(text).normalize('NFKC')).replace(BLANKS, '').toLowerCase();
  const folded = unhook(withoutMarks(spaced));
  return toColons(unhook(withoutMarks(unhomoglyph(folded))))
    .replace(BLANKS, '')
    .toLowerCase();
}

/** The name prefixes of roles the service defines or products register, and Grafana's managed roles. */
export const RESERVED_ROLE_NAME_PREFIXES = [FIXED_PREFIX, BASIC_PREFIX, PRODUCT_PREFIX, MANAGED_PREFIX] as const;
const RESERVED_FORMS = RESERVED_ROLE_NAME_PREFIXES.map(lookalikeForm);

/**
 * True when a role name is, or reads as, one of the reserved prefixes (RESERVED_ROLE_NAME_PREFIXES)
 * compared in lookalikeForm: "FIXED:x", "fixed :x", "fixed\t:x", "fixed" + U+0903 + "x",
 * "fіxed:x" (Cyrillic і) are all reserved; "fixedly:x", "custom:fixed:x" are not.
 */
export function isReservedRoleName(name: string): boolean {
  const form = lookalikeForm(name);
  return RESERVED_FORMS.some((prefix) => form.startsWith(prefix));
}

/** Refusal of a reserved name, the same on create and update, on both doors. */
export const RESERVED_NAME_MESSAGE = `custom roles cannot begin with the prefix ${RESERVED_ROLE_NAME_PREFIXES.map((p) => `"${p}"`).join(', ')} (nor a look-alike of them)`;
