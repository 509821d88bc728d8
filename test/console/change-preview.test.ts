/**
 * The console's preview of a change (web/change-preview.tsx), in a real Chromium: in the role
 * editor an Admin adds a permission to a role two people hold and, before saving, reads who would
 * gain it; on the assignments page, what assigning the chosen role would give. The preview saves
 * nothing. Skips, saying why, only when no Chromium can be found.
 */
import type { Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { assignUserRole, createRole, createUser, p } from '../support/subjects.js';
import { browserTitle, chromiumFor, ensureConsoleBuilt, launchChromium, listen, signIn } from './browser.js';

const executablePath = await chromiumFor(import.meta.url);

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
/** A user holding no role of its own. */
let newcomer: number;

describe.skipIf(!executablePath)(browserTitle("the role editor's preview", executablePath), () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    ({ server, base } = await listen(app.yoga));
    await createRole(app, 'previewed', [p('teams:read', 'teams:*')]);
    for (const login of ['pia', 'pim']) await assignUserRole(app, (await createUser(app, login)).id, 'previewed');
    newcomer = (await createUser(app, 'nico')).id;
    await createRole(app, 'team-writer', [p('teams:write', 'teams:*')]);
    browser = await launchChromium(executablePath as string);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it('shows who would gain the permission added, before saving, and saves nothing', async () => {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US' });
    const page = await context.newPage();
    await signIn(page, ADMIN);
    await page.goto('/roles/edit?uid=previewed');
    await page.getByLabel('Action').waitFor();
    await page.waitForFunction(() => document.querySelector('.loading') === null);
    await page.getByLabel('Action').fill('teams:delete');
    await page.getByLabel('Scope (optional)').fill('teams:*');
    await page.getByRole('button', { name: 'Add permission' }).click();
    await page.getByRole('button', { name: 'Preview who gains and loses' }).click();
    await expect.poll(() => page.getByTestId('preview-text').textContent()).toBe('2 people gain teams:delete on teams:*');
    const role = await app.database.prisma.role.findUniqueOrThrow({ where: { uid: 'previewed' }, include: { permissions: true } });
    expect(role.permissions.map((x) => x.action)).toEqual(['teams:read']);
    await context.close();
  }, 60_000);

  it('the assignments page shows what assigning the chosen role would give', async () => {
    const context = await browser.newContext({ baseURL: base, locale: 'en-US' });
    const page = await context.newPage();
    await signIn(page, ADMIN);
    await page.goto(`/assignments?user=${newcomer}`);
    await page.getByLabel('Role to assign').waitFor();
    await page.getByLabel('Role to assign').selectOption('team-writer');
    await page.getByRole('button', { name: 'Preview who gains and loses' }).click();
    await expect.poll(() => page.getByTestId('preview-text').textContent()).toBe('1 person gains teams:write on teams:*');
    expect(await app.database.prisma.userRole.count({ where: { userId: newcomer } })).toBe(0);
    await context.close();
  }, 60_000);
});
