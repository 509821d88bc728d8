/**
 * The console's people pages in Chromium: the Service Admin creates a user, edits it, changes its
 * org role, sets its password, disables and enables it, lifts the sign-in lock that wrong
 * passwords put on it and deletes it; creates a team, renames it, adds and removes a member and
 * deletes it; creates, renames and deletes an organization. Each change is checked on the server.
 * A user who writes users is offered control only of accounts whose permissions it holds (the
 * server's delegation rule), never of a Service Admin's, and the server refuses the rest; an org
 * Admin manages membership up to its own org role; a Viewer sees the lists and no write control. Every page passes axe-core (no serious or critical WCAG A/AA violation) and
 * fits 375 px without horizontal scrolling, with screenshots in test-results/console/people-*.
 *
 * Skips, saying why, only when no Chromium can be found (browser.ts chromiumFor).
 */
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { type Actor, assignUserRole, createTeam, createUser } from '../support/subjects.js';
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
const title = browserTitle("the console's people pages", executablePath);

/** Wrong passwords before a login is locked, in this test's app. */
const ATTEMPTS = 3;

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
/** oscar: an org Admin. tom: a Viewer, member of team platform. wanda: a Viewer who writes users and reads permissions. */
let oscar: Actor;
let wanda: Actor;
let tom: Actor;
let team: { id: number };
const contexts: BrowserContext[] = [];

/** A signed-in page `width` px wide. */
const signedIn = (who: { login: string; password: string }, width: number): Promise<Page> =>
  signedInPage(browser, base, who, width, contexts);

const open = openPage;

/** Waits for the page's status notice saying `text`. */
async function status(page: Page, text: string): Promise<void> {
  await page.getByRole('status').filter({ hasText: text }).waitFor();
}

async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await app.graphql<T>(query, variables);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data as T;
}

/** A password sign-in over real HTTP: its status. */
async function signInStatus(login: string, password: string): Promise<number> {
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: login, password }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Buttons and links of the page's main part that change something. */
async function writeControls(page: Page): Promise<string[]> {
  const texts = [
    ...(await page.locator('main').getByRole('button').allTextContents()),
    ...(await page.locator('main').getByRole('link').allTextContents()),
  ];
  return texts.map((t) => t.trim()).filter((t) => /\b(create|delete|disable|enable|lift|set|save|change|add|remove|rename)\b/i.test(t));
}

describe.skipIf(!executablePath)(title, () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp({ env: { BRUTE_FORCE_LOGIN_PROTECTION_MAX_ATTEMPTS: String(ATTEMPTS) } });
    ({ server, base } = await listen(app.yoga));
    oscar = await createUser(app, 'oscar', { orgRole: 'Admin' });
    tom = await createUser(app, 'tom', { orgRole: 'Viewer' });
    wanda = await createUser(app, 'wanda', { orgRole: 'Viewer' });
    for (const role of ['fixed:users:writer', 'fixed:roles:reader']) await assignUserRole(app, wanda.id, role);
    team = await createTeam(app, 'platform', { members: [tom.id] });
    browser = await launchChromium(executablePath as string);
  }, 120_000);

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it('creates a user, edits it, changes its org role and password, disables, enables, unlocks and deletes it', async () => {
    const page = await signedIn(ADMIN, 1280);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Users', exact: true }).click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Login').fill('nina');
    await form.getByLabel('Email').fill('nina@example.com');
    await form.getByLabel('Password').fill('first-password');
    await form.getByLabel('Org role').selectOption('Editor');
    await form.getByRole('button', { name: 'Create user' }).click();
    await status(page, 'User “nina” created.');
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'nina@example.com' }).textContent()).toContain('Editor');
    await page.getByLabel('Search by login, email or name').fill('nin');
    await expect.poll(() => page.getByRole('row').count()).toBe(2);
    await screenshot(page, 'people-users-1280');
    await page.getByRole('link', { name: 'nina', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'User nina' }).waitFor();
    const { id } = (await gql<{ userByLoginOrEmail: { id: number } }>('{ userByLoginOrEmail(loginOrEmail: "nina") { id } }'))
      .userByLoginOrEmail;

    await page.getByLabel('Name').fill('Nina Simone');
    await page.getByRole('button', { name: 'Save details' }).click();
    await status(page, 'User “nina” saved.');
    await page.getByLabel('Org role', { exact: true }).selectOption('Viewer');
    await page.getByRole('button', { name: 'Change org role' }).click();
    await status(page, 'nina is now Viewer in this organization.');
    await page.getByLabel('New password', { exact: true }).fill('second-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await status(page, 'Password of “nina” changed');
    const read = () =>
      gql<{ user: { name: string; isDisabled: boolean; orgs: { role: string }[] } }>(
        'query ($id: Int!) { user(id: $id) { name isDisabled orgs { role } } }',
        { id },
      );
    expect(await read()).toEqual({ user: { name: 'Nina Simone', isDisabled: false, orgs: [{ role: 'Viewer' }] } });
    expect(await signInStatus('nina', 'first-password')).toBe(401);
    expect(await signInStatus('nina', 'second-password')).toBe(200);

    await page.getByRole('button', { name: 'Disable user' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable user' }).click();
    await status(page, 'User “nina” disabled.');
    expect((await read()).user.isDisabled).toBe(true);
    expect(await signInStatus('nina', 'second-password')).not.toBe(200);
    await screenshot(page, 'people-user-1280');
    await page.getByRole('button', { name: 'Enable user' }).click();
    await status(page, 'User “nina” enabled.');
    expect((await read()).user.isDisabled).toBe(false);

    // Wrong passwords lock the login, the right one included; lifting the lock lets it in again.
    // (The sign-in while disabled may have counted as a failure already.)
    for (let i = 0; i < ATTEMPTS; i++) expect([401, 429]).toContain(await signInStatus('nina', `guess-${i}`));
    expect(await signInStatus('nina', 'second-password')).toBe(429);
    await page.getByRole('button', { name: 'Lift sign-in lock' }).click();
    await status(page, 'Sign-in lock of “nina” lifted');
    expect(await signInStatus('nina', 'second-password')).toBe(200);

    await page.getByRole('button', { name: 'Delete user' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete user' }).click();
    await status(page, 'User “nina” deleted.');
    const after = await app.graphql('query ($id: Int!) { user(id: $id) { id } }', { id });
    expect(after.body.errors?.[0]?.extensions?.code).toBe('USER_NOT_FOUND');
  });

  it('creates a team, renames it, adds and removes a member, and deletes it', async () => {
    const page = await signedIn(ADMIN, 1280);
    await open(page, '/teams');
    const form = page.getByRole('form', { name: 'New team' });
    await form.getByLabel('Name').fill('ops');
    await form.getByRole('button', { name: 'Create team' }).click();
    await status(page, 'Team “ops” created.');
    await page.getByRole('link', { name: 'Open the team' }).click();
    await page.getByRole('heading', { level: 1, name: 'Team ops' }).waitFor();
    await page.getByLabel('Name').fill('operations');
    await page.getByRole('button', { name: 'Save team' }).click();
    await status(page, 'Team “operations” saved.');
    await page.getByRole('heading', { level: 1, name: 'Team operations' }).waitFor();
    await page.getByLabel('Member of the organization').selectOption({ label: 'tom' });
    await page.getByRole('button', { name: 'Add member' }).click();
    await status(page, 'tom added to team operations.');
    const members = async () => {
      const { teamSearch } = await gql<{ teamSearch: { teams: { id: number; members: { login: string }[] }[] } }>(
        '{ teamSearch(name: "operations") { teams { id members { login } } } }',
      );
      return teamSearch.teams[0];
    };
    expect((await members())?.members).toEqual([{ login: 'tom' }]);
    await screenshot(page, 'people-team-1280');
    await page.getByRole('button', { name: 'Remove tom from team operations' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove member' }).click();
    await status(page, 'tom removed from team operations.');
    expect((await members())?.members).toEqual([]);
    await page.getByRole('button', { name: 'Delete team' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete team' }).click();
    await status(page, 'Team “operations” deleted.');
    expect(await members()).toBeUndefined();
  });

  it('creates, renames and deletes an organization', async () => {
    const page = await signedIn(ADMIN, 1280);
    await open(page, '/orgs');
    await page.getByRole('form', { name: 'New organization' }).getByLabel('Name').fill('Third Org');
    await page.getByRole('button', { name: 'Create organization' }).click();
    await status(page, 'Organization “Third Org” created');
    const row = page.getByRole('form', { name: 'Name of organization Third Org' });
    await row.getByRole('textbox').fill('Third Organization');
    await row.getByRole('button', { name: 'Rename organization Third Org' }).click();
    await status(page, 'renamed “Third Organization”');
    const names = async () =>
      (await gql<{ organizations: { name: string }[] }>('{ organizations { name } }')).organizations.map((o) => o.name);
    expect(await names()).toContain('Third Organization');
    await page.getByRole('button', { name: 'Delete organization Third Organization' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete organization' }).click();
    await status(page, 'Organization “Third Organization” deleted.');
    expect(await names()).not.toContain('Third Organization');
  });

  it('offers account controls only over accounts whose permissions the caller holds, and a Viewer no write control', async () => {
    const adminId = (await app.database.prisma.user.findUniqueOrThrow({ where: { login: ADMIN.login } })).id;
    const account = ['Save details', 'Disable user', 'Lift sign-in lock', 'Set password', 'Delete user'];
    // wanda writes users but holds only a Viewer's other permissions: tom's account is hers to
    // control, oscar's (an org Admin, holding more) and the Service Admin's are not.
    const asWanda = await signedIn(wanda, 1280);
    await open(asWanda, `/users/edit?id=${tom.id}`);
    expect(await writeControls(asWanda)).toEqual(account);
    for (const id of [oscar.id, adminId]) {
      await open(asWanda, `/users/edit?id=${id}`);
      expect(await writeControls(asWanda), `user ${id}`).toEqual([]);
      // The server refuses what the console does not offer.
      const refused = await app.graphql('mutation ($id: Int!) { disableUser(id: $id) { message } }', { id }, { auth: wanda.auth });
      expect(refused.body.errors?.[0]?.extensions?.code, `user ${id}`).toBe('ACCESS_DENIED');
    }

    // An org Admin manages membership here, at most its own org role, and no account.
    const asOscar = await signedIn(oscar, 1280);
    await open(asOscar, `/users/edit?id=${tom.id}`);
    expect(await writeControls(asOscar)).toEqual(['Change org role', 'Remove from organization']);
    expect(await asOscar.getByLabel('Org role', { exact: true }).locator('option').allTextContents()).toEqual([
      'None',
      'Viewer',
      'Editor',
      'Admin',
    ]);
    expect(await asOscar.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).not.toContain('Organizations');

    const asTom = await signedIn(tom, 1280);
    const nav = await asTom.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
    expect(nav).toEqual(['Overview', 'Users', 'Teams', 'Why?', 'Access requests']);
    for (const path of ['/users', `/users/edit?id=${oscar.id}`, '/teams', `/teams/edit?id=${team.id}`]) {
      await open(asTom, path);
      expect(await writeControls(asTom), path).toEqual([]);
    }
    await open(asTom, '/users');
    await expect.poll(() => asTom.getByRole('row').filter({ hasText: 'oscar' }).textContent()).toContain('Admin');
  });

  it('is accessible and fits 375 px on every people page', async () => {
    const failures: string[] = [];
    const pages: [string, string][] = [
      ['users', '/users'],
      ['user', `/users/edit?id=${tom.id}`],
      ['teams', '/teams'],
      ['team', `/teams/edit?id=${team.id}`],
      ['orgs', '/orgs'],
    ];
    for (const width of [375, 1280]) {
      const page = await signedIn(ADMIN, width);
      for (const [name, path] of pages) {
        await open(page, path);
        for (const v of await seriousViolations(page))
          failures.push(`${name}@${width}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(', ')}`);
        const overflow = await horizontalOverflow(page);
        if (overflow > 0) failures.push(`${name}@${width}: ${overflow}px of horizontal scrolling`);
        await screenshot(page, `people-${name}-${width}`);
      }
      // An open confirmation, too.
      await open(page, `/users/edit?id=${tom.id}`);
      await page.getByRole('button', { name: 'Disable user' }).click();
      await page.getByRole('dialog').waitFor();
      for (const v of await seriousViolations(page)) failures.push(`dialog@${width}: ${v.id} at ${v.targets.join(', ')}`);
      await page.keyboard.press('Escape');
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
