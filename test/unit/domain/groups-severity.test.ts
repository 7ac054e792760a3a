// Alias groups, the finding's `cve`, publishedAt, summary and severity (docs/scanning.md, "Advisories" and "Matching").
import { buildGroups, chooseCve, summaryOf } from '../../../src/domain/advisories/groups';
import { band, groupSeverity, scoreVector } from '../../../src/domain/advisories/severity';
import { adv } from './helpers';

const groupsOf = (...list: Parameters<typeof buildGroups>[0]) => buildGroups(list);
const sev = (type: string, score: string) => ({ type, score });

// Reference scores (ae-cvss-calculator, checked against FIRST's calculators).
const V31_98 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'; // 9.8
const V31_72 = 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H'; // 7.2
const V31_50 = 'CVSS:3.1/AV:N/AC:H/PR:N/UI:R/S:U/C:L/I:L/A:L'; // 5.0
const V31_18 = 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:N/I:N/A:L'; // 1.8
const V30_88 = 'CVSS:3.0/AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H'; // 8.8
const V40_23 = 'CVSS:4.0/AV:N/AC:L/AT:P/PR:N/UI:P/VC:N/VI:N/VA:N/SC:L/SI:L/SA:L'; // 2.3
const V40_93 = 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N'; // 9.3
const V2_100 = 'AV:N/AC:L/Au:N/C:C/I:C/A:C'; // 10.0
const V2_75 = 'AV:N/AC:L/Au:N/C:P/I:P/A:P'; // 7.5

describe('alias groups', () => {
  test('A aliases B, B aliases C: one group holding every id, A..C linked in either direction', () => {
    const { groups, groupOf } = groupsOf(
      adv('GHSA-aaaa-aaaa-aaaa', { aliases: ['PYSEC-2021-1'] }),
      adv('PYSEC-2021-1', { aliases: ['CVE-2021-0002'] }),
      adv('OSV-2021-9', { aliases: ['CVE-2021-0002'] }), // joins through a shared alias only
      adv('GHSA-zzzz-zzzz-zzzz'),
    );
    expect(groups).toHaveLength(2);
    const g = groups[groupOf.get('GHSA-aaaa-aaaa-aaaa')!];
    expect(g.ids).toEqual(['CVE-2021-0002', 'GHSA-aaaa-aaaa-aaaa', 'OSV-2021-9', 'PYSEC-2021-1']);
    expect(g.key).toBe('CVE-2021-0002,GHSA-aaaa-aaaa-aaaa,OSV-2021-9,PYSEC-2021-1');
    expect(groupOf.get('PYSEC-2021-1')).toBe(groupOf.get('GHSA-aaaa-aaaa-aaaa'));
    expect(groupOf.get('OSV-2021-9')).toBe(groupOf.get('GHSA-aaaa-aaaa-aaaa'));
    expect(groupOf.get('GHSA-zzzz-zzzz-zzzz')).not.toBe(groupOf.get('GHSA-aaaa-aaaa-aaaa'));
    expect(g.cve).toBe('CVE-2021-0002');
  });

  test('the group does not depend on input order', () => {
    const list = [
      adv('C-1', { aliases: ['B-1'] }),
      adv('A-1', { aliases: ['B-1'] }),
      adv('B-1'),
      adv('D-1', { aliases: ['C-1'] }),
    ];
    const keys = (l: typeof list) => buildGroups(l).groups.map((g) => [g.key, g.cve]);
    expect(keys(list)).toEqual([['A-1,B-1,C-1,D-1', 'A-1']]);
    expect(keys([...list].reverse())).toEqual(keys(list));
  });

  test('cve: the lowest CVE by year then number, numerically', () => {
    expect(chooseCve(['CVE-2021-10000', 'CVE-2021-9999', 'GHSA-aaaa-aaaa-aaaa'], ['GHSA-aaaa-aaaa-aaaa'])).toBe(
      'CVE-2021-9999',
    );
    expect(chooseCve(['CVE-2022-0001', 'CVE-2021-99999'], ['X'])).toBe('CVE-2021-99999');
    expect(chooseCve(['CVE-2021-0100', 'CVE-2021-99'], ['X'])).toBe('CVE-2021-99');
    const { groups } = groupsOf(adv('GHSA-aaaa-aaaa-aaaa', { aliases: ['CVE-2021-10000', 'CVE-2021-9999'] }));
    expect(groups[0].cve).toBe('CVE-2021-9999');
  });

  test('cve: else the lowest GHSA, else the lowest advisory id (not an alias)', () => {
    expect(chooseCve(['GHSA-zzzz-zzzz-zzzz', 'GHSA-bbbb-bbbb-bbbb', 'PYSEC-2020-1'], ['PYSEC-2020-1'])).toBe(
      'GHSA-bbbb-bbbb-bbbb',
    );
    expect(chooseCve(['OSV-1', 'PYSEC-2020-2', 'PYSEC-2020-1'], ['PYSEC-2020-2', 'PYSEC-2020-1'])).toBe('PYSEC-2020-1');
    expect(groupsOf(adv('PYSEC-2020-5', { aliases: ['BIT-2020-1'] })).groups[0].cve).toBe('PYSEC-2020-5');
    // Look-alikes are not CVE ids.
    expect(chooseCve(['CVE-21-1', 'cve-2021-1', 'PYSEC-1'], ['PYSEC-1'])).toBe('PYSEC-1');
  });

  test('withdrawn advisories never form groups and link nothing', () => {
    const { groups, groupOf } = groupsOf(
      adv('GHSA-aaaa-aaaa-aaaa', { aliases: ['CVE-2020-0001'] }),
      adv('GHSA-wwww-wwww-wwww', {
        aliases: ['CVE-2020-0001', 'GHSA-bbbb-bbbb-bbbb'],
        withdrawn: '2024-05-01T00:00:00Z',
      }),
      adv('GHSA-bbbb-bbbb-bbbb'),
    );
    expect(groupOf.has('GHSA-wwww-wwww-wwww')).toBe(false);
    expect(groups.map((g) => g.key).sort()).toEqual(['CVE-2020-0001,GHSA-aaaa-aaaa-aaaa', 'GHSA-bbbb-bbbb-bbbb']);
  });

  test('publishedAt: the earliest instant of the group, normalised to ISO; unreadable dates ignored', () => {
    const { groups } = groupsOf(
      adv('A-1', { aliases: ['CVE-2020-1'], published: '2021-01-01T06:00:00Z' }),
      adv('B-1', { aliases: ['CVE-2020-1'], published: '2021-01-01T10:00:00+05:00' }), // 05:00Z: earlier
      adv('C-1', { aliases: ['CVE-2020-1'], published: 'yesterday' }),
    );
    expect(groups[0].publishedAt).toBe('2021-01-01T05:00:00.000Z');
    expect(groupsOf(adv('D-1', { published: undefined })).groups[0].publishedAt).toBeNull();
    expect(groupsOf(adv('E-1', { published: '2024-06-02T22:29:29Z' })).groups[0].publishedAt).toBe(
      '2024-06-02T22:29:29.000Z',
    );
  });
});

describe('summary', () => {
  test('the advisory summary first', () => {
    expect(summaryOf(adv('A', { summary: '  Prototype pollution in x  ', details: 'Other. Text.' }))).toBe(
      'Prototype pollution in x',
    );
  });

  test('else the first sentence of details, whitespace collapsed, at most 300 characters', () => {
    expect(summaryOf(adv('A', { details: 'Versions 1.2.3 and\n\nabove are affected. More follows! Yes?' }))).toBe(
      'Versions 1.2.3 and above are affected.',
    );
    expect(summaryOf(adv('A', { details: 'Is it bad? Yes.' }))).toBe('Is it bad?');
    expect(summaryOf(adv('A', { details: 'No sentence end here' }))).toBe('No sentence end here');
    expect(summaryOf(adv('A', { details: 'x'.repeat(500) + '. Next.' }))).toBe('x'.repeat(300));
    expect(summaryOf(adv('A', {}))).toBe('');
  });

  // BUG (src/domain/advisories/groups.ts, summaryOf): `.slice(0, 300)` counts UTF-16 code units, so a cut can split a
  // surrogate pair and leave a lone high surrogate at the end of the summary (not valid Unicode text).
  test('the 300-character cut never splits a character', () => {
    const s = summaryOf(adv('A', { details: 'a' + '\u{1F600}'.repeat(200) }));
    expect(Array.from(s).length).toBeLessThanOrEqual(300); // characters are code points
    expect(s.charCodeAt(s.length - 1) >= 0xd800 && s.charCodeAt(s.length - 1) <= 0xdbff).toBe(false);
  });

  test('a group prefers the summary of the advisory whose id is the group cve, then other members by id', () => {
    const { groups } = groupsOf(
      adv('GHSA-bbbb-bbbb-bbbb', { aliases: ['GHSA-aaaa-aaaa-aaaa'], summary: 'from b' }),
      adv('GHSA-aaaa-aaaa-aaaa', { details: 'From a. More.' }),
      adv('PYSEC-2020-1', { aliases: ['GHSA-bbbb-bbbb-bbbb'], summary: 'from pysec' }),
    );
    expect(groups[0].cve).toBe('GHSA-aaaa-aaaa-aaaa');
    expect(groups[0].summary).toBe('From a.');
    const { groups: g2 } = groupsOf(
      adv('PYSEC-2020-1', { aliases: ['GHSA-cccc-cccc-cccc'], summary: 'from pysec' }),
      adv('GHSA-bbbb-bbbb-bbbb', { aliases: ['GHSA-cccc-cccc-cccc'] }),
    );
    expect(g2[0].summary).toBe('from pysec');
  });
});

describe('severity', () => {
  test('bands: 9.0 critical, 7.0 high, 4.0 medium, below low', () => {
    expect([10, 9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0].map(band)).toEqual([
      'critical',
      'critical',
      'high',
      'high',
      'medium',
      'medium',
      'low',
      'low',
      'low',
    ]);
  });

  test('scoreVector: version rank and base score', () => {
    expect(scoreVector('CVSS_V3', V31_72)).toEqual([2, 7.2]);
    expect(scoreVector('CVSS_V3', V30_88)).toEqual([2, 8.8]);
    expect(scoreVector('CVSS_V4', V40_93)).toEqual([3, 9.3]);
    expect(scoreVector('CVSS_V2', V2_75)).toEqual([1, 7.5]);
    expect(scoreVector('CVSS_V3', 'CVSS:3.1/garbage')).toBeNull();
    expect(scoreVector('CVSS_V3', 'CVSS:3.1/AV:Q/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H')).toBeNull();
    expect(scoreVector('CVSS_V2', 'garbage')).toBeNull();
    expect(scoreVector('Ubuntu', 'high')).toBeNull();
  });

  test('the highest CVSS version wins even with a lower score: v4 > v3.x > v2', () => {
    expect(groupSeverity([adv('A', { severity: [sev('CVSS_V3', V31_98), sev('CVSS_V4', V40_23)] })])).toBe('low');
    expect(
      groupSeverity([
        adv('A', { severity: [sev('CVSS_V2', V2_100)] }),
        adv('B', { severity: [sev('CVSS_V3', V31_50)] }),
      ]),
    ).toBe('medium');
    expect(groupSeverity([adv('A', { severity: [sev('CVSS_V2', V2_75)] })])).toBe('high');
  });

  test('within the winning version, the highest base score across the group (3.0 and 3.1 are one version)', () => {
    expect(
      groupSeverity([
        adv('A', { severity: [sev('CVSS_V3', V31_18)] }),
        adv('B', { severity: [sev('CVSS_V3', V31_98)] }),
      ]),
    ).toBe('critical');
    expect(groupSeverity([adv('A', { severity: [sev('CVSS_V3', V31_50), sev('CVSS_V3', V30_88)] })])).toBe('high');
  });

  test('CVSS beats the database severity; the database severity beats the default; MODERATE is medium', () => {
    expect(
      groupSeverity([adv('A', { severity: [sev('CVSS_V3', V31_18)], database_specific: { severity: 'CRITICAL' } })]),
    ).toBe('low');
    expect(groupSeverity([adv('A', { database_specific: { severity: 'MODERATE' } })])).toBe('medium');
    expect(groupSeverity([adv('A', { database_specific: { severity: 'LOW' } })])).toBe('low');
    expect(
      groupSeverity([
        adv('A', { database_specific: { severity: 'LOW' } }),
        adv('B', { database_specific: { severity: 'HIGH' } }),
      ]),
    ).toBe('high');
    expect(groupSeverity([adv('A', { database_specific: { severity: 'UNKNOWN' } })])).toBe('medium');
    expect(groupSeverity([adv('A')])).toBe('medium');
  });

  test('unreadable vectors are ignored: the next source decides', () => {
    const bad = [
      sev('CVSS_V4', 'nonsense'),
      sev('CVSS_V3', 'CVSS:3.1/AV:N'),
      sev('CVSS_V2', 'AV:N'),
      sev('CVSS_V3', 'CVSS:3.1/AV:Q/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H'),
    ];
    expect(groupSeverity([adv('A', { severity: [...bad, sev('CVSS_V3', V31_72)] })])).toBe('high');
    expect(groupSeverity([adv('A', { severity: bad, database_specific: { severity: 'LOW' } })])).toBe('low');
    expect(groupSeverity([adv('A', { severity: bad })])).toBe('medium');
  });

  // BUG (src/domain/advisories/severity.ts, scoreVector): ae-cvss-calculator scores an incomplete CVSS 4.0 vector
  // (missing mandatory base metrics, even "CVSS:4.0/" alone) as 0 instead of refusing it, so it is taken as a
  // valid v4 score: rank 3 beats every v3/v2 vector and the group becomes "low".
  test('an incomplete CVSS 4.0 vector is unreadable, not a v4 score of 0', () => {
    expect(scoreVector('CVSS_V4', 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H')).toBeNull();
  });
  test('an incomplete CVSS 4.0 vector does not turn a critical v3 group into low', () => {
    expect(groupSeverity([adv('A', { severity: [sev('CVSS_V3', V31_98), sev('CVSS_V4', 'CVSS:4.0/')] })])).toBe(
      'critical',
    );
  });

  test('the group severity is computed over every member advisory', () => {
    const { groups } = groupsOf(
      adv('GHSA-aaaa-aaaa-aaaa', { aliases: ['CVE-2020-1'], database_specific: { severity: 'LOW' } }),
      adv('PYSEC-2020-1', { aliases: ['CVE-2020-1'], severity: [sev('CVSS_V3', V31_98)] }),
    );
    expect(groups[0].severity).toBe('critical');
  });
});

describe('the CVSS a finding carries', () => {
  const cvssOf = (...list: Parameters<typeof buildGroups>[0]) => groupsOf(...list).groups[0].cvss;

  test('the vector that decided the severity: the highest version, then the highest score, with its version', () => {
    expect(cvssOf(adv('GHSA-a', { severity: [sev('CVSS_V3', V31_50), sev('CVSS_V3', V31_98)] }))).toEqual({
      version: '3.1',
      vector: V31_98,
      score: 9.8,
    });
    // v4 wins over a higher v3 score; across the group's members
    expect(
      cvssOf(
        adv('GHSA-a', { aliases: ['CVE-1'], severity: [sev('CVSS_V3', V31_98)] }),
        adv('CVE-1', { severity: [sev('CVSS_V4', V40_23)] }),
      ),
    ).toEqual({ version: '4.0', vector: V40_23, score: 2.3 });
    expect(cvssOf(adv('GHSA-a', { severity: [sev('CVSS_V3', V30_88)] }))).toEqual({
      version: '3.0',
      vector: V30_88,
      score: 8.8,
    });
    expect(cvssOf(adv('GHSA-a', { severity: [sev('CVSS_V2', V2_75)] }))).toEqual({
      version: '2.0',
      vector: V2_75,
      score: 7.5,
    });
  });

  test('none without a scorable vector (a database severity only, or a broken vector)', () => {
    expect(cvssOf(adv('GHSA-a', { database_specific: { severity: 'HIGH' } }))).toBeNull();
    expect(cvssOf(adv('GHSA-a', { severity: [sev('CVSS_V3', 'CVSS:3.1/AV:N/garbage')] }))).toBeNull();
    expect(cvssOf(adv('GHSA-a', { severity: [sev('CVSS_V4', 'CVSS:4.0/AV:N/AC:L')] }))).toBeNull(); // incomplete
  });

  test("the severity stays the band of the CVSS's score", () => {
    for (const v of [V31_98, V31_72, V31_50, V31_18, V40_93, V2_100]) {
      const { groups } = groupsOf(
        adv('GHSA-a', {
          severity: [sev(v.startsWith('CVSS:4') ? 'CVSS_V4' : v.startsWith('CVSS:3') ? 'CVSS_V3' : 'CVSS_V2', v)],
        }),
      );
      expect(groups[0].severity).toBe(band(groups[0].cvss!.score));
    }
  });
});
