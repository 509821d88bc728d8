/**
 * `next` on the sign-in page in a real browser: signed in, `/login?next=...`
 * offers "Continue to the console" with a link that stays on this origin whatever `next` holds
 * (`/%5Cevil.example/`, `/%09/evil.example/`, scheme-relative, absolute, `javascript:`, dot
 * segments), and following it lands on `/`; signed out, the form sends the browser to `next` only
 * when it is a path of this origin. No request ever leaves for another host. The parser's
 * table: next-path.test.ts; the server's OAuth return: test/security/oauth-identities.test.ts.
 *
 * Skips, saying why, only when no Chromium can be found (browser.ts chromiumFor).
 */
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { browserTitle, chromiumFor, ensureConsoleBuilt, launchChromium, listen } from './browser.js';

const executablePath = await chromiumFor(import.meta.url);
const title = browserTitle('next on the sign-in page, in Chromium', executablePath);

/** `next` values as they appear in the address bar (already URL-encoded), each leading elsewhere if followed as text. */
const HOSTILE = [
  '/%5Cevil.example/',
  '/%09/evil.example/',
  '/%0A/evil.example/',
  '//evil.example/',
  '%2F%2Fevil.example',
  'https://evil.example/',
  'https:evil.example',
  'javascript:alert(document.domain)',
  '/.//evil.example/',
  '/%5C%5Cevil.example',
];

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
/** Requests the pages made to any host but the app's. */
const strayRequests: string[] = [];

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('request', (request) => {
    if (new URL(request.url()).origin !== base && !request.url().startsWith('data:')) strayRequests.push(request.url());
  });
  return page;
}

async function signIn(page: Page, next?: string): Promise<void> {
  await page.goto(next === undefined ? '/login' : `/login?next=${next}`);
  await page.getByLabel('Login or email').fill(ADMIN.login);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

describe.skipIf(!executablePath)(title, () => {
  let signedIn: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    ({ server, base } = await listen(app.yoga));
    browser = await launchChromium(executablePath as string);
    signedIn = await browser.newContext({ baseURL: base });
    page = await newPage(signedIn);
    await signIn(page);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it.each(HOSTILE)('signed in, next=%s: "Continue to the console" leads to / on this origin', async (next) => {
    await page.goto(`/login?next=${next}`);
    const link = page.getByRole('link', { name: 'Continue to the console' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('/');
    await link.click();
    await page.waitForURL(`${base}/`);
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    expect(strayRequests).toEqual([]);
  });

  it('signed in, a same-origin next is kept with its query', async () => {
    await page.goto(`/login?next=${encodeURIComponent('/roles?x=1')}`);
    const link = page.getByRole('link', { name: 'Continue to the console' });
    expect(await link.getAttribute('href')).toBe('/roles?x=1');
    await link.click();
    await page.waitForURL(`${base}/roles?x=1`);
  });

  it('signed out, the form goes to next only when it is a path of this origin', async () => {
    for (const [next, landing] of [
      ['/%5Cevil.example/', '/'],
      ['/%09/evil.example/', '/'],
      ['//evil.example/', '/'],
      [encodeURIComponent('/roles'), '/roles'],
    ] as const) {
      const context = await browser.newContext({ baseURL: base });
      try {
        const fresh = await newPage(context);
        await signIn(fresh, next);
        await fresh.waitForURL(`${base}${landing}`);
      } finally {
        await context.close();
      }
    }
    expect(strayRequests).toEqual([]);
  });
});

describe('the server answers the sign-in page whatever next holds', () => {
  it('GET /login?next=<hostile> is the console page (or the minimal page), never a redirect elsewhere', async () => {
    const plain = await createTestApp();
    try {
      for (const next of HOSTILE) {
        const res = await plain.request(`/login?next=${next}`, { auth: null, headers: { accept: 'text/html' } });
        expect(res.status).toBe(200);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).not.toContain('evil.example');
      }
    } finally {
      await plain.close();
    }
  });
});
