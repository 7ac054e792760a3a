// The repository's suppressions file (src/client/suppressions.ts): a good file, every kind of error with its line,
// the service's own rules (held to the service's validation and matcher), merging into snapshots, the warnings, and
// `scanner snapshot` in-process with the file and with --suppressions.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { main } from '../../../src/client/main';
import { InputError } from '../../../src/client/errors';
import {
  CHECKED_KEYWORDS,
  SUPPRESSIONS_FILE,
  expiredWarnings,
  loadSuppressions,
  mergeSuppressions,
  parseSuppressions,
  unmatchedWarnings,
  withSuppressions,
  type SuppressionsFile,
} from '../../../src/client/suppressions';
import { suppressionsThatApplied } from '../../../src/client/suppression-match';
import { validateSnapshot } from '../../../src/domain/snapshot';
import { activeSuppressions, findSuppression } from '../../../src/domain/suppressions';
import { suppression, suppressions } from '../../../src/shared/snapshot-schema-parts';
import type { Snapshot, SnapshotSuppression } from '../../../src/shared/types';

const FILE = '.scanner/suppressions.yaml';
const parse = (text: string) => parseSuppressions(text, FILE);
/** The message the client exits 2 with, or 'ok'. */
const problem = (text: string): string => {
  try {
    parse(text);
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(InputError);
    return (err as Error).message;
  }
};
const yaml = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('a good file', () => {
  test('each entry with the line it starts on; comments, quoting and block scalars as YAML reads them', () => {
    const text = yaml(
      '# Suppressions of this repository (docs/client.md)',
      'suppressions:',
      '  - cve: CVE-2024-37890',
      '    package: ws',
      '    reason: Only the dev server opens a WebSocket; not reachable in production.',
      '    expires: 2099-12-31',
      '',
      '  # every package',
      '  - cve: "GHSA-3h5v-q93c-6h6q"',
      '    reason: >-',
      '      Folded over',
      '      two lines.',
      '  - {cve: PYSEC-2024-1, package: "org.apache.*:log4j-*", reason: "see #123"}',
      '  - cve: CVE-2023-1',
      '    reason: |',
      '      first line',
      '      second line',
    );
    expect(parse(text)).toEqual([
      {
        line: 3,
        suppression: {
          cve: 'CVE-2024-37890',
          package: 'ws',
          reason: 'Only the dev server opens a WebSocket; not reachable in production.',
          expires: '2099-12-31',
        },
      },
      { line: 9, suppression: { cve: 'GHSA-3h5v-q93c-6h6q', reason: 'Folded over two lines.' } },
      { line: 13, suppression: { cve: 'PYSEC-2024-1', package: 'org.apache.*:log4j-*', reason: 'see #123' } },
      // A literal block keeps its line breaks, the last one too (|- drops it): the reason is sent as written.
      { line: 14, suppression: { cve: 'CVE-2023-1', reason: 'first line\nsecond line\n' } },
    ]);
  });

  test('an empty file, one of comments only, and an empty list hold no suppressions; a BOM is skipped', () => {
    expect(parse('')).toEqual([]);
    expect(parse('# nothing suppressed yet\n')).toEqual([]);
    expect(parse('suppressions: []\n')).toEqual([]);
    expect(parse('\uFEFFsuppressions:\n  - cve: A\n    reason: r\n')).toEqual([
      { line: 2, suppression: { cve: 'A', reason: 'r' } },
    ]);
  });

  test('JSON is YAML: {"suppressions": [...]} reads the same', () => {
    const list = [{ cve: 'CVE-1', reason: 'r', package: 'p*', expires: '2030-01-01' }];
    expect(parse(JSON.stringify({ suppressions: list })).map((e) => e.suppression)).toEqual(list);
  });
});

describe('every error names the file and the line', () => {
  test.each<[string, string, string]>([
    [
      'YAML syntax: an unclosed flow list',
      yaml('suppressions:', '  - cve: A', '    reason: [oops'),
      `${FILE}:3: invalid YAML`,
    ],
    ['YAML syntax: a bad indent', yaml('suppressions:', '  - cve: A', '  reason: r'), `${FILE}:3: invalid YAML`],
    ['YAML syntax: a tab indent', yaml('suppressions:', '\t- cve: A'), `${FILE}:2: invalid YAML`],
    [
      'YAML: a key twice in one entry',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    cve: B'),
      `${FILE}:4: invalid YAML: Map keys must be unique`,
    ],
    [
      'YAML: two documents',
      yaml('suppressions: []', '---', 'suppressions: []'),
      `${FILE}:2: a second YAML document: the file is one document`,
    ],
    ['YAML: an unknown tag', yaml('suppressions:', '  - cve: !weird A', '    reason: r'), `${FILE}:2: invalid YAML`],
    [
      'a top-level list',
      yaml('- cve: A', '  reason: r'),
      `${FILE}:1: expected a mapping with a "suppressions:" list, found a list (a top-level list is not accepted: put it under "suppressions:")`,
    ],
    [
      'a top-level string',
      yaml('just text'),
      `${FILE}:1: expected a mapping with a "suppressions:" list, found a string`,
    ],
    [
      'an unknown top-level field',
      yaml('suppressions: []', 'version: 1'),
      `${FILE}:2: unknown field "version": the file has one field, "suppressions"`,
    ],
    ['no suppressions field', yaml('{}'), `${FILE}:1: the "suppressions:" field is missing`],
    [
      'suppressions: with nothing',
      yaml('# header', 'suppressions:'),
      `${FILE}:2: "suppressions" must be a list of suppressions, found nothing (null) (write "suppressions: []" for none)`,
    ],
    [
      'suppressions: a mapping',
      yaml('suppressions:', '  cve: A'),
      `${FILE}:2: "suppressions" must be a list of suppressions, found a mapping`,
    ],
    [
      'an entry that is a string',
      yaml('suppressions:', '  - cve: A', '    reason: r', '  - CVE-2024-1'),
      `${FILE}:4: a suppression must be a mapping of cve, reason, package and expires, found a string`,
    ],
    [
      'an unknown field in an entry',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    severity: low'),
      `${FILE}:4: unknown field "severity" in a suppression (its fields: cve, reason, package, expires)`,
    ],
    [
      'a field name in the wrong case',
      yaml('suppressions:', '  - CVE: A', '    reason: r'),
      `${FILE}:2: unknown field "CVE" in a suppression`,
    ],
    ['cve missing', yaml('suppressions:', '  - package: x', '    reason: r'), `${FILE}:2: cve is required`],
    ['reason missing', yaml('suppressions:', '  - cve: A', '', '  - cve: B'), `${FILE}:2: reason is required`],
    [
      'cve a number',
      yaml('suppressions:', '  - cve: 2024', '    reason: r'),
      `${FILE}:2: cve must be a string, found a number (2024)`,
    ],
    [
      'reason a boolean',
      yaml('suppressions:', '  - cve: A', '    reason: true'),
      `${FILE}:3: reason must be a string, found a boolean (true)`,
    ],
    [
      'package empty (null)',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    package:'),
      `${FILE}:4: package must be a string, found nothing`,
    ],
    [
      'package a list',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    package:', '      - a', '      - b'),
      `${FILE}:5: package must be a string, found a list`,
    ],
    ['cve empty', yaml('suppressions:', '  - cve: ""', '    reason: r'), `${FILE}:2: cve must not be empty`],
    ['reason empty', yaml('suppressions:', '  - cve: A', "    reason: ''"), `${FILE}:3: reason must not be empty`],
    [
      'package empty',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    package: ""'),
      `${FILE}:4: package must not be empty`,
    ],
    [
      'a control character in cve',
      yaml('suppressions:', '  - cve: "CVE-1\\t"', '    reason: r'),
      `${FILE}:2: cve must not contain control characters (U+0000 to U+001F, U+007F)`,
    ],
    [
      'a control character in package',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    package: "a\\u007fb"'),
      `${FILE}:4: package must not contain control characters`,
    ],
    [
      'cve over 2000 characters',
      yaml('suppressions:', '  - cve: A', '    reason: r', '  - cve: ' + 'C'.repeat(2001), '    reason: r'),
      `${FILE}:4: cve must be at most 2000 characters (it has 2001)`,
    ],
    [
      'reason over 2000 characters',
      yaml('suppressions:', '  - cve: A', '    reason: ' + 'r'.repeat(2001)),
      `${FILE}:3: reason must be at most 2000 characters (it has 2001)`,
    ],
    [
      'expires not a date',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    expires: next year'),
      `${FILE}:4: expires must be a calendar date YYYY-MM-DD`,
    ],
    [
      'expires a day that does not exist',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    expires: 2025-02-29'),
      `${FILE}:4: expires must be a calendar date YYYY-MM-DD`,
    ],
    [
      'expires with a time',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    expires: 2025-01-01T00:00:00Z'),
      `${FILE}:4: expires must be a calendar date YYYY-MM-DD`,
    ],
    [
      'expires a number',
      yaml('suppressions:', '  - cve: A', '    reason: r', '    expires: 20250101'),
      `${FILE}:4: expires must be a string, found a number (20250101)`,
    ],
    [
      'an alias',
      yaml('suppressions:', '  - &one {cve: A, reason: r}', '  - *one'),
      `${FILE}:3: aliases (*name) are not accepted`,
    ],
    [
      'an alias as a value',
      yaml('suppressions:', '  - {cve: &id A, reason: r}', '  - {cve: B, reason: *id}'),
      `${FILE}:3: reason: aliases (*name) are not accepted`,
    ],
    [
      'the same cve (any case) and package twice',
      yaml(
        'suppressions:',
        '  - cve: CVE-2024-1',
        '    package: ws',
        '    reason: r',
        '  - cve: CVE-2024-1',
        '    reason: every package, another entry',
        '  - cve: cve-2024-1',
        '    package: ws',
        '    reason: again',
      ),
      `${FILE}:7: the suppression of cve-2024-1 for ws is already at line 2: one entry per advisory and package (only the first would apply)`,
    ],
    [
      'the same cve without package twice',
      yaml('suppressions:', '  - {cve: A, reason: r}', '  - {cve: A, reason: s, expires: 2099-01-01}'),
      `${FILE}:3: the suppression of A is already at line 2`,
    ],
  ])('%s', (_, text, expected) => {
    const message = problem(text);
    expect(message.startsWith(expected)).toBe(true);
    // One line: what the client prints after `scanner: `.
    expect(message).not.toContain('\n');
  });

  test('2000 characters are counted as the service counts them: code points', () => {
    const emoji = '\u{1F600}'.repeat(2000); // 4,000 UTF-16 units
    expect(problem(yaml('suppressions:', `  - cve: A`, `    reason: "${emoji}"`))).toBe('ok');
    expect(problem(yaml('suppressions:', `  - cve: A`, `    reason: "${emoji}x"`))).toMatch(
      /:3: reason must be at most/,
    );
  });

  test('a reason may span lines (only its length is bounded), 2024-02-29 is a day', () => {
    expect(problem(yaml('suppressions:', '  - cve: A', '    reason: "a\\nb\\tc"', '    expires: 2024-02-29'))).toBe(
      'ok',
    );
  });
});

describe("the service's rules, from the shared schema", () => {
  test('the schema uses only keywords the client checks', () => {
    const props = Object.values(suppression.properties) as object[];
    for (const rule of props) for (const k of Object.keys(rule)) expect(CHECKED_KEYWORDS).toContain(k);
    for (const rule of props) expect((rule as { type: string }).type).toBe('string');
    expect(Object.keys(suppression).sort()).toEqual(['additionalProperties', 'properties', 'required', 'type']);
    for (const k of Object.keys(suppressions)) expect(['type', 'items', 'maxItems']).toContain(k);
  });

  const snapshotWith = (list: unknown[]) => ({
    schemaVersion: 1,
    project: 'p',
    ecosystem: 'javascript',
    roots: [{ module: '.', context: 'dependencies', dependencies: [] }],
    nodes: [],
    suppressions: list,
  });
  const serverAccepts = (s: Record<string, string>) => {
    const body = JSON.stringify(snapshotWith([s]));
    try {
      validateSnapshot(JSON.parse(body), Buffer.byteLength(body));
      return true;
    } catch {
      return false;
    }
  };
  const clientAccepts = (s: Record<string, string>) => problem(JSON.stringify({ suppressions: [s] })) === 'ok';

  test.each([
    [{ cve: 'CVE-1', reason: 'r' }],
    [{ cve: 'anything at all', reason: 'r', package: '*' }],
    [{ cve: '', reason: 'r' }],
    [{ cve: 'A', reason: '' }],
    [{ cve: 'A', reason: 'a\nb' }],
    [{ cve: 'A\n', reason: 'r' }],
    [{ cve: 'A', reason: 'r', package: 'a\u0000' }],
    [{ cve: 'A', reason: 'r', package: '' }],
    [{ cve: 'A', reason: 'r', expires: '2024-02-29' }],
    [{ cve: 'A', reason: 'r', expires: '2023-02-29' }],
    [{ cve: 'A', reason: 'r', expires: '2023-13-01' }],
    [{ cve: 'A', reason: 'r', expires: '2023-1-01' }],
    [{ cve: 'A', reason: 'r', expires: '99999-01-01' }],
    [{ cve: 'x'.repeat(2000), reason: 'r'.repeat(2000), package: 'p'.repeat(2000) }],
    [{ cve: 'x'.repeat(2001), reason: 'r' }],
    [{ cve: 'A', reason: 'r'.repeat(2001) }],
    [{ cve: '\u{1F600}'.repeat(2000), reason: 'r' }],
  ])('client and service agree on %j', (s) => {
    expect(clientAccepts(s)).toBe(serverAccepts(s));
  });

  test('client and service agree on generated entries', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.string({ unit: 'grapheme', maxLength: 8 }),
      fc.constantFrom('', '\u0000', '\u001f', '\u007f', '\u0080', 'x'.repeat(2000), 'x'.repeat(2001)),
    );
    const date = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 14 }), fc.integer({ min: 0, max: 32 }))
        .map(
          ([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
        ),
      fc.string({ maxLength: 12 }),
    );
    const entry = fc.record(
      { cve: text, reason: text, package: text, expires: date },
      { requiredKeys: ['cve', 'reason'] },
    ) as fc.Arbitrary<Record<string, string>>;
    fc.assert(
      fc.property(entry, (s) => clientAccepts(s) === serverAccepts(s)),
      { numRuns: 400 },
    );
  });
});

describe('matching as the service matches', () => {
  test('the suppressions that applied are those the domain picks: first in order, alias ids, expiry, PEP 503', () => {
    const day = '2026-06-01';
    const list: SnapshotSuppression[] = [
      { cve: 'GHSA-aaaa', reason: 'first', package: 'left-*' },
      { cve: 'cve-2024-1', reason: 'second' },
      { cve: 'CVE-2024-1', reason: 'shadowed by the second', package: 'left-pad' },
      { cve: 'CVE-2024-2', reason: 'expired', expires: '2026-05-31' },
      { cve: 'CVE-2024-3', reason: 'python', package: 'Zope.Interface' },
      { cve: 'CVE-2024-4', reason: 'never' },
    ];
    const findings = [
      { cve: 'CVE-2024-1', aliases: ['CVE-2024-1', 'GHSA-AAAA'], package: 'left-pad' },
      { cve: 'CVE-2024-1', aliases: ['CVE-2024-1'], package: 'other' },
      { cve: 'CVE-2024-2', aliases: ['CVE-2024-2'], package: 'x' },
      { cve: 'CVE-2024-3', aliases: ['CVE-2024-3'], package: 'zope-interface' },
    ].map((f) => ({ ...f, suppressed: true, suppressionSource: 'snapshot' as const }));
    for (const ecosystem of ['javascript', 'python'] as const) {
      const index = activeSuppressions(list, ecosystem, day);
      // The reasons tell the suppressions apart (activeSuppressions numbers only those in force).
      const domain = new Set(findings.map((f) => findSuppression(index, f.aliases, f.package)?.reason));
      const expected = list.filter((s) => domain.has(s.reason));
      expect(suppressionsThatApplied(list, ecosystem, findings, day)).toEqual(expected);
    }
    expect(suppressionsThatApplied(list, 'python', findings, day).map((s) => s.reason)).toEqual([
      'first',
      'second',
      'python',
    ]);
    expect(suppressionsThatApplied(list, 'javascript', findings, day).map((s) => s.reason)).toEqual([
      'first',
      'second',
    ]);
    // Findings suppressed by an alert analysis or a triage rule, or not suppressed, say nothing of the snapshot's.
    const others = findings.map((f, i) => ({
      ...f,
      suppressed: i > 0,
      suppressionSource: i === 1 ? ('analysis' as const) : i === 2 ? ('rule' as const) : null,
    }));
    expect(suppressionsThatApplied(list, 'python', others, day).map((s) => s.reason)).toEqual(['python']);
  });
});

describe('into the snapshots, and the warnings', () => {
  const file: SuppressionsFile = {
    display: FILE,
    entries: [
      { line: 2, suppression: { cve: 'CVE-1', reason: 'r', package: 'ws' } },
      { line: 5, suppression: { cve: 'CVE-2', reason: 'r' } },
      { line: 7, suppression: { cve: 'CVE-3', reason: 'r', expires: '2026-05-31' } },
      { line: 10, suppression: { cve: 'CVE-4', reason: 'r', expires: '2026-06-01' } },
    ],
  };

  test("appended after the snapshot's own, without duplicates", () => {
    const own: SnapshotSuppression[] = [
      { cve: 'cve-1', reason: 'r', package: 'ws' },
      { cve: 'X', reason: 'producer' },
    ];
    const added = file.entries.map((e) => e.suppression);
    expect(mergeSuppressions(own, added)).toEqual([own[0], own[1], added[1], added[2], added[3]]);
    expect(mergeSuppressions(undefined, added)).toEqual(added);
    const snapshot = { schemaVersion: 1, project: 'p', ecosystem: 'javascript', roots: [], nodes: [] } as Snapshot;
    expect(withSuppressions(snapshot, [])).toBe(snapshot);
    expect(withSuppressions(snapshot, added).suppressions).toEqual(added);
    expect(snapshot.suppressions).toBeUndefined();
  });

  test('expired: before today (UTC) only, as the service ignores it', () => {
    expect(expiredWarnings(file, '2026-06-01')).toEqual([
      `${FILE}:7: suppression of CVE-3 expired (expires 2026-05-31, before today 2026-06-01 UTC): the service ignores it`,
    ]);
    expect(expiredWarnings(file, '2026-05-31')).toEqual([]);
  });

  test('matched nothing: each entry in force that no finding was suppressed by', () => {
    const used: SnapshotSuppression[] = [{ cve: 'cve-2', reason: 'r' }];
    expect(unmatchedWarnings(file, used, '2026-06-01')).toEqual([
      `${FILE}:2: suppression of CVE-1 for ws matched no finding`,
      `${FILE}:10: suppression of CVE-4 matched no finding`,
    ]);
  });
});

describe('the file of a run', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suppressions-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('the default file under the root, named relative to the working directory; none: undefined', () => {
    expect(loadSuppressions({ root: dir, cwd: dir })).toBeUndefined();
    fs.mkdirSync(path.join(dir, '.scanner'));
    fs.writeFileSync(path.join(dir, SUPPRESSIONS_FILE), yaml('suppressions:', '  - {cve: A, reason: r}'));
    expect(loadSuppressions({ root: dir, cwd: dir })).toEqual({
      display: SUPPRESSIONS_FILE,
      entries: [{ line: 2, suppression: { cve: 'A', reason: 'r' } }],
    });
    expect(loadSuppressions({ root: dir, cwd: path.dirname(dir) })?.display).toBe(
      path.join(path.basename(dir), SUPPRESSIONS_FILE),
    );
    expect(loadSuppressions({ root: dir, cwd: path.join(dir, '.scanner') })?.display).toBe('suppressions.yaml');
    // Outside the working directory: the whole path.
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'elsewhere-'));
    try {
      expect(loadSuppressions({ root: dir, cwd: elsewhere })?.display).toBe(path.join(dir, SUPPRESSIONS_FILE));
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  test('--suppressions: as given, relative to the working directory; missing or a folder is an input error', () => {
    fs.writeFileSync(path.join(dir, 'other.yaml'), yaml('suppressions:', '  - {cve: B, reason: r}'));
    expect(loadSuppressions({ root: '/nowhere', cwd: dir, flag: 'other.yaml' })?.entries).toHaveLength(1);
    expect(() => loadSuppressions({ root: dir, cwd: dir, flag: 'missing.yaml' })).toThrow(
      new InputError('--suppressions missing.yaml: no such file'),
    );
    expect(() => loadSuppressions({ root: dir, cwd: dir, flag: '.' })).toThrow(new InputError('.: not a file'));
  });
});

describe('scanner snapshot', () => {
  let dir: string;
  const FIXTURE = path.resolve(__dirname, '../../fixtures/npm/nested-v2');
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suppressions-cmd-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    fs.mkdirSync(path.join(dir, '.scanner'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function run(args: string[]) {
    let out = '';
    let err = '';
    const code = await main(['snapshot', ...args], {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      env: {},
      cwd: dir,
      stdoutIsTTY: false,
      stderrIsTTY: false,
    });
    return { code, out, err };
  }

  test('the file goes into the snapshot, which the service accepts; an expired entry is a warning', async () => {
    fs.writeFileSync(
      path.join(dir, SUPPRESSIONS_FILE),
      yaml(
        'suppressions:',
        '  - cve: CVE-2024-1',
        '    package: "@scope/*"',
        '    reason: not reachable',
        '  - cve: CVE-2020-2',
        '    reason: long gone',
        '    expires: 2020-01-01',
      ),
    );
    const { code, out, err } = await run(['.', '--project', 'p']);
    expect(code).toBe(0);
    expect(err).toBe(
      `scanner: warning: ${FILE}:5: suppression of CVE-2020-2 expired (expires 2020-01-01, before today ${new Date().toISOString().slice(0, 10)} UTC): the service ignores it\n`,
    );
    const snapshot = JSON.parse(out);
    expect(snapshot.suppressions).toEqual([
      { cve: 'CVE-2024-1', package: '@scope/*', reason: 'not reachable' },
      { cve: 'CVE-2020-2', reason: 'long gone', expires: '2020-01-01' },
    ]);
    const body = JSON.stringify(snapshot);
    expect(() => validateSnapshot(JSON.parse(body), Buffer.byteLength(body))).not.toThrow();
  });

  test('a malformed file exits 2 naming file and line, and writes nothing', async () => {
    fs.writeFileSync(path.join(dir, SUPPRESSIONS_FILE), yaml('suppressions:', '  - cve: A', '    reson: typo'));
    const { code, out, err } = await run(['.', '--project', 'p']);
    expect({ code, out, err }).toEqual({
      code: 2,
      out: '',
      err: `scanner: ${FILE}:3: unknown field "reson" in a suppression (its fields: cve, reason, package, expires)\n`,
    });
  });

  test('--suppressions FILE replaces the default; a FILE that does not exist exits 2', async () => {
    fs.writeFileSync(path.join(dir, SUPPRESSIONS_FILE), 'not: [valid\n');
    fs.writeFileSync(path.join(dir, 'other.yaml'), yaml('suppressions:', '  - {cve: B, reason: r}'));
    const { code, out } = await run(['.', '--project', 'p', '--suppressions', 'other.yaml']);
    expect(code).toBe(0);
    expect(JSON.parse(out).suppressions).toEqual([{ cve: 'B', reason: 'r' }]);
    expect(await run(['.', '--project', 'p', '--suppressions', 'nope.yaml'])).toEqual({
      code: 2,
      out: '',
      err: 'scanner: --suppressions nope.yaml: no such file\n',
    });
  });

  test('no file: the snapshot has no suppressions field', async () => {
    const { code, out } = await run(['.', '--project', 'p']);
    expect(code).toBe(0);
    expect(JSON.parse(out)).not.toHaveProperty('suppressions');
  });
});
