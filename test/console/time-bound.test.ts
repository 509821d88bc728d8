/**
 * Time-bound assignments in the console, in Chromium: the Assignments page offers a duration when
 * assigning ("For 8 hours"), sends it as the assignment's expiresAt, and lists each assignment's
 * window as people read it ("expires in 8 h", "pending: starts in 2 h, for 1 h").
 */
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { type Actor, createRole, createUser, p } from '../support/subjects.js';
import { browserTitle, chromiumFor, ensureConsoleBuilt, launchChromium, listen, screenshot, signIn } from './browser.js';

const executablePath = await chromiumFor(import.meta.url);

let app: TestApp;
let server: Server;
let browser: Browser;
let page: Page;
let tom: Actor;

describe.skipIf(!executablePath)(browserTitle('time-bound assignments in the console', executablePath), () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    const listening = await listen(app.yoga);
    server = listening.server;
    tom = await createUser(app, 'tb-tom', { orgRole: 'Viewer' });
    await createRole(app, 'tb-oncall', [p('oncall:page', 'oncall:*')], { name: 'custom:tb-oncall' });
    const pending = await createRole(app, 'tb-later', [p('later:do')], { name: 'custom:tb-later' });
    const soon = new Date(Date.now() + 2 * 3_600_000);
    await app.database.prisma.userRole.create({
      data: { orgId: 1, userId: tom.id, roleId: pending.id, notBefore: soon, expiresAt: new Date(soon.getTime() + 3_600_000) },
    });
    browser = await launchChromium(executablePath as string);
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      baseURL: listening.base,
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    page = await context.newPage();
    await signIn(page, ADMIN);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it('assigns a role for 8 hours and shows when it expires, and a pending grant as pending', async () => {
    await page.goto(`/assignments?user=${tom.id}`);
    await page.getByRole('heading', { name: 'Roles of tb-tom' }).waitFor();
    const later = page.locator('.assigned li').filter({ hasText: 'custom:tb-later' });
    await expect.poll(() => later.textContent()).toContain('pending: starts in 2 h, for 1 h');

    await page.getByLabel('Role to assign').selectOption({ label: 'custom:tb-oncall' });
    await page.getByLabel('For how long').selectOption({ label: 'For 8 hours' });
    await page.getByRole('button', { name: 'Assign role' }).click();
    await page.getByRole('status').filter({ hasText: 'Role “custom:tb-oncall” assigned to tb-tom until' }).waitFor();
    const oncall = page.locator('.assigned li').filter({ hasText: 'custom:tb-oncall' });
    await expect.poll(() => oncall.textContent()).toMatch(/expires in (7 h 59 min|8 h)/);
    await screenshot(page, 'assignments-time-bound-1280');

    const row = await app.database.prisma.userRole.findFirstOrThrow({ where: { userId: tom.id, role: { uid: 'tb-oncall' } } });
    const hours = ((row.expiresAt?.getTime() ?? 0) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);
  });
});
