// osv-scalibr's Maven version-order fixtures, each line checked in both directions.
import fs from 'node:fs';
import path from 'node:path';
import { mavenRules } from '../../../src/domain/advisories/ecosystems/maven';

const FILE = path.resolve(__dirname, '../../../../shared/data/versions/maven-versions.txt');
const lines = fs
  .readFileSync(FILE, 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('# ') && !l.startsWith('// '))
  .map((l) => l.split(' ') as [string, string, string]);

const cmp = (a: string, b: string) => Math.sign(mavenRules.compare(mavenRules.parse(a), mavenRules.parse(b)));

test('the fixture has its 102 comparisons', () => expect(lines).toHaveLength(102));

test.each(lines)('%s %s %s', (a, op, b) => {
  const want = op === '<' ? -1 : op === '>' ? 1 : 0;
  expect(cmp(a, b)).toBe(want);
  expect(cmp(b, a)).toBe(-want || 0);
});
