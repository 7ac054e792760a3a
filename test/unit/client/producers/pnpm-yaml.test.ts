// The fast reader of the YAML pnpm writes: whatever it returns equals the yaml package's parse() (what pnpm-read.ts
// used alone before), and whatever lies outside its subset returns undefined, so that the yaml package reads it.
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Document, isMap, isSeq, parse, visit } from 'yaml';
import { readPnpmYaml } from '../../../../src/client/producers/pnpm-yaml';
import { itWithSharedData, sharedDataPath } from '../../../helpers/shared-data';

const VUE = sharedDataPath('lockfiles', 'npm', 'vuejs__core__pnpm-lock.yaml');
const FIXTURES = path.resolve(__dirname, '../../../fixtures/pnpm');

/** Every pnpm-lock.yaml under a folder. */
function lockfiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? lockfiles(p) : d.name === 'pnpm-lock.yaml' ? [p] : [];
  });
}

/** yaml's reading, or undefined when it refuses the text. */
function yamlParse(text: string): unknown {
  try {
    return parse(text, { logLevel: 'error' });
  } catch {
    return undefined;
  }
}

/** The fast reader gave up, or read what the yaml package reads (and the yaml package did not refuse it). */
function expectSameOrBail(text: string): unknown {
  const fast = readPnpmYaml(text);
  if (fast !== undefined) expect(fast).toStrictEqual(yamlParse(text));
  return fast;
}

describe('pnpm YAML reader: lockfiles pnpm wrote', () => {
  const files = lockfiles(FIXTURES);
  const readsAsYaml = (file: string) => {
    const text = fs.readFileSync(file, 'utf8');
    const expected = parse(text);
    expect(readPnpmYaml(text)).toStrictEqual(expected);
    expect(readPnpmYaml(text.replace(/\n/g, '\r\n'))).toStrictEqual(expected);
    expect(readPnpmYaml(`---\n${text}`)).toStrictEqual(expected);
  };

  it('finds the lockfiles', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  it.each(files.map((f) => [path.relative(path.dirname(FIXTURES), f), f]))(
    'reads %s as the yaml package does',
    (_name, file) => readsAsYaml(file),
  );

  itWithSharedData("reads vuejs/core's pnpm-lock.yaml (third-party data) as the yaml package does", () =>
    readsAsYaml(VUE),
  );
});

describe('pnpm YAML reader: the shapes pnpm writes', () => {
  it('reads nested maps, null entries, block sequences and flat flow collections', () => {
    const text = [
      "lockfileVersion: '9.0'",
      '',
      'importers:',
      '',
      '  .:',
      '    dependencies:',
      "      '@s/a':",
      '        specifier: ^1.0.0',
      '        version: 1.0.0(react@18.3.1)',
      '  packages/empty: {}',
      '',
      'packages:',
      '',
      "  '@s/a@1.0.0':",
      '    resolution: {integrity: sha512-AbC+/9==}',
      "    engines: {node: '>=18'}",
      '    cpu: [x64, arm64]',
      "    os: ['!win32']",
      '    hasBin: true',
      '    deprecated: Use b, not a [see docs] (a#b)',
      '    resolution2: {tarball: https://codeload.github.com/a/b/tar.gz/0a1b, integrity: sha1-x}',
      '',
      'snapshots:',
      '',
      "  '@s/a@1.0.0':",
      '    transitivePeerDependencies:',
      '      - supports-color',
      "      - '@types/node'",
      '  b@2.0.0: {}',
      '  c@3.0.0:',
      '',
    ].join('\n');
    const fast = readPnpmYaml(text);
    expect(fast).toStrictEqual(parse(text));
    expect(fast).toMatchObject({
      snapshots: { 'c@3.0.0': null, '@s/a@1.0.0': { transitivePeerDependencies: ['supports-color', '@types/node'] } },
    });
  });

  it('reads v5 lockfiles with their numeric lockfileVersion', () => {
    expect(readPnpmYaml('lockfileVersion: 5.4\n')).toStrictEqual({ lockfileVersion: 5.4 });
    expect(readPnpmYaml('lockfileVersion: 5\n')).toStrictEqual({ lockfileVersion: 5 });
  });
});

describe('pnpm YAML reader: scalars typed as the yaml package types them', () => {
  // Each as a value, an item of a block sequence, of a flow sequence and of a flow mapping, and as a key; the reader
  // may give up on some (undefined), never differ. Those it must read are checked apart.
  const samples = [
    'true',
    'false',
    'True',
    'FALSE',
    'TRUE',
    'yes',
    'no',
    'on',
    'off',
    'y',
    'n',
    'null',
    'Null',
    'NULL',
    '~',
    'nul',
    'nulls',
    '~1.0',
    'truely',
    '0',
    '1',
    '42',
    '007',
    '5.4',
    '9.0',
    '10.10',
    '1.0.0',
    '1.',
    '.5',
    '+1',
    '-1',
    '1e3',
    '1E3',
    '1e',
    '0x1A',
    '0xG',
    '0o17',
    '0o8',
    '0b101',
    '1_000',
    '.inf',
    '-.inf',
    '.NaN',
    '.nan',
    '.Inf',
    '1:20',
    '2001-12-14',
    '12345678901234567890',
    '^1.2.3',
    '>=18',
    '<2',
    '=1.0.0',
    '*',
    '1.0.0 || 2.0.0',
    'link:../lib',
    'file:../x',
    'workspace:*',
    'catalog:',
    'https://registry.npmjs.org/a/-/a-1.0.0.tgz',
    'git+ssh://git@github.com/a/b.git#abc',
    'a:b',
    'a: b',
    'a #b',
    'a#b',
    "'quoted'",
    "'it''s'",
    "''",
    "'a: b'",
    "'#x'",
    '"double"',
    '"a\\"b"',
    '"a\\\\b"',
    '"\\u00e9"',
    '"\\/"',
    '"\\x41"',
    '"\\e"',
    '"\\t"',
    '""',
    '"a\\nb"',
    '"\\ud83d\\ude00"',
    '"x\\\\"',
    "'a''",
    '"a',
    '@scope/name@1.0.0(peer@2.0.0)',
    '/a@1.0.0',
    '.',
    '..',
    '-',
    '- a',
    '?',
    '? a',
    ':',
    '&a',
    '*a',
    '!x',
    '!!str x',
    '|',
    '>',
    '%x',
    '`x',
    'a,b',
    'a, b',
    '[a]',
    '{a: b}',
    '{}',
    '[]',
    'a]',
    'a}',
    'é',
    '日本',
    'a  b',
    'a\tb',
    '<<',
    '=',
    'sha512-AbC+/9==',
    'x64',
    'win32',
  ];

  it.each(samples)('%s', (s) => {
    expectSameOrBail(`key: ${s}\n`);
    expectSameOrBail(`key:\n  - ${s}\n`);
    expectSameOrBail(`key: [${s}]\n`);
    expectSameOrBail(`key: [x, ${s}]\n`);
    expectSameOrBail(`key: {k: ${s}}\n`);
    expectSameOrBail(`key: {k: x, l: ${s}}\n`);
    expectSameOrBail(`${s}: x\n`);
    expectSameOrBail(`key: {${s}: x}\n`);
  });

  it('reads what pnpm writes, typed', () => {
    const must: Array<[string, unknown]> = [
      ['true', true],
      ['false', false],
      ['null', null],
      ['~', null],
      ['', null],
      ['42', 42],
      ['5.4', 5.4],
      ["'9.0'", '9.0'],
      ['1.0.0', '1.0.0'],
      ['yes', 'yes'],
      ['^1.2.3', '^1.2.3'],
      ["'>=18'", '>=18'],
      ['a#b', 'a#b'],
      ['link:../lib', 'link:../lib'],
      ['https://x.org/a.tgz', 'https://x.org/a.tgz'],
      ["'it''s'", "it's"],
      ['"a\\"b\\u00e9"', 'a"bé'],
      ['1.0.0(a@1.0.0)(b@2.0.0)', '1.0.0(a@1.0.0)(b@2.0.0)'],
      ['{}', {}],
      ['[]', []],
      ['[x64, arm64]', ['x64', 'arm64']],
      ["{node: '>=18', npm: ^9}", { node: '>=18', npm: '^9' }],
    ];
    for (const [s, v] of must) {
      const text = s === '' ? 'key:\n' : `key: ${s}\n`;
      expect(readPnpmYaml(text)).toStrictEqual({ key: v });
      expect(yamlParse(text)).toStrictEqual({ key: v });
    }
    for (const k of [
      "'@babel/core@7.0.0(supports-color@8.1.1)'",
      '/a@1.0.0(b@2.0.0)',
      '.',
      'packages/app',
      '"a: b"',
      "''",
    ]) {
      expect(readPnpmYaml(`${k}: x\n`)).toStrictEqual(parse(`${k}: x\n`));
    }
  });
});

describe('pnpm YAML reader: gives up outside the subset', () => {
  it.each([
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['an anchor on a map', 'a: &x\n  b: 1\n'],
    ['a merge of an alias', 'a: &x {b: 1}\nc:\n  <<: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['a local tag', 'a: !x 1\n'],
    ['a literal block scalar', 'a: |\n  text\n'],
    ['a folded block scalar', 'a: >-\n  text\n'],
    ['a tab indent', 'a:\n\tb: 1\n'],
    ['a tab in a value', 'a: b\tc\n'],
    ['a flow sequence over two lines', 'a: [b,\n  c]\n'],
    ['a flow mapping over two lines', 'a: {b: 1,\n  c: 2}\n'],
    ['a nested flow collection', 'a: {b: [1, 2]}\n'],
    ['a flow sequence of maps', 'a: [{b: 1}]\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a duplicate quoted key', "a: 1\n'a': 2\n"],
    ['a duplicate key in a nested map', 'a:\n  b: 1\n  c:\n    d: 1\n  b: 2\n'],
    ['a duplicate key in a flow map', 'a: {b: 1, b: 2}\n'],
    ['a key without a value at an odd indent', 'a:\n b:\n'],
    ['an odd indent', 'a:\n   b: 1\n'],
    ['a level skipped', 'a:\n    b: 1\n'],
    ['a dedent between levels', 'a:\n  b:\n    c: 1\n d: 2\n'],
    ['a continuation line', 'a: b\n  c\n'],
    ['a block under a key with a value', 'a: b\n  c: d\n'],
    ['a multi-line quoted scalar', "a: 'b\n  c'\n"],
    ['an unclosed quote', 'a: "b\n'],
    ['a complex key', '? a\n: b\n'],
    ['a sequence at the top', '- a\n- b\n'],
    ['a sequence at the key indent', 'a:\n- b\n'],
    ['a sequence of maps', 'a:\n  - b: 1\n'],
    ['a nested sequence', 'a:\n  - - b\n'],
    ['an empty sequence item', 'a:\n  -\n'],
    ['a sequence item then a key', 'a:\n  - b\n  c: 1\n'],
    ['a comment line', '# pnpm\na: 1\n'],
    ['a trailing comment', 'a: 1 # one\n'],
    ['a comment after a quoted scalar', "a: 'b' # c\n"],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a document end marker', 'a: 1\n...\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['a scalar document', 'just text\n'],
    ['an empty document', ''],
    ['only blank lines', '\n\n  \n'],
    ['only a document marker', '---\n'],
    ['a flow document', '{a: 1}\n'],
    ['a key not followed by a space', 'a:b\n'],
    ['a key over 1024 characters', `${'a'.repeat(1100)}: 1\n`],
    ['a number key', '1: a\n'],
    ['a null key', 'null: a\n'],
    ['an empty key', ': a\n'],
    ['a boolean key', 'true: a\n'],
    ['a __proto__ key', '__proto__: a\n'],
    ['a YAML-only escape', 'a: "\\x41"\n'],
    ['a number the reader does not type', 'a: 1e3\n'],
    ['a hexadecimal number', 'a: 0x1A\n'],
    ['infinity', 'a: .inf\n'],
    ['a lone CR', 'a: 1\rb: 2\n'],
    ['a byte order mark', '\ufeffa: 1\n'],
    ['a control character', 'a: b\u0001\n'],
    ['a line separator', 'a: b\u2028c\n'],
    ['trailing spaces', 'a: 1  \n'],
    ['two spaces after the colon', 'a:  1\n'],
    ['a flow collection with a trailing comma', 'a: [b, ]\n'],
    ['a flow collection with a space inside', 'a: [ b ]\n'],
    ['a flow collection and something after it', 'a: [b] c\n'],
    ['a flow mapping entry without a value', 'a: {b}\n'],
    ['a flow mapping entry without a space', 'a: {b:c}\n'],
    ['a quoted scalar cut at a comma', "a: ['b, c']\n"],
    ['a double-quoted scalar cut at a comma', 'a: ["b, c"]\n'],
  ])('%s', (_what, text) => {
    expect(readPnpmYaml(text)).toBeUndefined();
  });
});

describe('pnpm YAML reader: generated documents', () => {
  // Small pnpm-style documents: nested maps of package-like keys, scalars of every kind pnpm writes and some it
  // does not, flat flow sequences and maps at the leaves, written by the yaml package in pnpm's style (two-space
  // indent, flow collections at the leaves, no line folding).
  const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
  const version = fc.tuple(fc.nat(20), fc.nat(20), fc.nat(20)).map(([a, b, c]) => `${a}.${b}.${c}`);
  const text = fc.oneof(
    { arbitrary: word, weight: 4 },
    { arbitrary: version, weight: 4 },
    version.map((v) => `^${v}`),
    version.map((v) => `>=${v}`),
    fc.tuple(word, version, word, version).map(([a, v, b, w]) => `${a}@${v}(${b}@${w})`),
    word.map((w) => `link:../${w}`),
    word.map((w) => `https://example.com/${w}.tgz`),
    fc.constantFrom(
      'true',
      'null',
      '~',
      '1e3',
      '0x1A',
      '.inf',
      '5.4',
      '9.0',
      '007',
      'a: b',
      'a #b',
      'a#b',
      "it's",
      '"q"',
      '-x',
      '@s/a',
      '!x',
      '*',
      '',
      ' x',
      'a, b',
      'é',
    ),
    { arbitrary: fc.string({ maxLength: 8 }), weight: 1 },
  );
  const scalar = fc.oneof(text, text, fc.boolean(), fc.constant(null), fc.nat(1000), fc.constantFrom(5.4, 0.5, 10.25));
  const key = fc.oneof(
    word,
    fc.tuple(word, version).map(([w, v]) => `${w}@${v}`),
    text,
  );
  const flowSeq = fc.array(scalar, { maxLength: 3 });
  const flowMap = fc.dictionary(key, scalar, { maxKeys: 3 });
  const leaf = fc.oneof(scalar, scalar, flowSeq, flowMap);
  const tree = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.dictionary(key, tie('node'), { maxKeys: 4 }),
      fc.array(scalar, { minLength: 1, maxLength: 3 }),
    ),
  })).node;
  const doc = fc.dictionary(key, tree, { minKeys: 1, maxKeys: 5 });

  /** The yaml package's text of a value in pnpm's style: two-space indent, no folding, maps of scalars in flow style
   *  or not (flowMaps), sequences of scalars in flow style or as block sequences (flowSeqs), quotes single as pnpm's
   *  or double. */
  function pnpmStyle(value: unknown, flowMaps: boolean, flowSeqs: boolean, singleQuote: boolean): string {
    const d = new Document(value);
    visit(d, {
      Map(k, node) {
        if (k === null) return; // the document's own map stays a block
        if (node.items.length === 0)
          node.flow = true; // pnpm writes "{}"
        else if (node.items.every((p) => !isMap(p.value) && !isSeq(p.value))) node.flow = flowMaps;
      },
      Seq(_k, node) {
        node.flow = flowSeqs || node.items.length === 0;
      },
    });
    return d.toString({ indent: 2, indentSeq: true, lineWidth: 0, singleQuote, flowCollectionPadding: false });
  }

  it('reads them as the yaml package does, or gives up', () => {
    let read = 0;
    fc.assert(
      fc.property(doc, fc.boolean(), fc.boolean(), fc.boolean(), (value, flowMaps, flowSeqs, singleQuote) => {
        const yamlText = pnpmStyle(value, flowMaps, flowSeqs, singleQuote);
        if (expectSameOrBail(yamlText) !== undefined) read++;
      }),
      { numRuns: 1000 },
    );
    // Most generated documents are in the subset: the property does not hold only by giving up.
    expect(read).toBeGreaterThan(600);
  });

  it('reads edited lockfiles as the yaml package does, or gives up (and gives up on what the yaml package refuses)', () => {
    const lock = fs.readFileSync(path.join(FIXTURES, 'workspace-v9', 'pnpm-lock.yaml'), 'utf8');
    const edit = fc.record({
      at: fc.nat(lock.length),
      cut: fc.nat(3),
      put: fc
        .array(fc.constantFrom(...' \'"#:-[]{},&*!|>%@`?~\t\r\n\\ax1.'), { maxLength: 3 })
        .map((cs) => cs.join('')),
    });
    let read = 0;
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        let text = lock;
        for (const { at, cut, put } of edits) text = text.slice(0, at) + put + text.slice(at + cut);
        if (expectSameOrBail(text) !== undefined) read++;
      }),
      { numRuns: 500 },
    );
    expect(read).toBeGreaterThan(50);
  });
});
