// --format markdown: the pull-request comment. The hidden marker first, the verdict and a summary per scan, then per
// scan the new, disclosed and fixed findings, the suppressions the change added, unchanged findings and dependency
// changes; at most 65,000 characters, cut least important first and said so; the same bytes for the same input.
// Most of all: no value from a snapshot, an advisory or the service becomes markup, HTML, a link or a mention.
// No CommonMark renderer is installed, so the checks read the raw text the way GFM does: backslash escapes,
// entities, unescaped pipes per row, and link syntax.
import {
  COMMENT_MARKER,
  MAX_COMMENT_CHARS,
  advisoryUrl,
  formatMarkdown,
  md,
  scanUrl,
} from '../../../../src/client/report/markdown';
import type { ApiFinding } from '../../../../src/client/api/types';
import type { ReportInput, ScanResult } from '../../../../src/client/report/types';
import { SEVERITIES, type Severity } from '../../../../src/shared/types';
import { asCompareFinding, compareResultOf, finding, reportInput, scan, v1Result, v2Result } from './fixtures';

const ZW = '\u200b';
const SERVER = 'https://scanner.acme.example';
const lines = (text: string) => text.split('\n');

/** The v2 scan compared with a baseline: two new, one disclosed, one fixed, two unchanged, one suppression added. */
function compared(): ScanResult {
  const r = v2Result();
  const [minimist, crossSpawn, lodash, micromatch, request, send] = r.findings.map((f) => asCompareFinding(r, f));
  r.compare = compareResultOf(r, {
    findings: {
      added: [lodash, minimist],
      disclosed: [micromatch],
      unchanged: [{ ...crossSpawn, baselineVersions: ['7.0.2'], versionsChanged: true }, request],
      removed: [send],
    },
    suppressionsAdded: [
      { cve: 'GHSA-p8p7-x288-28g6', package: 'request', reason: 'not reachable: redirects are never followed' },
    ],
    dependencies: {
      added: [{ name: 'lodash', version: '4.17.15' }],
      removed: [{ name: 'left-pad', version: '1.3.0' }],
      changed: [{ name: 'minimist', from: ['1.2.0'], to: ['1.2.5'] }],
    },
  });
  return r;
}

/** The v1 scan of a project with no tracked scan before it: every finding is new. */
function firstScan(): ScanResult {
  const r = v1Result();
  r.compare = compareResultOf(r, {
    baseline: null,
    findings: { added: r.findings.map((f) => asCompareFinding(r, f)) },
  });
  return r;
}

const input = (over: Partial<ReportInput> = {}) =>
  reportInput({ gate: 'new', results: [compared(), firstScan()], ...over });

/** The lines of one scan's part, from its heading to the next scan's heading (or the end). */
function scanPart(text: string, ecosystem: string): string {
  const all = lines(text);
  const start = all.findIndex((l) => l.startsWith('### ') && l.endsWith(` · ${ecosystem}`));
  const end = all.findIndex((l, i) => i > start && (l.startsWith('### ') || l.startsWith('Reported by scanner')));
  return all.slice(start, end === -1 ? undefined : end).join('\n');
}
const rowsOf = (text: string) => lines(text).filter((l) => l.startsWith('| ') && !l.startsWith('| ---'));

// ------------------------------------------------------------------------------------------------- content --

test('the marker is the first line; then the title and the gate: mode, threshold, verdict', () => {
  const text = formatMarkdown(input());
  expect(lines(text)[0]).toBe(COMMENT_MARKER);
  expect(COMMENT_MARKER).toBe('<!-- scanner-pr-comment -->');
  expect(lines(text)[1]).toBe('## ❌ Dependency scan: gate failed');
  expect(text).toContain(
    '**Gate:** new findings at or above **high** fail the check (`--gate new --fail-on high`): **failed**, 3 new findings at or above high.',
  );
  expect(formatMarkdown(input({ gate: 'all', gateFailed: true }))).toContain(
    '**Gate:** unsuppressed findings at or above **high** fail the check (`--gate all --fail-on high`): **failed**, 4 unsuppressed findings at or above high.',
  );
  const passed = formatMarkdown(input({ failOn: 'critical', gateFailed: false, results: [compared()] }));
  expect(lines(passed)[1]).toBe('## ✅ Dependency scan: gate passed');
  expect(passed).toContain('(`--gate new --fail-on critical`): **passed**, 1 new finding at or above critical.');
  expect(formatMarkdown(input({ failOn: 'none', gateFailed: false }))).toContain(
    '**Gate:** none (`--fail-on none`): **passed**.',
  );
  expect(text.endsWith('Reported by scanner 1\\.4\\.0.\n')).toBe(true);
});

test('the summary: one row per scan with its baseline (scan and commit, or why none) and the four counts', () => {
  const text = formatMarkdown(input());
  const summary = lines(text).slice(
    lines(text).indexOf('| Project | Ecosystem | Scan | Baseline | New | Disclosed | Fixed | Unchanged |'),
  );
  expect(summary[2]).toBe(
    `| acme\\-web | javascript | [scn\\_01jd4v2npm](${SERVER}/app/scans/scn_01jd4v2npm) | [scn\\_01jd4base](${SERVER}/app/scans/scn_01jd4base), commit bbbbbbbbbbbb | 2 | 1 | 1 | 2 |`,
  );
  expect(summary[3]).toBe(
    `| acme\\-web | python | [scn\\_01jd4v1pip](${SERVER}/app/scans/scn_01jd4v1pip) | no baseline: the project has no earlier tracked scan of this ecosystem | 2 | 0 | 0 | 0 |`,
  );
  // The counts are the comparison's unsuppressed counts.
  const r = compared();
  r.compare!.counts.added = { critical: 10, high: 0, medium: 0, low: 1 };
  expect(formatMarkdown(input({ results: [r] }))).toMatch(/commit bbbbbbbbbbbb \| 11 \| 1 \| 1 \| 2 \|\n/);
});

test('no baseline: said in the summary and in the scan, and every finding is new', () => {
  const py = scanPart(formatMarkdown(input()), 'python');
  expect(py).toContain(
    `Scan [scn\\_01jd4v1pip](${SERVER}/app/scans/scn_01jd4v1pip) has no baseline (the project has no earlier tracked scan of this ecosystem), so every finding counts as new.`,
  );
  expect(py).toContain('#### New findings: 2 (1 critical, 1 medium)');
  expect(
    rowsOf(py)
      .filter((l) => !l.startsWith('| Package'))
      .map((l) => l.split(' | ')[0]),
  ).toEqual(['| PyYAML', '| requests']);
  // A baseline without a commit, and one without a reason the client knows.
  const r = compared();
  r.compare!.baseline = { ...r.compare!.baseline!, commit: null, ref: null };
  expect(scanPart(formatMarkdown(input({ results: [r] })), 'javascript')).toContain(
    `compared with the baseline scan [scn\\_01jd4base](${SERVER}/app/scans/scn_01jd4base) (no commit recorded).`,
  );
  const odd = firstScan();
  odd.compare!.baselineMissing = null;
  expect(formatMarkdown(input({ results: [odd] }))).toContain('has no baseline (none was found)');
});

test('new findings by severity: package, installed, fixed, linked advisory with summary, modules, teams', () => {
  const js = scanPart(formatMarkdown(input()), 'javascript');
  expect(js).toContain(`Scan [scn\\_01jd4v2npm](${SERVER}/app/scans/scn_01jd4v2npm) compared with the baseline scan`);
  expect(js).toContain('(commit bbbbbbbbbbbb, refs/heads/main).');
  const head = '| Package | Installed | Fixed | Advisory | Introduced by | Teams |';
  expect(js).toContain(
    [
      '#### New findings: 2 (1 critical, 1 high)',
      '',
      '**Critical (1)**',
      '',
      head,
      '| --- | --- | --- | --- | --- | --- |',
      `| minimist | 1\\.2\\.5 | 1\\.2\\.6 | [GHSA\\-xvch\\-5gv4\\-984h](https://github.com/advisories/GHSA-xvch-5gv4-984h) (CVE\\-2021\\-44906): Prototype Pollution in minimist | packages/web | @${ZW}acme/web |`,
      '',
      '**High (1)**',
      '',
      head,
      '| --- | --- | --- | --- | --- | --- |',
      `| lodash | 4\\.17\\.15 | 4\\.17\\.19 | [GHSA\\-p6mc\\-m468\\-83gw](https://github.com/advisories/GHSA-p6mc-m468-83gw) (CVE\\-2020\\-8203): Prototype Pollution in lodash | packages/api | — |`,
    ].join('\n'),
  );
});

test('disclosed, suppressions added, fixed, unchanged and dependency changes, each in its section', () => {
  const js = scanPart(formatMarkdown(input()), 'javascript');
  expect(js).toContain(
    [
      '#### Disclosed since the baseline: 1 (1 medium)',
      '',
      'Advisories published since the baseline, on packages this change did not touch.',
      '',
      '| Severity | Package | Installed | Fixed | Advisory |',
      '| --- | --- | --- | --- | --- |',
      '| medium | micromatch | 4\\.0\\.5 | 4\\.0\\.8 | [GHSA\\-952p\\-6rrq\\-rcjv](https://github.com/advisories/GHSA-952p-6rrq-rcjv) (CVE\\-2024\\-4067): Regular Expression Denial of Service \\(ReDoS\\) in micromatch |',
    ].join('\n'),
  );
  expect(js).toContain(
    [
      '#### Suppressions added by this change: 1',
      '',
      'Findings of these advisories no longer count, here or in the gate.',
      '',
      '| Advisory | Package | Reason | Expires |',
      '| --- | --- | --- | --- |',
      '| [GHSA\\-p8p7\\-x288\\-28g6](https://github.com/advisories/GHSA-p8p7-x288-28g6) | request | not reachable\\: redirects are never followed | never |',
    ].join('\n'),
  );
  expect(js).toContain(
    [
      '<details><summary>Fixed by this change: 1 (1 low)</summary>',
      '',
      '| Severity | Package | Installed | Advisory |',
      '| --- | --- | --- | --- |',
      '| low | send | 0\\.18\\.0 | [GHSA\\-m6fv\\-jmcg\\-4jfg](https://github.com/advisories/GHSA-m6fv-jmcg-4jfg) (CVE\\-2024\\-43799) |',
      '',
      '</details>',
    ].join('\n'),
  );
  expect(js).toContain('<details><summary>Unchanged: 2 (1 high, 1 medium)</summary>');
  expect(js).toContain('| high | cross\\-spawn | 7\\.0\\.3 (was 7\\.0\\.2) | [GHSA\\-3xgq\\-45jj\\-v275]');
  expect(js).toContain(
    [
      '<details><summary>Dependency changes: 1 added, 1 removed, 1 changed</summary>',
      '',
      '| Change | Package | From | To |',
      '| --- | --- | --- | --- |',
      '| added | lodash | — | 4\\.17\\.15 |',
      '| removed | left\\-pad | 1\\.3\\.0 | — |',
      '| changed | minimist | 1\\.2\\.0 | 1\\.2\\.5 |',
      '',
      '</details>',
    ].join('\n'),
  );
  // Sections in a fixed order.
  const at = (s: string) => js.indexOf(s);
  const order = [
    '#### New',
    '#### Disclosed',
    '#### Suppressions',
    'Fixed by this change',
    'Unchanged:',
    'Dependency changes',
  ];
  expect(order.map(at)).toEqual([...order.map(at)].sort((a, b) => a - b));
  expect(order.every((s) => at(s) >= 0)).toBe(true);
});

test('a section with nothing in it is one line', () => {
  const py = scanPart(formatMarkdown(input()), 'python');
  for (const line of [
    '**Disclosed since the baseline:** none.',
    '**Suppressions added by this change:** none.',
    '**Fixed by this change:** none.',
    '**Unchanged:** none.',
    '**Dependency changes:** none.',
  ])
    expect(lines(py)).toContain(line);
  expect(py).not.toContain('<details>');
  const clean = compared();
  clean.compare = compareResultOf(clean);
  expect(lines(formatMarkdown(input({ results: [clean], gateFailed: false })))).toContain('**New findings:** none.');
});

test('suppressed findings of a class are not listed, but the new ones are counted in a line', () => {
  const r = compared();
  const extra = asCompareFinding(
    r,
    finding({ severity: 'critical', cve: 'GHSA-aaaa-bbbb-cccc', package: 'quiet', installedVersion: '1.0.0' }),
    { suppressed: true, suppressionReason: 'test only' },
  );
  r.compare = compareResultOf(r, {
    findings: { ...r.compare!.findings, added: [...r.compare!.findings.added, extra] },
  });
  const js = scanPart(formatMarkdown(input({ results: [r] })), 'javascript');
  expect(js).toContain('#### New findings: 2 (1 critical, 1 high)');
  expect(js).toContain("Not listed: 1 new finding that the snapshot's suppressions silence.");
  expect(js).not.toContain('| quiet |');
});

test('a part the comparison did not carry whole is said, not hidden', () => {
  const r = compared();
  r.compare!.parts['findings.added'] = { count: 4, nextCursor: 'c1' };
  expect(scanPart(formatMarkdown(input({ results: [r] })), 'javascript')).toContain(
    '… 2 more items of `findings.added` not read from the service.',
  );
});

test('a result without a comparison lists its findings as new, under "no comparison"', () => {
  const text = formatMarkdown(input({ results: [v2Result(), v1Result()], gate: 'all' }));
  expect(text).toContain(
    `| acme\\-web | javascript | [scn\\_01jd4v2npm](${SERVER}/app/scans/scn_01jd4v2npm) | no comparison | 6 | — | — | — |`,
  );
  const js = scanPart(text, 'javascript');
  expect(js).toContain(
    `Scan [scn\\_01jd4v2npm](${SERVER}/app/scans/scn_01jd4v2npm): no comparison with a baseline is available, so every unsuppressed finding of the scan is listed as new.`,
  );
  expect(js).toContain('#### New findings (no comparison): 6 (1 critical, 2 high, 2 medium, 1 low)');
  // The introducing modules and their teams, from the attributions and the scan's modules.
  expect(js).toContain(`| packages/web | @${ZW}acme/web |`);
  expect(js).toContain(`| cross\\-spawn | 7\\.0\\.3 | 7\\.0\\.5 |`);
  expect(js).toContain(`| \\. | @${ZW}acme/platform |`);
  expect(
    rowsOf(js)
      .filter((l) => !l.startsWith('| Package'))
      .map((l) => l.split(' | ')[0]),
  ).toEqual(['| minimist', '| cross\\-spawn', '| lodash', '| micromatch', '| request', '| send']);
  expect(js).not.toContain('Disclosed');
  // v1: no modules, no teams.
  expect(scanPart(text, 'python')).toContain('| — | — |');
});

test('byte-identical for the same input, whatever order the lists come in', () => {
  const a = formatMarkdown(input());
  expect(formatMarkdown(input())).toBe(a);
  const shuffled = input();
  const c = shuffled.results[0].compare!;
  for (const cls of ['added', 'unchanged', 'disclosed', 'removed'] as const) c.findings[cls].reverse();
  shuffled.results[0].findings.reverse();
  expect(formatMarkdown(shuffled)).toBe(a);
  // Severity, then id: two findings of one severity in id order, whatever their packages.
  const r = compared();
  const [x, y] = ['fnd_b', 'fnd_a'].map((id, i) =>
    asCompareFinding(
      r,
      finding({ severity: 'low', cve: 'GHSA-xxxx-xxxx-xxx' + i, package: `p${i}`, installedVersion: '1' }),
      { id },
    ),
  );
  r.compare = compareResultOf(r, { findings: { added: [x, y] } });
  const low = rowsOf(formatMarkdown(input({ results: [r] }))).filter((l) => /^\| p\d /.test(l));
  expect(low.map((l) => l.slice(0, 5))).toEqual(['| p1 ', '| p0 ']);
});

// --------------------------------------------------------------------------------------------------- links --

test('advisory links come from fixed templates, for ids of the advisories shape only', () => {
  expect(advisoryUrl('GHSA-xvch-5gv4-984h')).toBe('https://github.com/advisories/GHSA-xvch-5gv4-984h');
  expect(advisoryUrl('CVE-2021-44906')).toBe('https://nvd.nist.gov/vuln/detail/CVE-2021-44906');
  expect(advisoryUrl('PYSEC-2021-142')).toBe('https://osv.dev/vulnerability/PYSEC-2021-142');
  expect(advisoryUrl('GO-2024-1234')).toBe('https://osv.dev/vulnerability/GO-2024-1234');
  expect(advisoryUrl('RUSTSEC-2024-0001')).toBe('https://osv.dev/vulnerability/RUSTSEC-2024-0001');
  for (const id of [
    'ghsa-xvch-5gv4-984h',
    'CVE-2021-1)[x](https://evil.example',
    'CVE-2021-1 ',
    'CVE',
    'CVE-',
    'CVE-1/../../x',
    'CVE-1\n',
    'GHSA-a.b',
    '',
  ])
    expect(advisoryUrl(id)).toBeNull();

  const r = compared();
  const bad = 'CVE-2021-1)[x](https://evil.example';
  const f = asCompareFinding(r, finding({ severity: 'high', cve: bad, package: 'p', installedVersion: '1' }), {
    aliases: [bad],
  });
  r.compare = compareResultOf(r, { findings: { added: [f] } });
  const text = formatMarkdown(input({ results: [r] }));
  expect(text).toContain(`| p | 1 | no fix | CVE\\-2021\\-1\\)\\[x\\]\\(https${ZW}\\://evil\\.example |`);
});

test('scan links: the web app page of the scan, for ids of the service shape, on a plain http(s) server', () => {
  expect(scanUrl(SERVER, 'scn_01jd4v2npm')).toBe(`${SERVER}/app/scans/scn_01jd4v2npm`);
  expect(scanUrl(`${SERVER}/`, 'scn_a')).toBe(`${SERVER}/app/scans/scn_a`);
  expect(scanUrl('http://10.0.0.5:8080/scanner/', 'scn_a')).toBe('http://10.0.0.5:8080/scanner/app/scans/scn_a');
  // Credentials, query and fragment stay out of a comment.
  expect(scanUrl('https://ci:s3cret@scanner.acme.example/?x=1#y', 'scn_a')).toBe(`${SERVER}/app/scans/scn_a`);
  for (const id of ['scn_a)', 'scn_a b', 'scan_a', 'scn_', 'scn_a/../b', 'SCN_a'])
    expect(scanUrl(SERVER, id)).toBeNull();
  for (const server of ['javascript:alert(1)', 'ftp://x.example', 'not a url', 'https://x.example/a(b)'])
    expect(scanUrl(server, 'scn_a')).toBeNull();

  const r = compared();
  r.scan = { ...r.scan, id: 'scn_x)[evil](https://evil.example' };
  const text = formatMarkdown(input({ results: [r] }));
  expect(text).toContain(`| scn\\_x\\)\\[evil\\]\\(https${ZW}\\://evil\\.example | [scn\\_01jd4base]`);
});

// ---------------------------------------------------------------------------------------------- escaping --

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<script>alert(document.cookie)</script>',
  '</details></summary></td></table>',
  '@acme/security and @alice, mail@evil.example',
  '[click](https://evil.example) ![i](https://evil.example/i.png)',
  'https://evil.example/x http://evil.example HTTPS://EVIL.EXAMPLE',
  'www.evil.example and <https://evil.example>',
  'a|b\\|c || d |',
  '`code` ``x`` ```fence```',
  'line1\nline2\r\n# Heading\n- item\n> quote\n\n| x | y |\n---',
  '**bold** _em_ ~~strike~~ $x^2$ {braces} +plus .dot !bang',
  '&lt;b&gt; &amp; &#60;script&#62; &quot; "quoted"',
  '#123 acme/repo#1 GH-1',
  '\u202eevil\u0000\u0007\u2028x\u0085y\tz\u200bw',
  'ends with a backslash \\',
  '<!-- hidden --> -->',
  '[x]: https://evil.example "title"',
];

/**
 * The comparison and a plain scan with `value` in every field that comes from a snapshot, an advisory or the
 * service's ids (the head scan ids and one advisory id stay well-formed, so that links are there to be checked).
 */
function planted(value: string): ReportInput {
  const head = v2Result();
  const teams = head.scan.modules.map((m) => ({ ...m, path: value, teamName: value }));
  // Fixed ids: the order (severity, then id) must not depend on the value.
  let n = 0;
  const base = (severity: Severity, over: Partial<ApiFinding> = {}) =>
    finding({
      id: `fnd_${n++}`,
      severity,
      cve: value,
      package: value,
      installedVersion: value,
      fixedVersion: value,
      summary: value,
      aliases: [value, `GHSA-${value}`],
      ...over,
    });
  const cf = (severity: Severity, over: Partial<ApiFinding> = {}) => ({
    ...asCompareFinding(head, base(severity, over)),
    modules: [value, value, value, value],
    teams: [value, value],
  });
  head.project = value;
  head.ecosystem = value;
  head.compare = compareResultOf(head, {
    baseline: { id: value, ref: value, commit: value, startedAt: value },
    findings: {
      added: [...SEVERITIES.map((s) => cf(s)), cf('high', { cve: 'GHSA-xvch-5gv4-984h' })],
      disclosed: [cf('medium')],
      removed: [cf('low')],
      unchanged: [{ ...cf('high'), baselineVersions: [value], versionsChanged: true }],
    },
    suppressionsAdded: [{ cve: value, package: value, reason: value, expires: value }],
    dependencies: {
      added: [{ name: value, version: value }],
      removed: [{ name: value, version: value }],
      changed: [{ name: value, from: [value, value], to: [value] }],
    },
  });
  const plain: ScanResult = {
    ...v1Result(),
    project: value,
    ecosystem: value,
    scan: { ...scan({ id: 'scn_plain' }, { critical: 1, high: 0, medium: 0, low: 0 }), modules: teams },
    findings: [
      base('critical', {
        attributions: [
          {
            module: value,
            context: value,
            relationship: 'direct',
            path: [value],
            origins: [{ module: value, dependency: value, path: [value] }],
          },
        ],
      }),
    ],
  };
  return reportInput({ gate: 'new', results: [head, plain] });
}

/**
 * What GFM reads as syntax in a line: every Markdown, HTML or autolink character that is not backslash-escaped,
 * not part of an entity, and not a `@` defused by a zero-width space. Values render as plain text exactly when the
 * comment's syntax is the same with hostile values as with plain ones.
 */
function syntax(text: string): string[] {
  const active = /[\\`*_{}[\]()#+\-.!|<>~&"$:@]/;
  return lines(text).map((line) => {
    let out = '';
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (c === '\\' && /[!-/:-@[-`{-~]/.test(line[i + 1] ?? '')) i++;
      else if (c === '&' && /^&(lt|gt|amp);/.test(line.slice(i))) i += line.slice(i).indexOf(';');
      else if (c === '@' && line[i + 1] === ZW) i++;
      else if (active.test(c)) out += c;
    }
    return out;
  });
}

/** The links the comment may carry: advisory and scan pages from the templates, ids of the fixed shapes. */
const ALLOWED_LINK =
  /(?<!\\)\[((?:[^\]\\]|\\.)*)\]\((https:\/\/github\.com\/advisories\/GHSA-[A-Za-z0-9-]+|https:\/\/nvd\.nist\.gov\/vuln\/detail\/CVE-[A-Za-z0-9-]+|https:\/\/osv\.dev\/vulnerability\/[A-Z]+-[A-Za-z0-9-]+|https:\/\/scanner\.acme\.example\/app\/scans\/scn_[A-Za-z0-9_-]+)\)/g;

/** The comment without its own markup (marker, <details>, allowed links, code spans): the rest must be inert. */
function withoutOwnMarkup(text: string): string {
  expect(lines(text)[0]).toBe(COMMENT_MARKER);
  return lines(text)
    .slice(1)
    .map((l) => l.replace(/^<details><summary>(.*)<\/summary>$/, '$1').replace(/^<\/details>$/, ''))
    .join('\n')
    .replace(ALLOWED_LINK, '$1')
    .replace(
      /`(--gate (new|all) --fail-on \w+|--fail-on none|scanner scan --format table|(findings|dependencies)\.\w+)`/g,
      '$1',
    );
}

/** Pipes GFM splits a row at: those not preceded by a backslash. */
const cellPipes = (row: string) => row.match(/(?<!\\)\|/g)?.length ?? 0;

function expectInert(text: string): void {
  const rest = withoutOwnMarkup(text);
  expect(rest).not.toMatch(/</); // no tag, comment or autolink: < only as &lt;
  expect(rest).not.toMatch(/>/);
  expect(rest).not.toContain('](');
  expect(rest).not.toMatch(/(?<!\\)[[\]]/); // no link text, reference or footnote
  expect(rest).not.toMatch(/(?<!\\):\/\//); // no URL autolink: the colon of a scheme is escaped
  expect(rest).not.toMatch(/(https?|ftp|mailto):/i); // and its name broken by a zero-width space
  expect(rest).not.toMatch(/www\./i); // no www. autolink
  expect(rest).not.toMatch(/@(?!\u200b)/); // no mention, no email autolink
  expect(rest).not.toMatch(/(?<!^#*)(?<!\\)#(?!\u200b| )/m); // no issue reference
  expect(rest).not.toMatch(/GH\\-\d/i); // nor its GH-1 form
  expect(rest).not.toMatch(/&(?!lt;|gt;|amp;)/); // no entity of a value's own
  expect(rest).not.toMatch(/(?<!\\)`/); // no code span
  // eslint-disable-next-line no-control-regex
  expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
  // Every table row has its header's number of cells.
  let expected = 0;
  for (const line of lines(text)) {
    if (!line.startsWith('|')) {
      expected = 0;
      continue;
    }
    if (expected === 0) expected = cellPipes(line);
    else expect([line, cellPipes(line)]).toEqual([line, expected]);
  }
  // <details> only as the comment opens and closes it.
  expect((text.match(/<details>/g) ?? []).length).toBe((text.match(/<\/details>/g) ?? []).length);
}

test.each(HOSTILE.map((v) => [JSON.stringify(v), v]))(
  'a value planted everywhere (%s) stays text: no markup, HTML, link, mention or broken row',
  (_name, value) => {
    const text = formatMarkdown(planted(value));
    expectInert(text);
    // The strongest check short of a renderer: the comment's syntax, line by line, is that of the same comment made
    // of plain words; hostile values add no line, no cell, no emphasis, no link and no tag.
    expect(syntax(text)).toEqual(syntax(formatMarkdown(planted('plain words'))));
    // The value is there, as text.
    expect(text).toContain(md(value, 64));
  },
);

test('all of it at once, in a long value cut to its cell', () => {
  const value = HOSTILE.join(' ');
  const text = formatMarkdown(planted(value));
  expectInert(text);
  expect(syntax(text)).toEqual(syntax(formatMarkdown(planted('plain words'))));
  expect(text).not.toMatch(/@acme/);
  expect(text).toContain(`@${ZW}acme/security`);
  expect(text).toContain('&lt;img src=x onerror=alert\\(1\\)&gt;');
  expect(text).toContain('&lt;script&gt;alert\\(document\\.cookie\\)&lt;/script&gt;');
  expect(text).toContain(`\\[click\\]\\(https${ZW}\\://evil\\.example\\)`);
  // The suppression reason, the longest cell (300 characters), carries the most of it.
  expect(text).toContain(md(value, 300));
});

test('md: every Markdown and HTML character escaped, one line, no mention, no autolink', () => {
  expect(md('\\`*_{}[]()#+-.!|<>~&"')).toBe(
    `\\\\\\\`\\*\\_\\{\\}\\[\\]\\(\\)\\#${ZW}\\+\\-\\.\\!\\|&lt;&gt;\\~&amp;\\"`,
  );
  expect(md('$x$: y')).toBe('\\$x\\$\\: y');
  expect(md('a\nb\r\nc\u2028d\te\u0000f')).toBe('a b c d e f');
  expect(md('  spaced   out  ')).toBe('spaced out');
  expect(md('a|b\\|c || d |')).toBe('a\\|b\\\\\\|c \\|\\| d \\|');
  expect(md('line1\nline2\r\n# Heading\n- item\n> quote')).toBe(`line1 line2 \\#${ZW} Heading \\- item &gt; quote`);
  expect(md('@acme/security')).toBe(`@${ZW}acme/security`);
  expect(md('https://x.example')).toBe(`https${ZW}\\://x\\.example`);
  expect(md('HTTP://x')).toBe(`HTTP${ZW}\\://x`);
  expect(md('www.x.example')).toBe(`www${ZW}\\.x\\.example`);
  expect(md('mailto:a')).toBe(`mailto${ZW}\\:a`);
  expect(md('#12 GH-12 GHSA-1')).toBe(`\\#${ZW}12 GH${ZW}\\-12 GHSA\\-1`);
  expect(md(null)).toBe('');
  // Cut before escaping: an escape is never split.
  expect(md('ab|cd', 3)).toBe('ab…');
  expect(md('a|bcd', 3)).toBe('a\\|…');
});

test('md on arbitrary text: only escapes, entities and zero-width spaces are added', () => {
  // A deterministic generator over the characters that matter.
  const alphabet = [
    'a',
    'h',
    't',
    'p',
    's',
    'w',
    '@',
    ':',
    '/',
    '.',
    ' ',
    '\n',
    '\\',
    '|',
    '<',
    '>',
    '&',
    ';',
    '#',
    '[',
    ']',
    '(',
    ')',
    '`',
    '*',
    '_',
    '~',
    '!',
    '"',
    '-',
    '+',
    '$',
    '\u202e',
    '\u200b',
  ];
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const unescape = (s: string) =>
    s
      .replace(/\\([!-/:-@[-`{-~])|&(lt|gt|amp);/g, (_m, c, e) => c ?? { lt: '<', gt: '>', amp: '&' }[e as 'lt'])
      .replace(/\u200b/g, '');
  for (let n = 0; n < 2000; n++) {
    const s = Array.from({ length: 1 + (next() % 24) }, () => alphabet[next() % alphabet.length]).join('');
    const out = md(s);
    expect(syntax(out)).toEqual(['']);
    expect(out).not.toMatch(/[\n\u202e]/);
    expect(out).not.toMatch(/https?:|www\.|@(?!\u200b)/i);
    expect(unescape(out)).toBe(
      s
        .replace(/[\n\u202e\u200b]/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
  }
});

// ------------------------------------------------------------------------------------------------------ size --

function huge(): ReportInput {
  const r = v2Result();
  const f = (i: number, severity: Severity) =>
    asCompareFinding(
      r,
      finding({
        severity,
        cve: `GHSA-${String(i).padStart(4, '0')}-aaaa-bbbb`,
        package: `package-${String(i).padStart(4, '0')}`,
        installedVersion: '1.0.0',
        fixedVersion: '1.0.1',
        summary: 'Prototype Pollution in a package with a rather long summary that goes on for a while',
      }),
      { id: `fnd_${String(i).padStart(4, '0')}`, modules: ['packages/web'], teams: ['@acme/web'] },
    );
  const added = Array.from({ length: 5000 }, (_, i) => f(i, SEVERITIES[i % 4]));
  r.compare = compareResultOf(r, {
    findings: { added, removed: [f(9000, 'high')], unchanged: [f(9001, 'critical')] },
    suppressionsAdded: [{ cve: 'GHSA-p8p7-x288-28g6', reason: 'accepted risk' }],
    dependencies: { added: Array.from({ length: 3000 }, (_, i) => ({ name: `dep-${i}`, version: '1.0.0' })) },
  });
  return reportInput({ gate: 'new', results: [r, firstScan()] });
}

test('over 65,000 characters: whole rows cut, least important first, each table from its end, and said so', () => {
  const text = formatMarkdown(huge());
  expect(text.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
  expect(text.length).toBeGreaterThan(MAX_COMMENT_CHARS - 1000); // cut to fit, not cut to nothing
  expectInert(text);
  // The summary and the headings keep the whole counts.
  expect(text).toContain('commit bbbbbbbbbbbb | 5,000 | 0 | 1 | 1 |');
  expect(text).toContain('#### New findings: 5,000 (1,250 critical, 1,250 high, 1,250 medium, 1,250 low)');
  const js = scanPart(text, 'javascript');
  const shown = rowsOf(js).filter((l) => l.startsWith('| package\\-'));
  const cut = 5000 - shown.length;
  // Dependency changes, unchanged and fixed go first; then the least severe; the critical rows left are the first.
  expect(js).toContain(
    '<details><summary>Dependency changes: 3,000 added, 0 removed, 0 changed</summary>\n\n… 3,000 rows not shown.',
  );
  expect(js).toContain('<details><summary>Unchanged: 1 (1 critical)</summary>\n\n… 1 row not shown.');
  expect(js).toContain('<details><summary>Fixed by this change: 1 (1 high)</summary>\n\n… 1 row not shown.');
  expect(js).toContain('**Low (1,250)**\n\n… 1,250 rows not shown.');
  expect(js).toContain('**Medium (1,250)**\n\n… 1,250 rows not shown.');
  expect(js).toContain('**High (1,250)**\n\n… 1,250 rows not shown.');
  expect(js).toContain(`… ${(1250 - shown.length).toLocaleString('en-US')} more rows not shown.`);
  expect(shown.length).toBeGreaterThan(100);
  const criticalIds = Array.from({ length: 1250 }, (_, k) => `package-${String(k * 4).padStart(4, '0')}`);
  expect(shown.map((l) => l.split(' | ')[0].slice(2).replace(/\\/g, ''))).toEqual(criticalIds.slice(0, shown.length));
  // The suppression stays. Of equal rank, each table loses its last rows first: the other scan keeps its one
  // critical finding while this one shows hundreds, and loses its medium one as this one lost 1,250.
  expect(js).toContain(
    '| [GHSA\\-p8p7\\-x288\\-28g6](https://github.com/advisories/GHSA-p8p7-x288-28g6) | any package | accepted risk | never |',
  );
  const py = scanPart(text, 'python');
  expect(py).toContain('| PyYAML | 5\\.3\\.1 |');
  expect(py).toContain('**Medium (1)**\n\n… 1 row not shown.');
  // One line says what was cut, and where to see it all.
  const total = (cut + 3000 + 2 + 1).toLocaleString('en-US');
  expect(text).toContain(
    `… ${total} more rows not shown (a comment holds at most 65,000 characters): see the scans at ` +
      `[scn\\_01jd4v2npm](${SERVER}/app/scans/scn_01jd4v2npm), [scn\\_01jd4v1pip](${SERVER}/app/scans/scn_01jd4v1pip).`,
  );
  expect(formatMarkdown(huge())).toBe(text);
});

test('hundreds of scans: still within the limit, <details> closed, the cut said', () => {
  const many = Array.from({ length: 400 }, (_, i) => {
    const r = compared();
    r.scan = { ...r.scan, id: `scn_${i}` };
    r.project = `project-${i}-${'x'.repeat(100)}`;
    return r;
  });
  const text = formatMarkdown(input({ results: many }));
  expect(text.length).toBeLessThanOrEqual(MAX_COMMENT_CHARS);
  expect(lines(text)[0]).toBe(COMMENT_MARKER);
  expect(
    text.endsWith('… the rest of this report is not shown: see the full report with `scanner scan --format table`.\n'),
  ).toBe(true);
  expect((text.match(/<details>/g) ?? []).length).toBe((text.match(/<\/details>/g) ?? []).length);
});
