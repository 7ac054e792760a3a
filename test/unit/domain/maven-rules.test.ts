// Hand-written Maven ordering cases. Every expected order here is what Maven 3.9's own ComparableVersion answers (checked
// against the Java class); the orders of VERSIONS_QUALIFIER / VERSIONS_NUMBER and the MNG-* cases are from Maven's
// ComparableVersionTest.
import { mavenRules } from '../../../src/domain/advisories/ecosystems/maven';

const cmp = (a: string, b: string) => Math.sign(mavenRules.compare(mavenRules.parse(a), mavenRules.parse(b))) + 0;

/** Each version strictly below every later one, in both directions (as Maven's checkVersionsOrder does). */
function ascending(...vs: string[]): void {
  for (let i = 0; i < vs.length; i++) {
    for (let j = i + 1; j < vs.length; j++) {
      expect([vs[i], vs[j], cmp(vs[i], vs[j])]).toEqual([vs[i], vs[j], -1]);
      expect([vs[j], vs[i], cmp(vs[j], vs[i])]).toEqual([vs[j], vs[i], 1]);
    }
  }
}

/** All versions equal to each other, both ways. */
function equal(...vs: string[]): void {
  for (const a of vs) for (const b of vs) expect([a, b, cmp(a, b)]).toEqual([a, b, 0]);
}

describe('trailing zeros and release qualifiers', () => {
  test('1.0 = 1 = 1.0.0 = 1-0', () => equal('1.0', '1', '1.0.0', '1-0', '1.0-0', '1.', '1-', '1.0.0-0.0.0'));
  test('ga, final and release are the release itself', () =>
    equal('1', '1-ga', '1.0-final', '1.0.RELEASE', '1.ga', '1final', '1-FINAL'));
  test('0 and its release forms', () => equal('0', '0.0.0', '0-final-ga', '0.0.0-0.0.0'));
  test('leading zeros are ignored, whatever the length (MNG-6572)', () => {
    equal('1', '01', '001', '0000000001', '0000000000000000001', '000000000000000000000000000001');
    equal('0', '00', '0000000000', '0000000000000000000');
  });
});

describe('qualifiers', () => {
  test('alpha < beta < milestone < rc = cr < snapshot < release = ga = final < sp < -1 < .1', () => {
    ascending(
      '1.0-alpha1',
      '1.0-beta',
      '1.0-milestone-1',
      '1.0-rc1',
      '1.0-SNAPSHOT',
      '1.0',
      '1.0-sp',
      '1.0-1',
      '1.0.1',
    );
    equal('1.0-rc1', '1.0-cr1', '1.0-RC-1', '1.0.cr1');
    equal('1.0', '1.0-ga', '1.0-final', '1.0-release');
  });

  test("Maven's own qualifier order (ComparableVersionTest.VERSIONS_QUALIFIER)", () => {
    ascending(
      '1-alpha2snapshot',
      '1-alpha2',
      '1-alpha-123',
      '1-beta-2',
      '1-beta123',
      '1-m2',
      '1-m11',
      '1-rc',
      '1-cr2',
      '1-rc123',
      '1-SNAPSHOT',
      '1',
      '1-sp',
      '1-sp2',
      '1-sp123',
      '1-abc',
      '1-def',
      '1-pom-1',
      '1-1-snapshot',
      '1-1',
      '1-2',
      '1-123',
    );
  });

  test('qualifiers are case-insensitive', () => {
    equal('1.0-ALPHA1', '1.0-alpha1', '1.0-Alpha-1', '1A1');
    equal('1-SNAPSHOT', '1-snapshot', '1-SnapShot');
    equal('1.0-Foo', '1.0-foo', '1.0-FOO');
    equal('1-abcdefghijklmnopqrstuvwxyz', '1-ABCDEFGHIJKLMNOPQRSTUVWXYZ'); // Maven's testLocaleIndependent
  });

  test('unknown qualifiers come after the known ones, among themselves lexically', () => {
    ascending('1.0-rc1', '1.0', '1.0-sp', '1.0-abc', '1.0-abd', '1.0-jre', '1.0-zzz', '1.0-1');
    ascending('1.0-Abc', '1.0-abd', '1.0-ABE');
    // a JavaScript-looking qualifier is just a string (no prototype lookup)
    ascending('1', '1-abc', '1-constructor', '1-toString', '1-x');
  });

  test('a, b and m are alpha, beta and milestone only when a digit follows', () => {
    equal('1a1', '1-alpha-1', '1.0-a1', '1A1');
    equal('1b2', '1-beta-2');
    equal('1m3', '1-milestone-3', '1MILESTONE3');
    ascending('1-beta', '1-b'); // "b" alone is an unknown qualifier: after every known one ...
    ascending('1', '1-a', '1-b', '1-m'); // ... so above the release too
  });
});

describe('separators', () => {
  test('a digit/letter transition acts like "-": 1a1 = 1-alpha-1 = 1-a1, but 1-a-1 is an unknown "a"', () => {
    equal('1a1', '1-alpha-1', '1alpha1', '1.0-alpha1', '1-a1', '1-alpha1');
    ascending('1a1', '1-a-1'); // "a" followed by "-" is not alpha: it sorts as an unknown qualifier
    equal('1a', '1-a', '1.0-a', '1.0.0a');
    equal('1x', '1-x', '1.0.0x');
    equal('1-1.foo-bar-1-baz-0.1', '1-1.foo-bar1baz-.1');
  });

  test('".X" is "-X" for a qualifier X (MNG-7644)', () => {
    for (const x of ['abc', 'alpha', 'a', 'beta', 'b', 'def', 'milestone', 'm', 'RC']) {
      ascending(`1.0.0.${x}1`, `1.0.0-${x}2`);
      equal(`2-${x}`, `2.0.${x}`, `2.0.0.${x}`);
    }
  });

  test('"-0." then a qualifier is below the release (MNG-6964)', () => ascending('1-0.alpha', '1-0.beta', '1'));

  test('a null item before a trailing sub-list is dropped: 1-0-1 < 1-1 (Maven 3.9)', () => {
    ascending('1-0-1', '1-1');
  });

  test('a release qualifier alone between dashes stands for nothing: 1-ga-1 = 1-final-1 = 1-1 (OSV, Maven tests)', () => {
    equal('1-ga-1', '1-final-1', '1-release-1', '1-1');
    ascending('1-0-1', '1-ga-1');
    ascending('1-ga-1', '1-ga-2');
  });

  test("Maven's own number order (ComparableVersionTest.VERSIONS_NUMBER)", () => {
    ascending(
      '2.0',
      '2.0.a',
      '2-1',
      '2.0.2',
      '2.0.123',
      '2.1.0',
      '2.1-a',
      '2.1b',
      '2.1-c',
      '2.1-1',
      '2.1.0.1',
      '2.2',
      '2.123',
      '11.a2',
      '11.a11',
      '11.b2',
      '11.b11',
      '11.m2',
      '11.m11',
      '11',
      '11.a',
      '11b',
      '11c',
      '11m',
    );
  });
});

describe('real library versions', () => {
  test('jackson: 2.13.3 < 2.13.4 < 2.13.4.2 < 2.14.0-rc1 < 2.14.0', () =>
    ascending('2.13.3', '2.13.4', '2.13.4.2', '2.14.0-rc1', '2.14.0'));

  test('guava: -android < -jre, both above the bare release, below the next release', () => {
    ascending('31.0.1-jre', '31.1', '31.1-android', '31.1-jre', '32.0.0-android', '32.0.0-jre', '32.0.1-jre');
  });

  test('snakeyaml: 1.30 < 1.31 < 1.33 < 2.0', () => ascending('1.26', '1.30', '1.31', '1.33', '2.0', '2.2'));

  test('spring and log4j style', () => {
    ascending('5.3.0-M1', '5.3.0-RC1', '5.3.0', '5.3.0-sp', '5.3.1');
    equal('5.3.20.RELEASE', '5.3.20');
    ascending('2.14.1', '2.15.0', '2.16.0', '2.17.0', '2.17.1');
    ascending('0.0.0-2021-05-17T01-01-51-5ec03a8b', '20.0.0');
  });
});

describe('numbers', () => {
  test('a 30-digit component compares as a number', () => {
    ascending('1.999999999999999999999999999998', '1.999999999999999999999999999999', '2');
    ascending('99999999999999999999999999999', '100000000000000000000000000000', '100000000000000000000000000001');
    equal('1.000000000000000000000000000001', '1.1');
  });

  test('int, long and big-integer sized components order by value (MNG-6572)', () => {
    ascending('20190126.230843', '1234567890.12345', '123456789012345.1H.5-beta', '12345678901234567890.1H.5-beta');
    ascending('999999999', '1000000000', '999999999999999999', '1000000000000000000');
  });

  test("Maven's quirk: a 10-zero component that is not trailing is a LongItem, above any IntItem", () => {
    equal('1.0000000000', '1');
    ascending('1.0.1', '1.1', '1.999999999', '1.0000000000.1', '1.1000000000');
  });

  test('Unicode decimal digits are digits, as Java Character.isDigit says', () => {
    equal('1.\u0663', '1.3'); // ARABIC-INDIC DIGIT THREE
    equal('1.\uff10', '1'); // FULLWIDTH DIGIT ZERO
    ascending('1.\ud835\udfd9', '1.1'); // MATHEMATICAL DOUBLE-STRUCK ONE: outside the BMP, a letter to Java's charAt
  });
});

describe('parse, parseBound and names', () => {
  test('any non-empty string is a version; empty or blank is not', () => {
    for (const v of ['1', 'foo', '-', '.', 'ä', '1..2']) expect(mavenRules.parse(v)).not.toBeNull();
    for (const v of ['', ' ', '\t\n']) {
      expect(mavenRules.parse(v)).toBeNull();
      expect(mavenRules.parseBound(v)).toBeNull();
    }
  });

  test('surrounding whitespace is dropped, as the POM reader does', () => equal(' 1.0 ', '1.0', '1\t'));

  test('parseBound reads as parse does', () => {
    expect(mavenRules.compare(mavenRules.parseBound('2.14.0-rc1'), mavenRules.parse('2.14.0-RC1'))).toBe(0);
    expect(mavenRules.compare(mavenRules.parseBound('2.14'), mavenRules.parse('2.14.0'))).toBe(0);
  });

  test('the OSV ecosystem and names as written', () => {
    expect(mavenRules.osvEcosystem).toBe('Maven');
    expect(mavenRules.normalizeName(' org.yaml:snakeyaml ')).toBe('org.yaml:snakeyaml');
    expect(mavenRules.normalizeName('com.Example:Artifact')).toBe('com.Example:Artifact');
  });
});
