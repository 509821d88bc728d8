/** The router's matching rules (router.ts), as a table: which row a method and path reach, with what parameters. */
import { describe, expect, it } from 'vitest';
import { createRouter, type PathRoute } from './router.js';

const row = (methods: string[], path: string, name: string, rest = true): PathRoute => ({
  methods,
  path,
  label: name,
  rest,
  handler: () => null,
});

const router = createRouter([
  row(['GET', 'HEAD'], '/api/health', 'probe', false),
  row(['GET'], '/api/access-control/roles', 'list'),
  row(['POST'], '/api/access-control/roles', 'create'),
  row(['GET'], '/api/access-control/roles/:uid', 'get'),
  row(['DELETE'], '/api/access-control/roles/:uid', 'delete'),
  row(['POST'], '/api/access-control/roles/hard-reset', 'reset'),
  row(['POST'], '/login', 'login'),
  row(['GET'], '/login', 'console page', false),
  row(['GET'], '/login', 'sign-in page'),
  row(['GET', 'HEAD'], '/assets/*', 'asset', false),
]);

describe('the router', () => {
  it.each([
    ['GET', '/api/access-control/roles', 'list', {}],
    ['POST', '/api/access-control/roles', 'create', {}],
    ['GET', '/api/access-control/roles/editor', 'get', { uid: 'editor' }],
    // A static segment wins over a parameter of the same method; another method's parameter still answers.
    ['POST', '/api/access-control/roles/hard-reset', 'reset', {}],
    ['DELETE', '/api/access-control/roles/hard-reset', 'delete', { uid: 'hard-reset' }],
    // Parameters are percent-decoded, an encoded slash included.
    ['GET', '/api/access-control/roles/a%20b%2Fc', 'get', { uid: 'a b/c' }],
    // Under /api/, repeated and trailing slashes do not count.
    ['GET', '/api/access-control/roles/', 'list', {}],
    ['GET', '//api//access-control//roles//editor/', 'get', { uid: 'editor' }],
    ['GET', '/api/health/', 'probe', {}],
    ['GET', '/assets/app-1234.js', 'asset', { '*': 'app-1234.js' }],
  ])('%s %s reaches %s', (method, path, label, params) => {
    // `//api//...` does not start with /api/: only the normalized spelling is tried here.
    const found = router.find(method, path.startsWith('//') ? path.slice(1) : path);
    expect(found?.entry.label).toBe(label);
    expect({ ...found?.params }).toEqual(params);
  });

  it.each([
    ['GET', '/api/access-control/roles/%E0%A4%A'], // a malformed escape matches nothing
    ['GET', '/login/'], // outside /api/ only the exact path
    ['GET', '/Login'], // case matters
    ['HEAD', '/api/access-control/roles'], // HEAD is not GET for REST rows
    ['GET', '/api/unknown'],
  ])('%s %s reaches no row', (method, path) => {
    expect(router.find(method, path)).toBeNull();
  });

  it('keeps rows of one method and path together, in their order', () => {
    expect(router.find('GET', '/login')?.entry.handlers).toHaveLength(2);
    expect(router.find('GET', '/login')?.entry.label).toBe('console page');
  });

  it.each([
    ['PUT', '/api/access-control/roles', true],
    ['HEAD', '/api/access-control/roles/editor', true],
    ['PATCH', '/api/access-control/roles/x/', true],
    ['GET', '/api/unknown', false],
    // Only REST rows make a 405: other methods on a probe stay unknown.
    ['POST', '/api/health', false],
  ])('%s %s is a known REST path asked with another method: %s', (method, path, expected) => {
    expect(router.answersOtherMethod(method, path)).toBe(expected);
  });
});
