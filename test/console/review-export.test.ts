/**
 * The console's access review export (web/pages/review.tsx) in Chromium at 375 and 1280 px: an
 * Access reviewer exports who holds teams:delete as CSV and as JSON lines; the downloaded file
 * holds exactly the rows of the REST listing (`GET /api/access-control/review/who-has`), the
 * progress line counts them against the total the server announced, and a running export stops
 * at Cancel. A caller without access.review:read is offered no export. Every state passes
 * axe-core and fits the width without horizontal scrolling.
 *
 * Skips, saying why, only when no Chromium can be found (browser.ts chromiumFor).
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Actor, assignTeamRole, assignUserRole, createRole, createTeam, createUser, p } from '../support/subjects.js';
import {
  browserTitle,
  chromiumFor,
  ensureConsoleBuilt,
  horizontalOverflow,
  launchChromium,
  listen,
  openPage,
  screenshot,
  seriousViolations,
  signedInPage,
} from './browser.js';

const executablePath = await chromiumFor(import.meta.url);

type Row = { subject: { kind: string; id: number; login: string; orgRole: string; isServiceAdmin: boolean }; paths: Path[] };
type Path = { role: { uid: string; name: string }; source: string; permission: { action: string; scope: string } };

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
/** reviewer: a Viewer holding fixed:access.review:reader. viewer: a Viewer without it. */
let reviewer: Actor;
let viewer: Actor;
const contexts: BrowserContext[] = [];

/** Every row of the REST listing of who holds `action`, page after page. */
async function listing(action: string): Promise<Row[]> {
  const rows: Row[] = [];
  let after = '';
  for (;;) {
    const res = await app.request(`/api/access-control/review/who-has?action=${action}&first=7${after}`, { auth: reviewer.auth });
    const page = (await res.json()) as { rows: Row[]; endCursor: string | null };
    rows.push(...page.rows);
    if (!page.endCursor) return rows;
    after = `&after=${page.endCursor}`;
  }
}

/** The CSV lines (after the column line) the rows make. */
const csvOf = (rows: Row[]) =>
  rows.flatMap((r) =>
    r.paths.map((x) =>
      [
        r.subject.kind,
        r.subject.id,
        r.subject.login,
        r.subject.orgRole,
        r.subject.isServiceAdmin,
        x.source,
        x.role.uid,
        x.role.name,
        x.permission.action,
        x.permission.scope,
      ]
        .map((cell) => (/[",]/.test(String(cell)) ? `"${String(cell).replaceAll('"', '""')}"` : String(cell)))
        .join(','),
    ),
  );

async function checkPage(page: Page, name: string, width: number): Promise<void> {
  expect(await seriousViolations(page)).toEqual([]);
  expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
  await screenshot(page, `review-${name}-${width}`);
}

/** Exports who holds teams:delete in `format` on `page`; answers the downloaded file's text. */
async function exportFile(page: Page, format: 'csv' | 'ndjson'): Promise<string> {
  await page.getByLabel('Action').fill('teams:delete');
  await page.getByLabel('Format').selectOption(format);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`access-review.${format}`);
  return readFileSync(await file.path(), 'utf8');
}

describe.skipIf(!executablePath)(browserTitle("the console's access review export", executablePath), () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    ({ server, base } = await listen(app.yoga));
    reviewer = await createUser(app, 'rita');
    await assignUserRole(app, reviewer.id, 'fixed:access.review:reader');
    viewer = await createUser(app, 'vic');
    await createRole(app, 'team-deleter', [p('teams:delete', 'teams:*')]);
    const members: number[] = [];
    for (let i = 0; i < 14; i++) {
      const user = await createUser(app, `holder-${i}`, { orgRole: i % 3 === 0 ? 'Editor' : 'Viewer' });
      if (i % 2 === 0) await assignUserRole(app, user.id, 'team-deleter');
      else if (i % 3 === 1) members.push(user.id);
    }
    const team = await createTeam(app, 'ops, "night" shift', { members });
    await assignTeamRole(app, team.id, 'team-deleter');
    const disabled = await createUser(app, 'gone');
    await assignUserRole(app, disabled.id, 'team-deleter');
    await app.database.prisma.user.update({ where: { id: disabled.id }, data: { isDisabled: true } });
    app.services.access.invalidate();
    browser = await launchChromium(executablePath as string);
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  for (const width of [375, 1280]) {
    it(`downloads the CSV and the JSON lines the REST listing holds, with a progress line, at ${width} px`, async () => {
      const rows = await listing('teams:delete');
      // The admin (Service Admin, org Admin) and the seven direct holders and the team's members.
      expect(rows.length).toBeGreaterThan(10);
      const page = await signedInPage(browser, base, reviewer, width, contexts);
      const nav = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
      expect(nav).toContain('Access review');
      await openPage(page, '/review');
      await checkPage(page, 'form', width);

      const csv = (await exportFile(page, 'csv')).split('\r\n');
      expect(csv[0]).toBe('subject_kind,subject_id,login,org_role,is_service_admin,source,role_uid,role_name,action,scope');
      expect(csv.slice(1, -1)).toEqual(csvOf(rows));
      const progress = page.getByTestId('export-progress');
      await expect.poll(() => progress.textContent()).toMatch(new RegExp(`^${rows.length} of ${rows.length} subjects, \\d+ s: done\\.$`));
      await checkPage(page, 'done', width);

      const ndjson = (await exportFile(page, 'ndjson')).trim().split('\n');
      expect(ndjson.slice(1, -1).map((line) => JSON.parse(line))).toEqual(rows);
      expect(JSON.parse(ndjson[0] as string)).toMatchObject({ header: { subjects: rows.length } });
      await expect.poll(() => progress.textContent()).toMatch(new RegExp(`^${rows.length} of ${rows.length} subjects, \\d+ s: done\\.$`));
    }, 90_000);
  }

  it('stops a running export at Cancel', async () => {
    const page = await signedInPage(browser, base, reviewer, 1280, contexts);
    await openPage(page, '/review');
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/review/who-has/export*', async (route) => {
      await held;
      await route.continue().catch(() => undefined); // the page has given the request up
    });
    await page.getByLabel('Action').fill('teams:delete');
    await page.getByRole('button', { name: 'Export' }).click();
    const progress = page.getByTestId('export-progress');
    await expect.poll(() => progress.textContent()).toMatch(/^0 subjects, \d+ s: exporting…$/);
    await checkPage(page, 'running', 1280);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => progress.textContent()).toMatch(/: cancelled\.$/);
    await page.getByRole('button', { name: 'Cancel' }).waitFor({ state: 'detached' });
    release();
    expect(await page.getByRole('link', { name: /^Save / }).count()).toBe(0);
  }, 60_000);

  it('offers no export to a caller without access.review:read, and the server refuses it', async () => {
    const page = await signedInPage(browser, base, viewer, 375, contexts);
    const nav = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
    expect(nav).not.toContain('Access review');
    await openPage(page, '/review');
    await page.getByText('You may not review the organization').waitFor();
    expect(await page.getByRole('button', { name: 'Export' }).count()).toBe(0);
    const status = await page.evaluate(async () => (await fetch('/api/access-control/review/who-has/export?action=teams:delete')).status);
    expect(status).toBe(403);
    await checkPage(page, 'refused', 375);
  }, 60_000);
});
