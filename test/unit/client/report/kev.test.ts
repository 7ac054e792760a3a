// KEV and EPSS in the reports: the table's KEV marker and EPSS percentage columns (only when the service serves the
// fields), the JSON report's kev and epss on every finding (null when absent), the markdown comment's KEV marker on
// new findings, SARIF's result properties; and what `--fail-on-kev` counts (every unsuppressed KEV finding, or with
// `--gate new` the added ones), in the gate line of each format.
import {
  addedKevCount,
  epssPercent,
  gatedKevCount,
  kevCount,
  kevOf,
  servesIntel,
} from '../../../../src/client/report/common';
import { jsonReport } from '../../../../src/client/report/json';
import { formatMarkdown } from '../../../../src/client/report/markdown';
import { sarifLog } from '../../../../src/client/report/sarif';
import { formatTable, gateLine } from '../../../../src/client/report/table';
import type { ScanResult } from '../../../../src/client/report/types';
import type { EpssEntry, KevEntry } from '../../../../src/shared/types';
import { asCompareFinding, compareResultOf, reportInput, v1Result, v2Result } from './fixtures';

const KEV: KevEntry = { dateAdded: '2022-03-28', dueDate: '2022-04-18', knownRansomwareCampaignUse: 'Known' };
const epss = (score: number, percentile = 0.99): EpssEntry => ({ score, percentile, date: '2026-11-27' });

/** v2Result from a service that serves KEV and EPSS: minimist in KEV (EPSS 94.3 %), lodash scored 0.04 %. */
function intelResult(): ScanResult {
  const r = v2Result();
  r.findings = r.findings.map((f) => ({ ...f, kev: null, epss: null }));
  r.findings[0] = { ...r.findings[0], kev: KEV, epss: epss(0.943) };
  r.findings[2] = { ...r.findings[2], epss: epss(0.00043, 0.12) };
  return r;
}

/** intelResult compared with a baseline: the KEV finding (minimist) `added` or `unchanged`. */
function comparedIntel(kevFindingIs: 'added' | 'unchanged', compareCarriesIntel = true): ScanResult {
  const r = intelResult();
  const [first, ...rest] = r.findings.map((f) => {
    const c = asCompareFinding(r, f);
    if (!compareCarriesIntel) {
      delete c.kev;
      delete c.epss;
    }
    return c;
  });
  // `unchanged`: the low finding (send) is the one added instead.
  const low = rest[rest.length - 1];
  r.compare = compareResultOf(r, {
    findings:
      kevFindingIs === 'added'
        ? { added: [first], unchanged: rest }
        : { added: [low], unchanged: [first, ...rest.slice(0, -1)] },
  });
  return r;
}

const lines = (text: string) => text.split('\n');
const rowOf = (text: string, pkg: string) => lines(text).find((l) => l.startsWith(`  ${pkg} `))!;
const cellsOf = (line: string) => line.trim().split(/\s{2,}/);
// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

// --------------------------------------------------------------------------------------------------- table --

test('table: KEV and EPSS columns after the advisory, "KEV" or "-", the score as a percentage or "-"', () => {
  const text = formatTable(reportInput({ results: [intelResult()] }));
  const header = lines(text).find((l) => l.includes('PACKAGE'))!;
  expect(cellsOf(header)).toEqual([
    'PACKAGE',
    'INSTALLED',
    'FIXED',
    'ADVISORY',
    'KEV',
    'EPSS',
    'PATH',
    'INTRODUCED BY',
  ]);
  expect(cellsOf(rowOf(text, 'minimist')).slice(3, 6)).toEqual([
    'GHSA-xvch-5gv4-984h (CVE-2021-44906)',
    'KEV',
    '94.3%',
  ]);
  expect(cellsOf(rowOf(text, 'lodash')).slice(4, 6)).toEqual(['-', '0.04%']);
  expect(cellsOf(rowOf(text, 'cross-spawn')).slice(4, 6)).toEqual(['-', '-']);
  // The verdict of a finding (up to EPSS) reads within 100 columns; the long path and modules come after.
  expect(header.indexOf('EPSS') + 'EPSS'.length).toBeLessThanOrEqual(100);
  for (const pkg of ['minimist', 'lodash', 'send']) expect(rowOf(text, pkg)[header.indexOf('PATH') - 1]).toBe(' ');
  expect(lines(text).every((l) => l === l.trimEnd())).toBe(true);
});

test('table: a service that omits kev and epss (an older one) gets no columns of dashes', () => {
  const old = v2Result();
  expect(servesIntel(old)).toBe(false);
  const header = lines(formatTable(reportInput({ results: [old] }))).find((l) => l.includes('PACKAGE'))!;
  expect(cellsOf(header)).toEqual(['PACKAGE', 'INSTALLED', 'FIXED', 'ADVISORY', 'PATH', 'INTRODUCED BY']);
  // Null fields are served fields: the columns show, with dashes.
  const none = v2Result();
  none.findings = none.findings.map((f) => ({ ...f, kev: null, epss: null }));
  const text = formatTable(reportInput({ results: [none] }));
  expect(cellsOf(rowOf(text, 'minimist')).slice(4, 6)).toEqual(['-', '-']);
});

test('table: in colour the KEV marker is painted without moving a column', () => {
  const input = reportInput({ results: [intelResult()] });
  const plain = formatTable(input);
  const coloured = formatTable(input, { color: true });
  expect(rowOf(coloured, 'minimist')).toContain('\x1b[1m\x1b[31mKEV\x1b[0m');
  expect(stripAnsi(coloured)).toBe(plain);
});

test('epssPercent: one decimal from 1 %, two below, "<0.01%" for a tiny score', () => {
  expect(epssPercent(0.943)).toBe('94.3%');
  expect(epssPercent(0.94349)).toBe('94.3%');
  expect(epssPercent(1)).toBe('100.0%');
  expect(epssPercent(0.01)).toBe('1.0%');
  expect(epssPercent(0.0943)).toBe('9.4%');
  expect(epssPercent(0.00043)).toBe('0.04%');
  expect(epssPercent(0.00001)).toBe('<0.01%');
  expect(epssPercent(0)).toBe('0.00%');
});

test('the gate line with --fail-on-kev: the KEV count next to the severity count; alone with --fail-on none', () => {
  const results = [intelResult(), v1Result()];
  expect(gateLine(reportInput({ results, failOnKev: true }))).toBe(
    'gate: --fail-on high --fail-on-kev → FAILED (4 findings at or above high, 1 KEV finding)',
  );
  expect(gateLine(reportInput({ results, failOn: 'none', failOnKev: true }))).toBe(
    'gate: --fail-on none --fail-on-kev → FAILED (1 KEV finding)',
  );
  const clean = v1Result();
  expect(gateLine(reportInput({ results: [clean], failOn: 'none', failOnKev: true, gateFailed: false }))).toBe(
    'gate: --fail-on none --fail-on-kev → passed (no KEV finding)',
  );
  expect(
    gateLine(reportInput({ results: [comparedIntel('unchanged')], gate: 'new', failOnKev: true, gateFailed: false })),
  ).toBe('gate: --fail-on high --fail-on-kev → passed (nothing new at or above high, no new KEV finding)');
  expect(gateLine(reportInput({ results: [comparedIntel('added')], gate: 'new', failOnKev: true }))).toBe(
    'gate: --fail-on high --fail-on-kev → FAILED (1 new finding at or above high, 1 new KEV finding)',
  );
  // Without the flag the line is as before.
  expect(gateLine(reportInput({ results }))).toBe('gate: --fail-on high → FAILED (4 findings at or above high)');
  expect(gateLine(reportInput({ results, failOn: 'none', gateFailed: false }))).toBe(
    'gate: --fail-on none → passed (no gate)',
  );
});

// ----------------------------------------------------------------------------------------------- counting --

test('the KEV count: unsuppressed findings only; with --gate new only the added ones', () => {
  const r = intelResult();
  expect(kevCount(r)).toBe(1);
  const suppressed = intelResult();
  suppressed.findings[0] = { ...suppressed.findings[0], suppressed: true, suppressionReason: 'not reachable' };
  expect(kevCount(suppressed)).toBe(0);
  expect(kevCount(v2Result())).toBe(0);

  expect(addedKevCount(comparedIntel('added'))).toBe(1);
  expect(addedKevCount(comparedIntel('unchanged'))).toBe(0);
  expect(addedKevCount(intelResult())).toBe(0);
  expect(gatedKevCount(reportInput({ results: [comparedIntel('added')], gate: 'new' }))).toBe(1);
  expect(gatedKevCount(reportInput({ results: [comparedIntel('unchanged')], gate: 'new' }))).toBe(0);
  // Gate all: every unsuppressed one, compared or not.
  expect(gatedKevCount(reportInput({ results: [comparedIntel('unchanged')], gate: 'all' }))).toBe(1);
  // No baseline: every finding counts as new (as the severity count reads it).
  const missing = intelResult();
  missing.compare = compareResultOf(missing, { baseline: null });
  expect(gatedKevCount(reportInput({ results: [missing], gate: 'new' }))).toBe(1);
  // An added suppressed KEV finding does not count.
  const silenced = comparedIntel('added');
  silenced.compare!.findings.added[0] = { ...silenced.compare!.findings.added[0], suppressed: true };
  expect(addedKevCount(silenced)).toBe(0);
});

test("a comparison's finding without kev takes the scan finding's of the same id", () => {
  const r = comparedIntel('added', false);
  const added = r.compare!.findings.added[0];
  expect(added.kev).toBeUndefined();
  expect(kevOf(r, added)).toEqual(KEV);
  expect(addedKevCount(r)).toBe(1);
  expect(kevOf(r, { id: 'fnd_elsewhere' })).toBeNull();
});

// ---------------------------------------------------------------------------------------------------- json --

test('json: kev and epss on every finding as served, null when absent; the gate says failOnKev and kevFindings', () => {
  const report = jsonReport(reportInput({ results: [intelResult(), v1Result()], failOnKev: true }));
  expect(report.scans[0].findings[0]).toMatchObject({ package: 'minimist', kev: KEV, epss: epss(0.943) });
  expect(report.scans[0].findings[1]).toMatchObject({ package: 'cross-spawn', kev: null, epss: null });
  // The older service's findings (v1Result has neither field): null, the key present.
  for (const f of report.scans[1].findings) {
    expect(f).toHaveProperty('kev', null);
    expect(f).toHaveProperty('epss', null);
  }
  expect(report.gate).toMatchObject({ failOnKev: true, kevFindings: 1, failed: true });
  const fresh = jsonReport(reportInput({ results: [comparedIntel('unchanged')], gate: 'new', failOnKev: true }));
  expect(fresh.gate).toMatchObject({ mode: 'new', failOnKev: true, kevFindings: 0 });
  expect(fresh.scans[0].findings[0]).toMatchObject({ kev: KEV, change: 'unchanged' });
  // Removed findings of a comparison carry them too.
  const r = comparedIntel('added');
  r.compare!.findings.removed = [asCompareFinding(r, v2Result().findings[5])];
  expect(jsonReport(reportInput({ results: [r] })).scans[0].compare!.removed[0]).toMatchObject({
    kev: null,
    epss: null,
  });
});

// ------------------------------------------------------------------------------------------------ markdown --

test('markdown: new findings listed in KEV are marked, with a line saying what the mark means', () => {
  const text = formatMarkdown(reportInput({ results: [comparedIntel('added')], gate: 'new', failOnKev: true }));
  const minimist = lines(text).find((l) => l.startsWith('| minimist |'))!;
  expect(minimist).toContain(
    '| **KEV** [GHSA\\-xvch\\-5gv4\\-984h](https://github.com/advisories/GHSA-xvch-5gv4-984h) (CVE\\-2021\\-44906)',
  );
  expect(text).toContain("1 of them is in CISA's Known Exploited Vulnerabilities catalog (marked **KEV**)");
  expect(text).toContain(
    "**Gate:** new findings at or above **high** or listed in CISA's Known Exploited Vulnerabilities catalog (KEV) " +
      'fail the check (`--gate new --fail-on high --fail-on-kev`): **failed**, 1 new finding at or above high, 1 new ' +
      'finding in KEV.',
  );
  // Unchanged KEV findings are not new: no mark, no line.
  const unchanged = formatMarkdown(reportInput({ results: [comparedIntel('unchanged')], gate: 'new' }));
  expect(unchanged).not.toContain('**KEV**');
  expect(
    formatMarkdown(
      reportInput({
        results: [comparedIntel('unchanged')],
        gate: 'new',
        failOn: 'none',
        failOnKev: true,
        gateFailed: false,
      }),
    ),
  ).toContain(
    "**Gate:** new findings listed in CISA's Known Exploited Vulnerabilities catalog (KEV) fail the check " +
      '(`--gate new --fail-on none --fail-on-kev`): **passed**, no new finding in KEV.',
  );
  // A scan without a comparison lists every finding as new: marked the same way.
  expect(formatMarkdown(reportInput({ results: [intelResult()] }))).toContain('| **KEV** [GHSA\\-xvch\\-5gv4\\-984h]');
});

// --------------------------------------------------------------------------------------------------- sarif --

test('sarif: kev and epss in the result properties when served; security-severity unchanged', () => {
  const plain = sarifLog(reportInput({ results: [v2Result()] }));
  const log = sarifLog(reportInput({ results: [intelResult()] }));
  const minimist = log.runs[0].results.find((r) => r.properties.package === 'minimist')!;
  expect(minimist.properties).toMatchObject({ kev: KEV, epss: epss(0.943) });
  const crossSpawn = log.runs[0].results.find((r) => r.properties.package === 'cross-spawn')!;
  expect(crossSpawn.properties).not.toHaveProperty('kev');
  expect(crossSpawn.properties).not.toHaveProperty('epss');
  expect(log.runs[0].tool.driver.rules).toEqual(plain.runs[0].tool.driver.rules);
  // Everything but the two properties is as before.
  const strip = (l: typeof log) =>
    l.runs[0].results.map((r) => {
      const { kev: _k, epss: _e, ...rest } = r.properties as Record<string, unknown>;
      return { ...r, properties: rest };
    });
  expect(strip(log)).toEqual(strip(plain));
});
