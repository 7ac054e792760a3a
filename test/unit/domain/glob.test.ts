// Suppression package globs without regular expressions: the semantics against a reference, the
// hostile globs that froze a worker when `*` became `.*`, the 2,000-character limit, and the id index.
import fc from 'fast-check';
import { buildAdvisoryIndex } from '../../../src/domain/advisories/build-index';
import { buildFindings } from '../../../src/domain/findings';
import { matchSnapshot } from '../../../src/domain/matching';
import { validateSnapshot } from '../../../src/domain/snapshot';
import { activeSuppressions, findSuppression, globMatcher } from '../../../src/domain/suppressions';
import type { Snapshot, SnapshotSuppression } from '../../../src/shared/types';
import { bytesOf, invalid, mutate, refused, v1, v2, type Doc } from '../snapshot/fixtures';
import { npmAdv, range } from './helpers';

const t = (glob: string, name: string) => globMatcher(glob)(name);

/** Reference: the textbook table over code points, one row kept (ok[j]: glob so far matches name[0, j)). */
function reference(glob: string, name: string): boolean {
  const n = [...name];
  let ok = [true, ...n.map(() => false)];
  for (const g of glob) {
    const next = [g === '*' && ok[0], ...n.map(() => false)];
    for (let j = 1; j <= n.length; j++)
      next[j] = g === '*' ? ok[j] || next[j - 1] : ok[j - 1] && (g === '?' || g === n[j - 1]);
    ok = next;
  }
  return ok[n.length];
}

describe('glob cases', () => {
  test.each([
    ['lodash', 'lodash', true],
    ['lodash', 'lodas', false],
    ['lodash', 'lodash-es', false],
    ['*', '', true],
    ['*', '@scope/deep/name:x', true],
    ['', '', true],
    ['', 'a', false],
    ['**', 'a', true],
    ['a**b', 'ab', true],
    ['*lodash*', 'lodash', true],
    ['lo*sh', 'losh', true],
    ['lo*sh', 'lodash', true],
    ['lo*sh', 'lodashes', false],
    ['*a*b*c*', 'xaybzc', true],
    ['*a*b*c*', 'xcybza', false],
    ['a*a*a', 'aa', false],
    ['a*a*a', 'aaa', true],
    ['*ab', 'aab', true],
    ['ab*ba', 'aba', false],
    ['ab*ba', 'abba', true],
    ['?', '', false],
    ['?', 'a', true],
    ['?', 'ab', false],
    ['??*', 'a', false],
    ['lo?ash', 'lodash', true],
    ['a?b', 'a/b', true],
    ['a?b', 'a\nb', true],
    ['@org/*', '@org/pkg', true],
    ['@org/*', '@org/sub/pkg', true],
    ['@org/*', '@other/pkg', false],
    ['@org/*', '@org', false],
    ['org.apache.*:*', 'org.apache.logging.log4j:log4j-core', true],
    ['org.apache.*:*', 'org.apachexlogging:x', false],
    ['org.apache.*:*', 'org.apache.commons', false],
    ['*:log4j-*', 'org.apache.logging.log4j:log4j-core', true],
    ['a.b', 'axb', false],
    ['a+b', 'aab', false],
    ['a+b', 'a+b', true],
    ['.+()[]{}^$|\\', '.+()[]{}^$|\\', true],
    ['[ab]', 'a', false],
    ['x|y', 'x', false],
    ['^a$', 'a', false],
    ['(a)', 'a', false],
    ['a{2}', 'aa', false],
    ['\\d', '1', false],
    ['?', '😀', true], // one code point, two UTF-16 units
    ['??', '😀', false],
    ['a?b', 'a😀b', true],
    ['*😀', 'x😀', true],
    ['😀*', '😀x', true],
    ['*?', '😀', true],
    ['😀', '😁', false], // same high surrogate, another low one
    ['*😀', '😁😁', false],
    ['ü*', 'ü', true],
    ['Lodash', 'lodash', false],
  ])('%j against %j: %s', (glob, name, expected) => {
    expect(t(glob, name)).toBe(expected);
    expect(reference(glob, name)).toBe(expected);
  });

  test('a lone surrogate is one code point, as for-of reads it', () => {
    expect(t('?', '\ud83d')).toBe(true);
    expect(t('\ud83d*', '😀')).toBe(false); // the name's first code point is U+1F600, not the lone half
    expect(t('*\ude00', '😀')).toBe(false);
    expect(t('?\ude00', '\ud83d\ud83d\ude00')).toBe(false); // the second ? would be the pair
    expect(t('??', '\ud83d\ud83d\ude00')).toBe(true);
  });
});

describe('glob property', () => {
  // A small alphabet so stars meet repeats, plus surrogate halves that pair up or stay alone when concatenated.
  const unit = fc.constantFrom('a', 'b', '.', '😀', '😁', '\ud83d', '\ude00');
  const name = fc.string({ unit, maxLength: 12 });
  const glob = fc.string({ unit: fc.oneof(unit, fc.constantFrom('*', '?')), maxLength: 10 });

  test('agrees with the reference on random globs and names', () => {
    fc.assert(
      fc.property(glob, name, (g, n) => t(g, n) === reference(g, n)),
      { numRuns: 20000 },
    );
  });

  test('agrees on names built to match: each star and ? filled in at random', () => {
    const filled = fc
      .tuple(glob, fc.array(name, { minLength: 10, maxLength: 10 }), fc.array(unit, { minLength: 10, maxLength: 10 }))
      .map(([g, runs, ones]) => {
        let i = 0;
        return { g, n: [...g].map((c) => (c === '*' ? runs[i++ % 10] : c === '?' ? ones[i++ % 10] : c)).join('') };
      });
    // Filled-in halves may pair up with their neighbours, so the reference decides, not the construction.
    fc.assert(
      fc.property(filled, ({ g, n }) => t(g, n) === reference(g, n)),
      { numRuns: 5000 },
    );
  });
});

describe('hostile globs end at once', () => {
  // Each of these ran for hours (or forever) as a regular expression: `.*` repeated and then a mismatch.
  const stars = '*'.repeat(1999) + 'Z';
  const starA = '*a'.repeat(1000);

  test('1,999 stars and a Z against lodash', () => {
    expect(stars).toHaveLength(2000);
    expect(t(stars, 'lodash')).toBe(false);
    expect(t(stars, 'lodash'.repeat(300))).toBe(false);
    expect(t('*'.repeat(1999) + 'h', 'lodash')).toBe(true);
  });

  test('*a*a*a… (2,000 characters) against long names that do not match', () => {
    expect(starA).toHaveLength(2000);
    expect(t(starA, 'a'.repeat(1999) + 'b')).toBe(false); // ends wrong
    expect(t(starA, 'a'.repeat(999))).toBe(false); // one a short
    expect(t('*a'.repeat(999) + '**', 'a'.repeat(998) + 'b'.repeat(5000))).toBe(false); // the last a is never found
    expect(t(starA, 'ba'.repeat(1000))).toBe(true);
  });

  test('the slowest shape left is quadratic, not exponential: a long middle piece that almost fits everywhere', () => {
    const g = '*' + 'a'.repeat(1998) + '*';
    const n = ('a'.repeat(1997) + 'b').repeat(2);
    expect(t(g, n)).toBe(false);
    expect(reference(g, n)).toBe(false);
  });

  describe('through validation and the findings the scan engine builds', () => {
    const lodashAdvisories = buildAdvisoryIndex([
      npmAdv('GHSA-35jh-r3h4-6jhm', 'lodash', [range({ introduced: '0' }, { fixed: '4.17.21' })], {
        aliases: ['CVE-2021-23337'],
      }),
    ]);
    const scan = (suppressions: SnapshotSuppression[]) => {
      const body = mutate(v1, (d) => (d.suppressions = suppressions));
      const { snapshot } = validateSnapshot(body, bytesOf(body)) as { snapshot: Snapshot };
      const { matches } = matchSnapshot(snapshot, lodashAdvisories);
      expect(matches.map((m) => m.name)).toEqual(['lodash']);
      return buildFindings({ scanId: 'scn_1', snapshot, matches, paths: new Map(), processingDay: '2026-01-01' });
    };

    test.each([
      ['1,999 stars and Z', stars],
      ['*a*a*a…', starA],
      ['a long middle piece', '*' + 'l'.repeat(1998) + '*'],
    ])('%s: accepted, applied, and the finding stays unsuppressed', (_, pkg) => {
      const built = scan([{ cve: 'CVE-2021-23337', reason: 'hostile', package: pkg }]);
      expect(built.findings.map((f) => [f.package, f.suppressed])).toEqual([['lodash', false]]);
      expect(built.counts.high + built.counts.critical + built.counts.medium + built.counts.low).toBe(1);
      expect(built.suppressed).toBe(0);
    });

    test('a 2,000-character glob that does match suppresses, after hostile ones that do not', () => {
      const built = scan([
        { cve: 'CVE-2021-23337', reason: 'hostile', package: stars },
        { cve: 'ghsa-35jh-r3h4-6jhm', reason: 'matches', package: '*'.repeat(1994) + 'lodash' },
      ]);
      expect(built.findings.map((f) => [f.suppressed, f.suppressionReason])).toEqual([[true, 'matches']]);
      expect(built.suppressed).toBe(1);
    });
  });
});

describe('the 2,000-character limit on suppression fields, both snapshot versions', () => {
  const accepted = (d: Doc) => expect(() => validateSnapshot(d, bytesOf(d))).not.toThrow();
  test.each([
    ['v1', v1],
    ['v2', v2],
  ] as const)('%s: package and cve up to 2,000 characters, not one more', (_, base) => {
    for (const field of ['package', 'cve'] as const) {
      accepted(mutate(base, (d) => (d.suppressions[0][field] = '*'.repeat(2000))));
      accepted(mutate(base, (d) => (d.suppressions[0][field] = '😀'.repeat(2000)))); // characters are code points
      expect(refused(mutate(base, (d) => (d.suppressions[0][field] = '*'.repeat(2001))))).toEqual(
        invalid(`/suppressions/0/${field}: must be at most 2000 characters`),
      );
    }
  });
});

describe('suppressions indexed by advisory id', () => {
  const S = (cve: string, reason: string, pkg?: string): SnapshotSuppression => ({
    cve,
    reason,
    ...(pkg === undefined ? {} : { package: pkg }),
  });
  const ids = ['CVE-2021-23337', 'GHSA-35jh-r3h4-6jhm'];

  test('one list per upper-cased id, each in snapshot order; expired ones left out', () => {
    const index = activeSuppressions(
      [S('cve-1', 'a'), S('CVE-2', 'b'), { ...S('CVE-1', 'gone'), expires: '2020-01-01' }, S('Cve-1', 'c')],
      'javascript',
      '2026-01-01',
    );
    expect([...index.byId].map(([id, list]) => [id, list.map((s) => s.reason)])).toEqual([
      ['CVE-1', ['a', 'c']],
      ['CVE-2', ['b']],
    ]);
    expect(index.list.map((s) => [s.reason, s.order])).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });

  test('the first in snapshot order over every id of the group, whichever id it names', () => {
    const list = [
      S(ids[0], 'other package', 'react'),
      S(ids[1].toLowerCase(), 'first', 'lodash'),
      S(ids[0], 'second'),
      S(ids[1], 'third'),
    ];
    const index = activeSuppressions(list, 'javascript', '2026-01-01');
    expect(findSuppression(index, ids, 'lodash')?.reason).toBe('first');
    expect(findSuppression(index, [...ids].reverse(), 'lodash')?.reason).toBe('first');
    expect(findSuppression(index, [ids[0], ids[0].toLowerCase()], 'lodash')?.reason).toBe('second');
    expect(findSuppression(index, ids, 'react')?.reason).toBe('other package');
    expect(findSuppression(index, ids, 'vue')?.reason).toBe('second');
    expect(findSuppression(index, ['CVE-2000-0001'], 'lodash')).toBeNull();
    expect(findSuppression(index, [], 'lodash')).toBeNull();
  });

  test('suppressions of other advisories are never tested', () => {
    const tested: string[] = [];
    const index = activeSuppressions(
      [...Array.from({ length: 1000 }, (_, i) => S(`CVE-2000-${i}`, `other ${i}`, '*')), S(ids[0], 'mine', 'lodash')],
      'javascript',
      '2026-01-01',
    );
    for (const list of index.byId.values())
      for (const s of list) {
        const test = s.test;
        s.test = (name) => (tested.push(s.reason), test(name));
      }
    expect(findSuppression(index, ids, 'lodash')?.reason).toBe('mine');
    expect(tested).toEqual(['mine']);
  });
});
