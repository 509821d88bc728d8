/**
 * The web console in a real browser: Playwright drives a headless Chromium
 * against the app on a loopback port. Flows: sign in; create an API key, see its secret once
 * (copy button, nothing stored in the browser), use it as curl would, delete it; a service
 * account's token likewise; a confirmation whose change fails keeps its dialog open with the
 * error; build a custom role, edit it, assign it to a team and watch a member's permissions and
 * the "why" answer change, then delete the assigned role; the basic
 * roles' reset; focus never dropped to <body> when a secret is dismissed or a confirmed change
 * removes its button (WCAG 2.4.3); the organization switcher, which switches only on its button,
 * not while arrow keys move through the list (WCAG 3.2.2); near misses (`/roles/`, `/index.html`)
 * redirected and unknown paths showing the console's own Page not found; a Viewer sees no write
 * control and the server refuses what the console hides; the oss edition's pages say roles do not
 * exist there. Every page is checked with axe-core (no serious or critical WCAG A/AA
 * violation), for horizontal scrolling at 375 px, for CSP violations, and saved as a screenshot
 * at 1280 and 375 px in test-results/console/ for review.
 *
 * Skips, saying why, only when no Chromium can be found (browser.ts chromiumFor); CI installs one.
 */
import type { Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTestApp, type TestApp } from '../support/app.js';
import { type Actor, addOrgMember, assignUserRole, createOrg, createTeam, createUser } from '../support/subjects.js';
import {
  browserTitle,
  chromiumFor,
  ensureConsoleBuilt,
  holdOperation,
  horizontalOverflow,
  launchChromium,
  listen,
  screenshot,
  seriousViolations,
  signIn,
} from './browser.js';

const executablePath = await chromiumFor(import.meta.url);
const title = browserTitle('the web console in Chromium', executablePath);

let app: TestApp;
let server: Server;
let base: string;
let browser: Browser;
let admin: BrowserContext;
let page: Page;
let tom: Actor;
let vera: Actor;
let team: { id: number; name: string };
/** Problems the pages reported: CSP refusals, uncaught errors. */
const pageProblems: string[] = [];

function watch(p: Page): Page {
  p.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) pageProblems.push(message.text());
  });
  p.on('pageerror', (error) => pageProblems.push(`uncaught: ${error.message}`));
  return p;
}

async function newContext(width: number): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: { width, height: width < 500 ? 812 : 900 },
    ...(width < 500 && { isMobile: true, hasTouch: true }),
    baseURL: base,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  return context;
}

const signInAs = (p: Page, login: string, password: string): Promise<void> => signIn(p, { login, password });

/** Waits until the page shows its heading and nothing is loading any more. */
async function loaded(p: Page): Promise<void> {
  await p.getByRole('heading', { level: 1 }).waitFor();
  await p.waitForFunction(() => document.querySelector('.loading') === null);
}

/** Opens a section through the navigation, as a person would. */
async function openSection(p: Page, label: string): Promise<void> {
  await p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
  await p.getByRole('heading', { level: 1 }).waitFor();
}

/** The element that has focus: its tag and text; BODY when focus was dropped (WCAG 2.4.3). */
async function focused(p: Page): Promise<{ tag: string; text: string }> {
  return p.evaluate(() => ({ tag: document.activeElement?.tagName ?? 'NONE', text: document.activeElement?.textContent?.trim() ?? '' }));
}

/** GraphQL as the test itself (basic auth of the admin), for checking what the console did. */
async function gql<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await app.graphql<T>(query, variables);
  if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
  return res.body.data as T;
}

describe.skipIf(!executablePath)(title, () => {
  beforeAll(async () => {
    await ensureConsoleBuilt();
    app = await createTestApp();
    ({ server, base } = await listen(app.yoga));
    tom = await createUser(app, 'tom', { orgRole: 'Viewer' });
    vera = await createUser(app, 'vera', { orgRole: 'Viewer' });
    for (const role of ['fixed:roles:reader', 'fixed:apikeys:reader', 'fixed:serviceaccounts:reader'])
      await assignUserRole(app, vera.id, role);
    team = await createTeam(app, 'platform', { members: [tom.id] });
    const second = await createOrg(app, 'Second Org');
    const adminId = (await app.database.prisma.user.findUniqueOrThrow({ where: { login: ADMIN.login } })).id;
    await addOrgMember(app, second.id, adminId, 'Admin');
    await gql('mutation { createServiceAccount(input: { name: "deployer", role: Viewer }) { id } }');
    browser = await launchChromium(executablePath as string);
    admin = await newContext(1280);
    page = watch(await admin.newPage());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
  });

  it('signs in with the password form and comes back to the page it was going to', async () => {
    await page.goto('/roles');
    await page.waitForURL(/\/login\?next=%2Froles$/);
    await page.getByRole('heading', { name: 'Sign in to portcullis' }).waitFor();
    await page.getByLabel('Login or email').fill(ADMIN.login);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('Invalid username or password');
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Roles' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/roles');
    const cookies = await admin.cookies();
    expect(cookies.find((c) => c.name === 'portcullis_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
  });

  it('creates an API key, shows its secret once with a copy button, and deletes it', async () => {
    await page.goto('/');
    await openSection(page, 'API key settings');
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name').fill('ci-pipeline');
    await form.getByLabel('Role').selectOption('Editor');
    await form.getByLabel('Time to live').selectOption({ label: '1 day' });
    await form.getByRole('button', { name: 'Create API key' }).click();

    const secretField = page.getByLabel('Secret');
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^pcs_/);
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('.secret') !== null)).toBe(true);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screenshot(page, 'api-keys-secret-1280');

    // Nothing keeps it but the page's memory.
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
    expect(stored).not.toContain(secret);

    // Used as curl would: a bearer header, and basic auth with the user api_key.
    const asBearer = await fetch(`${base}/api/access-control/user/permissions`, { headers: { authorization: `Bearer ${secret}` } });
    expect(asBearer.status).toBe(200);
    const asBasic = await fetch(`${base}/api/access-control/user/permissions`, {
      headers: { authorization: `Basic ${Buffer.from(`api_key:${secret}`).toString('base64')}` },
    });
    expect(asBasic.status).toBe(200);

    await page.getByRole('button', { name: 'I have copied it' }).click();
    // The secret and its button are gone: focus goes to the section's heading, not to <body>.
    await expect.poll(() => focused(page)).toEqual({ tag: 'H2', text: 'API keys' });
    expect(await page.content()).not.toContain(secret);
    const row = page.getByRole('row').filter({ hasText: 'ci-pipeline' });
    await expect.poll(() => row.textContent()).toContain('Editor');
    await page.reload();
    await page.getByRole('heading', { name: 'API key settings' }).waitFor();
    expect(await page.content()).not.toContain(secret);

    await page.getByRole('button', { name: 'Delete API key ci-pipeline' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete API key “ci-pipeline”?' });
    await dialog.getByRole('button', { name: 'Delete API key' }).click();
    await page.getByRole('status').filter({ hasText: 'API key “ci-pipeline” deleted.' }).waitFor();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'ci-pipeline' }).count()).toBe(0);
    // Its Delete button went with the row: focus is on the notice saying so, not on <body>.
    await expect.poll(() => focused(page)).toEqual({ tag: 'DIV', text: 'API key “ci-pipeline” deleted.' });
    const revoked = await fetch(`${base}/api/access-control/user/permissions`, { headers: { authorization: `Bearer ${secret}` } });
    expect(revoked.status).toBe(401);
  });

  it("creates a service account's token, shown once, and deletes it", async () => {
    const card = page.getByRole('article', { name: 'deployer' });
    await card.getByLabel('Token name').fill('deploy-token');
    await card.getByLabel('Time to live').selectOption({ label: '7 days' });
    await card.getByRole('button', { name: 'Add token' }).click();
    const token = await card.getByLabel('Secret').inputValue();
    expect(token).toMatch(/^pcsa_/);
    const used = await fetch(`${base}/api/access-control/user/permissions`, { headers: { authorization: `Bearer ${token}` } });
    expect(used.status).toBe(200);
    await card.getByRole('button', { name: 'I have copied it' }).click();
    await expect.poll(() => focused(page)).toEqual({ tag: 'H3', text: 'deployer' });
    await expect.poll(() => card.getByRole('row').filter({ hasText: 'deploy-token' }).textContent()).toMatch(/\d{4}/);
    await screenshot(page, 'api-keys-tokens-1280');
    await card.getByRole('button', { name: 'Delete token deploy-token of deployer' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete token' }).click();
    await page.getByRole('status').filter({ hasText: 'Token “deploy-token” deleted.' }).waitFor();
    await expect.poll(() => card.getByRole('row').filter({ hasText: 'deploy-token' }).count()).toBe(0);
    await expect.poll(() => focused(page)).toEqual({ tag: 'DIV', text: 'Token “deploy-token” deleted.' });
    const revoked = await fetch(`${base}/api/access-control/user/permissions`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(401);
  });

  it('keeps a confirmation open with the error when the change fails, and Cancel closes it', async () => {
    const { createApiKey: key } = await gql<{ createApiKey: { id: number } }>(
      'mutation { createApiKey(input: { name: "gone-key", role: Viewer, secondsToLive: 3600 }) { id } }',
    );
    await page.goto('/api-keys');
    await page.getByRole('button', { name: 'Delete API key gone-key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete API key “gone-key”?' });
    // Deleted elsewhere meanwhile: the console's own request now fails.
    await gql('mutation ($id: Int!) { deleteApiKey(id: $id) { message } }', { id: key.id });
    await dialog.getByRole('button', { name: 'Delete API key' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain(`API key ${key.id} not found`);
    expect(await dialog.getByRole('button', { name: 'Delete API key' }).isEnabled()).toBe(true);
    // Focus stays in the dialog, on the error, not on <body>.
    await expect.poll(() => focused(page)).toMatchObject({ tag: 'DIV', text: expect.stringContaining('not found') });
    expect(await page.getByRole('status').filter({ hasText: 'deleted.' }).count()).toBe(0);
    await screenshot(page, 'dialog-error-1280');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
  });

  it("builds a custom role, assigns it to a team, and the member's permissions and the why answer change", async () => {
    const why = `/why?user=${tom.id}&action=serviceaccounts%3Aread&scope=serviceaccounts%3Aid%3A1`;
    await page.goto(why);
    await page.getByRole('heading', { level: 2, name: /^Denied: tom may not do/ }).waitFor();

    await openSection(page, 'Roles');
    await page.getByRole('link', { name: 'New custom role' }).click();
    await page.getByRole('heading', { level: 1, name: 'New custom role' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('custom:sa-reader');
    await page.getByLabel('Display name').fill('Service account reader (custom)');
    await page.getByLabel('Description').fill('Reads service accounts.');
    // The picker is fed by the known actions.
    await expect.poll(() => page.locator('#known-actions option').count()).toBeGreaterThan(20);
    expect(await page.locator('#known-actions option[value="serviceaccounts:read"]').count()).toBe(1);
    await page.getByLabel('Action').fill('serviceaccounts:read');
    await page.getByLabel('Scope (optional)').fill('serviceaccounts:*');
    await page.getByRole('button', { name: 'Add permission' }).click();
    await page.getByLabel('Action').fill('teams:read');
    await page.getByLabel('Scope (optional)').fill('teams:*');
    await page.getByRole('button', { name: 'Add permission' }).click();
    await page.getByRole('button', { name: 'Remove teams:read on teams:*' }).click();
    await screenshot(page, 'role-editor-1280');
    await page.getByRole('button', { name: 'Create role' }).click();
    await page.getByRole('status').filter({ hasText: 'Role saved.' }).waitFor();

    const { roles } = await gql<{
      roles: { uid: string; name: string; version: number; permissions: { action: string; scope: string }[] }[];
    }>('{ roles { uid name version permissions { action scope } } }');
    const role = roles.find((r) => r.name === 'custom:sa-reader');
    expect(role).toMatchObject({ version: 0, permissions: [{ action: 'serviceaccounts:read', scope: 'serviceaccounts:*' }] });

    // Edit: the console sends the next version itself.
    // The saved role is open in the list.
    // On a slow network the editor shows no field until the role has arrived: its answer is
    // held until the page has shown that it is loading, with nothing to type into.
    const network = await holdOperation(page, 'ConsoleRoleEditor');
    await page.getByRole('radio', { name: 'Custom' }).check();
    await page.getByRole('link', { name: 'Edit custom:sa-reader' }).click();
    await page.getByText('Loading the role…').waitFor();
    expect(await page.getByLabel('Description').count()).toBe(0);
    network.answer();
    await page.getByText('Version 0: saving makes it version 1.').waitFor();
    await network.done();
    // The form's first frame shows the fields still empty; an effect fills them from the role a
    // frame later. A fill in between selected the empty text, and the role's description then
    // landed after the typed one ("Reads every service account.Reads service accounts.", seen on
    // a loaded machine). Wait for the loaded description before editing it.
    await expect.poll(() => page.getByLabel('Description').inputValue()).toBe('Reads service accounts.');
    await page.getByLabel('Description').fill('Reads every service account.');
    await page.getByRole('button', { name: 'Save role' }).click();
    await page.getByRole('status').filter({ hasText: 'Role saved.' }).waitFor();
    const { role: edited } = await gql<{ role: { version: number; description: string } }>(
      'query ($uid: String!) { role(uid: $uid) { version description } }',
      { uid: role?.uid },
    );
    expect(edited).toEqual({ version: 1, description: 'Reads every service account.' });

    // Assign it to the team.
    await openSection(page, 'Assignments');
    await page.getByRole('radio', { name: 'Team' }).check();
    await page.getByRole('combobox', { name: 'Team' }).selectOption({ label: 'platform' });
    await page.getByRole('heading', { name: 'Roles of platform' }).waitFor();
    await page.getByLabel('Role to assign').selectOption({ label: 'Service account reader (custom) (custom:sa-reader)' });
    await page.getByRole('button', { name: 'Assign role' }).click();
    await page.getByRole('status').filter({ hasText: 'Role “Service account reader (custom)” assigned to platform.' }).waitFor();
    await screenshot(page, 'assignments-team-1280');

    // tom, a member, now holds it through the team.
    await page.getByRole('radio', { name: 'User' }).check();
    await page.getByRole('combobox', { name: 'User' }).selectOption({ label: 'tom' });
    await page.getByRole('heading', { name: 'Effective permissions of tom' }).waitFor();
    await page.getByLabel('Filter by action, scope, role or source').fill('serviceaccounts');
    const granted = page.getByRole('row').filter({ hasText: 'serviceaccounts:read' });
    await expect.poll(() => granted.textContent()).toMatch(/serviceaccounts:\*.*Service account reader \(custom\).*Team platform/);
    await screenshot(page, 'assignments-user-1280');

    await openSection(page, 'Why?');
    await page.getByLabel('Who').selectOption({ label: 'tom' });
    await page.getByLabel('Action').fill('serviceaccounts:read');
    await page.getByLabel('Scope (optional)').fill('serviceaccounts:id:1');
    await page.getByRole('button', { name: 'Check' }).click();
    await page.getByRole('heading', { level: 2, name: /^Allowed: tom may do/ }).waitFor();
    const reason = page.getByRole('table').getByRole('row').filter({ hasText: 'Team platform' });
    await expect.poll(() => reason.textContent()).toContain('serviceaccounts:read on serviceaccounts:*');
    await screenshot(page, 'why-allowed-1280');

    // Deleting the assigned role asks again, then removes it with its assignment.
    await openSection(page, 'Roles');
    await page.getByText('Service account reader (custom)').click();
    await page.getByRole('button', { name: 'Delete custom:sa-reader' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete role', exact: true }).click();
    const force = page.getByRole('dialog', { name: 'The role is assigned' });
    // The question changed under the focus: it is on the new confirm button, not on <body>.
    await expect.poll(() => focused(page)).toEqual({ tag: 'BUTTON', text: 'Delete role and its assignments' });
    await force.getByRole('button', { name: 'Delete role and its assignments' }).click();
    await page.getByRole('status').filter({ hasText: 'deleted' }).waitFor();
    await expect.poll(() => page.getByText('Service account reader (custom)', { exact: true }).count()).toBe(0);
    await expect.poll(() => focused(page)).toEqual({ tag: 'DIV', text: 'Role “Service account reader (custom)” deleted.' });
    await page.goto(why);
    await page.getByRole('heading', { level: 2, name: /^Denied: tom may not do/ }).waitFor();
  });

  it('shows the basic roles with their permissions and product grants, and resets them for those who may', async () => {
    const grant =
      '[{ role: { name: "plugins:reports:reader", permissions: [{ action: "reports:read", scope: "reports:*" }] }, grants: [Editor] }]';
    await gql(`mutation { registerProductRoles(productId: "reports", roles: ${grant}) { uid } }`);
    await openSection(page, 'Basic roles');
    for (const name of ['Viewer', 'Editor', 'Admin'])
      await page.getByRole('heading', { level: 2, name: new RegExp(`^${name} basic:`) }).waitFor();
    const granted = page.getByRole('list', { name: 'Granted by products' });
    await expect.poll(() => granted.allTextContents()).toEqual(Array(2).fill('plugins:reports:reader: reports:read on reports:*'));
    await page.getByRole('button', { name: 'Reset basic roles' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reset basic roles' }).click();
    await page.getByRole('status').filter({ hasText: 'Every basic role has its default permissions again.' }).waitFor();
    await expect.poll(() => focused(page)).toEqual({ tag: 'DIV', text: 'Every basic role has its default permissions again.' });
  });

  it('switches the organization only on Switch, not while the keyboard moves through the list (WCAG 3.2.2)', async () => {
    await page.goto('/');
    await loaded(page);
    const switches: string[] = [];
    const onRequest = (request: { url(): string }) => {
      if (request.url().includes('/api/user/using/')) switches.push(request.url());
    };
    page.on('request', onRequest);
    const actingIn = () => page.evaluate(async () => ((await (await fetch('/api/user')).json()) as { orgId: number }).orgId);
    const mainOrg = await actingIn();
    const switcher = page.getByLabel('Organization');
    await switcher.focus();
    await page.keyboard.press('ArrowDown');
    // The choice moved to the next organization, and nothing else happened.
    expect(await switcher.inputValue()).not.toBe(String(mainOrg));
    expect(await actingIn()).toBe(mainOrg);
    expect(switches).toEqual([]);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('org-switch');
    expect(await page.getByRole('main').textContent()).toContain('in Main Org. with the org role Admin');

    // Tab to Switch, Enter: now it switches.
    await page.keyboard.press('Tab');
    expect(await focused(page)).toEqual({ tag: 'BUTTON', text: 'Switch' });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('main').textContent()).toContain('in Second Org with the org role Admin');
    expect(await actingIn()).not.toBe(mainOrg);
    expect(switches).toHaveLength(1);
    await screenshot(page, 'org-switched-1280');

    await switcher.selectOption({ label: 'Main Org. (Admin)' });
    expect(await actingIn()).not.toBe(mainOrg);
    await page.getByRole('button', { name: 'Switch' }).click();
    await expect.poll(() => page.getByRole('main').textContent()).toContain('in Main Org. with the org role Admin');
    expect(await actingIn()).toBe(mainOrg);
    page.off('request', onRequest);
  });

  it('shows a Viewer no write control, and the server refuses what the console hides', async () => {
    const context = await newContext(1280);
    const viewer = watch(await context.newPage());
    await signInAs(viewer, vera.login, vera.password);
    const nav = await viewer.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
    expect(nav).toEqual([
      'Overview',
      'Users',
      'Teams',
      'API key settings',
      'Roles',
      'Assignments',
      'Why?',
      'Basic roles',
      'Access requests',
    ]);
    const writeControl = /\b(create|delete|remove|reset|assign|edit|add)\b|new custom role/i;
    for (const path of [
      '/',
      '/users',
      '/teams',
      '/api-keys',
      '/roles',
      '/basic-roles',
      `/assignments?user=${tom.id}`,
      `/assignments?team=${team.id}`,
    ]) {
      await viewer.goto(path);
      await loaded(viewer);
      const controls = await viewer.locator('main').getByRole('button').allTextContents();
      const links = await viewer.locator('main').getByRole('link').allTextContents();
      expect(
        [...controls, ...links].filter((c) => writeControl.test(c)),
        path,
      ).toEqual([]);
    }
    await viewer.goto('/api-keys');
    await viewer.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await viewer.getByRole('form').count()).toBe(0);
    await screenshot(viewer, 'viewer-api-keys-1280');

    // A hidden button is not the guard: the same requests from this browser are refused.
    const answers = await viewer.evaluate(async () => {
      const send = (query: string) =>
        fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) }).then(
          async (r) => ({
            status: r.status,
            code: ((await r.json()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code,
          }),
        );
      return [
        await send('mutation { createApiKey(input: { name: "sneaky", role: Viewer }) { key } }'),
        await send('mutation { resetBasicRoles(basicRoles: true) { message } }'),
        await send('mutation { createRole(input: { name: "custom:sneaky" }) { uid } }'),
      ];
    });
    expect(answers).toEqual([
      { status: 403, code: 'ACCESS_DENIED' },
      { status: 403, code: 'ACCESS_DENIED' },
      { status: 403, code: 'ACCESS_DENIED' },
    ]);
    await context.close();
  });

  it('is accessible, fits 375 px without horizontal scrolling, and breaks no CSP rule on every page', async () => {
    const mobile = await newContext(375);
    const phone = watch(await mobile.newPage());
    const signedOut = watch(await (await newContext(375)).newPage());
    await signInAs(phone, ADMIN.login, ADMIN.password);
    const pages: [string, string][] = [
      ['overview', '/'],
      ['api-keys', '/api-keys'],
      ['roles', '/roles'],
      ['role-new', '/roles/new'],
      ['assignments-user', `/assignments?user=${tom.id}`],
      ['assignments-team', `/assignments?team=${team.id}`],
      ['why', `/why?user=${tom.id}&action=teams%3Aread&scope=teams%3Aid%3A${team.id}`],
      ['basic-roles', '/basic-roles'],
    ];
    const failures: string[] = [];
    const check = async (p: Page, name: string, path: string, width: number) => {
      await p.goto(path);
      await loaded(p);
      // Open the first role's details, so its permissions are checked too.
      if (name === 'roles') await p.locator('summary').first().click();
      for (const v of await seriousViolations(p))
        failures.push(`${name}@${width}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(', ')}`);
      const overflow = await horizontalOverflow(p);
      if (overflow > 0) failures.push(`${name}@${width}: ${overflow}px of horizontal scrolling`);
      await screenshot(p, `${name}-${width}`);
    };
    // The two widths side by side: the browser and the server each have a core.
    for (const [name, path] of pages) await Promise.all([check(page, name, path, 1280), check(phone, name, path, 375)]);
    await check(signedOut, 'sign-in', '/login', 375);
    await signedOut.setViewportSize({ width: 1280, height: 900 });
    await check(signedOut, 'sign-in', '/login', 1280);
    // An open confirmation dialog, too.
    await phone.goto('/basic-roles');
    await phone.getByRole('button', { name: 'Reset basic roles' }).click();
    await phone.getByRole('dialog').waitFor();
    for (const v of await seriousViolations(phone)) failures.push(`dialog@375: ${v.id} at ${v.targets.join(', ')}`);
    await screenshot(phone, 'dialog-375');
    await phone.keyboard.press('Escape');
    await expect.poll(() => phone.getByRole('dialog').count()).toBe(0);

    expect(failures).toEqual([]);
    expect(pageProblems).toEqual([]);
    await mobile.close();
  }, 120_000);

  it('offers API keys alone on a server of the oss edition, where role-based access control is off', async () => {
    const oss = await createTestApp({ env: { EDITION: 'oss' } });
    const served = await listen(oss.yoga);
    try {
      const context = await browser.newContext({ baseURL: served.base, viewport: { width: 1280, height: 900 } });
      const p = watch(await context.newPage());
      await signInAs(p, ADMIN.login, ADMIN.password);
      await p.getByText('This server runs the oss edition').waitFor();
      const nav = await p.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents();
      expect(nav).toEqual(['Overview', 'API key settings']);
      await openSection(p, 'API key settings');
      await p.getByRole('form', { name: 'New API key' }).waitFor();
      // Typed in: the roles pages say there are no roles here, not which permission is missing.
      for (const path of ['/roles', '/basic-roles']) {
        await p.goto(path);
        await p.getByText('Roles are not available in this edition').waitFor();
        expect(await p.getByText(/You may not/).count(), path).toBe(0);
      }
      await context.close();
    } finally {
      await new Promise((resolve) => served.server.close(resolve));
      await oss.close();
    }
  });

  it('redirects near misses to their page, and shows its own accessible Page not found for unknown paths', async () => {
    const nearMisses: [from: string, to: string, heading: string][] = [
      ['/roles/?kind=custom', '/roles?kind=custom', 'Roles'],
      ['/why/', '/why', 'Why: check access'],
      ['/api-keys/', '/api-keys', 'API key settings'],
      ['/index.html', '/', 'Overview'],
    ];
    for (const [from, to, heading] of nearMisses) {
      await page.goto(from);
      await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
      const url = new URL(page.url());
      expect(`${url.pathname}${url.search}`, from).toBe(to);
    }
    const failures: string[] = [];
    for (const path of ['/nope', '/roles/unknown']) {
      const answer = await page.goto(path);
      expect(answer?.status(), path).toBe(404);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      // The page sets its title once rendered (an effect after the heading): wait for that state.
      await expect.poll(() => page.title()).toBe('Page not found · portcullis');
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      for (const v of await seriousViolations(page)) failures.push(`${path}: ${v.id} at ${v.targets.join(', ')}`);
    }
    await screenshot(page, 'not-found-1280');
    expect(failures).toEqual([]);
  });

  it('works from the keyboard: skip link, navigation and forms', async () => {
    await page.goto('/');
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await page.goto('/why');
    await page.getByLabel('Action').focus();
    await page.keyboard.type('teams:read');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 2, name: /^Allowed: Yourself \(admin\) may do/ }).waitFor();
  });
});
