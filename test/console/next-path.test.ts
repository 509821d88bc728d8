/**
 * safeNextPath (web/next-path.ts): the table of `next` values as the browser
 * would read them. Each refused value is one the browser opens on another origin (or one that
 * loops back to the sign-in); each kept one is returned as the URL parser wrote it. Every answer
 * is checked again the browser's way: resolved against this origin it stays on this origin.
 */
import { describe, expect, it } from 'vitest';
import { safeNextPath } from '../../web/next-path.js';

const ORIGIN = 'https://portcullis.example';

describe('safeNextPath', () => {
  it.each([
    // kept: same-origin paths, with their query and fragment
    ['/', '/'],
    ['/roles', '/roles'],
    ['/roles/edit?uid=abc&x=1#perm', '/roles/edit?uid=abc&x=1#perm'],
    ['/why?user=%2F%2Fevil.example', '/why?user=%2F%2Fevil.example'],
    ['/a/../roles', '/roles'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'], // an encoded slash is a path character, not a host
    ['/%5Cevil.example/', '/%5Cevil.example/'], // `next=/%255C...`: the browser never decodes it again
    ['/roles?next=//evil.example', '/roles?next=//evil.example'],
    ['/caf\u00e9', '/caf%C3%A9'],
    // refused: other origins, as the issue found them and their relatives
    ['/\\evil.example/', '/'],
    ['\\\\evil.example', '/'],
    ['/\t/evil.example/', '/'],
    ['/\n/evil.example/', '/'],
    ['/\r/evil.example', '/'],
    ['/\u0000/evil.example', '/'],
    ['/\u007f/evil.example', '/'],
    ['/\u0085/evil.example', '/'],
    ['//evil.example', '/'],
    ['//evil.example/roles', '/'],
    ['/.//evil.example/', '/'],
    ['/./\\evil.example', '/'],
    ['https://evil.example/', '/'],
    ['http:evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['JaVaScRiPt:alert(1)', '/'],
    ['data:text/html,<script>alert(1)</script>', '/'],
    [' /roles', '/'],
    ['\t//evil.example', '/'],
    ['evil.example', '/'],
    ['roles', '/'],
    ['?next=/roles', '/'],
    ['#/roles', '/'],
    // refused: the sign-in itself and the sign-out
    ['/login', '/'],
    ['/login?next=/roles', '/'],
    ['/login/generic_oauth', '/'],
    ['/logout', '/'],
    ['/logout/', '/'],
    // refused: missing or oversized
    ['', '/'],
    [`/${'a'.repeat(3000)}`, '/'],
  ])('%j -> %j', (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });

  it.each([[undefined], [null]])('%s -> /', (next) => {
    expect(safeNextPath(next)).toBe('/');
  });

  it('every answer of the table, opened as a link of this origin, stays on this origin', () => {
    const samples = ['/\\evil.example/', '/%5Cevil.example/', '/\t/evil.example/', '/.//evil.example/', '/roles?x=1', '//x', 'https://x'];
    for (const next of samples) {
      const answer = safeNextPath(next);
      expect(new URL(answer, `${ORIGIN}/login`).origin).toBe(ORIGIN);
      expect(answer.startsWith('/') && !answer.startsWith('//')).toBe(true);
    }
  });

  it('/loginx is a path like any other', () => {
    expect(safeNextPath('/loginx')).toBe('/loginx');
  });
});
