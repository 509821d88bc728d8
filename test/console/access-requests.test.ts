/**
 * Access requests in the console, in Chromium, as two people: a Viewer asks for a role for 8
 * hours with a reason ("Request access") and sees it pending under "My requests"; an Admin sees
 * it in the approver's queue and approves it; the Viewer then sees it approved, and the role is
 * held for 8 hours. The approver's queue is not shown to the Viewer. At 375 and 1280 px, with no
 * serious axe violation and no horizontal scrolling.
 */
import type { Server } from 'node:http';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { type Actor, createRole, createUser, p } from '../support/subjects.js';
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

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
const contexts: BrowserContext[] = [];
let vera: Actor;
let ada: Actor;

describe.skipIf(!executablePath)(browserTitle('access requests in the console', executablePath), () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    ({ server, base } = await listen(app.yoga));
    vera = await createUser(app, 'jit-vera', { orgRole: 'Viewer' });
    ada = await createUser(app, 'jit-ada', { orgRole: 'Admin' });
    const role = await createRole(app, 'jit-oncall', [p('oncall:page')], { name: 'custom:jit-oncall' });
    // Ada may grant the role: she holds its permission herself.
    await app.database.prisma.userRole.create({ data: { orgId: 1, userId: ada.id, roleId: role.id } });
    app.services.access.invalidate();
    browser = await launchChromium(executablePath as string);
  }, 120_000);

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it.each([375, 1280])('a Viewer requests a role for 8 hours and an Admin approves it (%i px)', async (width) => {
    const asker = await signedInPage(browser, base, vera, width, contexts);
    await asker.getByRole('link', { name: 'Access requests' }).first().waitFor({ state: 'attached' });
    await openPage(asker, '/access-requests');
    expect(await asker.getByRole('heading', { name: 'Waiting for an answer' }).count()).toBe(0);
    await asker.getByLabel('Role').selectOption({ label: 'custom:jit-oncall' });
    await asker.getByLabel('For how long').selectOption({ label: 'For 8 hours' });
    await asker.getByLabel('Justification').fill(`incident at ${width}px`);
    await asker.getByRole('button', { name: 'Request access' }).click();
    await asker.getByRole('status').filter({ hasText: 'for 8 hours requested' }).waitFor();
    const mine = asker.locator('.requests li').filter({ hasText: `incident at ${width}px` });
    await expect.poll(() => mine.textContent()).toContain('pending');
    expect(await seriousViolations(asker)).toEqual([]);
    expect(await horizontalOverflow(asker)).toBeLessThanOrEqual(0);
    await screenshot(asker, `access-requests-asker-${width}`);

    const approver = await signedInPage(browser, base, ada, width, contexts);
    await openPage(approver, '/access-requests');
    await approver.getByRole('heading', { name: 'Waiting for an answer' }).waitFor();
    await approver.getByRole('button', { name: "Approve jit-vera's request for custom:jit-oncall" }).click();
    await approver.getByRole('status').filter({ hasText: 'approved' }).waitFor();
    expect(await seriousViolations(approver)).toEqual([]);
    expect(await horizontalOverflow(approver)).toBeLessThanOrEqual(0);
    await screenshot(approver, `access-requests-approver-${width}`);

    await openPage(asker, '/access-requests');
    await expect.poll(() => mine.textContent()).toContain('approved by jit-ada');
    const row = await app.database.prisma.userRole.findFirstOrThrow({ where: { userId: vera.id, role: { uid: 'jit-oncall' } } });
    const hours = ((row.expiresAt?.getTime() ?? 0) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(7.9);
    expect(hours).toBeLessThanOrEqual(8);
    // The next run asks again: the role expires at once for the test.
    await app.database.prisma.userRole.delete({ where: { id: row.id } });
  });
});
