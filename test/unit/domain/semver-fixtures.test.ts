// osv-scalibr's SemVer ordering fixtures (versions/semver-versions.txt of the third-party data) through the npm rules:
// every comparison is checked in both directions. Lines node-semver cannot read are listed exactly, so that a change
// in the parser (or in the fixture file) is noticed.
import fs from 'node:fs';
import { npmRules } from '../../../src/domain/advisories/ecosystems/npm';
import { describeWithSharedData, sharedDataPath } from '../../helpers/shared-data';

const FILE = sharedDataPath('versions', 'semver-versions.txt');

interface Line {
  no: number;
  text: string;
  a: string;
  op: '<' | '=' | '>';
  b: string;
}

function readLines(): Line[] {
  const out: Line[] = [];
  fs.readFileSync(FILE, 'utf8')
    .split('\n')
    .forEach((raw, i) => {
      const text = raw.replace(/\r$/, '');
      if (text.trim() === '' || text.startsWith('# ') || text.startsWith('// ')) return;
      const parts = text.split(' ');
      if (parts.length !== 3 || !['<', '=', '>'].includes(parts[1]))
        throw new Error(`line ${i + 1} is not "<a> <op> <b>": ${text}`);
      out.push({ no: i + 1, text, a: parts[0], op: parts[1] as Line['op'], b: parts[2] });
    });
  return out;
}

describeWithSharedData('semver fixtures', () => {
  const lines = readLines();
  const readable = (l: Line) => npmRules.parse(l.a) !== null && npmRules.parse(l.b) !== null;

  test('the fixture file holds its 86 comparisons', () => {
    expect(lines).toHaveLength(86);
  });

  test('node-semver (loose) cannot read exactly these fixture lines', () => {
    // 1-2: numbers above Number.MAX_SAFE_INTEGER are refused by node-semver ("Invalid version"), and a bare number is
    // not a version at all. 3: four or five components are not SemVer; npm refuses them too.
    expect(lines.filter((l) => !readable(l)).map((l) => l.text)).toEqual([
      '999999999999999999999999999991 < 999999999999999999999999999999',
      '999999999999999999999999999991.999999999999999999999999999991.999999999999999999999999999991 < 999999999999999999999999999999.999999999999999999999999999991.999999999999999999999999999991',
      '1.1.3.4.5 = 1.1.3.4.5',
    ]);
  });

  const sign = { '<': -1, '=': 0, '>': 1 } as const;

  describe.each(lines.filter(readable).map((l) => [`${l.no}: ${l.text}`, l] as const))('%s', (_, l) => {
    test('holds in both directions', () => {
      const a = npmRules.parse(l.a);
      const b = npmRules.parse(l.b);
      expect(Math.sign(npmRules.compare(a, b))).toBe(sign[l.op]);
      expect(Math.sign(npmRules.compare(b, a))).toBe(0 - sign[l.op] || 0);
    });
  });

  test('every readable side compares equal to itself', () => {
    for (const l of lines.filter(readable)) {
      for (const v of [l.a, l.b]) expect(npmRules.compare(npmRules.parse(v), npmRules.parse(v))).toBe(0);
    }
  });
});

describe('npm rules beyond the fixture', () => {
  test('installed versions: loose forms are read, partial and non-versions are not', () => {
    expect(npmRules.parse(' v1.2.3 ')).not.toBeNull();
    expect(npmRules.parse('=1.2.3')).not.toBeNull();
    expect(npmRules.parse('1.2')).toBeNull();
    expect(npmRules.parse('latest')).toBeNull();
    expect(npmRules.parse('')).toBeNull();
  });

  test('range bounds: a partial "1" or "1.0" is read as 1.0.0, "1.0.x" and "*" are not bounds', () => {
    const v100 = npmRules.parse('1.0.0');
    expect(npmRules.compare(npmRules.parseBound('1.0'), v100)).toBe(0);
    expect(npmRules.compare(npmRules.parseBound('1'), v100)).toBe(0);
    expect(npmRules.compare(npmRules.parseBound('2.5'), npmRules.parse('2.5.0'))).toBe(0);
    expect(npmRules.parseBound('1.0.x')).toBeNull();
    expect(npmRules.parseBound('*')).toBeNull();
    expect(npmRules.parseBound('7.2.4, 6.11.4')).toBeNull();
  });

  test('names are compared lowercased', () => {
    expect(npmRules.normalizeName('Axios')).toBe('axios');
    expect(npmRules.normalizeName('@Babel/Traverse')).toBe('@babel/traverse');
  });
});
