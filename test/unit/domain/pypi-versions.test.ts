// osv-scalibr's PyPI version-order fixtures, each line checked in both directions.
import fs from 'node:fs';
import { pypiRules } from '../../../src/domain/advisories/ecosystems/pypi';
import { describeWithSharedData, sharedDataPath } from '../../helpers/shared-data';

const FILE = sharedDataPath('versions', 'pypi-versions.txt');
const cmp = (a: string, b: string) => Math.sign(pypiRules.compare(pypiRules.parse(a), pypiRules.parse(b)));

describeWithSharedData('PyPI version-order fixtures', () => {
  const lines = fs
    .readFileSync(FILE, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('# ') && !l.startsWith('// '))
    .map((l) => l.split(' ') as [string, string, string]);

  test('the fixture has its 37 comparisons', () => expect(lines).toHaveLength(37));

  test.each(lines)('%s %s %s', (a, op, b) => {
    const want = op === '<' ? -1 : op === '>' ? 1 : 0;
    expect(cmp(a, b)).toBe(want);
    expect(cmp(b, a)).toBe(-want || 0);
  });
});
