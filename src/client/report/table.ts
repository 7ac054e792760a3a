// `--format table`: the human report of `scanner scan`, read mostly in CI logs. Per scan a header (project,
// ecosystem, scan id, status, the scan's own counts with the suppressed total), then its findings grouped by
// severity, critical first, one row each: package, installed, fixed (or "no fix"), advisory and its notable
// aliases, KEV (the marker "KEV" when CISA lists the advisory as exploited) and EPSS (the score as a percentage)
// when the service serves them, a representative path, and (v2 scans) the modules of the chosen view with their
// teams. The short columns come first and the long ones (path, modules) last, so that KEV and EPSS stay within the
// first 100 columns of a usual row. The gate line ends it. Column widths come from the content, never from the
// terminal (a CI log has none); colour only when the caller asks for it (a TTY without NO_COLOR), and never changes
// a width.
import { SEVERITIES, type Severity } from '../../shared/types';
import type { ApiFinding } from '../api/types';
import {
  changesOf,
  countAtOrAbove,
  epssOf,
  epssPercent,
  gatedCount,
  gatedKevCount,
  hasAttributions,
  kevOf,
  moduleLabel,
  modulesOf,
  notableAliases,
  servesIntel,
  shortPath,
  type ModuleRef,
} from './common';
import type { ReportInput, ScanResult, View } from './types';

export interface TableOptions {
  color?: boolean;
}

/** How many modules a row names before "+N more": a finding of a shared library can reach every module. */
export const MAX_MODULES_SHOWN = 3;
/** Longest path cell, in characters; longer chains lose their middle first (common.ts shortPath). */
export const MAX_PATH_CHARS = 80;

const ANSI = {
  reset: '\x1b[0m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  yellow: '\x1b[33m',
  magenta: '\x1b[35m',
  cyan: '\x1b[36m',
};
const SEVERITY_STYLE: Record<Severity, string> = {
  critical: ANSI.bold + ANSI.magenta,
  high: ANSI.bold + ANSI.red,
  medium: ANSI.yellow,
  low: ANSI.cyan,
};

const MODULE_HEADING: Record<View, string> = { introduced: 'INTRODUCED BY', affected: 'AFFECTED MODULES' };
/** The first column when the run compared with a baseline: what the change added, what was disclosed since. */
const CHANGE_LABEL = { new: 'NEW', disclosed: 'DISCLOSED', unchanged: '' } as const;

const width = (s: string) => [...s].length;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function advisoryCell(f: ApiFinding): string {
  const aliases = notableAliases(f);
  return aliases.length > 0 ? `${f.cve} (${aliases.join(', ')})` : f.cve;
}

export function modulesCell(modules: ModuleRef[], max = MAX_MODULES_SHOWN): string {
  if (modules.length === 0) return '-';
  const shown = modules.slice(0, max).map(moduleLabel);
  if (modules.length > max) shown.push(`+${modules.length - max} more`);
  return shown.join(', ');
}

/** The KEV column's cell: the marker when CISA's catalog lists the advisory, else a dash. */
export const KEV_MARKER = 'KEV';
export const kevCell = (result: ScanResult, f: ApiFinding): string => (kevOf(result, f) ? KEV_MARKER : '-');

/** The EPSS column's cell: the score as a percentage ("94.3%"), a dash without one. */
export function epssCell(f: ApiFinding): string {
  const epss = epssOf(f);
  return epss && Number.isFinite(epss.score) ? epssPercent(epss.score) : '-';
}

function row(result: ScanResult, f: ApiFinding, view: View, withModules: boolean, withIntel: boolean): string[] {
  const change = result.compare ? [CHANGE_LABEL[changesOf(result).get(f.id) ?? 'unchanged']] : [];
  const cells = [
    ...change,
    f.package,
    f.installedVersion,
    f.fixedVersion ?? 'no fix',
    advisoryCell(f),
    ...(withIntel ? [kevCell(result, f), epssCell(f)] : []),
    f.path.length > 0 ? shortPath(f.path, MAX_PATH_CHARS) : '-',
  ];
  if (withModules) cells.push(modulesCell(modulesOf(result, f, view)));
  return cells;
}

/**
 * Pads every cell but the last of a row to its column's width, so no line carries trailing blanks. `style` may paint
 * a cell after its padding is counted, so that colour never changes a width.
 */
function layout(
  rows: string[][],
  widths: number[],
  style: (cell: string, column: number) => string = (c) => c,
): string[] {
  return rows.map((cells) =>
    cells
      .map((c, i) => style(c, i) + (i === cells.length - 1 ? '' : ' '.repeat(widths[i] - width(c))))
      .join('  ')
      .trimEnd(),
  );
}

function counts(result: ScanResult): string {
  const c = result.scan.findings;
  const parts = c ? SEVERITIES.map((s) => `${c[s]} ${s}`) : ['counts not available'];
  const suppressed = result.scan.suppressed ?? 0;
  return `findings: ${parts.join(', ')} · ${suppressed} suppressed${suppressed > 0 ? ' (not shown)' : ''}`;
}

function scanSection(result: ScanResult, view: View, paint: (style: string, text: string) => string): string[] {
  const { scan } = result;
  const lines = [
    paint(ANSI.bold, `${result.project} · ${result.ecosystem} · scan ${scan.id} · ${scan.status}`),
    counts(result),
  ];
  if (result.compare) lines.push(baselineLine(result.compare));
  if (result.findings.length === 0) {
    lines.push('', 'no findings');
    return lines;
  }
  const withModules = hasAttributions(result);
  // An older service serves no KEV or EPSS field: no column of dashes then.
  const withIntel = servesIntel(result);
  const header = [
    ...(result.compare ? ['CHANGE'] : []),
    'PACKAGE',
    'INSTALLED',
    'FIXED',
    'ADVISORY',
    ...(withIntel ? ['KEV', 'EPSS'] : []),
    'PATH',
    ...(withModules ? [MODULE_HEADING[view]] : []),
  ];
  const groups = SEVERITIES.map((s) => ({
    severity: s,
    rows: result.findings.filter((f) => f.severity === s).map((f) => row(result, f, view, withModules, withIntel)),
  }));
  // One set of widths for the whole scan, so the columns line up from one severity group to the next.
  const widths = header.map((h, i) => Math.max(width(h), ...groups.flatMap((g) => g.rows.map((r) => width(r[i])))));
  const kevColumn = withIntel ? header.indexOf('KEV') : -1;
  const style = (c: string, i: number) => (i === kevColumn && c === KEV_MARKER ? paint(ANSI.bold + ANSI.red, c) : c);
  for (const g of groups) {
    if (g.rows.length === 0) continue;
    lines.push('', paint(SEVERITY_STYLE[g.severity], `${g.severity.toUpperCase()} (${g.rows.length})`));
    lines.push(`  ${paint(ANSI.dim, layout([header], widths)[0])}`);
    lines.push(...layout(g.rows, widths, style).map((l) => `  ${l}`));
  }
  return lines;
}

/** Against what the findings are marked: the baseline scan, or why there is none. */
function baselineLine(c: NonNullable<ScanResult['compare']>): string {
  const k = c.counts;
  const sum = (x: typeof k.added) => SEVERITIES.reduce((n, s) => n + x[s], 0);
  const tally = `${sum(k.added)} new, ${sum(k.disclosed)} disclosed since, ${sum(k.removed)} fixed, ${sum(k.unchanged)} unchanged`;
  if (!c.baseline) return `baseline: none (no completed scan of the default branch before this one) · ${tally}`;
  const at = [c.baseline.ref, c.baseline.commit?.slice(0, 12)].filter(Boolean).join(' ');
  return `baseline: scan ${c.baseline.id}${at ? ` (${at})` : ''} · ${tally}`;
}

export function gateLine(input: ReportInput, paint: (style: string, text: string) => string = (_s, t) => t): string {
  if (input.failOn === 'none' && !input.failOnKev)
    return `gate: --fail-on none → ${paint(ANSI.green, 'passed')} (no gate)`;
  const fresh = input.gate === 'new';
  const flags = `--fail-on ${input.failOn}${input.failOnKev ? ' --fail-on-kev' : ''}`;
  // A failed gate gives its counts as they are (0 when the gate failed for want of a baseline); a passed one says
  // "nothing" for none.
  const parts: string[] = [];
  if (input.failOn !== 'none') {
    const n = gatedCount(input);
    parts.push(
      n === 0 && !input.gateFailed
        ? `nothing${fresh ? ' new' : ''} at or above ${input.failOn}`
        : `${plural(n, fresh ? 'new finding' : 'finding')} at or above ${input.failOn}`,
    );
  }
  if (input.failOnKev) {
    const k = gatedKevCount(input);
    parts.push(
      k === 0 && !input.gateFailed
        ? `no${fresh ? ' new' : ''} KEV finding`
        : plural(k, fresh ? 'new KEV finding' : 'KEV finding'),
    );
  }
  return input.gateFailed
    ? `gate: ${flags} → ${paint(ANSI.bold + ANSI.red, 'FAILED')} (${parts.join(', ')})`
    : `gate: ${flags} → ${paint(ANSI.green, 'passed')} (${parts.join(', ')})`;
}

export function formatTable(input: ReportInput, options: TableOptions = {}): string {
  const paint = (style: string, text: string) => (options.color ? `${style}${text}${ANSI.reset}` : text);
  const lines = [`scanner ${input.tool.version} · ${input.server} · view: ${input.view}`];
  if (input.results.length === 0) lines.push('', 'no scans');
  for (const result of input.results) lines.push('', ...scanSection(result, input.view, paint));
  lines.push('', gateLine(input, paint));
  return lines.join('\n') + '\n';
}
