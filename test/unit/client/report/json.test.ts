// --format json: the documented machine shape (json.ts header), API objects passed through unchanged, the gate's
// verdict and count, locations of the findings' packages only; pretty-printed, and a lossless round trip.
import { JSON_REPORT_VERSION, formatJson, jsonReport } from '../../../../src/client/report/json';
import { comparedV2Result, reportInput, v1Result, v2Result } from './fixtures';

test('the documented shape: version, tool, server, view, failOn, gate, one entry per scan', () => {
  const report = JSON.parse(formatJson(reportInput()));
  expect(Object.keys(report)).toEqual(['reportVersion', 'tool', 'server', 'view', 'failOn', 'gate', 'scans']);
  expect(report).toMatchObject({
    reportVersion: JSON_REPORT_VERSION,
    tool: { name: 'scanner', version: '1.4.0' },
    server: 'https://scanner.acme.example',
    view: 'introduced',
    failOn: 'high',
    gate: { failOn: 'high', failed: true, findingsAtOrAbove: 4 },
  });
  expect(report.scans.map((s: { project: string; ecosystem: string }) => `${s.project}/${s.ecosystem}`)).toEqual([
    'acme-web/javascript',
    'acme-web/python',
  ]);
  for (const s of report.scans)
    expect(Object.keys(s)).toEqual(['project', 'ecosystem', 'scan', 'findings', 'lockfiles', 'locations']);
});

test('scans and findings are the API objects, unchanged and in order (kev and epss null when the service omits them)', () => {
  const input = reportInput();
  const report = JSON.parse(formatJson(input));
  expect(report.scans[0].scan).toEqual(input.results[0].scan);
  expect(report.scans[0].findings).toEqual(input.results[0].findings.map((f) => ({ ...f, kev: null, epss: null })));
  expect(report.scans[1].findings.map((f: { package: string }) => f.package)).toEqual(['PyYAML', 'requests']);
  expect(report.scans[0].findings[0]).toMatchObject({
    cve: 'GHSA-xvch-5gv4-984h',
    aliases: ['GHSA-xvch-5gv4-984h', 'CVE-2021-44906'],
    attributions: expect.any(Array),
  });
  // A field a newer server adds travels through.
  const newer = reportInput();
  (newer.results[0].findings[0] as unknown as Record<string, unknown>).reachable = true;
  expect(JSON.parse(formatJson(newer)).scans[0].findings[0].reachable).toBe(true);
});

test("locations: the lockfile entries of the findings' packages, never guessed, never the whole lockfile", () => {
  const report = jsonReport(reportInput());
  expect(report.scans[0].lockfiles).toEqual(['package-lock.json']);
  expect(report.scans[0].locations).toEqual({
    'minimist@1.2.5': { file: 'package-lock.json', line: 812 },
    'cross-spawn@7.0.3': { file: 'package-lock.json', line: 240 },
    'lodash@4.17.15': { file: 'package-lock.json', line: 655 },
    'micromatch@4.0.5': { file: 'package-lock.json', line: 801 },
    'request@2.88.2': { file: 'package-lock.json' },
    'send@0.18.0': { file: 'package-lock.json', line: 1203 },
  });
  // The finding's spelling is the key; the producer's "pyyaml" entry is found.
  expect(report.scans[1].locations).toEqual({
    'PyYAML@5.3.1': { file: 'services/worker/requirements.txt', line: 7 },
    'requests@2.28.1': { file: 'services/worker/requirements.txt', line: 9 },
  });
  const unknown = v2Result();
  unknown.locations = {};
  expect(jsonReport(reportInput({ results: [unknown] })).scans[0].locations).toEqual({});
});

test("the gate: failed as the command decided, the count from the scans' counts; none counts nothing", () => {
  expect(jsonReport(reportInput({ failOn: 'critical' })).gate).toEqual({
    failOn: 'critical',
    failed: true,
    findingsAtOrAbove: 2,
    mode: 'all',
    counted: 2,
    failOnKev: false,
    kevFindings: 0,
  });
  expect(jsonReport(reportInput({ failOn: 'none', gateFailed: false })).gate).toEqual({
    failOn: 'none',
    failed: false,
    findingsAtOrAbove: 0,
    mode: 'all',
    counted: 0,
    failOnKev: false,
    kevFindings: 0,
  });
  expect(jsonReport(reportInput({ failOn: 'low', results: [v1Result()] })).gate.findingsAtOrAbove).toBe(2);
});

test('pretty-printed with two spaces and a trailing newline; parse and print again gives the same text', () => {
  const text = formatJson(reportInput());
  expect(text.startsWith('{\n  "reportVersion": 1,\n  "tool": {\n    "name": "scanner"')).toBe(true);
  expect(text.endsWith('}\n')).toBe(true);
  const parsed = JSON.parse(text);
  expect(parsed).toEqual(jsonReport(reportInput()));
  expect(JSON.stringify(parsed, null, 2) + '\n').toBe(text);
});

test('no scans with findings: empty lists, still the full shape', () => {
  const clean = v2Result();
  clean.findings = [];
  clean.scan = { ...clean.scan, findings: { critical: 0, high: 0, medium: 0, low: 0 } };
  const report = JSON.parse(formatJson(reportInput({ results: [clean], gateFailed: false })));
  expect(report.scans[0].findings).toEqual([]);
  expect(report.scans[0].locations).toEqual({});
  expect(report.gate).toEqual({
    failOn: 'high',
    failed: false,
    findingsAtOrAbove: 0,
    mode: 'all',
    counted: 0,
    failOnKev: false,
    kevFindings: 0,
  });
});

test('compared with a baseline: each finding says new, unchanged or disclosed; the gate counts the new ones', () => {
  const r = comparedV2Result();
  const [first, second, ...rest] = r.findings;
  const report = jsonReport(reportInput({ results: [r], gate: 'new', failOn: 'low' }));
  expect(report.scans[0].findings.map((f) => f.change)).toEqual(['new', 'disclosed', ...rest.map(() => 'unchanged')]);
  expect(report.gate).toMatchObject({ mode: 'new', counted: first.suppressed ? 0 : 1 });
  expect(report.scans[0].compare).toMatchObject({ baseline: { id: 'scn_01jd4base' }, baselineMissing: null });
  // Without a comparison, findings pass through as the API served them (kev and epss null when absent).
  expect(jsonReport(reportInput()).scans[0].findings[0]).not.toHaveProperty('change');
});
