// The intelligence feeds' parsers (src/domain/intel/kev.ts, epss.ts): CISA's real KEV catalog parses whole; a
// truncated copy, a count that disagrees with the list and a date that is not YYYY-MM-DD are refused, naming what is
// wrong. EPSS files are written here in FIRST's format (comment line, header, rows) with MADE-UP scores: no real
// score file can be fetched on the test machines. Pure: SCANNER_SKIP_INFRA=1 npx jest test/unit/domain/intel-feeds
import fs from 'node:fs';
import { parseEpss, type ParsedEpss } from '../../../src/domain/intel/epss';
import { parseKev } from '../../../src/domain/intel/kev';
import { FeedRefused, isIsoDate } from '../../../src/domain/intel/refused';
import { describeWithSharedData, sharedDataPath } from '../../helpers/shared-data';

/** The reason a parse was refused with (fails the test when it was not). */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof FeedRefused) return err.reason;
    throw err;
  }
  throw new Error('not refused');
}

describeWithSharedData('the KEV catalog', () => {
  let text: string;
  let doc: { count: number; vulnerabilities: Array<Record<string, unknown>> };
  beforeAll(() => {
    text = fs.readFileSync(sharedDataPath('intel', 'known_exploited_vulnerabilities.json'), 'utf8');
    doc = JSON.parse(text);
  });

  test("CISA's catalog parses whole, from bytes or text: 1,404 entries, log4j's with its dates", () => {
    const kev = parseKev(Buffer.from(text));
    expect(kev).toMatchObject({ catalogVersion: '2025.08.25', dateReleased: '2025-08-25T17:04:19.9796Z', count: 1404 });
    expect(kev.entries.size).toBe(1404);
    expect(kev.entries.get('CVE-2021-44228')).toEqual({
      dateAdded: '2021-12-10',
      dueDate: '2021-12-24',
      knownRansomwareCampaignUse: 'Known',
    });
    expect(parseKev(text).entries.size).toBe(1404);
  });

  test('a copy cut in the middle is refused as invalid JSON', () => {
    expect(refusal(() => parseKev(text.slice(0, Math.floor(text.length / 2))))).toMatch(/^not valid JSON \(/);
  });

  test('a count that disagrees with the list is refused, and so is a list cut short that still parses', () => {
    expect(refusal(() => parseKev(JSON.stringify({ ...doc, count: doc.count + 1 })))).toBe(
      'count is 1405 but 1404 vulnerabilities are listed (a truncated or edited catalog)',
    );
    const cut = { ...doc, vulnerabilities: doc.vulnerabilities.slice(0, 700) };
    expect(refusal(() => parseKev(JSON.stringify(cut)))).toMatch(/^count is 1404 but 700 vulnerabilities are listed/);
  });

  test('a date that is not YYYY-MM-DD is refused, naming the entry', () => {
    const withDate = (i: number, field: string, value: unknown) =>
      JSON.stringify({
        ...doc,
        vulnerabilities: doc.vulnerabilities.map((v, j) => (j === i ? { ...v, [field]: value } : v)),
      });
    const id = doc.vulnerabilities[3].cveID as string;
    expect(refusal(() => parseKev(withDate(3, 'dateAdded', '2021/12/10')))).toBe(
      `vulnerabilities[3] (${id}).dateAdded: must match format "date" (KEV schema)`,
    );
    expect(refusal(() => parseKev(withDate(3, 'dueDate', '2021-02-30')))).toMatch(
      new RegExp(`^vulnerabilities\\[3\\] \\(${id}\\)\\.dueDate: `),
    );
    expect(refusal(() => parseKev(withDate(5, 'dateAdded', 20211210)))).toMatch(/dateAdded: must be string/);
  });

  test('entries off the schema, a CVE listed twice, an empty file and bytes that are not UTF-8 are refused', () => {
    const { cveID: _, ...noId } = doc.vulnerabilities[0];
    expect(
      refusal(() => parseKev(JSON.stringify({ ...doc, vulnerabilities: [noId, ...doc.vulnerabilities.slice(1)] }))),
    ).toBe('vulnerabilities[0]: lacks cveID');
    const badId = { ...doc.vulnerabilities[0], cveID: 'CVE-21-1' };
    expect(
      refusal(() => parseKev(JSON.stringify({ ...doc, vulnerabilities: [badId, ...doc.vulnerabilities.slice(1)] }))),
    ).toMatch(/^vulnerabilities\[0\] \(CVE-21-1\)\.cveID: must match pattern/);
    const twice = [...doc.vulnerabilities.slice(0, -1), doc.vulnerabilities[0]];
    expect(refusal(() => parseKev(JSON.stringify({ ...doc, vulnerabilities: twice })))).toBe(
      `vulnerabilities[1403]: ${doc.vulnerabilities[0].cveID as string} is listed twice`,
    );
    const { count: __, ...noCount } = doc;
    expect(refusal(() => parseKev(JSON.stringify(noCount)))).toBe('the catalog: lacks count');
    expect(refusal(() => parseKev(''))).toBe('the file is empty');
    expect(refusal(() => parseKev(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])))).toBe('not UTF-8 text');
    expect(refusal(() => parseKev('[]'))).toBe('the catalog: must be object (KEV schema)');
  });
});

// EPSS: every score and percentile below is MADE UP, in FIRST's file format.
const COMMENT = '#model_version:v2025.03.14,score_date:2025-08-25T00:00:00+0000';
const epssFile = (rows: string[], comment: string | null = COMMENT) =>
  [...(comment === null ? [] : [comment]), 'cve,epss,percentile', ...rows].join('\n') + '\n';

describe('EPSS scores', () => {
  test("a file in FIRST's format: the comment line's model version and score date kept, the rows packed", () => {
    const e = parseEpss(
      epssFile(['CVE-2021-44228,0.94358,0.99961', 'CVE-1999-0001,0.0123,0.5', 'CVE-2024-1234567,1e-05,0']),
    );
    expect(e).toMatchObject({ modelVersion: 'v2025.03.14', scoreDate: '2025-08-25', count: 3 });
    expect(e.cves).toEqual(['CVE-2021-44228', 'CVE-1999-0001', 'CVE-2024-1234567']);
    expect(Array.from(e.scores)).toEqual([0.94358, 0.0123, 0.00001]);
    expect(Array.from(e.percentiles)).toEqual([0.99961, 0.5, 0]);
  });

  test('CRLF line ends, a byte order mark, bytes, no final line break and trailing blank lines are read the same', () => {
    const rows = ['CVE-2024-0001,0.5,0.25', 'CVE-2024-0002,1,1.0'];
    const plain = parseEpss(epssFile(rows));
    const same = (e: ParsedEpss) => expect({ ...e }).toEqual({ ...plain });
    same(parseEpss(epssFile(rows).replace(/\n/g, '\r\n')));
    same(parseEpss(Buffer.from(`\ufeff${epssFile(rows)}`)));
    same(parseEpss(epssFile(rows).trimEnd()));
    same(parseEpss(`${epssFile(rows)}\n\n`));
  });

  test('without a comment line the score date must be given; a score_date that is no date is refused', () => {
    const rows = ['CVE-2024-0001,0.5,0.25'];
    expect(refusal(() => parseEpss(epssFile(rows, null)))).toMatch(/^the file has no score_date/);
    expect(parseEpss(epssFile(rows, null), { scoreDate: '2025-08-24' })).toMatchObject({
      modelVersion: null,
      scoreDate: '2025-08-24',
    });
    expect(refusal(() => parseEpss(epssFile(rows, null), { scoreDate: '24.08.2025' }))).toBe(
      'the score date given, "24.08.2025", is not YYYY-MM-DD',
    );
    // The file's own date wins over one given.
    expect(parseEpss(epssFile(rows), { scoreDate: '2020-01-01' }).scoreDate).toBe('2025-08-25');
    expect(refusal(() => parseEpss(epssFile(rows, '#model_version:v1,score_date:2025-13-01T00:00:00+0000')))).toMatch(
      /^line 1: score_date "2025-13-01T00:00:00\+0000" is not a date/,
    );
    expect(parseEpss(epssFile(rows, '#score_date:2025-08-25'))).toMatchObject({ modelVersion: null });
  });

  test('a row cut short (a truncated file) refuses the whole file', () => {
    const rows = ['CVE-2024-0001,0.5,0.25', 'CVE-2024-0002,0.1,0.2', 'CVE-2024-0003,0.'];
    expect(refusal(() => parseEpss(epssFile(rows).slice(0, -4)))).toBe(
      'line 5: "CVE-2024-0003" has 1 field of 3 (cve,epss,percentile): a row cut short, the file truncated?',
    );
    expect(refusal(() => parseEpss(epssFile(rows)))).toMatch(/^line 5: "CVE-2024-0003,0\." has 2 fields of 3/);
    expect(refusal(() => parseEpss(epssFile(['CVE-2024-0001,0.5,0.25,x'])))).toMatch(/has more than 3 fields$/);
  });

  test.each([
    ['1.5', 'epss'],
    ['-0.1', 'epss'],
    ['abc', 'epss'],
    ['', 'epss'],
    ['0x1', 'epss'],
    ['NaN', 'epss'],
    ['Infinity', 'epss'],
    [' 0.5', 'epss'],
    ['1e5', 'epss'],
    ['0.5.1', 'epss'],
    ['1e', 'epss'],
  ])('a bad number (%j) is refused', (bad, column) => {
    expect(refusal(() => parseEpss(epssFile(['CVE-2024-0001,0.5,0.25', `CVE-2024-0002,${bad},0.3`])))).toBe(
      `line 4: ${column} ${JSON.stringify(bad)} is not a number from 0 to 1`,
    );
    expect(refusal(() => parseEpss(epssFile([`CVE-2024-0002,0.3,${bad}`])))).toBe(
      `line 3: percentile ${JSON.stringify(bad)} is not a number from 0 to 1`,
    );
  });

  test('CVE ids are checked, and one listed twice is refused', () => {
    for (const bad of ['cve-2024-0001', 'CVE-24-0001', 'CVE-2024-001', 'CVE-2024-0001a', 'GHSA-xxxx-yyyy-zzzz', ''])
      expect(refusal(() => parseEpss(epssFile([`${bad},0.5,0.25`])))).toBe(
        `line 3: ${JSON.stringify(bad)} is not a CVE id (CVE-YYYY-NNNN)`,
      );
    expect(
      refusal(() => parseEpss(epssFile(['CVE-2024-0001,0.5,0.25', 'CVE-2024-0002,0.5,0.25', 'CVE-2024-0001,0.1,0.1']))),
    ).toBe('line 5: CVE-2024-0001 is listed twice');
    // Ids too long for a numeric key (more than 11 digits) are told apart too.
    const long = 'CVE-2024-1234567890123456789';
    expect(refusal(() => parseEpss(epssFile([`${long},0.5,0.25`, `${long},0.5,0.25`])))).toBe(
      `line 4: ${long} is listed twice`,
    );
    expect(parseEpss(epssFile(['CVE-2024-123456789012,0.5,0.25', 'CVE-2024-123456789013,0.5,0.25'])).count).toBe(2);
  });

  test('an empty file, a comment alone, a header alone, a wrong header and a blank line between rows are refused', () => {
    expect(refusal(() => parseEpss(''))).toBe('the file is empty');
    expect(refusal(() => parseEpss(' \n'))).toBe('the file is empty');
    expect(refusal(() => parseEpss(`${COMMENT}\n`))).toMatch(/^the header line cve,epss,percentile is missing/);
    expect(refusal(() => parseEpss(epssFile([])))).toBe('no rows after the header');
    expect(refusal(() => parseEpss(`${COMMENT}\ncve,score,percentile\nCVE-2024-0001,0.5,0.25\n`))).toBe(
      'line 2: expected the header cve,epss,percentile, found "cve,score,percentile"',
    );
    expect(refusal(() => parseEpss(`${COMMENT}\nCVE-2024-0001,0.5,0.25\n`))).toMatch(/^line 2: expected the header/);
    expect(refusal(() => parseEpss(epssFile(['CVE-2024-0001,0.5,0.25', '', 'CVE-2024-0002,0.5,0.25'])))).toBe(
      'line 4: an empty line between rows',
    );
  });

  test("numbers are read exactly as Number() reads them (the fast path's division is correctly rounded)", () => {
    let seed = 42;
    const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const texts: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const digits = 1 + Math.floor(rand() * 15);
      texts.push(i % 7 === 0 ? '1' : i % 11 === 0 ? `${rand().toFixed(digits)}00` : rand().toFixed(digits));
    }
    texts.push('0', '1.0', '0.000000000000001', '0.99999999999999999999', '.5', '1.', '5e-1', '2.5E-3');
    const e = parseEpss(epssFile(texts.map((x, i) => `CVE-2024-${10000 + i},${x},${x}`)));
    const off = texts.filter((x, i) => e.scores[i] !== Number(x) || e.percentiles[i] !== Number(x));
    expect(off).toEqual([]);
  });

  test("300,000 rows parse whole, in order (the speed is the bench's: npm run bench -- intel)", () => {
    const rows: string[] = [];
    for (let i = 0; i < 300_000; i++)
      rows.push(`CVE-${1999 + (i % 27)}-${String(10000 + i)},${((i * 7919) % 100000) / 100000},${(i % 1000) / 1000}`);
    const e = parseEpss(Buffer.from(epssFile(rows))); // as the import hands it over: the file's bytes
    expect(e.count).toBe(300_000);
    expect(e.cves[0]).toBe('CVE-1999-10000');
    expect(e.cves[299_999]).toBe(`CVE-${1999 + (299_999 % 27)}-309999`);
    expect(e.scores[299_999]).toBe(((299_999 * 7919) % 100000) / 100000);
    expect(e.percentiles[299_999]).toBe((299_999 % 1000) / 1000);
  });
});

test('isIsoDate takes real days only', () => {
  expect(['2024-02-29', '2000-02-29', '1999-12-31'].every(isIsoDate)).toBe(true);
  expect(
    ['2023-02-29', '1900-02-29', '2024-04-31', '2024-00-10', '2024-1-10', '2024-01-10T00:00:00Z'].some(isIsoDate),
  ).toBe(false);
});
