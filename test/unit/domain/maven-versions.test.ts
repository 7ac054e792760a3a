// osv-scalibr's Maven version-order fixtures (versions/maven-versions.txt of the third-party data), each line its own
// test case and checked in both directions. The rules follow Maven 3.9's ComparableVersion; a fixture line whose
// order the rules deliberately do not follow would be listed below with the rules' answer and why (none is, today).
import fs from 'node:fs';
import { mavenRules } from '../../../src/domain/advisories/ecosystems/maven';
import { describeWithSharedData, sharedDataPath } from '../../helpers/shared-data';

const FILE = sharedDataPath('versions', 'maven-versions.txt');

type Op = '<' | '=' | '>';
interface Line {
  no: number;
  text: string;
  a: string;
  op: Op;
  b: string;
}

/** Fixture lines whose stated order is not Maven 3.9's; value: the op ComparableVersion (3.9.0-3.9.16) gives. */
const MAVEN_39_DIFFERS: Record<string, { op: Op; why: string }> = {};
// 1-1 = 1-ga-1 is not Maven 3.9's answer (it orders 1-ga-1 just below 1-1) but is Maven's test suite's and OSV's, which
// the rules follow deliberately (see maven.ts); the fixture line is asserted as written.

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
      out.push({ no: i + 1, text, a: parts[0], op: parts[1] as Op, b: parts[2] });
    });
  return out;
}

describeWithSharedData('Maven version-order fixtures', () => {
  const lines = readLines();
  const sign = (op: Op) => (op === '<' ? -1 : op === '>' ? 1 : 0);
  const cmp = (a: string, b: string) => Math.sign(mavenRules.compare(mavenRules.parse(a), mavenRules.parse(b))) + 0; // +0: no -0

  test('the fixture file holds its 102 comparisons', () => {
    expect(lines).toHaveLength(102);
  });

  test('every line listed as differing from Maven 3.9 is in the fixture', () => {
    for (const text of Object.keys(MAVEN_39_DIFFERS)) expect(lines.map((l) => l.text)).toContain(text);
  });

  test.each(
    lines.map(
      (l) =>
        [
          `line ${l.no}: ${l.text}${MAVEN_39_DIFFERS[l.text] ? ` (Maven 3.9: ${MAVEN_39_DIFFERS[l.text].op})` : ''}`,
          l,
        ] as const,
    ),
  )('%s', (_title, l) => {
    const want = sign(MAVEN_39_DIFFERS[l.text]?.op ?? l.op);
    expect(mavenRules.parse(l.a)).not.toBeNull();
    expect(mavenRules.parse(l.b)).not.toBeNull();
    expect([l.a, l.b, cmp(l.a, l.b)]).toEqual([l.a, l.b, want]);
    expect([l.b, l.a, cmp(l.b, l.a)]).toEqual([l.b, l.a, -want + 0]);
  });
});
