/**
 * Comments and docs describe the code as it is, so none cites an issue by number: no file in
 * src/, web/, docs/, bench/, scripts/, examples/, prisma/schema.prisma, README.md or SECURITY.md
 * says "issue #11 item 2", "issue 20", "issues #12 and #21", "#22 item 1" or "(item 6)". A
 * reference says what it points to instead: the rule itself, a section of docs/spec/ or SECURITY.md,
 * the Grafana behaviour, or a file of the repository. Generated files (the Prisma client under
 * src/generated/, gql.tada's web/graphql-env.d.ts) are left out; GraphQL descriptions are read in
 * the source that declares them. The patterns are checked against the forms they must catch and the
 * look-alikes they must leave (HTML entities, CSS colours, anchors).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../readme/markdown.js';

const FOLDERS = ['src', 'web', 'docs', 'bench', 'scripts', 'examples'];
const FILES = ['README.md', 'SECURITY.md', 'prisma/schema.prisma'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'generated', 'dist']);
const GENERATED = new Set(['web/graphql-env.d.ts']);
const TEXT = /\.(ts|tsx|mts|mjs|cjs|js|md|css|html|svg|sh|ya?ml|json|prisma|graphql)$/;

/**
 * Ways a text cites an issue. `issue`/`issues` then a number, across a line break and its comment
 * marker too ("issue\n * #22"); `#` and two digits not in an HTML entity (`&#60;`) nor a longer
 * number (a CSS colour); `#<number> item`; and a parenthesised item of an issue ("(item 6").
 */
const ISSUE_CITATIONS: RegExp[] = [
  /\bissues?(?:\s|\*|\/)+#?\d+/gi,
  /(?<![&\w])#\d{2}\b/g,
  /(?<![&\w])#\d+\s+items?\b/gi,
  /\(\s*items?\s+\d+/gi,
];

/** Every citation in `text`, as `line: excerpt` (1-based line of the match's start). */
function issueCitations(text: string): string[] {
  const found = new Map<number, string>();
  for (const pattern of ISSUE_CITATIONS) {
    for (const match of text.matchAll(pattern)) {
      const line = text.slice(0, match.index).split('\n').length;
      if (!found.has(match.index)) found.set(match.index, `${line}: ${match[0].replace(/\s+/g, ' ')}`);
    }
  }
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, text]) => text);
}

function filesUnder(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : filesUnder(path);
    return TEXT.test(entry.name) && !GENERATED.has(path) ? [path] : [];
  });
}

describe('issue citations', () => {
  it.each([
    'issue #11 item 2',
    'issue 20',
    '#22 item 1',
    'Issue #10 item 4: a login',
    '(issues #18, #22)',
    'as printed (issues #12\n * item 6 and #21 item 1)',
    '(kernel/delegation.ts, issue\n * #22 item 1)',
    "after issue 20's work",
    '(issue #3 item 5)',
    'the login (item 6, server side)',
    '// Loaded here (issue #20, memory).',
    'the lock (#9 item 3)',
  ])('are found in %j', (text) => {
    expect(issueCitations(text)).not.toEqual([]);
  });

  it.each([
    '<meta content="Keycloak &#60;test&#62;">',
    'color: #344054;',
    '--warn-fg: #912018;',
    '[Benchmarks](operations.md#benchmarks)',
    'see page#12 of the manual',
    'an issue of ordering, 20 rows',
    'the first item',
    'OIDC Core 3.1.3.7, RFC 6749 section 4.1',
  ])('are not seen in %j', (text) => {
    expect(issueCitations(text)).toEqual([]);
  });

  const files = [...FOLDERS.flatMap(filesUnder), ...FILES];

  it('finds the files to read', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toContain('src/kernel/delegation.ts');
    expect(files).toContain('docs/api.md');
    expect(files).not.toContain('web/graphql-env.d.ts');
  });

  it('are in none of them', () => {
    const cited = files.flatMap((file) => issueCitations(readFileSync(join(ROOT, file), 'utf8')).map((where) => `${file}:${where}`));
    expect(cited).toEqual([]);
  });
});
