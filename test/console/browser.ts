/**
 * What the console's browser tests need: the console built, a Chromium to drive (from the
 * system, or from the `@sparticuz/chromium` npm package when it is installed; never downloaded),
 * the app listening on a loopback port, and the page checks every test repeats (accessibility
 * with axe-core, no horizontal scrolling, screenshots for review).
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import axe from 'axe-core';
import { type Browser, type BrowserContext, chromium, type Page, type Route } from 'playwright-core';

const ROOT = new URL('../..', import.meta.url).pathname;
/** Where screenshots are saved for review (git-ignored). */
export const SHOTS = join(ROOT, 'test-results', 'console');

/** Builds dist/console when it is missing or older than web/ (what `npm install` did already). */
export async function ensureConsoleBuilt(): Promise<void> {
  const script = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-console.mjs')).href)) as {
    buildConsole(options: { quiet: boolean }): Promise<unknown>;
  };
  await script.buildConsole({ quiet: true });
}

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * A Chromium executable: CHROMIUM_PATH, a system `chromium` (Debian's package; CI installs it),
 * `chromium-browser` or Google Chrome, else the binary of the `@sparticuz/chromium` package when
 * it is installed. Null when there is none: the browser tests then skip, saying so.
 */
export async function findChromium(): Promise<string | null> {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    const found = onPath(name);
    if (found) return found;
  }
  try {
    const spec = '@sparticuz/chromium';
    const mod = (await import(spec)) as { default: { executablePath(): Promise<string> } };
    return await mod.default.executablePath();
  } catch {
    return null;
  }
}

/** Why a file's browser tests are skipped: no Chromium, and how to get one. */
export const NO_CHROMIUM = 'SKIPPED: no Chromium found (apt-get install chromium, set CHROMIUM_PATH, or npm install @sparticuz/chromium)';

/**
 * findChromium for the test file at `fileUrl` (its `import.meta.url`): when there is none, says
 * on stderr that the file's browser tests are skipped, and why. Pair with `browserTitle`.
 */
export async function chromiumFor(fileUrl: string): Promise<string | null> {
  const found = await findChromium();
  if (!found) process.stderr.write(`${fileUrl.slice(ROOT.length + 'file://'.length)} ${NO_CHROMIUM}\n`);
  return found;
}

/** A describe title for browser tests, with NO_CHROMIUM when `executablePath` is null (they skip). */
export function browserTitle(title: string, executablePath: string | null): string {
  return executablePath ? title : `${title}: ${NO_CHROMIUM}`;
}

/** Headless Chromium at `executablePath`, as every console test runs it (no sandbox, no GPU, no /dev/shm). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

/** Listens with the app's handler on 127.0.0.1 (any free port); resolves with its base URL. */
export async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; base: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** One accessibility violation as axe reports it, trimmed for a readable failure. */
export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.x A and AA rules on the page as it is; answers the serious and critical
 * violations. Injected through the DevTools protocol, so the page's CSP needs no exception.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const results = await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
      resultTypes: ['violations'],
    }),
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/** The document's width beyond the viewport's (0: no horizontal scrolling). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const el = document.scrollingElement ?? document.documentElement;
    return el.scrollWidth - window.innerWidth;
  });
}

/** Saves a full-page screenshot as test-results/console/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * A slow network for one GraphQL operation: the page's requests for `operationName` wait until
 * `answer()` is called; every other request passes at once. Call `done()` once the held answer
 * has arrived (removing the route earlier would settle the held request twice).
 */
export async function holdOperation(page: Page, operationName: string): Promise<{ answer(): void; done(): Promise<void> }> {
  let answer = () => {};
  const held = new Promise<void>((resolve) => {
    answer = resolve;
  });
  const handler = async (route: Route) => {
    if (route.request().postData()?.includes(operationName)) await held;
    await route.continue();
  };
  await page.route('**/graphql', handler);
  return { answer, done: () => page.unroute('**/graphql', handler) };
}

/** Signs `who` in through the console's password form on `page`; resolves on the console's navigation. */
export async function signIn(page: Page, who: { login: string; password: string }): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Login or email').fill(who.login);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

/**
 * A page of a new context `width` px wide (a touch phone below 500 px) on the console at `base`,
 * signed in as `who`; the context is added to `contexts`, for the caller to close.
 */
export async function signedInPage(
  browser: Browser,
  base: string,
  who: { login: string; password: string },
  width: number,
  contexts: BrowserContext[],
): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: width < 500 ? 812 : 900 },
    ...(width < 500 && { isMobile: true, hasTouch: true }),
    baseURL: base,
    locale: 'en-US',
  });
  contexts.push(context);
  const page = await context.newPage();
  await signIn(page, who);
  return page;
}

/** Opens `path` and waits for its heading, with nothing loading any more. */
export async function openPage(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.getByRole('heading', { level: 1 }).waitFor();
  await page.waitForFunction(() => document.querySelector('.loading') === null);
}
