// The pictures of docs/web-app.md, taken from a realistic scan: a gradle monorepo of three modules and three teams, matched
// against the real GitHub advisories of the third-party data (Maven; src/infra/shared-data.ts). The test checks what
// they show (the introduced view grouped by declaring module, the finding's path and origins), then keeps them as test
// artifacts: test-artifacts/screenshots/readme-findings.png and readme-finding.png. docs/screenshots/ holds the committed copies.
import fs from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { importAdvisories } from '../../src/advisories/import';
import { newOrg } from '../helpers/context';
import { v2Snapshot } from '../helpers/v2';
import { itWithSharedData, sharedDataPath } from '../helpers/shared-data';
import { checkView, sessionContext, startWebApp, uploadAndWait, watchErrors, type WebApp } from './helpers';

const MAVEN_ADVISORIES = sharedDataPath('advisories', 'maven');

/** The id the app shows for an advisory: its CVE alias when it has one (the findings' `cve`). */
function shown(ghsa: string): string {
  const osv = JSON.parse(fs.readFileSync(path.join(MAVEN_ADVISORIES, `${ghsa}.json`), 'utf8')) as {
    aliases?: string[];
  };
  return osv.aliases?.find((a) => a.startsWith('CVE-')) ?? ghsa;
}

const JACKSON = 'com.fasterxml.jackson.core:jackson-databind@2.13.3';
const JACKSON_YAML = 'com.fasterxml.jackson.dataformat:jackson-dataformat-yaml@2.13.3';
const SNAKEYAML = 'org.yaml:snakeyaml@1.30';
const GUAVA = 'com.google.guava:guava@31.1-jre';
const SPRING_WEB = 'org.springframework:spring-web@6.1.2';
const NETTY = 'io.netty:netty-handler@4.1.90.Final';
const COMPRESS = 'org.apache.commons:commons-compress@1.24.0';

/** :checkout (payments) uses :common (platform); :indexer (search) stands apart and suppresses commons-compress. */
function monorepo() {
  return v2Snapshot(
    [
      {
        module: ':checkout',
        context: 'runtimeClasspath',
        vertices: [
          ['c', ':checkout', 'm', 'sw', 'j'],
          ['m', ':common', 'g', 'jy'],
          ['sw', SPRING_WEB],
          ['j', JACKSON],
          ['g', GUAVA],
          ['jy', JACKSON_YAML, 'j', 's'],
          ['s', SNAKEYAML],
        ],
      },
      {
        module: ':common',
        context: 'runtimeClasspath',
        vertices: [
          ['m', ':common', 'g', 'jy'],
          ['g', GUAVA],
          ['jy', JACKSON_YAML, 'j', 's'],
          ['j', JACKSON],
          ['s', SNAKEYAML],
        ],
      },
      {
        module: ':indexer',
        context: 'runtimeClasspath',
        vertices: [
          ['i', ':indexer', 'n', 'x'],
          ['n', NETTY],
          ['x', COMPRESS],
        ],
      },
    ],
    [
      { path: ':checkout', dependencies: [':common'], teamName: 'payments' },
      { path: ':common', dependencies: [], teamName: 'platform' },
      { path: ':indexer', dependencies: [], teamName: 'search' },
    ],
    {
      project: 'shop',
      manifests: ['checkout/build.gradle', 'common/build.gradle', 'indexer/build.gradle'],
      suppressions: ['GHSA-4265-ccf5-phj5', 'GHSA-4g9r-vxhx-9pgx'].map((cve) => ({
        cve,
        package: 'org.apache.commons:commons-compress',
        reason: 'archives are produced by our own build only',
      })),
    },
  );
}

let app: WebApp;
let ctx: BrowserContext;
let page: Page;
let scanId: string;

beforeAll(async () => {
  app = await startWebApp();
  const report = await importAdvisories(app.t.store, [MAVEN_ADVISORIES]);
  expect(report.rejected).toEqual([]);
  const org = await newOrg(app.t.store, 'acme');
  const key = await org.key(['sca:upload', 'scans:read', 'findings:read']);
  scanId = await uploadAndWait(app, key, monorepo());
  ctx = await sessionContext(app, org.ownerToken);
  page = await ctx.newPage();
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await app?.close();
});

itWithSharedData(
  'the findings of a monorepo, introduced view: each module with the advisories its own declarations bring',
  async () => {
    const errors = watchErrors(page);
    await page.goto(`${app.baseUrl}/app/scans/${scanId}`);
    await page.waitForFunction(
      () =>
        document.querySelector('[data-ready-url]')?.getAttribute('data-ready-url') ===
        location.pathname + location.search,
    );
    const groups = await page.$$eval('[role=list][aria-label=Findings] [role=listitem].group', (els) =>
      els.map((e) => e.textContent ?? ''),
    );
    // :checkout declares spring-web and jackson; :common declares guava and (through jackson-dataformat-yaml) snakeyaml;
    // :indexer's netty; its commons-compress is suppressed (hidden by default)
    expect(groups.map((g) => g.replace(/ · \d+ findings?$/, ''))).toEqual(
      expect.arrayContaining([':checkout · team payments', ':common · team platform', ':indexer · team search']),
    );
    const text = await page.locator('[role=list][aria-label=Findings]').innerText();
    for (const id of ['GHSA-rgv9-q543-rqg4', 'GHSA-7g45-4rm6-3mm3', 'GHSA-mjmj-j48q-9wg2', 'GHSA-6mjq-h674-j845'])
      expect(text).toContain(shown(id));
    expect(text).not.toContain('commons-compress');
    await checkView(page, 'readme-findings');
    expect(errors).toEqual([]);
  },
);

itWithSharedData(
  'a finding: snakeyaml reached by :checkout through :common and jackson-dataformat-yaml, as text and as a graph',
  async () => {
    const snake = shown('GHSA-mjmj-j48q-9wg2');
    await page.getByRole('link', { name: snake }).first().click();
    await page.getByRole('heading', { name: `${snake} in org.yaml:snakeyaml` }).waitFor();
    await page.getByRole('button', { name: /Show/ }).last().click();
    await page.locator('svg.graph').waitFor();
    expect(await page.locator('main').innerText()).toContain(`${JACKSON_YAML}`);
    await checkView(page, 'readme-finding');
    const shots = path.join(__dirname, '..', '..', 'test-artifacts', 'screenshots');
    for (const name of ['readme-findings', 'readme-finding'])
      expect(fs.existsSync(path.join(shots, `${name}.png`))).toBe(true);
  },
);
