// A scan of 10,000 findings in the findings view: the mechanism behind "first screen within 1 s" (the figure is
// printed by `npm run bench`, bench/web.ts; tests never assert timings): the first screen is rendered from the
// first page alone, later pages load only as the list scrolls, and the list is virtualised (far fewer DOM rows than
// findings) while staying a list with positions.
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { firstScreen, perfAdvisories, perfSnapshot, writeAdvisories } from '../../bench/web';
import { newOrg } from '../helpers/context';
import { checkView, sessionContext, startWebApp, uploadAndWait, type WebApp } from './helpers';

const N = 10_000;
let app: WebApp;
let ctx: BrowserContext;
let page: Page;
let scanId: string;

beforeAll(async () => {
  app = await startWebApp();
  const report = await importAdvisories(app.t.store, [writeAdvisories(perfAdvisories(N))]);
  expect(report.rejected).toEqual([]);
  const org = await newOrg(app.t.store);
  scanId = await uploadAndWait(app, await org.key(['sca:upload', 'scans:read']), perfSnapshot(N, 'big'));
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
}, 180_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

const listItems = (p: Page) => p.locator('[role=list][aria-label=Findings] [role=listitem]');

test('10,000 findings: the first screen comes from the first page, the list is virtualised, more pages load on scroll', async () => {
  const findingRequests: string[] = [];
  page.on('request', (r) => {
    if (/\/v1\/scans\/[^/]+\/findings\?/.test(r.url())) findingRequests.push(r.url());
  });
  await page.goto(`${app.baseUrl}/app/scans/${scanId}?group=none`);
  const mark = await firstScreen(page);
  process.stderr.write(
    `findings:first-screen at ${mark.at.toFixed(0)} ms after navigation (a figure, not asserted; see npm run bench)\n`,
  );
  expect(mark.detail.pages).toBe(1);
  expect(mark.detail.findings).toBeLessThanOrEqual(200);
  expect(mark.detail.rows).toBeGreaterThan(0);
  expect(findingRequests).toHaveLength(1);
  expect(new URL(findingRequests[0]).searchParams.get('attribution')).toBe('introduced');
  const rows = await listItems(page).count();
  expect(rows).toBeGreaterThan(5);
  expect(rows).toBeLessThan(100); // a window, not 10,000 rows
  expect(await listItems(page).first().getAttribute('aria-setsize')).toBe(String(N));
  expect(await page.locator('.list-counts').textContent()).toContain(`· ${N} findings (`); // and how many are loaded
  await checkView(page, 'findings-10k');

  // scrolling to the end of what is loaded fetches the next page, and the DOM stays a window
  await page.locator('.vlist').evaluate((el) => el.scrollTo(0, el.scrollHeight));
  await page.waitForFunction(
    () => Number(document.querySelector('[role=listitem]:last-child')?.getAttribute('aria-posinset')) > 100,
  );
  expect(findingRequests.length).toBeGreaterThanOrEqual(2);
  expect(await listItems(page).count()).toBeLessThan(100);
  // End goes to the last loaded row by keyboard, still a window
  await listItems(page).last().locator('a').first().focus(); // the finding's own link (its alert's follows)
  await page.keyboard.press('End');
  await page.waitForFunction(() => document.activeElement?.closest('[role=listitem]') !== null);
  expect(await listItems(page).count()).toBeLessThan(100);
  // scrolled past its header, the group of the top row stays pinned above the rows (hidden from screen readers,
  // which have the header row itself)
  await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
  await listItems(page).first().waitFor();
  const header = (await page.locator('[role=listitem].group').first().textContent()) ?? '';
  expect(header).toMatch(/^\(no module attribution\) · \d+ findings loaded so far$/); // more pages to read
  await page.locator('.vlist').evaluate((el) => el.scrollTo(0, 2000));
  const pinned = page.locator('.vlist-sticky');
  await pinned.locator('.vrow').waitFor();
  expect(await page.locator('[role=listitem].group').count()).toBe(0); // the header row itself is out of the DOM
  expect(await pinned.getAttribute('aria-hidden')).toBe('true');
  expect(await pinned.textContent()).toMatch(/^\(no module attribution\) · \d+ findings/);
  const [list, pin] = await Promise.all([page.locator('.vlist').boundingBox(), pinned.locator('.vrow').boundingBox()]);
  expect(Math.abs(pin!.y - list!.y)).toBeLessThan(3);
});
