import fs from 'node:fs';
import path from 'node:path';
import { pypiRules } from '../../../src/domain/advisories/ecosystems/pypi';
import { itWithSharedData, sharedDataPath } from '../../helpers/shared-data';

const cmp = (a: string, b: string) => Math.sign(pypiRules.compare(pypiRules.parse(a), pypiRules.parse(b)));
const ascending = (...vs: string[]) =>
  vs.slice(1).forEach((v, i) => {
    expect([vs[i], v, cmp(vs[i], v)]).toEqual([vs[i], v, -1]);
    expect(cmp(v, vs[i])).toBe(1);
  });

test('PEP 503 names', () => {
  expect(pypiRules.normalizeName('Django')).toBe('django');
  expect(pypiRules.normalizeName('zope.interface')).toBe(pypiRules.normalizeName('zope-interface'));
  expect(pypiRules.normalizeName('Foo__Bar')).toBe('foo-bar');
});

test('PEP 440 order and equivalences', () => {
  ascending('1.0.dev0', '1.0a1', '1.0b1', '1.0rc1', '1.0', '1.0+local', '1.0.post1', '1.1', '2.0', '1!0.1');
  expect(cmp('1.0', '1.0.0')).toBe(0);
  expect(cmp('1.0RC1', '1.0rc1')).toBe(0);
  expect(cmp('1.0-post1', '1.0.post1')).toBe(0);
});

test('legacy versions sort below every valid one, consistently among themselves', () => {
  ascending('2004d', '2004e', '0.0.1');
  ascending('1.0-dev-r2', '1.0-dev-r10');
  expect(pypiRules.parse('')).toBeNull();
});

itWithSharedData('every version in the real PyPA advisories parses; the number of legacy ones is known', () => {
  const dir = sharedDataPath('advisories', 'pypi');
  let total = 0;
  let legacy = 0;
  for (const f of fs.readdirSync(dir)) {
    const a = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    for (const x of a.affected ?? []) {
      const values = [
        ...(x.versions ?? []),
        ...(x.ranges ?? []).flatMap((r: { events: Array<Record<string, string>> }) =>
          r.events.flatMap((e) => Object.values(e)),
        ),
      ].filter((v: string) => v !== '0');
      for (const v of values) {
        const parsed = pypiRules.parse(v) as { legacy: boolean } | null;
        expect(parsed).not.toBeNull();
        total++;
        if (parsed!.legacy) legacy++;
      }
    }
  }
  // Exact figures of this data set, so that a change in the library or in the legacy rule is noticed.
  expect({ total, legacy }).toEqual({ total: 150372, legacy: 1715 });
});
