// The alerts CSV (src/presenters/alerts-csv.ts): the documented columns in order, each cell the Alert resource's
// value, several values joined by `;`, RFC 4180 quoting with CRLF record ends, the formula guard on every cell, and
// the records made lazily, a chunk at a time. Read back with csv-parse (the same project's parser).
import { parse } from 'csv-parse/sync';
import type { AlertRecord } from '../../../src/domain/alerts/move';
import { viewOf, type AlertView } from '../../../src/domain/alerts/query';
import type { Analysis } from '../../../src/domain/triage/analysis';
import { ALERT_CSV_COLUMNS, alertCsvCells, alertCsvChunks, csvText } from '../../../src/presenters/alerts-csv';

const record = (over: Partial<AlertRecord> = {}): AlertRecord => ({
  id: 'alr_0001',
  projectId: 'prj_web',
  ecosystem: 'javascript',
  package: 'left-pad',
  key: 'left-pad',
  advisory: 'GHSA-aaaa-bbbb-cccc',
  aliases: ['GHSA-aaaa-bbbb-cccc', 'CVE-2024-0001'],
  severity: 'high',
  cvss: { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N', score: 9.1 },
  summary: 'left-pad is vulnerable',
  publishedAt: null,
  installedVersions: ['1.2.0', '1.3.0'],
  fixedVersion: '1.4.0',
  status: 'open',
  firstSeenAt: '2026-01-02T03:04:05.000Z',
  firstSeenScanId: 'scn_1',
  lastSeenAt: '2026-02-03T04:05:06.000Z',
  lastSeenScanId: 'scn_2',
  fixedAt: null,
  fixedScanId: null,
  openedGeneration: null,
  modules: [':web', ':web:ui'],
  teams: ['frontend', 'platform'],
  suppressed: false,
  suppressionSource: null,
  ...over,
});

const analysis: Analysis = {
  state: 'not_affected',
  justification: 'code_not_reachable',
  response: ['will_not_fix'],
  detail: 'never called with user input',
  expiresAt: null,
  versions: null,
  ticketUrl: null,
  updatedAt: '2026-02-04T00:00:00.000Z',
  updatedBy: { kind: 'user', id: 'usr_1' },
};

const parsed = (text: string): string[][] => parse(text, { relax_column_count: false });
const byColumn = (cells: string[]) => Object.fromEntries(ALERT_CSV_COLUMNS.map((c, i) => [c, cells[i]]));

test('the columns, in the documented order', () => {
  expect(ALERT_CSV_COLUMNS).toEqual([
    'id',
    'project',
    'projectSlug',
    'ecosystem',
    'package',
    'installedVersions',
    'advisory',
    'aliases',
    'severity',
    'cvssScore',
    'cvssVector',
    'kev',
    'epss',
    'status',
    'suppressed',
    'suppressionSource',
    'analysisState',
    'analysisJustification',
    'analysisDetail',
    'fixedVersion',
    'firstSeenAt',
    'lastSeenAt',
    'fixedAt',
    'teams',
    'modules',
  ]);
});

test("each cell is the Alert resource's value; lists joined by `;`, null empty", () => {
  const view: AlertView = {
    ...viewOf(record(), { analysis }),
    kev: { dateAdded: '2024-05-01', dueDate: '2024-05-22', knownRansomwareCampaignUse: 'Known' },
    epss: { score: 0.97312, percentile: 0.999, date: '2026-02-01' },
  };
  expect(byColumn(alertCsvCells(view, 'web'))).toEqual({
    id: 'alr_0001',
    project: 'prj_web',
    projectSlug: 'web',
    ecosystem: 'javascript',
    package: 'left-pad',
    installedVersions: '1.2.0;1.3.0',
    advisory: 'GHSA-aaaa-bbbb-cccc',
    aliases: 'GHSA-aaaa-bbbb-cccc;CVE-2024-0001',
    severity: 'high',
    cvssScore: '9.1',
    cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:N',
    kev: '2024-05-01',
    epss: '0.97312',
    status: 'open',
    suppressed: 'true',
    suppressionSource: 'analysis',
    analysisState: 'not_affected',
    analysisJustification: 'code_not_reachable',
    analysisDetail: 'never called with user input',
    fixedVersion: '1.4.0',
    firstSeenAt: '2026-01-02T03:04:05.000Z',
    lastSeenAt: '2026-02-03T04:05:06.000Z',
    fixedAt: '',
    teams: 'frontend;platform',
    modules: ':web;:web:ui',
  });
  const bare = viewOf(
    record({
      cvss: null,
      fixedVersion: null,
      modules: [],
      teams: [],
      status: 'fixed',
      fixedAt: '2026-03-01T00:00:00Z',
    }),
  );
  expect(byColumn(alertCsvCells(bare, null))).toMatchObject({
    projectSlug: '',
    cvssScore: '',
    cvssVector: '',
    kev: '',
    epss: '',
    status: 'fixed',
    suppressed: 'false',
    suppressionSource: '',
    analysisState: '',
    analysisJustification: '',
    analysisDetail: '',
    fixedVersion: '',
    fixedAt: '2026-03-01T00:00:00Z',
    teams: '',
    modules: '',
  });
});

describe('RFC 4180 and the formula guard', () => {
  const guarded = ['=1+1', '=HYPERLINK("https://evil.example","x")', '+41 22', '-2+3', '@SUM(A1)', '\tTab', '\rCR'];
  const fullWidth = ['＝1+1', '＋1', '－1', '＠SUM(A1)'];
  const kept = [
    'plain',
    'a,b',
    'say "hi"',
    'two\nlines',
    'cr\rinside',
    'crlf\r\ninside',
    '',
    ' =leading space',
    "'quoted already",
    'x=1',
    'émoji 🎉',
  ];

  test('a cell starting with = + - @ tab or CR (or their full-width forms) gets a leading quote; others are intact', () => {
    const values = [...guarded, ...fullWidth, ...kept];
    const text = csvText([values]);
    expect(parsed(text)).toEqual([[...guarded.map((v) => `'${v}`), ...fullWidth.map((v) => `'${v}`), ...kept]]);
  });

  test('records end with CRLF; a cell with a comma, quote, CR or LF is quoted, its quotes doubled', () => {
    expect(csvText([['a', 'b,c', 'say "hi"', 'x\ny', 'x\ry'], ['plain']])).toBe(
      'a,"b,c","say ""hi""","x\ny","x\ry"\r\nplain\r\n',
    );
    // the guard comes before the quoting: the guarded cell is quoted as a whole
    expect(csvText([['=1,2', '-"x"']])).toBe(`"'=1,2","'-""x"""\r\n`);
  });

  test('in an alert: a hostile package, team, module and analysis detail come back guarded and whole', () => {
    const view = viewOf(
      record({
        package: '=cmd|"/c calc"!A1',
        teams: ['@ops', '+team, the "best"'],
        modules: ['-:mod\nline'],
      }),
      { analysis: { ...analysis, detail: '\r=evil,\n"quoted"' } },
    );
    const [header, row] = parsed(csvText([ALERT_CSV_COLUMNS, alertCsvCells(view, '=slug')]));
    expect(header).toEqual(ALERT_CSV_COLUMNS);
    expect(byColumn(row)).toMatchObject({
      package: `'=cmd|"/c calc"!A1`,
      projectSlug: "'=slug",
      teams: `'@ops;+team, the "best"`, // the cell starts with @: one guard for the cell
      modules: "'-:mod\nline",
      analysisDetail: `'\r=evil,\n"quoted"`,
    });
  });
});

test('the file is made lazily: the header, then the records a chunk at a time, in the order given', () => {
  const views = Array.from({ length: 5 }, (_, i) =>
    viewOf(record({ id: `alr_${i}`, projectId: i % 2 ? 'prj_api' : 'prj_web' })),
  );
  const slugs = new Map([['prj_web', 'web']]);
  const chunks = alertCsvChunks(views, slugs, 2);
  const first = chunks.next();
  expect(first.value).toBe(csvText([ALERT_CSV_COLUMNS]));
  const rest = [...chunks];
  expect(rest).toHaveLength(3); // 2 + 2 + 1 records
  const rows = parsed([first.value, ...rest].join(''));
  expect(rows.slice(1).map((r) => [r[0], r[2]])).toEqual([
    ['alr_0', 'web'],
    ['alr_1', ''],
    ['alr_2', 'web'],
    ['alr_3', ''],
    ['alr_4', 'web'],
  ]);
  // no alert: the header row alone
  expect([...alertCsvChunks([], slugs)].join('')).toBe(csvText([ALERT_CSV_COLUMNS]));
});
