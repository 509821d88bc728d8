import { describe, expect, it } from 'vitest';
import { pathOf } from './url-path.js';

describe('pathOf', () => {
  it.each([
    'http://test/graphql',
    'http://test/graphql?query=%7B__typename%7D',
    'http://127.0.0.1:3000/api/access-control/roles/abc?x=1#frag',
    'http://test/',
    'http://test',
    'http://test/a#b?c',
    'http://test/api/../graphql',
    'http://test/api/./roles',
    'http://test/api/%72oles',
    'http://test/caf%C3%A9',
    'http://test/a\\b',
    'http://user:pw@test:80/path',
  ])('gives what new URL(%s).pathname gives', (url) => {
    expect(pathOf(url)).toBe(new URL(url).pathname);
  });
});
