/**
 * The console's screens at 375 and 1280 px, measured in a real Chromium, with
 * screenshots in test-results/console/screens-*.png for review:
 * - the Why? answer's "Granted by" caption spans its table on one line (it shrank to one letter
 *   per line at 375 px once the table became blocks);
 * - on every form, fields side by side line up: their labels end on one line and their controls
 *   (and a button without a label) start on one line, whatever the labels' and hints' lengths;
 * - the overview and the navigation offer a section only to those who may use it, and a card
 *   promises a change (create, revoke, assign, reset...) only when its page shows that control;
 * - the footer links GraphiQL (signed in with the console's session) and the REST reference.
 * Skips, saying why, only when no Chromium can be found (browser.ts chromiumFor).
 */
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { type Actor, assignUserRole, createRole, createTeam, createUser, p } from '../support/subjects.js';
import {
  browserTitle,
  chromiumFor,
  ensureConsoleBuilt,
  horizontalOverflow,
  launchChromium,
  listen,
  openPage,
  screenshot,
  signedInPage,
} from './browser.js';

const executablePath = await chromiumFor(import.meta.url);
const title = browserTitle("the console's screens", executablePath);

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
/** tom: a Viewer in team platform. ed: an Editor. vera: a Viewer with the reader roles. */
let tom: Actor;
let ed: Actor;
let vera: Actor;
let team: { id: number };
const contexts: BrowserContext[] = [];

/** A signed-in page `width` px wide. */
const signedIn = (who: { login: string; password: string }, width: number): Promise<Page> =>
  signedInPage(browser, base, who, width, contexts);

const open = openPage;

/** A box's edges in CSS px. */
interface Box {
  top: number;
  bottom: number;
  left: number;
  width: number;
  height: number;
}

/**
 * Every `.form-grid` of the page: its fields grouped into rows (fields whose boxes overlap
 * vertically), each field with its label's box and its control's box (input, select, textarea
 * or button).
 */
async function formRows(page: Page): Promise<{ form: string; rows: { label: Box | null; control: Box | null; text: string }[][] }[]> {
  return page.evaluate(() => {
    const box = (el: Element | null) => {
      if (!el) return null;
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, width: r.width, height: r.height };
    };
    return [...document.querySelectorAll('.form-grid')].map((form) => {
      const fields = [...form.querySelectorAll(':scope > .field')]
        .map((f) => ({
          field: f.getBoundingClientRect(),
          label: box(f.querySelector(':scope > label')),
          control: box(f.querySelector(':scope > input, :scope > select, :scope > textarea, :scope > button')),
          text: (f.textContent ?? '').trim().slice(0, 30),
        }))
        .sort((a, b) => a.field.top - b.field.top || a.field.left - b.field.left);
      const rows: (typeof fields)[] = [];
      for (const f of fields) {
        const row = rows.find((r) => r.some((o) => f.field.top < o.field.bottom && o.field.top < f.field.bottom));
        if (row) row.push(f);
        else rows.push([f]);
      }
      const name = form.getAttribute('aria-label') ?? form.querySelector('h3')?.textContent ?? form.id;
      return { form: name ?? '', rows: rows.map((r) => r.map(({ label, control, text }) => ({ label, control, text }))) };
    });
  });
}

/** The write controls in the page's main part: buttons and links that change something. */
async function writeControls(page: Page): Promise<string[]> {
  const texts = [
    ...(await page.locator('main').getByRole('button').allTextContents()),
    ...(await page.locator('main').getByRole('link').allTextContents()),
  ];
  return texts.map((t) => t.trim()).filter((t) => /\b(create|delete|revoke|add|assign|remove|reset|edit)\b|new custom role/i.test(t));
}

describe.skipIf(!executablePath)(title, () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    ({ server, base } = await listen(app.yoga));
    tom = await createUser(app, 'tom', { orgRole: 'Viewer' });
    ed = await createUser(app, 'ed', { orgRole: 'Editor' });
    vera = await createUser(app, 'vera', { orgRole: 'Viewer' });
    for (const role of ['fixed:roles:reader', 'fixed:apikeys:reader', 'fixed:serviceaccounts:reader'])
      await assignUserRole(app, vera.id, role);
    team = await createTeam(app, 'platform', { members: [tom.id] });
    const made = await app.graphql('mutation { createServiceAccount(input: { name: "deployer", role: Viewer }) { id } }');
    expect(made.body.errors).toBeUndefined();
    browser = await launchChromium(executablePath as string);
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it('Why?: the "Granted by" caption spans its table on one line at 375 and 1280 px', async () => {
    const why = `/why?user=${tom.id}&action=teams%3Aread&scope=teams%3Aid%3A${team.id}`;
    for (const width of [375, 1280]) {
      const page = await signedIn(ADMIN, width);
      await open(page, why);
      await page.getByRole('heading', { level: 2, name: /^Allowed: tom may do/ }).waitFor();
      const { caption, table, lineHeight } = await page.evaluate(() => {
        const box = (el: Element | null) => el?.getBoundingClientRect().toJSON() as DOMRect;
        const caption = document.querySelector('.answer caption');
        return {
          caption: box(caption),
          table: box(document.querySelector('.answer table')),
          lineHeight: Number.parseFloat(getComputedStyle(caption as Element).lineHeight),
        };
      });
      await screenshot(page, `screens-why-${width}`);
      expect(caption.width, `caption width at ${width} px`).toBeGreaterThanOrEqual(table.width - 1);
      expect(caption.height, `caption height at ${width} px`).toBeLessThan(lineHeight * 1.5 + 8);
      expect(await horizontalOverflow(page), `horizontal scrolling at ${width} px`).toBe(0);
    }
  });

  it('shows a role without display name once, keeps words whole at 375 px, spaces Basic roles, and counts the rows it shows', async () => {
    const name = 'custom:release-managers-of-the-platform';
    await createRole(app, 'release-managers', [p('teams:read', 'teams:*')], { name });
    await assignUserRole(app, tom.id, 'release-managers');
    const page = await signedIn(ADMIN, 375);

    await open(page, '/roles');
    const item = page.locator('.role-list > li').filter({ hasText: name });
    expect((await item.locator('summary').textContent())?.split(name).length, 'the name appears once').toBe(2);

    await open(page, `/why?user=${tom.id}&action=teams%3Aread&scope=teams%3Aid%3A${team.id}`);
    await page.getByRole('heading', { level: 2, name: /^Allowed: tom may do/ }).waitFor();
    // Every word of every role name sits on one line: a line may end after "-" or ":", not inside a word.
    const split = await page.evaluate(() => {
      const broken: string[] = [];
      for (const box of document.querySelectorAll('.answer .role-name')) {
        const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (const word of (node.textContent ?? '').matchAll(/[A-Za-z0-9_]+/g)) {
            const range = document.createRange();
            range.setStart(node, word.index);
            range.setEnd(node, word.index + word[0].length);
            if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) broken.push(word[0]);
          }
        }
      }
      return broken;
    });
    await screenshot(page, 'screens-why-role-names-375');
    expect(split).toEqual([]);
    expect(await horizontalOverflow(page)).toBe(0);

    const grant = '[{ role: { name: "plugins:notes:reader", permissions: [{ action: "notes:read" }] }, grants: [Editor] }]';
    expect(
      (await app.graphql(`mutation { registerProductRoles(productId: "notes", roles: ${grant}) { uid } }`)).body.errors,
    ).toBeUndefined();
    await open(page, '/basic-roles');
    const gaps = await page.evaluate(() =>
      [...document.querySelectorAll('details.role-permissions')].flatMap((d) => {
        const next = d.nextElementSibling;
        return next ? [next.getBoundingClientRect().top - d.getBoundingClientRect().bottom] : [];
      }),
    );
    expect(gaps.length, 'a permission list followed by a heading').toBeGreaterThan(0);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(8);

    // tom holds teams:read on teams:* through Viewer and through the role: one permission, two rows.
    await open(page, `/assignments?user=${tom.id}`);
    const summary = (await page.locator('#effective-heading + p').textContent()) ?? '';
    const rows = await page.locator('table tbody tr').count();
    expect(summary).toContain(`in ${rows} rows`);
  }, 60_000);

  it('lines up the labels and the controls of fields side by side on every form at 1280 px', async () => {
    const page = await signedIn(ADMIN, 1280);
    const pages: [string, string][] = [
      ['why', `/why?user=${tom.id}&action=teams%3Aread`],
      ['role-new', '/roles/new'],
      ['api-keys', '/api-keys'],
      ['assignments', `/assignments?user=${tom.id}`],
    ];
    const misaligned: string[] = [];
    let sideBySide = 0;
    for (const [name, path] of pages) {
      await open(page, path);
      await page.locator('.form-grid').first().waitFor();
      await screenshot(page, `screens-forms-${name}-1280`);
      for (const { form, rows } of await formRows(page)) {
        for (const row of rows.filter((r) => r.length > 1)) {
          sideBySide += 1;
          const labelBottoms = row.flatMap((f) => (f.label ? [f.label.bottom] : []));
          const controlTops = row.flatMap((f) => (f.control ? [f.control.top] : []));
          const spread = (values: number[]) => Math.max(...values) - Math.min(...values);
          if (labelBottoms.length > 1 && spread(labelBottoms) > 1)
            misaligned.push(`${name} ${form}: labels end ${labelBottoms.join(', ')} (${row.map((f) => f.text).join(' | ')})`);
          if (spread(controlTops) > 1)
            misaligned.push(`${name} ${form}: controls start ${controlTops.join(', ')} (${row.map((f) => f.text).join(' | ')})`);
        }
      }
    }
    expect(sideBySide, 'rows of fields side by side were measured').toBeGreaterThanOrEqual(6);
    expect(misaligned).toEqual([]);
  });

  it('offers each section, and each change a card promises, only to those who may use it', async () => {
    const expected: [Actor | typeof ADMIN, string, string[]][] = [
      [
        ADMIN,
        'admin',
        [
          'Overview',
          'Users',
          'Teams',
          'Organizations',
          'API key settings',
          'Roles',
          'Assignments',
          'Why?',
          'Basic roles',
          'Access requests',
        ],
      ],
      [ed, 'editor', ['Overview', 'Users', 'Teams', 'Service account tokens', 'Why?', 'Access requests']],
      [
        vera,
        'readers',
        ['Overview', 'Users', 'Teams', 'API key settings', 'Roles', 'Assignments', 'Why?', 'Basic roles', 'Access requests'],
      ],
      [tom, 'viewer', ['Overview', 'Users', 'Teams', 'Why?', 'Access requests']],
    ];
    const broken: string[] = [];
    for (const [who, name, sections] of expected) {
      const page = await signedIn(who, name === 'editor' ? 375 : 1280);
      await open(page, '/');
      const nav = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
      expect(nav, name).toEqual(sections);
      const cards = page.locator('.cards > li');
      expect(await cards.locator('h3').allTextContents(), name).toEqual(sections.slice(1));
      await screenshot(page, `screens-overview-${name}-${name === 'editor' ? 375 : 1280}`);
      const offers: [string, string, string][] = [];
      for (const card of await cards.all()) {
        const link = card.getByRole('link');
        offers.push([
          (await link.textContent()) ?? '',
          (await link.getAttribute('href')) ?? '',
          (await card.locator('p').textContent()) ?? '',
        ]);
      }
      for (const [label, href, description] of offers) {
        // Assignments shows its controls once someone is chosen: choose tom.
        await open(page, href === '/assignments' ? `/assignments?user=${tom.id}` : href);
        expect(await page.getByRole('heading', { level: 1 }).textContent(), `${name}: ${label}`).toMatch(
          label === 'Why?' ? /^Why/ : new RegExp(`^${label}`),
        );
        const promises = /\b(create|revoke|build and edit|assign|reset)\b/i.test(description);
        const controls = await writeControls(page);
        if (promises !== controls.length > 0) broken.push(`${name}: "${label}" says "${description}" and shows [${controls.join(', ')}]`);
      }
    }
    expect(broken).toEqual([]);
  }, 120_000);

  it('links GraphiQL, signed in with the console session, and the REST API reference from every page', async () => {
    for (const width of [375, 1280]) {
      const page = await signedIn(vera, width);
      await open(page, '/why');
      const apis = page.getByRole('navigation', { name: 'APIs' });
      expect(await apis.getByRole('link').evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')]))).toEqual([
        ['GraphiQL', '/graphql'],
        ['REST API reference', '/swagger'],
      ]);
      expect(await horizontalOverflow(page)).toBe(0);
      await screenshot(page, `screens-footer-${width}`);
      if (width === 375) continue;
      await apis.getByRole('link', { name: 'GraphiQL' }).click();
      await page.waitForURL(/\/graphql$/);
      await expect.poll(() => page.title()).toBe('portcullis GraphiQL');
      expect(await page.content()).toContain('Signed in with your console session');
      await page.goBack();
      await page.getByRole('navigation', { name: 'APIs' }).getByRole('link', { name: 'REST API reference' }).click();
      await page.waitForURL(/\/swagger$/);
      await page.locator('#swagger-ui').waitFor();
    }
  });
});
