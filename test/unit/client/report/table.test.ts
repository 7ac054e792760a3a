// --format table: per scan a header with the scan's counts, findings grouped by severity (critical first) in columns
// sized by their content, modules and teams in the chosen view (none for v1 scans), shortened long paths, the gate
// line; colour only on request and never at the cost of alignment.
import { MAX_PATH_CHARS, formatTable, modulesCell } from '../../../../src/client/report/table';
import { shortPath } from '../../../../src/client/report/common';
import type { ScanResult } from '../../../../src/client/report/types';
import { comparedV2Result, finding, reportInput, scan, v1Result, v2Result } from './fixtures';

const lines = (text: string) => text.split('\n');
const section = (text: string, ecosystem: string) => {
  const all = lines(text);
  const start = all.findIndex((l) => l.includes(` · ${ecosystem} · scan `));
  const end = all.findIndex((l, i) => i > start && (/ · scan scn_/.test(l) || l.startsWith('gate:')));
  return all.slice(start, end);
};
const rowOf = (text: string, pkg: string) => lines(text).find((l) => l.startsWith(`  ${pkg} `))!;
// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');

test('a header per scan: project, ecosystem, scan id, status, the scan counts and the suppressed total', () => {
  const text = formatTable(reportInput());
  expect(lines(text)[0]).toBe('scanner 1.4.0 · https://scanner.acme.example · view: introduced');
  expect(text).toContain(
    'acme-web · javascript · scan scn_01jd4v2npm · completed\nfindings: 1 critical, 2 high, 2 medium, 1 low · 1 suppressed (not shown)',
  );
  expect(text).toContain(
    'acme-web · python · scan scn_01jd4v1pip · completed\nfindings: 1 critical, 0 high, 1 medium, 0 low · 0 suppressed\n',
  );
});

test('findings grouped by severity, critical → low, each row under its own heading', () => {
  const js = section(formatTable(reportInput()), 'javascript');
  const headings = js.filter((l) => /^(CRITICAL|HIGH|MEDIUM|LOW) \(\d+\)$/.test(l));
  expect(headings).toEqual(['CRITICAL (1)', 'HIGH (2)', 'MEDIUM (2)', 'LOW (1)']);
  const at = (s: string) => js.findIndex((l) => l.startsWith(s));
  expect(at('  minimist ')).toBeGreaterThan(at('CRITICAL'));
  expect(at('  minimist ')).toBeLessThan(at('HIGH'));
  for (const pkg of ['cross-spawn', 'lodash'])
    (expect(at(`  ${pkg} `)).toBeGreaterThan(at('HIGH')), expect(at(`  ${pkg} `)).toBeLessThan(at('MEDIUM')));
  for (const pkg of ['micromatch', 'request'])
    (expect(at(`  ${pkg} `)).toBeGreaterThan(at('MEDIUM')), expect(at(`  ${pkg} `)).toBeLessThan(at('LOW')));
  expect(at('  send ')).toBeGreaterThan(at('LOW'));
  // A severity without findings has no heading.
  const py = section(formatTable(reportInput()), 'python');
  expect(py.filter((l) => /^[A-Z]+ \(\d+\)$/.test(l))).toEqual(['CRITICAL (1)', 'MEDIUM (1)']);
});

test('columns: package, installed, fixed or "no fix", advisory with its CVE, path; aligned across groups', () => {
  const text = formatTable(reportInput());
  const js = section(text, 'javascript');
  const header = js.find((l) => l.includes('PACKAGE'))!;
  expect(header.trim().split(/\s{2,}/)).toEqual(['PACKAGE', 'INSTALLED', 'FIXED', 'ADVISORY', 'PATH', 'INTRODUCED BY']);
  expect(
    rowOf(text, 'lodash')
      .trim()
      .split(/\s{2,}/),
  ).toEqual([
    'lodash',
    '4.17.15',
    '4.17.19',
    'GHSA-p6mc-m468-83gw (CVE-2020-8203)',
    'packages/api › lodash@4.17.15',
    'packages/api (unassigned)',
  ]);
  expect(
    rowOf(text, 'request')
      .trim()
      .split(/\s{2,}/)
      .slice(0, 3),
  ).toEqual(['request', '2.88.2', 'no fix']);
  // Same column starts in every group of a scan: widths come from the whole scan's content.
  for (const col of ['INSTALLED', 'FIXED', 'ADVISORY', 'PATH', 'INTRODUCED BY']) {
    const x = header.indexOf(col);
    for (const pkg of ['minimist', 'cross-spawn', 'micromatch', 'send']) expect(rowOf(text, pkg)[x - 1]).toBe(' ');
    expect(rowOf(text, 'send').slice(x).startsWith(' ')).toBe(false);
  }
  expect(js.filter((l) => l.includes('PACKAGE')).every((h) => h === header)).toBe(true);
  // Nothing depends on a terminal: no line ends in blanks, the report ends in one newline.
  expect(lines(text).every((l) => l === l.trimEnd())).toBe(true);
  expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
});

test('an advisory whose id is the CVE shows its GHSA; one without aliases shows the id alone', () => {
  const r = v2Result();
  r.findings = [
    finding({
      severity: 'high',
      cve: 'CVE-2024-0001',
      package: 'a',
      installedVersion: '1.0.0',
      aliases: ['CVE-2024-0001', 'GHSA-aaaa-bbbb-cccc'],
    }),
    finding({ severity: 'high', cve: 'PYSEC-2024-1', package: 'b', installedVersion: '1.0.0', aliases: undefined }),
  ];
  const text = formatTable(reportInput({ results: [r] }));
  expect(rowOf(text, 'a')).toContain('CVE-2024-0001 (GHSA-aaaa-bbbb-cccc)');
  expect(rowOf(text, 'b')).toMatch(/PYSEC-2024-1 {2}/);
});

test('view introduced: the modules declaring the introducing dependency, with their teams', () => {
  const text = formatTable(reportInput({ view: 'introduced' }));
  // minimist reaches packages/api through packages/web, but only packages/web declares what pulls it in.
  expect(rowOf(text, 'minimist').endsWith('packages/web (@acme/web)')).toBe(true);
  expect(rowOf(text, 'cross-spawn').endsWith('. (@acme/platform)')).toBe(true);
  expect(rowOf(text, 'lodash').endsWith('packages/api (unassigned)')).toBe(true);
});

test('view affected: every consuming module, with its team or "unassigned"', () => {
  const text = formatTable(reportInput({ view: 'affected' }));
  expect(section(text, 'javascript').find((l) => l.includes('PACKAGE'))).toMatch(/PATH +AFFECTED MODULES$/);
  expect(rowOf(text, 'minimist').endsWith('packages/web (@acme/web), packages/api (unassigned)')).toBe(true);
});

test('a scan without module metadata (multipart) names the modules without claiming they have no team', () => {
  const paged = v2Result();
  paged.scan = { ...paged.scan, modules: [] };
  expect(
    rowOf(formatTable(reportInput({ results: [paged], view: 'affected' })), 'minimist').endsWith(
      '  packages/web, packages/api',
    ),
  ).toBe(true);
});

test('v1 scans have no module column; their path starts at the manifest', () => {
  const py = section(formatTable(reportInput()), 'python');
  expect(
    py
      .find((l) => l.includes('PACKAGE'))!
      .trim()
      .split(/\s{2,}/),
  ).toEqual(['PACKAGE', 'INSTALLED', 'FIXED', 'ADVISORY', 'PATH']);
  expect(
    py
      .find((l) => l.startsWith('  PyYAML '))!
      .trim()
      .split(/\s{2,}/),
  ).toEqual([
    'PyYAML',
    '5.3.1',
    '5.4',
    'GHSA-8q59-q68h-6hv4 (CVE-2020-14343)',
    'services/worker/requirements.txt › PyYAML@5.3.1',
  ]);
});

test('many modules: three named, then a count', () => {
  const mods = ['a', 'b', 'c', 'd', 'e'].map((m) => ({ module: m, team: m === 'a' ? '@acme/a' : null }));
  expect(modulesCell(mods)).toBe('a (@acme/a), b (unassigned), c (unassigned), +2 more');
  expect(modulesCell([])).toBe('-');
});

test('long paths lose their middle, keep where they start and what pulls the package in, and fit the column', () => {
  const text = formatTable(reportInput());
  const row = rowOf(text, 'micromatch');
  expect(row).toContain('. › … 7 more › find-up@4.1.0 › micromatch@4.0.5');
  const long = Array.from({ length: 40 }, (_, i) => `@scope/some-rather-long-package-name-${i}@1.0.${i}`);
  const short = shortPath(['.', ...long], MAX_PATH_CHARS);
  expect(short.startsWith('. › … ')).toBe(true);
  expect(short.endsWith(`${long[38]} › ${long[39]}`)).toBe(true);
  expect(short).toContain('… 38 more');
  expect(shortPath(['package.json', 'a@1'])).toBe('package.json › a@1');
  expect(
    [
      ...shortPath(
        Array.from({ length: 30 }, (_, i) => `p${i}@1.0.0`),
        MAX_PATH_CHARS,
      ),
    ].length,
  ).toBeLessThanOrEqual(MAX_PATH_CHARS);
});

test('no findings: a clear line; the gate passes', () => {
  const clean: ScanResult = {
    ...v1Result(),
    scan: scan({ id: 'scn_clean', ecosystem: 'python' }, { critical: 0, high: 0, medium: 0, low: 0 }, 2),
    findings: [],
  };
  const text = formatTable(reportInput({ results: [clean], gateFailed: false }));
  expect(text).toContain('findings: 0 critical, 0 high, 0 medium, 0 low · 2 suppressed (not shown)\n\nno findings\n');
  expect(text).not.toContain('PACKAGE');
  expect(lines(text).at(-2)).toBe('gate: --fail-on high → passed (nothing at or above high)');
});

test('the gate line: failed with the count at or above the threshold, passed below it, none', () => {
  expect(lines(formatTable(reportInput())).at(-2)).toBe('gate: --fail-on high → FAILED (4 findings at or above high)');
  expect(lines(formatTable(reportInput({ failOn: 'critical' }))).at(-2)).toBe(
    'gate: --fail-on critical → FAILED (2 findings at or above critical)',
  );
  expect(lines(formatTable(reportInput({ failOn: 'low' }))).at(-2)).toBe(
    'gate: --fail-on low → FAILED (8 findings at or above low)',
  );
  expect(lines(formatTable(reportInput({ failOn: 'none', gateFailed: false }))).at(-2)).toBe(
    'gate: --fail-on none → passed (no gate)',
  );
  const lowOnly = v2Result();
  lowOnly.findings = lowOnly.findings.filter((f) => f.severity === 'low');
  lowOnly.scan = { ...lowOnly.scan, findings: { critical: 0, high: 0, medium: 0, low: 1 } };
  expect(lines(formatTable(reportInput({ results: [lowOnly], gateFailed: false }))).at(-2)).toBe(
    'gate: --fail-on high → passed (nothing at or above high)',
  );
  const one = { ...lowOnly, scan: { ...lowOnly.scan, findings: { critical: 0, high: 1, medium: 0, low: 1 } } };
  expect(lines(formatTable(reportInput({ results: [one] }))).at(-2)).toBe(
    'gate: --fail-on high → FAILED (1 finding at or above high)',
  );
});

test('colour only when asked, and the same text and widths once the escapes are removed', () => {
  const plain = formatTable(reportInput());
  expect(plain).not.toMatch(/\x1b\[/);
  expect(formatTable(reportInput(), {})).toBe(plain);
  const coloured = formatTable(reportInput(), { color: true });
  expect(coloured).toContain('\x1b[1m\x1b[35mCRITICAL (1)\x1b[0m');
  expect(coloured).toContain('\x1b[1m\x1b[31mFAILED\x1b[0m');
  expect(stripAnsi(coloured)).toBe(plain);
});

test('compared with a baseline: a CHANGE column marks new and disclosed findings, the gate counts new ones', () => {
  const r = comparedV2Result();
  const [first, second, ...rest] = r.findings;
  const text = formatTable(reportInput({ results: [r], gate: 'new', failOn: 'low', gateFailed: true }));
  expect(text).toMatch(/^baseline: scan scn_01jd4base \(refs\/heads\/main bbbbbbbbbbbb\) · 1 new, 1 disclosed since/m);
  const rows = lines(text).filter((l) => l.includes(first.package) || l.includes(second.package));
  expect(
    rows
      .find((l) => l.includes(`${first.package} `))
      ?.trimStart()
      .startsWith('NEW '),
  ).toBe(true);
  expect(rows.some((l) => l.trimStart().startsWith('DISCLOSED '))).toBe(true);
  expect(lines(text).at(-2)).toContain('1 new finding at or above low');
});
