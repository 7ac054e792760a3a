// Every route of the web app at a 390-pixel phone and a 1280×800 screen: no page scrolls sideways, the header stays
// small on the phone, and on the wide screen the navigation and Sign out stay on one line. Screenshots of both widths
// of every route are kept (test-artifacts/screenshots/layout-*), the evidence the note points to.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { bearer, workflowClosed, type Org } from '../helpers/context';
import { demoSnapshot } from './fixtures';
import {
  demoOrg,
  screenshot,
  seriousViolations,
  sessionContext,
  startWebApp,
  uploadAndWait,
  type WebApp,
} from './helpers';

/**
 * The routes table of web/src/routes.ts, read from its source (the module itself imports the views, which jest does
 * not load): every entry's path and whether it is public. Each entry has one lazy view, so their counts agree.
 */
function routesTable(): { path: string; public: boolean }[] {
  const source = fs.readFileSync(path.join(__dirname, '..', '..', 'web', 'src', 'routes.ts'), 'utf8');
  const table = source.slice(source.indexOf('export const routes'), source.indexOf('export function routeOf'));
  const starts = [...table.matchAll(/path: `\$\{BASE\}([^`]*)`/g)];
  const out = starts.map((m, i) => {
    const entry = table.slice(m.index, starts[i + 1]?.index ?? table.length);
    return { path: `/app${m[1]}`, public: /public: true/.test(entry) };
  });
  expect(out.length).toBe((table.match(/lazy\(/g) ?? []).length);
  return out;
}
const routes = routesTable();

let app: WebApp;
let org: Org;
let params: Record<string, string>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  app = await startWebApp();
  let key: string;
  ({ org, key } = await demoOrg(app, 'acme'));
  const scanId = await uploadAndWait(app, key, demoSnapshot('a-project-with-a-rather-long-name-for-a-phone'));
  const scan = (await app.t.api.get(`/v1/scans/${scanId}`).set(bearer(key))).body;
  const findings = (await app.t.api.get(`/v1/scans/${scanId}/findings?limit=1`).set(bearer(key))).body.findings;
  // the scan is tracked: its alerts move before its workflow closes, and the alert page shows one of them
  await workflowClosed(app.t, scanId);
  const alerts = (await app.t.api.get(`/v1/alerts?project=${scan.project}&limit=1`).set(bearer(key))).body.alerts;
  expect(alerts).toHaveLength(1);
  // a key with every scope and a long name, and an invitation: the admin tables have a row each
  const created = await app.t.api
    .post('/v1/api-keys')
    .set(bearer(org.ownerToken))
    .send({
      name: `ci-${'x'.repeat(60)}`,
      scopes: ['sca:upload', 'scans:read', 'findings:read', 'deps:read'],
      projects: 'all',
    });
  const invited = await app.t.api
    .post('/v1/invitations')
    .set(bearer(org.ownerToken))
    .send({ email: 'someone.with.a.long.address@example.test', role: 'member' });
  expect([created.status, invited.status, created.body.error]).toEqual([201, 201, undefined]);
  params = {
    projectId: scan.project,
    scanId,
    findingId: findings[0].id,
    alertId: alerts[0].id,
    id: 'mcs_0000000000000000000000',
  };
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await app?.close();
});

/** The route's path with its parameters filled in. */
function urlOf(pattern: string): string {
  return pattern.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? name));
}

async function pageAt(width: number, height: number, signedIn: boolean): Promise<Page> {
  const ctx = await sessionContext(app, signedIn ? org.ownerToken : undefined);
  contexts.push(ctx);
  const page = await ctx.newPage();
  await page.setViewportSize({ width, height });
  return page;
}

/** How far the page scrolls sideways, and which elements stick out past the viewport's right edge. */
async function sideways(page: Page): Promise<{ overflow: number; culprits: string[] }> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits: string[] = [];
    /** Whether an ancestor clips or scrolls the element's overflow inside the viewport (it cannot widen the page). */
    const contained = (el: HTMLElement) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (o !== 'visible' && a.getBoundingClientRect().right <= width + 1) return true;
      }
      return false;
    };
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > width + 1 && !contained(el))
        culprits.push(`${el.tagName.toLowerCase()}.${el.className} (${Math.round(r.right)} px)`);
    }
    return { overflow: document.documentElement.scrollWidth - width, culprits: culprits.slice(0, 5) };
  });
}

const name = (pattern: string) => pattern.replace(/^\/app\/?/, '').replace(/[/:]+/g, '-') || 'home';

describe.each([
  { width: 390, height: 844, label: 'phone' },
  { width: 1280, height: 800, label: 'wide' },
])('at $width px', ({ width, height, label }) => {
  test.each(routes.map((r) => r.path))('%s does not scroll sideways', async (pattern) => {
    const route = routes.find((r) => r.path === pattern)!;
    const page = await pageAt(width, height, !route.public || pattern.endsWith('/accept'));
    await page.goto(`${app.baseUrl}${urlOf(pattern)}`);
    await page.locator('h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    await screenshot(page, `layout-${label}-${name(pattern)}`);
    expect({ pattern, ...(await sideways(page)) }).toEqual({ pattern, overflow: 0, culprits: [] });
    expect({ pattern, axe: await seriousViolations(page) }).toEqual({ pattern, axe: [] });
    if (route.public) return;
    const header = await page.locator('header.top').boundingBox();
    if (width < 500) expect({ pattern, header: Math.round(header!.height) <= 64 }).toEqual({ pattern, header: true });
    else {
      // one line: the brand, the navigation and Sign out share a row
      const brand = await page.locator('header.top .brand').boundingBox();
      const signOut = await page
        .getByRole('button', { name: /account|sign out/i })
        .first()
        .boundingBox();
      expect({ pattern, oneLine: Math.abs(brand!.y - signOut!.y) < 20 && header!.height < 70 }).toEqual({
        pattern,
        oneLine: true,
      });
    }
  });
});
