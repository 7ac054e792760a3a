// The browser-test harness: the real API (testContext) listening on loopback with the web app served under /app,
// a real scan worker, Debian's Chromium driven by playwright-core, axe-core on every view, screenshots kept in
// test-artifacts/screenshots/ (CI artifacts). One browser per test file; pages are reused within a file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { installRuntime } from '../../workers/temporal-runtime';
import { importAdvisories } from '../../src/advisories/import';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { demoAdvisories } from './fixtures';
import { startTestWorker, type TestWorker } from '../helpers/worker';

export const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(__dirname, '..', '..');
export const SCREENSHOTS = path.join(ROOT, 'test-artifacts', 'screenshots');

/**
 * The oldest Chromium major this playwright-core drives reliably: a few majors below the build it was released
 * with (browsers.json). Older browsers speak an older DevTools protocol and fail in odd ways, so they are refused.
 */
export function minimumChromiumMajor(): number {
  const browsers = JSON.parse(
    fs.readFileSync(path.join(path.dirname(require.resolve('playwright-core')), 'browsers.json'), 'utf8'),
  ) as { browsers: { name: string; browserVersion?: string }[] };
  const built = browsers.browsers.find((b) => b.name === 'chromium')?.browserVersion;
  if (!built) throw new Error('playwright-core/browsers.json names no chromium version');
  return Number(built.split('.')[0]) - 6;
}

export async function launchBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser tests need Debian's chromium package (apt-get install chromium; .ci/run installs it)`,
    );
  }
  const min = minimumChromiumMajor();
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // the API listens on 127.0.0.1; the app is opened as http://localhost (a secure context: __Host- cookies hold)
    args: ['--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
  const version = browser.version();
  if (Number(version.split('.')[0]) < min) {
    await browser.close();
    throw new Error(
      `Chromium ${version} at ${CHROMIUM} is older than playwright-core supports (major ${min} or newer): upgrade the chromium package`,
    );
  }
  return browser;
}

export interface WebApp {
  t: TestContext;
  worker: TestWorker;
  browser: Browser;
  baseUrl: string;
  mailDir: string;
  /** Stops the scan worker (scans stay queued) until resumeWorker(). */
  pauseWorker(): Promise<void>;
  resumeWorker(): Promise<void>;
  close(): Promise<void>;
}

/** The app's build must be there: the API serves dist/web under /app (src/http/web/routes.ts). */
async function ensureAppServed(t: TestContext): Promise<void> {
  const probe = await t.api.get('/app/');
  if (probe.status !== 200 || !/text\/html/.test(probe.headers['content-type'] ?? '')) {
    throw new Error(
      `GET /app/ answered ${probe.status} ${probe.text}: build the web app first (npm run build; npm test does)`,
    );
  }
}

export async function startWebApp(): Promise<WebApp> {
  installRuntime('error');
  const mailDir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-mail-'));
  const t = await testContext({ mailDir });
  let worker: TestWorker | undefined;
  try {
    await ensureAppServed(t);
    worker = await startTestWorker(t);
    const browser = await launchBrowser();
    const { port } = t.server.address() as { port: number };
    let running: TestWorker | null = worker;
    return {
      t,
      worker,
      browser,
      baseUrl: `http://localhost:${port}`,
      mailDir,
      async pauseWorker() {
        await running?.stop();
        running = null;
      },
      async resumeWorker() {
        running ??= await startTestWorker(t);
      },
      async close() {
        await browser.close().catch(() => undefined);
        await running?.stop();
        await t.close();
        fs.rmSync(mailDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await worker?.stop().catch(() => undefined);
    await t.close().catch(() => undefined);
    throw e;
  }
}

/**
 * A browser context holding a session as the app would after sign-in: the HttpOnly `__Host-svc_session` cookie.
 * Records, in every page, CSP violations and whether `window.__xss` was ever set (the XSS tests' flag).
 */
export async function sessionContext(app: WebApp, token?: string): Promise<BrowserContext> {
  const ctx = await app.browser.newContext({ viewport: { width: 1280, height: 900 } });
  ctx.setDefaultTimeout(15_000); // a view that does not show within 15 s is a failure, well inside jest's 60 s
  // domain + path, not url: Playwright marks a cookie given an http url as not Secure, which __Host- refuses
  if (token)
    await ctx.addCookies([
      {
        name: '__Host-svc_session',
        value: token,
        domain: 'localhost',
        path: '/',
        secure: true,
        httpOnly: true,
        sameSite: 'Lax',
      },
    ]);
  await ctx.addInitScript(() => {
    const w = window as unknown as { __csp: { directive: string; blocked: string; sample: string }[] };
    w.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__csp.push({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample }),
    );
  });
  return ctx;
}

/** A page of a new browser context holding a session of `token`, and the errors it logs; the context joins `contexts` (closed by the test). */
export async function sessionPage(
  app: WebApp,
  token: string,
  contexts: BrowserContext[],
): Promise<{ page: Page; errors: string[] }> {
  const ctx = await sessionContext(app, token);
  contexts.push(ctx);
  const p = await ctx.newPage();
  return { page: p, errors: watchErrors(p) };
}

/** Errors a page reported (uncaught exceptions and console errors), for assertions. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return errors;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * axe-core over the page as it is (injected through the DevTools protocol, which the page's CSP does not govern):
 * the serious and critical violations.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
          }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Asserts axe finds no serious or critical violation and keeps a screenshot of the view. */
export async function checkView(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  const bad = await seriousViolations(page);
  if (bad.length)
    throw new Error(
      `axe: serious or critical violations on ${name}:\n${bad.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.slice(0, 3).join(', ')}`).join('\n')}`,
    );
}

export async function uploadAndWait(app: WebApp, key: string, snapshot: unknown, timeoutMs = 60_000): Promise<string> {
  const res = await app.t.api
    .post('/v1/scans/dependency-snapshots')
    .set(bearer(key))
    .send(snapshot as object);
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
  const id = res.body.id as string;
  const got = await app.t.api.get(`/v1/scans/${id}?wait=${Math.ceil(timeoutMs / 1000)}`).set(bearer(key));
  if (got.body.status !== 'completed')
    throw new Error(`scan ${id} is ${got.body.status} (${got.body.failureReason ?? ''})`);
  return id;
}

/** Writes OSV advisories (Maven or npm) into a fresh folder, one array file, for importAdvisories. */
export function advisoryDir(advisories: object[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-adv-'));
  fs.writeFileSync(path.join(dir, 'advisories.json'), JSON.stringify(advisories));
  return dir;
}

/** With BROWSER_TEST_DEBUG=1, where a test is (written at once, not buffered by jest). */
export function step(what: string): void {
  if (process.env.BROWSER_TEST_DEBUG === '1')
    process.stderr.write(`[browser ${new Date().toISOString().slice(11, 23)}] ${what}\n`);
}

/**
 * No planted payload ran: no `window.__xss` set by one, no script-src CSP violation, and no element a payload would
 * have injected under #root. `svg`: the SVG that would count as injected (the findings view draws its own graph).
 */
export async function noScriptRan(p: Page, svg = '#root svg'): Promise<void> {
  const selector = [
    '#root img',
    '#root script',
    '#root iframe',
    '#root object',
    svg,
    '#root [onerror]',
    '#root [onload]',
  ].join(', ');
  const state = await p.evaluate(
    (sel) => ({
      xss: (window as unknown as { __xss?: unknown }).__xss,
      csp: (window as unknown as { __csp: { directive: string }[] }).__csp,
      injected: document.querySelectorAll(sel).length,
    }),
    selector,
  );
  expect(state.xss).toBeUndefined();
  expect(state.csp.filter((v) => v.directive.startsWith('script-src'))).toEqual([]);
  expect(state.injected).toBe(0);
}

/** Page errors other than the browser's log of the API's expected refusals (401, 403, 404, 409, 422). */
export function unexpected(errs: string[]): string[] {
  return errs.filter(
    (e) => !/Failed to load resource: the server responded with a status of (401|403|404|409|422)/.test(e),
  );
}

/**
 * A list view reached by URL and checked for accessibility: its title and first row shown, axe and a screenshot
 * (checkView), every control of main labelled, and main reachable by Tab within `tabs` presses.
 */
export async function checkListView(page: Page, baseUrl: string, path: string, name: string, tabs = 30): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.locator('h1#page-title').waitFor();
  await page.locator('table.grid tbody tr').first().waitFor();
  await checkView(page, name);
  const unlabelled = await page.$$eval('main input, main select, main textarea, main button', (els) =>
    els
      .filter(
        (e) =>
          !(e as HTMLElement).getAttribute('aria-label') &&
          !(e as HTMLInputElement).labels?.length &&
          !(e.textContent ?? '').trim(),
      )
      .map((e) => e.outerHTML.slice(0, 80)),
  );
  expect({ path, unlabelled }).toEqual({ path, unlabelled: [] });
  await page.keyboard.press('Tab');
  let inMain = false;
  for (let i = 0; i < tabs && !inMain; i++) {
    inMain = await page.evaluate(
      () =>
        !!document.activeElement?.closest('main') && !['MAIN', 'H1'].includes(document.activeElement?.tagName ?? ''),
    );
    if (!inMain) await page.keyboard.press('Tab');
  }
  expect({ path, inMain }).toEqual({ path, inMain: true });
}

/** The demo advisories imported, and an organization with an upload-and-read key: the start of most view tests. */
export async function demoOrg(app: WebApp, name: string): Promise<{ org: Org; key: string }> {
  const report = await importAdvisories(app.t.store, [advisoryDir(demoAdvisories())]);
  expect(report.rejected).toEqual([]);
  const org = await newOrg(app.t.store, name);
  return { org, key: await org.key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']) };
}

/** The findings list's rows as text (group headers start with "# "), once the list of the URL has loaded whole. */
export async function findingsRows(p: Page): Promise<string[]> {
  await p.waitForFunction(
    () =>
      document.querySelector('[data-ready-url]')?.getAttribute('data-ready-url') ===
      location.pathname + location.search,
  );
  return p.$$eval('[role=list][aria-label=Findings] [role=listitem]', (els) =>
    els
      .sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')))
      .map((e) => (e.classList.contains('group') ? `# ${e.textContent}` : (e.textContent ?? '')).trim()),
  );
}

/** Checks the view at a phone's and a wide screen's width: axe, a screenshot, and no sideways scroll. */
export async function atBothWidths(p: Page, name: string, ready: () => Promise<unknown>): Promise<void> {
  for (const [width, height] of [
    [390, 844],
    [1280, 800],
  ]) {
    await p.setViewportSize({ width, height });
    await ready();
    await checkView(p, `${name}-${width}`);
    expect({
      name,
      width,
      sideways: await p.evaluate(() => document.documentElement.scrollWidth - innerWidth),
    }).toEqual({ name, width, sideways: 0 });
  }
}

/**
 * A table's body rows, each as its cells' text, without visually hidden words unless `withHidden` (the table named by
 * its caption). Waits
 * for the table first: a view shows its heading before its rows arrive.
 */
export async function tableRows(p: Page, caption: string, withHidden = false): Promise<string[][]> {
  const table = p.getByRole('table', { name: caption });
  await table.waitFor();
  return table.locator('tbody tr').evaluateAll(
    (trs, keep) =>
      trs.map((tr) =>
        Array.from((tr as HTMLTableRowElement).cells).map((c) => {
          const copy = c.cloneNode(true) as HTMLElement;
          if (!keep) copy.querySelectorAll('.visually-hidden').forEach((h) => h.remove());
          return (copy.textContent ?? '').trim();
        }),
      ),
    withHidden,
  );
}
