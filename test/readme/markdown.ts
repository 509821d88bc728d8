/**
 * Reads the documentation (README.md and docs/*.md) the way its tests need it: fenced code blocks
 * with their language, line and section, the walk-throughs' steps (a `sh` block and the answer
 * shown after it), the links and the anchors GitHub gives the headings, and what in a shell line
 * an interactive bash or zsh would not take literally.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every documentation file, relative to ROOT: README.md first, then docs/*.md by name, then SECURITY.md. */
export const DOC_FILES: string[] = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
  'SECURITY.md',
];

/**
 * The sections whose `sh` blocks walkthrough.test.ts runs, each as a session of its own (own
 * server, own fresh database): the README's short tour and the full walk-through it links to.
 */
export const WALK_THROUGHS: { file: string; heading: string }[] = [
  { file: 'README.md', heading: '## Five-minute tour' },
  { file: 'docs/walkthrough.md', heading: '## Walk-through' },
];

/** The text of a documentation file, `file` relative to ROOT (`README.md`, `docs/api.md`). */
export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

/** One fenced block: its info string (`sh`, `json`, '' ...), text, 1-based line of the fence, `## ` section. */
export interface CodeBlock {
  lang: string;
  text: string;
  line: number;
  section: string;
}

/** Every fenced block of `markdown` (read from `file`, named in errors), in order. @throws Error for a fence left open. */
export function codeBlocks(markdown: string, file: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let section = '';
  let open: { lang: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((line, index) => {
    if (open) {
      if (/^```\s*$/.test(line)) {
        blocks.push({ lang: open.lang, text: open.lines.join('\n'), line: open.line, section });
        open = undefined;
      } else open.lines.push(line);
      return;
    }
    const fence = /^```(\S*)\s*$/.exec(line);
    if (fence) open = { lang: fence[1] ?? '', line: index + 1, lines: [] };
    else if (/^## /.test(line)) section = line.trim();
  });
  if (open) throw new Error(`${file}: the code block of line ${open.line} is never closed`);
  return blocks;
}

/** A walk-through step: a `sh` block and, when the page shows one, its answer (`json` or `text`). */
export interface Step {
  command: CodeBlock;
  expected?: CodeBlock;
}

/**
 * The `sh` blocks of the section `heading` of `markdown` (read from `file`) in order, each with the
 * answer block that follows it. @throws Error for an answer after no command or another kind of block.
 */
export function walkThroughSteps(markdown: string, heading: string, file: string): Step[] {
  const blocks = codeBlocks(markdown, file).filter((b) => b.section === heading);
  const steps: Step[] = [];
  for (const block of blocks) {
    if (block.lang === 'sh') steps.push({ command: block });
    else if (block.lang === 'json' || block.lang === 'text') {
      const last = steps.at(-1);
      if (!last || last.expected) throw new Error(`${file}:${block.line}: an answer block that follows no command`);
      last.expected = block;
    } else throw new Error(`${file}:${block.line}: the walk-through holds only sh, json and text blocks, not "${block.lang}"`);
  }
  return steps;
}

/**
 * The anchors GitHub gives the headings of `markdown` (outside code): the text lowercased, every
 * character but letters, digits, spaces, `-` and `_` dropped, spaces made `-`; a repeated anchor
 * gets `-1`, `-2`, ... (github-slugger, which GitHub's renderer follows).
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Link targets outside code: `[text](target)` and `<scheme://...>`, with their line. */
export function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let inFence = false;
  markdown.split('\n').forEach((raw, index) => {
    if (/^```/.test(raw)) inFence = !inFence;
    if (inFence) return;
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ target: m[1] ?? '', line: index + 1 });
    for (const m of line.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) found.push({ target: m[1] ?? '', line: index + 1 });
  });
  return found;
}

/**
 * What an interactive bash or zsh would not pass on literally, outside quotes: file patterns
 * (`?`, `*`, `[`: zsh stops with "no matches found"), comments (`#`: interactive zsh runs `#` as a
 * command unless INTERACTIVE_COMMENTS is set), redirections and placeholders (`<`, `>`), brace
 * expansion (`{`), and `!` outside single quotes (history expansion, in double quotes too).
 * @returns one description per problem, empty when the text is safe to paste.
 */
export function shellHazards(text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  let quote: "'" | '"' | undefined;
  let previous = '\n';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const at = text.slice(0, i).split('\n').length;
    const where = `line ${at} of the block, ${JSON.stringify(lines[at - 1])}`;
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (quote === '"') {
      if (c === '\\') i++;
      else if (c === '"') quote = undefined;
      else if (c === '!') problems.push(`"!" (history expansion) in ${where}`);
    } else if (c === '\\') i++;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '?' || c === '*' || c === '[') problems.push(`unquoted "${c}" (a file pattern in zsh) in ${where}`);
    else if (c === '#' && /\s/.test(previous)) problems.push(`a comment in ${where}`);
    else if (c === '<' || c === '>') problems.push(`unquoted "${c}" (redirection or placeholder) in ${where}`);
    else if (c === '{' && previous !== '$') problems.push(`unquoted "{" (brace expansion) in ${where}`);
    else if (c === '!') problems.push(`"!" (history expansion) in ${where}`);
    previous = c;
  }
  if (quote) problems.push(`a ${quote} quote is never closed`);
  return problems;
}
