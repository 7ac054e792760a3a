// `--format markdown`: the pull-request comment of `scanner scan`. A CI job posts it, and on the next run finds its
// one comment by the hidden first line (COMMENT_MARKER) and updates it in place. Layout:
// - the marker, a title with the verdict, the gate (mode, threshold, passed or failed), then a summary table with
//   one row per scan: project, ecosystem, scan, baseline (its scan and commit, or why there is none), and the counts
//   of new, disclosed, fixed and unchanged findings (the comparison's unsuppressed counts);
// - per scan: new findings grouped by severity (package, installed, fixed, advisory, introducing modules, teams;
//   the advisory marked **KEV** when CISA's Known Exploited Vulnerabilities catalog lists it),
//   disclosed findings (advisories published since the baseline on packages the change did not touch), the
//   suppressions the change added, then fixed findings, unchanged findings and dependency changes folded in
//   <details>. A section with nothing in it is one line ("none"). A scan without a comparison lists its findings
//   as new, under "no comparison".
// Size: GitHub refuses a comment over 65,536 characters, so the comment stays within MAX_COMMENT_CHARS by cutting
// whole rows, least important first (dependency changes, unchanged, fixed, disclosed by severity, new by severity,
// suppressions last), each table from its end, and says what it cut, table by table and in one line at the end.
// Byte-identical for the same input: no clock, every list sorted (severity, then id, in code-point order).
// Escaping: everything that comes from a snapshot, an advisory or the service (names, versions, paths, teams,
// summaries, reasons, ids) is someone else's text rendered in the repository's own comment. It must not become
// markup, HTML, a link or a mention: see `md`. The only links are built here, from fixed templates, for ids of a
// fixed shape.
import { SEVERITIES, type Severity } from '../../shared/types';
import type { CompareFinding, ComparePart, CompareResult } from '../../shared/compare';
import { compareCodePoints } from '../../shared/inventory-ids';
import type { ApiFinding } from '../api/types';
import {
  countAtOrAbove,
  gatedCount,
  gatedKevCount,
  kevOf,
  modulesOf,
  notableAliases,
  severityIndex,
  truncate,
} from './common';
import type { ReportInput, ScanResult } from './types';

/** The comment's first line: a CI job finds the comment it posted earlier by it. */
export const COMMENT_MARKER = '<!-- scanner-pr-comment -->';
/** GitHub's limit is 65,536 characters; the rest is a margin for what a CI job may add around the report. */
export const MAX_COMMENT_CHARS = 65_000;

/** How many modules (and teams) a row names before "+N more": a finding of a shared library can reach every one. */
const MAX_NAMES_SHOWN = 3;
/** Longest cell values, in characters before escaping: a comment is for reading, the scan page has the rest. */
const MAX = { name: 120, version: 64, id: 80, summary: 120, reason: 300, label: 100 };

// ------------------------------------------------------------------------------------------------ escaping --

/**
 * Characters that break a value out of plain text: line breaks (a table row must stay one line), other control
 * characters, and the invisible format characters that reorder or hide text (bidi overrides, zero-width marks).
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;
/** Markdown punctuation, plus what HTML, GitHub math ($), autolinks (:) and mentions (@) read. */
const SPECIAL = /[\\`*_{}[\]()#+\-.!|<>~&"$:@]/g;
const ZWSP = '\u200b';
const REPLACEMENT: Record<string, string> = {
  // Entities for HTML's own characters: `&lt;` is text to every Markdown and HTML reader, whatever it makes of a
  // backslash.
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  // GitHub finds mentions (@user, @org/team) and issue references (#12) in the rendered text, where a backslash
  // escape is already gone; a zero-width space after the sign breaks them without changing what a reader sees.
  '@': '@' + ZWSP,
  '#': '\\#' + ZWSP,
};

/** Control and format characters to spaces, runs of blanks to one: a value as one line of plain text. */
const oneLine = (value: string): string => value.replace(UNSAFE_CHARS, ' ').replace(/\s+/g, ' ').trim();

/**
 * A value from outside as inert Markdown text, safe in a table cell, a heading or a link's text: one line, every
 * Markdown punctuation character backslash-escaped (`|` included, so it never splits a cell), `<` `>` `&` as
 * entities (no tag survives), a zero-width space after `@`, `#` and the `GH` of `GH-1` (no mention, no issue
 * link) and inside `http:`, `https:`, `ftp:`, `mailto:`, `xmpp:` and `www.` (GFM's autolinks need them whole; `:`
 * and `.` are escaped as well). Cut to `max` characters first, so that the cut never splits an escape.
 */
export function md(value: string | null | undefined, max?: number): string {
  const text = oneLine(String(value ?? ''));
  return (max === undefined ? text : truncate(text, max))
    .replace(/(https?|ftps?|mailto|xmpp)(?=:)/gi, `$1${ZWSP}`)
    .replace(/(www)(?=\.)/gi, `$1${ZWSP}`)
    .replace(/\b(GH)(?=-\d)/gi, `$1${ZWSP}`)
    .replace(SPECIAL, (c) => REPLACEMENT[c] ?? `\\${c}`);
}

/** A cell: the escaped value, or a dash when there is none (an empty cell reads as a rendering fault). */
const cell = (value: string | null | undefined, max?: number): string => md(value, max) || '—';

// --------------------------------------------------------------------------------------------------- links --

const ADVISORY_ID = /^[A-Z]+-[A-Za-z0-9-]+$/;
const SCAN_ID = /^scn_[A-Za-z0-9_-]+$/;

/**
 * The page of an advisory, from a fixed template and only for an id of the advisories' shape (uppercase prefix,
 * dash, letters, digits and dashes): nothing of the id can end the link or start another. Null otherwise.
 */
export function advisoryUrl(id: string): string | null {
  if (id.length > MAX.id || !ADVISORY_ID.test(id)) return null;
  if (id.startsWith('GHSA-')) return `https://github.com/advisories/${id}`;
  if (id.startsWith('CVE-')) return `https://nvd.nist.gov/vuln/detail/${id}`;
  return `https://osv.dev/vulnerability/${id}`;
}

/** The advisory id as a link when it has the advisories' shape, else as escaped text. */
function advisoryLink(id: string): string {
  const url = advisoryUrl(id);
  return url ? `[${md(id)}](${url})` : cell(id, MAX.id);
}

/**
 * The web app's origin and base path, from `--server`, for scan links; null when it is not a plain http(s) URL.
 * Credentials, query and fragment are dropped (a comment is public to the repository's readers), and anything that
 * could end a Markdown link destination rules the link out.
 */
function appBase(server: string): string | null {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const base = `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  return /^https?:\/\/[A-Za-z0-9.:[\]-]+(\/[A-Za-z0-9._~%/-]*)?$/.test(base) ? base : null;
}

/** The scan's page in the web app (web/src/paths.ts: /app/scans/{id}), for a scan id of the service's shape. */
export function scanUrl(server: string, id: string): string | null {
  const base = appBase(server);
  return base && SCAN_ID.test(id) ? `${base}/app/scans/${id}` : null;
}

function scanLink(server: string, id: string): string {
  const url = scanUrl(server, id);
  return url ? `[${md(id)}](${url})` : cell(id, MAX.id);
}

// ------------------------------------------------------------------------------------------------- helpers --

/** 1234 → "1,234", without the host's locale. */
const num = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const plural = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const sum = (counts: Record<Severity, number> | null | undefined) =>
  SEVERITIES.reduce((n, s) => n + (counts?.[s] ?? 0), 0);

/** Severity (critical first), then id in code-point order; Array.prototype.sort is stable for equal ids. */
const bySeverityThenId = (a: { severity: Severity; id: string }, b: { severity: Severity; id: string }) =>
  severityIndex(a.severity) - severityIndex(b.severity) || compareCodePoints(a.id, b.id);

/** "3 (1 critical, 2 high)"; "none" for zero. */
function breakdown(findings: Array<{ severity: Severity }>): string {
  if (findings.length === 0) return 'none';
  const parts = SEVERITIES.map((s) => [s, findings.filter((f) => f.severity === s).length] as const)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${num(n)} ${s}`);
  return `${num(findings.length)} (${parts.join(', ')})`;
}

/** Versions, each escaped, comma-separated; a dash for none. */
const versions = (vs: string[]) => (vs.length === 0 ? '—' : vs.map((v) => cell(v, MAX.version)).join(', '));

/** "a, b, c, +2 more", each name escaped; a dash for none. */
function names(list: string[], max: number): string {
  if (list.length === 0) return '—';
  const shown = list.slice(0, MAX_NAMES_SHOWN).map((n) => cell(n, max));
  if (list.length > MAX_NAMES_SHOWN) shown.push(`\\+${num(list.length - MAX_NAMES_SHOWN)} more`);
  return shown.join(', ');
}

function advisoryCell(f: ApiFinding, withSummary: boolean): string {
  const aliases = notableAliases(f).map((a) => md(a, MAX.id));
  const summary = withSummary ? md(f.summary, MAX.summary) : '';
  const also = aliases.length > 0 ? ` (${aliases.join(', ')})` : '';
  return `${advisoryLink(f.cve)}${also}${summary ? `: ${summary}` : ''}`;
}

// --------------------------------------------------------------------------------------------- the document --

/**
 * Cut order: a lower rank goes first (dependency changes, unchanged, fixed, disclosed from low to critical, new
 * from low to critical, suppressions last: they are what a reviewer must see to approve silencing an advisory).
 */
const RANK = {
  dependency: 0,
  unchanged: 1,
  fixed: 2,
  disclosed: (s: Severity) => 3 + (SEVERITIES.length - 1 - severityIndex(s)),
  added: (s: Severity) => 3 + SEVERITIES.length + (SEVERITIES.length - 1 - severityIndex(s)),
  suppression: 3 + 2 * SEVERITIES.length,
};

interface Row {
  line: string;
  rank: number;
  /** Position in the document. */
  index: number;
  /** Position in its table: of equal rank, the rows furthest down their tables go first (see formatMarkdown). */
  position: number;
  /** The scan the row belongs to, for the cut note's links. */
  scanId: string;
}

interface Table {
  title?: string;
  head: string[];
  rows: Row[];
}

/** A block of the comment: literal Markdown (one or more lines), or a table whose rows may be cut. */
type Block = string | Table;

const tableHead = (head: string[]) => `| ${head.join(' | ')} |\n|${head.map(() => ' --- |').join('')}`;
const tableRow = (cells: string[]) => `| ${cells.join(' | ')} |`;

class Builder {
  readonly blocks: Block[] = [];
  readonly rows: Row[] = [];

  text(...lines: string[]): void {
    this.blocks.push(lines.join('\n'));
  }

  table(scanId: string, head: string[], rows: Array<{ cells: string[]; rank: number }>, title?: string): void {
    const table: Table = { title, head, rows: [] };
    for (const r of rows) {
      const row: Row = {
        line: tableRow(r.cells),
        rank: r.rank,
        index: this.rows.length,
        position: table.rows.length,
        scanId,
      };
      table.rows.push(row);
      this.rows.push(row);
    }
    this.blocks.push(table);
  }
}

function verdict(input: ReportInput): string[] {
  const title = input.gateFailed ? '## ❌ Dependency scan: gate failed' : '## ✅ Dependency scan: gate passed';
  const result = input.gateFailed ? '**failed**' : '**passed**';
  if (input.failOn === 'none' && !input.failOnKev)
    return [title, '', `**Gate:** none (\`--fail-on none\`): ${result}.`];
  const failOn = input.failOn;
  const what = input.gate === 'new' ? 'new finding' : 'unsuppressed finding';
  const flags = `--gate ${input.gate} --fail-on ${failOn}${input.failOnKev ? ' --fail-on-kev' : ''}`;
  const kev = "listed in CISA's Known Exploited Vulnerabilities catalog (KEV)";
  const rule =
    failOn === 'none' ? `${what}s ${kev}` : `${what}s at or above **${failOn}**${input.failOnKev ? ` or ${kev}` : ''}`;
  // The gate's reading: with `new`, the comparisons' added counts (a scan without a baseline counts whole).
  const parts: string[] = [];
  if (failOn !== 'none') {
    const n = gatedCount(input);
    parts.push(`${n === 0 ? `no ${what}` : plural(n, what)} at or above ${failOn}`);
  }
  if (input.failOnKev) {
    const k = gatedKevCount(input);
    parts.push(`${k === 0 ? `no ${what}` : plural(k, what)} in KEV`);
  }
  return [title, '', `**Gate:** ${rule} fail the check (\`${flags}\`): ${result}, ${parts.join(', ')}.`];
}

/** A commit as its short form when it is a hex object id, else as escaped text (it is the snapshot's to say). */
const commitText = (commit: string | null): string =>
  commit === null
    ? 'no commit recorded'
    : `commit ${/^[0-9a-f]{7,64}$/i.test(commit) ? commit.slice(0, 12) : md(commit, MAX.label)}`;

/** Why a comparison has no baseline, in words. */
function missingText(compare: CompareResult): string {
  if (compare.baselineMissing === 'no_tracked_scan') return 'the project has no earlier tracked scan of this ecosystem';
  return compare.baselineMissing ? md(compare.baselineMissing, MAX.label) : 'none was found';
}

/** The baseline in a few words, for the summary: its scan and commit, or why there is none. */
function baselineCell(server: string, compare: CompareResult | undefined): string {
  if (!compare) return 'no comparison';
  const b = compare.baseline;
  return b ? `${scanLink(server, b.id)}, ${commitText(b.commit)}` : `no baseline: ${missingText(compare)}`;
}

function summaryTable(input: ReportInput, b: Builder): void {
  if (input.results.length === 0) {
    b.text('No scans.');
    return;
  }
  const rows = input.results.map((r) => {
    const c = r.compare;
    const count = (cls: 'added' | 'disclosed' | 'removed' | 'unchanged') => (c ? num(sum(c.counts[cls])) : '—');
    return tableRow([
      cell(r.project, MAX.label),
      cell(r.ecosystem, MAX.label),
      scanLink(input.server, r.scan.id),
      baselineCell(input.server, c),
      c ? count('added') : num(r.findings.length),
      count('disclosed'),
      count('removed'),
      count('unchanged'),
    ]);
  });
  b.text(tableHead(['Project', 'Ecosystem', 'Scan', 'Baseline', 'New', 'Disclosed', 'Fixed', 'Unchanged']), ...rows);
}

/** A finding as a new-findings row: the shape both a comparison's findings and a plain scan's are read into. */
interface NewRow {
  finding: ApiFinding;
  modules: string[];
  teams: string[];
  /** Listed in CISA's Known Exploited Vulnerabilities catalog. */
  kev: boolean;
}

function newFindings(b: Builder, scanId: string, heading: string, rows: NewRow[], suppressed: number): void {
  if (rows.length === 0 && suppressed === 0) {
    b.text(`**${heading}:** none.`);
    return;
  }
  b.text(`#### ${heading}: ${breakdown(rows.map((r) => r.finding))}`);
  if (suppressed > 0)
    b.text(`Not listed: ${plural(suppressed, 'new finding')} that the snapshot's suppressions silence.`);
  const kev = rows.filter((r) => r.kev).length;
  if (kev > 0)
    b.text(
      `${plural(kev, 'of them', 'of them')} ${kev === 1 ? 'is' : 'are'} in CISA's Known Exploited Vulnerabilities ` +
        'catalog (marked **KEV**): exploited in the wild.',
    );
  const head = ['Package', 'Installed', 'Fixed', 'Advisory', 'Introduced by', 'Teams'];
  for (const s of SEVERITIES) {
    const group = rows.filter((r) => r.finding.severity === s);
    if (group.length === 0) continue;
    b.table(
      scanId,
      head,
      group.map(({ finding: f, modules, teams, kev: listed }) => ({
        rank: RANK.added(s),
        cells: [
          cell(f.package, MAX.name),
          cell(f.installedVersion, MAX.version),
          f.fixedVersion ? cell(f.fixedVersion, MAX.version) : 'no fix',
          `${listed ? '**KEV** ' : ''}${advisoryCell(f, true)}`,
          names(modules, MAX.name),
          names(teams, MAX.label),
        ],
      })),
      `**${capital(s)} (${num(group.length)})**`,
    );
  }
}

/** A line saying how many items of a part the service counted but the comparison read here did not carry. */
function unread(b: Builder, compare: CompareResult, part: ComparePart, had: number): void {
  const missing = (compare.parts?.[part]?.count ?? had) - had;
  if (missing > 0) b.text(`… ${plural(missing, 'more item')} of \`${part}\` not read from the service.`);
}

function compareSection(b: Builder, r: ScanResult, c: CompareResult): void {
  const id = r.scan.id;
  const live = (cls: 'added' | 'disclosed' | 'removed' | 'unchanged') =>
    [...c.findings[cls]].filter((f) => !f.suppressed).sort(bySeverityThenId);

  newFindings(
    b,
    id,
    'New findings',
    live('added').map((f) => ({
      finding: f,
      modules: f.modules ?? [],
      teams: f.teams ?? [],
      kev: kevOf(r, f) !== null,
    })),
    c.findings.added.filter((f) => f.suppressed).length,
  );
  unread(b, c, 'findings.added', c.findings.added.length);

  const disclosed = live('disclosed');
  if (disclosed.length === 0) b.text('**Disclosed since the baseline:** none.');
  else {
    b.text(
      `#### Disclosed since the baseline: ${breakdown(disclosed)}`,
      '',
      'Advisories published since the baseline, on packages this change did not touch.',
    );
    b.table(
      id,
      ['Severity', 'Package', 'Installed', 'Fixed', 'Advisory'],
      disclosed.map((f) => ({
        rank: RANK.disclosed(f.severity),
        cells: [
          cell(f.severity),
          cell(f.package, MAX.name),
          cell(f.installedVersion, MAX.version),
          f.fixedVersion ? cell(f.fixedVersion, MAX.version) : 'no fix',
          advisoryCell(f, true),
        ],
      })),
    );
  }
  unread(b, c, 'findings.disclosed', c.findings.disclosed.length);

  const suppressions = [...(c.suppressionsAdded ?? [])].sort(
    (x, y) =>
      compareCodePoints(x.cve, y.cve) ||
      compareCodePoints(x.package ?? '', y.package ?? '') ||
      compareCodePoints(x.expires ?? '', y.expires ?? '') ||
      compareCodePoints(x.reason ?? '', y.reason ?? ''),
  );
  if (suppressions.length === 0) b.text('**Suppressions added by this change:** none.');
  else {
    b.text(
      `#### Suppressions added by this change: ${num(suppressions.length)}`,
      '',
      'Findings of these advisories no longer count, here or in the gate.',
    );
    b.table(
      id,
      ['Advisory', 'Package', 'Reason', 'Expires'],
      suppressions.map((s) => ({
        rank: RANK.suppression,
        cells: [
          advisoryLink(s.cve),
          s.package ? cell(s.package, MAX.name) : 'any package',
          cell(s.reason, MAX.reason),
          s.expires ? cell(s.expires, MAX.version) : 'never',
        ],
      })),
    );
  }

  folded(b, id, 'Fixed by this change', c, 'removed', live('removed'), (f) => ({
    rank: RANK.fixed,
    cells: [cell(f.severity), cell(f.package, MAX.name), cell(f.installedVersion, MAX.version), advisoryCell(f, false)],
  }));
  folded(b, id, 'Unchanged', c, 'unchanged', live('unchanged'), (f) => ({
    rank: RANK.unchanged,
    cells: [
      cell(f.severity),
      cell(f.package, MAX.name),
      f.versionsChanged && f.baselineVersions?.length
        ? `${cell(f.installedVersion, MAX.version)} (was ${versions(f.baselineVersions)})`
        : cell(f.installedVersion, MAX.version),
      advisoryCell(f, false),
    ],
  }));

  const deps = c.dependencies ?? { added: [], removed: [], changed: [] };
  const byNameVersion = (x: { name: string; version: string }, y: { name: string; version: string }) =>
    compareCodePoints(x.name, y.name) || compareCodePoints(x.version, y.version);
  const depRows = [
    ...[...deps.added]
      .sort(byNameVersion)
      .map((d) => ['added', cell(d.name, MAX.name), '—', cell(d.version, MAX.version)]),
    ...[...deps.removed]
      .sort(byNameVersion)
      .map((d) => ['removed', cell(d.name, MAX.name), cell(d.version, MAX.version), '—']),
    ...[...deps.changed]
      .sort((x, y) => compareCodePoints(x.name, y.name))
      .map((d) => ['changed', cell(d.name, MAX.name), versions(d.from), versions(d.to)]),
  ];
  const depTitle = 'Dependency changes';
  if (depRows.length === 0) b.text(`**${depTitle}:** none.`);
  else {
    b.text(
      `<details><summary>${depTitle}: ${num(deps.added.length)} added, ${num(deps.removed.length)} removed, ` +
        `${num(deps.changed.length)} changed</summary>`,
    );
    b.table(
      id,
      ['Change', 'Package', 'From', 'To'],
      depRows.map((cells) => ({ rank: RANK.dependency, cells })),
    );
  }
  unread(b, c, 'dependencies.added', deps.added.length);
  unread(b, c, 'dependencies.removed', deps.removed.length);
  unread(b, c, 'dependencies.changed', deps.changed.length);
  if (depRows.length > 0) b.text('</details>');
}

/** A section folded in <details> (fixed, unchanged): one table of severity-sorted findings, or one line. */
function folded(
  b: Builder,
  scanId: string,
  title: string,
  c: CompareResult,
  cls: 'removed' | 'unchanged',
  findings: CompareFinding[],
  row: (f: CompareFinding) => { cells: string[]; rank: number },
): void {
  if (findings.length === 0) b.text(`**${title}:** none.`);
  else {
    // Blocks are joined by a blank line: the one after <summary> lets GitHub read the table inside as Markdown.
    b.text(`<details><summary>${title}: ${breakdown(findings)}</summary>`);
    b.table(scanId, ['Severity', 'Package', 'Installed', 'Advisory'], findings.map(row));
  }
  unread(b, c, `findings.${cls}`, c.findings[cls].length);
  if (findings.length > 0) b.text('</details>');
}

function plainSection(b: Builder, r: ScanResult): void {
  const rows = [...r.findings]
    .filter((f) => !f.suppressed)
    .sort(bySeverityThenId)
    .map((f) => {
      // The comparison names introducing modules whatever the view; so does this, for one meaning of the column.
      const refs = modulesOf(r, f, 'introduced');
      return {
        finding: f,
        modules: refs.map((m) => m.module).sort(compareCodePoints),
        teams: [...new Set(refs.map((m) => m.team).filter((t): t is string => !!t))].sort(compareCodePoints),
        kev: kevOf(r, f) !== null,
      };
    });
  newFindings(b, r.scan.id, 'New findings (no comparison)', rows, 0);
}

function scanSection(input: ReportInput, b: Builder, r: ScanResult): void {
  b.text(`### ${md(r.project, MAX.label)} · ${md(r.ecosystem, MAX.label)}`);
  const scan = scanLink(input.server, r.scan.id);
  const c = r.compare;
  if (!c) {
    b.text(
      `Scan ${scan}: no comparison with a baseline is available, so every unsuppressed finding of the scan is ` +
        'listed as new.',
    );
    plainSection(b, r);
    return;
  }
  const base = c.baseline;
  if (base) {
    const ref = base.ref ? `, ${md(base.ref, MAX.label)}` : '';
    b.text(
      `Scan ${scan} compared with the baseline scan ${scanLink(input.server, base.id)} ` +
        `(${commitText(base.commit)}${ref}).`,
    );
  } else {
    b.text(`Scan ${scan} has no baseline (${missingText(c)}), so every finding counts as new.`);
  }
  compareSection(b, r, c);
}

/** The whole comment with the rows of `cut` left out, each table saying how many of its rows it lost. */
function render(input: ReportInput, b: Builder, cut: Uint8Array, cutCount: number): string {
  const out: string[] = [];
  for (const block of b.blocks) {
    if (typeof block === 'string') {
      out.push(block);
      continue;
    }
    const kept = block.rows.filter((r) => !cut[r.index]);
    const dropped = block.rows.length - kept.length;
    if (block.title) out.push(block.title);
    if (kept.length > 0) out.push([tableHead(block.head), ...kept.map((r) => r.line)].join('\n'));
    if (dropped > 0) out.push(`… ${plural(dropped, kept.length > 0 ? 'more row' : 'row')} not shown.`);
  }
  if (cutCount > 0) {
    const scans = [...new Set(b.rows.filter((r) => cut[r.index]).map((r) => r.scanId))];
    const links = scans.map((id) => scanUrl(input.server, id) && scanLink(input.server, id)).filter((l) => !!l);
    out.push(
      `… ${plural(cutCount, 'more row')} not shown (a comment holds at most ${num(MAX_COMMENT_CHARS)} characters): ` +
        (links.length > 0
          ? `see the ${links.length === 1 ? 'scan' : 'scans'} at ${links.join(', ')}.`
          : 'see the full report with `scanner scan --format table`.'),
    );
  }
  out.push(`Reported by scanner ${md(input.tool.version, MAX.version)}.`);
  return out.join('\n\n') + '\n';
}

/** Last resort when even the comment without any row is too long (hundreds of scans): whole lines from the end. */
function hardCut(text: string, max: number): string {
  const note = '… the rest of this report is not shown: see the full report with `scanner scan --format table`.\n';
  const lines = text.split('\n');
  let out = '';
  for (const line of lines) {
    const next = `${out}${line}\n`;
    if (next.length + note.length + '</details>\n\n'.length > max) break;
    out = next;
  }
  // Close a <details> left open by the cut, so the note shows.
  const open = (out.match(/<details>/g) ?? []).length - (out.match(/<\/details>/g) ?? []).length;
  return out + (open > 0 ? '</details>\n\n' : '\n') + note;
}

export function formatMarkdown(input: ReportInput): string {
  const b = new Builder();
  b.text(COMMENT_MARKER, ...verdict(input));
  summaryTable(input, b);
  for (const r of input.results) scanSection(input, b, r);

  // Least important first. Of equal rank, the rows furthest down their tables, so that each table keeps its first
  // (most severe, then lowest id) rows longest and one scan's thousands of findings do not push out another scan's
  // few; then from the end of the comment.
  const rows = b.rows;
  const order = rows
    .map((r) => r.index)
    .sort((x, y) => rows[x].rank - rows[y].rank || rows[y].position - rows[x].position || y - x);
  const total = order.length;
  const attempt = (k: number) => {
    const cut = new Uint8Array(total);
    for (let i = 0; i < k; i++) cut[order[i]] = 1;
    return render(input, b, cut, k);
  };

  const whole = attempt(0);
  if (whole.length <= MAX_COMMENT_CHARS) return whole;
  // The fewest rows to cut: the length falls as rows go (the notes' digits aside, hence the walk after the search).
  let lo = 1;
  let hi = total;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (attempt(mid).length <= MAX_COMMENT_CHARS) hi = mid;
    else lo = mid + 1;
  }
  for (let k = lo; k <= total; k++) {
    const text = attempt(k);
    if (text.length <= MAX_COMMENT_CHARS) return text;
  }
  return hardCut(attempt(total), MAX_COMMENT_CHARS);
}
