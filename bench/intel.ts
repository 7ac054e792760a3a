// `npm run bench -- intel` (docs/intelligence.md, issue 36 point 5), on the local stack:
// - the KEV import: the real catalog of the third-party data when it is there (else a made-up catalog of its size),
//   with 2,000 made-up entries for the bench's advisories, imported five times (each a new generation: its version
//   changes), median and max beside ≤ 500 ms;
// - an EPSS file of 300,000 rows (made-up scores, FIRST's format, gzipped), imported three times, median and max
//   beside ≤ 10 s; then the first API read after a new generation (its map built);
// - a scan's findings page with the joins: 2,000 findings whose advisories have CVE aliases in both feeds, p50 / p99 of
//   200 requests of the default page and of 200 findings, before and after the feeds are imported (≤ 30 ms);
// - the alerts list in risk order (KEV, severity, EPSS...) over the same 2,000 alerts;
// - where used over 100 projects and the advisory page (bench/where-used.ts: ≤ 50 ms each).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { hasSharedData, sharedDataPath } from '../src/infra/shared-data';
import { importIntel } from '../src/intel/import';
import type { Harness } from './harness';
import { namedSnapshot, quiesce } from './scenarios';
import { fmt, median, percentile, row } from './stats';
import { whereUsedBench } from './where-used';

const FINDINGS = 2000;
const EPSS_ROWS = 300_000;
const cve = (i: number) => `CVE-2099-${String(i).padStart(5, '0')}`;

/** 2,000 advisories of packages intel-<i>, each with a CVE alias; every fifth CVE is in the KEV catalog below. */
function advisories(dir: string): string {
  const list = Array.from({ length: FINDINGS }, (_, i) => ({
    id: `GHSA-intl-${String(i).padStart(4, '0')}-xxxx`,
    aliases: [cve(i)],
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: `intel bench advisory ${i}`,
    severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
    affected: [
      {
        package: { ecosystem: 'npm', name: `intel-${i}` },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
      },
    ],
  }));
  const file = path.join(dir, 'advisories');
  fs.mkdirSync(file);
  fs.writeFileSync(path.join(file, 'intel.json'), JSON.stringify(list));
  return file;
}

/** The KEV catalog (real when there, else made up to its size) with made-up entries for the bench's CVEs. */
function kevCatalog(version: number): string {
  const base = hasSharedData()
    ? JSON.parse(fs.readFileSync(sharedDataPath('intel', 'known_exploited_vulnerabilities.json'), 'utf8'))
    : {
        title: 'CISA Catalog of Known Exploited Vulnerabilities',
        catalogVersion: '2025.08.25',
        dateReleased: '2025-08-25T17:04:19.979Z',
        count: 0,
        vulnerabilities: Array.from({ length: 1400 }, (_, i) => ({
          cveID: `CVE-2020-${String(i).padStart(5, '0')}`,
          vendorProject: 'Vendor',
          product: 'Product',
          vulnerabilityName: `Made-up vulnerability ${i}`,
          dateAdded: '2025-01-01',
          shortDescription: 'A made-up entry of the bench.',
          requiredAction: 'Apply mitigations per vendor instructions.',
          dueDate: '2025-01-22',
          knownRansomwareCampaignUse: 'Unknown',
          notes: '',
          cwes: [],
        })),
      };
  const extra = Array.from({ length: FINDINGS / 5 }, (_, k) => ({
    cveID: cve(k * 5),
    vendorProject: 'Bench',
    product: `intel-${k * 5}`,
    vulnerabilityName: `Made-up exploited vulnerability ${k * 5}`,
    dateAdded: '2025-08-01',
    shortDescription: 'A made-up entry of the bench.',
    requiredAction: 'Apply mitigations per vendor instructions.',
    dueDate: '2025-08-22',
    knownRansomwareCampaignUse: k % 2 ? 'Known' : 'Unknown',
    notes: '',
    cwes: [],
  }));
  const vulnerabilities = [...base.vulnerabilities, ...extra];
  return JSON.stringify({
    ...base,
    catalogVersion: `${base.catalogVersion}.${version}`,
    count: vulnerabilities.length,
    vulnerabilities,
  });
}

/** 300,000 rows of made-up scores in FIRST's format (gzipped): the bench's 2,000 CVEs and filler ids. */
function epssFile(version: number): Buffer {
  const lines = [
    `#model_version:v2025.03.14,score_date:2025-08-${String(10 + version).padStart(2, '0')}T00:00:00+0000`,
    'cve,epss,percentile',
  ];
  for (let i = 0; i < EPSS_ROWS; i++) {
    const id = i < FINDINGS ? cve(i) : `CVE-2000-${String(i).padStart(6, '0')}`;
    const score = ((i * 7919 + version) % 100000) / 100000;
    lines.push(`${id},${score.toFixed(5)},${Math.min(1, score + 0.01).toFixed(5)}`);
  }
  return zlib.gzipSync(`${lines.join('\n')}\n`);
}

async function latency(h: Harness, url: string, n: number, check: (body: any) => void): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await h.get(url);
    out.push(performance.now() - t0);
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    if (i === 0) check(r.body);
  }
  return out;
}

const p50p99 = (xs: number[]) => `${fmt(median(xs))} / ${fmt(percentile(xs, 99))}`;

export async function intelBench(h: Harness): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-intel-'));
  try {
    await h.importAdvisories([advisories(dir)]);
    const s = namedSnapshot(FINDINGS, 'intel-bench', 'intel');
    const up = await h.upload(JSON.stringify(s));
    const done = await h.waitCompleted(up.id, 10);
    if (done.status !== 'completed') throw new Error(`scan ${up.id}: ${done.status}`);
    await quiesce(h);

    const findingsUrl = `/v1/scans/${up.id}/findings`;
    const wholeUrl = `${findingsUrl}?limit=200`;
    const hasFindings = (b: any) => {
      if (!Array.isArray(b.findings) || b.findings.length === 0) throw new Error('no findings');
    };
    console.log(`\nA scan's findings page, ${FINDINGS} findings (ms; p50 / p99 of 200 requests)`);
    row('default page (50), no feeds imported', p50p99(await latency(h, findingsUrl, 200, hasFindings)));
    row('200 findings, no feeds imported', p50p99(await latency(h, wholeUrl, 200, hasFindings)));

    console.log('\nKEV import (ms; five imports, each a new generation)');
    const kevTimes: number[] = [];
    for (let v = 0; v < 5; v++) {
      const file = path.join(dir, `kev-${v}.json`);
      fs.writeFileSync(file, kevCatalog(v));
      const t0 = performance.now();
      const r = await importIntel(h.store, 'kev', file);
      kevTimes.push(performance.now() - t0);
      if (r.status !== 'applied') throw new Error('the KEV import wrote no generation');
    }
    row(
      `KEV catalog (${hasSharedData() ? 'the real one' : 'made up'} + ${FINDINGS / 5} made-up entries): median / max`,
      `${fmt(median(kevTimes))} / ${fmt(Math.max(...kevTimes))}`,
      '≤ 500 ms',
    );

    console.log(
      `\nEPSS import (ms; ${EPSS_ROWS.toLocaleString('en-US')} rows of made-up scores, gzipped; three imports)`,
    );
    const epssTimes: number[] = [];
    for (let v = 0; v < 3; v++) {
      const file = path.join(dir, `epss-${v}.csv.gz`);
      fs.writeFileSync(file, epssFile(v));
      const t0 = performance.now();
      const r = await importIntel(h.store, 'epss', file);
      epssTimes.push(performance.now() - t0);
      if (r.status !== 'applied') throw new Error('the EPSS import wrote no generation');
    }
    row('EPSS file: median / max', `${fmt(median(epssTimes))} / ${fmt(Math.max(...epssTimes))}`, '≤ 10 s');
    // the API's first read after the new generation builds its maps (pointers are read at most once a second)
    await new Promise((r) => setTimeout(r, 1100));
    const t0 = performance.now();
    const first = await h.get(findingsUrl);
    row('first findings read after a new EPSS generation (its map built)', fmt(performance.now() - t0));
    if (!first.body.findings.some((f: any) => f.epss !== null)) throw new Error('no EPSS on the findings');

    const joined = (b: any) => {
      hasFindings(b);
      if (!b.findings.some((f: any) => f.kev !== null)) throw new Error('no KEV on the findings');
      if (!b.findings.every((f: any) => f.epss !== null)) throw new Error('a finding without EPSS');
    };
    console.log(`\nThe same findings with the joins (KEV, EPSS) (ms; p50 / p99 of 200 requests)`);
    row('default page (50)', p50p99(await latency(h, findingsUrl, 200, joined)), 'p99 ≤ 30 ms');
    row('200 findings', p50p99(await latency(h, wholeUrl, 200, joined)), 'p99 ≤ 30 ms');
    const riskFirst = (b: any) => {
      if (!b.alerts?.length || b.alerts[0].kev === null) throw new Error('risk order: a KEV alert is not first');
    };
    row('GET /v1/alerts (risk order), default page', p50p99(await latency(h, '/v1/alerts', 200, riskFirst)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  await whereUsedBench(h);
}
