import { mavenRules } from '../../../src/domain/advisories/ecosystems/maven';

const cmp = (a: string, b: string) => Math.sign(mavenRules.compare(mavenRules.parse(a), mavenRules.parse(b)));
const ascending = (...vs: string[]) => vs.slice(1).forEach((v, i) => {
  expect([vs[i], v, cmp(vs[i], v)]).toEqual([vs[i], v, -1]);
  expect(cmp(v, vs[i])).toBe(1);
});

test('trailing zeros and release qualifiers are nothing', () => {
  for (const v of ['1.0', '1.0.0', '1-0', '1-ga', '1.0-final', '1.0.RELEASE']) expect(cmp('1', v)).toBe(0);
});

test('qualifier order', () => {
  ascending('1.0-alpha1', '1.0-beta', '1.0-milestone-1', '1.0-rc1', '1.0-SNAPSHOT', '1.0', '1.0-sp', '1.0-1', '1.0.1');
  expect(cmp('1.0-rc1', '1.0-cr1')).toBe(0);
  expect(cmp('1a1', '1-alpha-1')).toBe(0);
  expect(cmp('1.0-ALPHA1', '1.0-alpha1')).toBe(0);
  ascending('1.0', '1.0-sp', '1.0-zzz'); // unknown qualifiers after the known ones
  ascending('1.0-abc', '1.0-abd');
});

test('real library versions', () => {
  ascending('2.13.3', '2.13.4', '2.13.4.2', '2.14.0-rc1', '2.14.0'); // jackson
  ascending('31.1-android', '31.1-jre', '32.0.0-jre'); // guava
  ascending('1.30', '1.31', '1.33', '2.0'); // snakeyaml
});

test('huge numeric components compare as numbers', () => {
  ascending('1.999999999999999999999999999998', '1.999999999999999999999999999999', '2');
});

test('empty input is not a version; names are kept as written', () => {
  expect(mavenRules.parse('  ')).toBeNull();
  expect(mavenRules.normalizeName(' org.yaml:snakeyaml ')).toBe('org.yaml:snakeyaml');
});
