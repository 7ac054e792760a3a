// The alerts list as CSV (GET /v1/alerts/export.csv; docs/alerts.md "CSV export"): one record per alert, its cells
// taken from the Alert resource as presentAlert serves it, several values joined by `;`. Written by csv-stringify:
// RFC 4180 quoting (a cell holding a comma, a double quote, CR or LF is quoted, its quotes doubled), CRLF after every
// record, and its formula guard on every cell: a cell starting with `=`, `+`, `-`, `@`, tab or CR (or the full-width
// ＝ ＋ － ＠) is prefixed with `'`, so that a spreadsheet never runs a value from a snapshot or an advisory.
import { stringify, type Options } from 'csv-stringify/sync';
import type { AlertView } from '../domain/alerts/query';
import { presentAlert } from './alerts';

type Served = ReturnType<typeof presentAlert>;

const list = (values: readonly string[]) => values.join(';');
const text = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** The columns, in order: the header row's names and each cell of an alert (its project's slug given). */
const COLUMNS: ReadonlyArray<readonly [name: string, cell: (a: Served, projectSlug: string | null) => string]> = [
  ['id', (a) => a.id],
  ['project', (a) => a.project],
  ['projectSlug', (_a, slug) => text(slug)],
  ['ecosystem', (a) => a.ecosystem],
  ['package', (a) => a.package],
  ['installedVersions', (a) => list(a.installedVersions)],
  ['advisory', (a) => a.advisory],
  ['aliases', (a) => list(a.aliases)],
  ['severity', (a) => a.severity],
  ['cvssScore', (a) => text(a.cvss?.score)],
  ['cvssVector', (a) => text(a.cvss?.vector)],
  ['kev', (a) => text(a.kev?.dateAdded)],
  ['epss', (a) => text(a.epss?.score)],
  ['status', (a) => a.status],
  ['suppressed', (a) => String(a.suppressed)],
  ['suppressionSource', (a) => text(a.suppressionSource)],
  ['analysisState', (a) => text(a.analysis?.state)],
  ['analysisJustification', (a) => text(a.analysis?.justification)],
  ['analysisDetail', (a) => text(a.analysis?.detail)],
  ['fixedVersion', (a) => text(a.fixedVersion)],
  ['firstSeenAt', (a) => text(a.firstSeenAt)],
  ['lastSeenAt', (a) => text(a.lastSeenAt)],
  ['fixedAt', (a) => text(a.fixedAt)],
  ['teams', (a) => list(a.teams)],
  ['modules', (a) => list(a.modules)],
];

/** The header row's column names, in order. */
export const ALERT_CSV_COLUMNS: readonly string[] = COLUMNS.map(([name]) => name);

/**
 * How every record is written: RFC 4180 (CRLF record ends; CR and LF inside a cell quote it, as commas and quotes
 * do: csv-stringify would otherwise quote only a whole CRLF once the record delimiter is set) and the formula guard.
 */
const OPTIONS: Options = {
  record_delimiter: 'windows',
  quote_record_delimiter: true,
  escape_formulas: true,
  eof: true,
};

/** One alert's cells, in the order of ALERT_CSV_COLUMNS (before quoting and the guard). */
export function alertCsvCells(a: AlertView, projectSlug: string | null): string[] {
  const served = presentAlert(a);
  return COLUMNS.map(([, cell]) => cell(served, projectSlug));
}

/** Rows written as CSV text (each ends with CRLF), quoted and guarded. */
export const csvText = (rows: readonly (readonly string[])[]): string => stringify(rows as string[][], OPTIONS);

/**
 * The CSV of `alerts`, lazily: the header row, then the records `chunkRows` at a time (each chunk a string made when
 * the reader asks for it, so that the whole file is never held).
 */
export function* alertCsvChunks(
  alerts: readonly AlertView[],
  slugs: ReadonlyMap<string, string>,
  chunkRows = 1000,
): Generator<string, void, undefined> {
  yield csvText([ALERT_CSV_COLUMNS]);
  for (let i = 0; i < alerts.length; i += chunkRows) {
    const rows: string[][] = [];
    for (let j = i; j < Math.min(i + chunkRows, alerts.length); j++)
      rows.push(alertCsvCells(alerts[j], slugs.get(alerts[j].projectId) ?? null));
    yield csvText(rows);
  }
}
