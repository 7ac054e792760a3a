// Issue 17: "a scan of 10,000 findings shows its first screen within 1 s". The browser test asserts the mechanism
// (first screen from the first page, a virtualised list); this prints the figure: the time from navigation start to
// the app's `findings:first-screen` mark, in Debian's Chromium, against the API process serving dist/web.
// `npm run bench` runs it at the end; `node dist/bench/web.js` runs it alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { importAdvisories } from '../src/advisories/import';
import { createSession, findUserByEmail } from '../src/storage/accounts';
import { startHarness, type Harness } from './harness';
import { namedSnapshot } from './scenarios';
import { fmt, median, row } from './stats';

/** OSV advisories for perf-0 … perf-(n-1) (npm), affecting every version below 2.0.0; severities rotate. */
export function perfAdvisories(n: number): object[] {
  const vectors = [
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N',
    'CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N',
  ];
  return Array.from({ length: n }, (_, i) => ({
    id: `GHSA-perf-${String(i).padStart(5, '0')}-web`,
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: `synthetic advisory ${i}`,
    severity: [{ type: 'CVSS_V3', score: vectors[i % vectors.length] }],
    affected: [
      {
        package: { ecosystem: 'npm', name: `perf-${i}` },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
      },
    ],
  }));
}

export function writeAdvisories(advisories: object[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'web-perf-adv-'));
  fs.writeFileSync(path.join(dir, 'advisories.json'), JSON.stringify(advisories));
  return dir;
}

/** A v1 snapshot of n packages perf-<i>@1.0.0: every one matches its advisory, so n findings. */
export function perfSnapshot(n: number, project: string) {
  return namedSnapshot(n, project, 'perf');
}

export interface FirstScreen {
  /** ms from navigation start to the mark */
  at: number;
  detail: { rows: number; pages: number; findings: number };
}

/** Waits for the findings view's first-screen mark and reads it. */
export async function firstScreen(page: Page): Promise<FirstScreen> {
  await page.waitForFunction(() => performance.getEntriesByName('findings:first-screen').length > 0, undefined, {
    timeout: 30_000,
  });
  return page.evaluate(() => {
    const m = performance.getEntriesByName('findings:first-screen')[0] as unknown as {
      startTime: number;
      detail: FirstScreen['detail'];
    };
    return { at: m.startTime, detail: m.detail };
  });
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--host-resolver-rules=MAP localhost 127.0.0.1'],
  });
}

export async function webBench(h: Harness, n = 10_000): Promise<void> {
  console.log(`\nweb app: first screen of a ${n.toLocaleString('en')}-finding scan`);
  await importAdvisories(h.store, [writeAdvisories(perfAdvisories(n))]);
  const { id, status } = await h.upload(JSON.stringify(perfSnapshot(n, 'web-perf')));
  if (status !== 201) throw new Error(`upload answered ${status}`);
  const done = await h.waitCompleted(id, 20);
  if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
  const user = await findUserByEmail(h.store, 'bench@example.test');
  if (!user) throw new Error('the bench harness has no owner bench@example.test');
  const { token } = await createSession(h.store, user._id, new Date(), 'app');
  const port = new URL(h.baseUrl).port;
  const browser = await launch();
  try {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
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
    const page = await ctx.newPage();
    const url = `http://localhost:${port}/app/scans/${id}`;
    const times: number[] = [];
    let cold: FirstScreen | undefined;
    for (let i = 0; i < 6; i++) {
      await page.goto(url);
      const fs1 = await firstScreen(page);
      if (i === 0) cold = fs1;
      else times.push(fs1.at);
    }
    const rows = await page.locator('[role=listitem]').count();
    row('first screen, cold cache (navigation → first rows)', fmt(cold!.at), '≤ 1000 ms');
    row('first screen, warm cache (median of 5)', fmt(median(times)), '≤ 1000 ms');
    row('  rows in the DOM / findings in the scan', `${rows} / ${n}`);
  } finally {
    await browser.close();
  }
}

if (require.main === module) {
  (async () => {
    const h = await startHarness();
    try {
      await webBench(h);
    } finally {
      await h.close();
    }
  })().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
