// Suppressions and the findings built from matches: ids, order, counts, dedup.
import type { AdvisoryGroup } from '../../../src/domain/advisories/groups';
import { buildFindings, findingId, type BuildInput } from '../../../src/domain/findings';
import { dependencyId } from '../../../src/domain/inventory';
import type { Match } from '../../../src/domain/matching';
import { activeSuppressions, findSuppression, globMatcher, pep503 } from '../../../src/domain/suppressions';
import type { Ecosystem, Severity, SnapshotSuppression } from '../../../src/shared/types';

describe('package globs', () => {
  const t = (glob: string, name: string) => globMatcher(glob)(name);

  test('* is any run of characters, / and : included; ? is exactly one character', () => {
    expect(t('@babel/*', '@babel/traverse')).toBe(true);
    expect(t('*', '@scope/deep/name')).toBe(true);
    expect(t('org.apache.*', 'org.apache.logging.log4j:log4j-core')).toBe(true);
    expect(t('*:log4j-*', 'org.apache.logging.log4j:log4j-core')).toBe(true);
    expect(t('lodash*', 'lodash')).toBe(true);
    expect(t('lo?ash', 'lodash')).toBe(true);
    expect(t('lo?ash', 'loash')).toBe(false);
    expect(t('lo?ash', 'lodaash')).toBe(false);
    expect(t('a?b', 'a/b')).toBe(true);
    expect(t('a?b', 'a\nb')).toBe(true);
  });

  test('the whole name must match', () => {
    expect(t('lodash', 'lodash-es')).toBe(false);
    expect(t('lodash', 'my-lodash')).toBe(false);
    expect(t('*lodash', 'my-lodash')).toBe(true);
  });

  test('regular-expression metacharacters are literal', () => {
    expect(t('a.b', 'a.b')).toBe(true);
    expect(t('a.b', 'axb')).toBe(false);
    expect(t('a+b', 'aab')).toBe(false);
    expect(t('a+b', 'a+b')).toBe(true);
    expect(t('(x)|[y]{2}^$\\', '(x)|[y]{2}^$\\')).toBe(true);
    expect(t('[ab]', 'a')).toBe(false);
    expect(t('x|y', 'x')).toBe(false);
  });

  test('case-sensitive (PyPI names are normalised before, below)', () => {
    expect(t('Lodash', 'lodash')).toBe(false);
    expect(t('LODASH', 'LODASH')).toBe(true);
  });

  test('PEP 503 normalisation', () => {
    expect(pep503('Foo__Bar.-baz')).toBe('foo-bar-baz');
    expect(pep503('zope.interface')).toBe('zope-interface');
  });
});

const day = '2024-06-15';
const S = (cve: string, reason: string, extra: Partial<SnapshotSuppression> = {}): SnapshotSuppression => ({
  cve,
  reason,
  ...extra,
});
const reasonFor = (list: SnapshotSuppression[], ids: string[], name: string, ecosystem: Ecosystem = 'javascript') =>
  findSuppression(activeSuppressions(list, ecosystem, day), ids, name)?.reason ?? null;

describe('suppressions in force', () => {
  const ids = ['CVE-2021-23337', 'GHSA-35jh-r3h4-6jhm'];

  test('expiry: a date before the processing day is ignored, the same day and later are kept, none never expires', () => {
    expect(reasonFor([S(ids[0], 'old', { expires: '2024-06-14' })], ids, 'lodash')).toBeNull();
    expect(reasonFor([S(ids[0], 'today', { expires: '2024-06-15' })], ids, 'lodash')).toBe('today');
    expect(reasonFor([S(ids[0], 'later', { expires: '2025-01-01' })], ids, 'lodash')).toBe('later');
    expect(reasonFor([S(ids[0], 'forever')], ids, 'lodash')).toBe('forever');
  });

  test('by any id of the alias group, exactly; without a package it applies to any package', () => {
    expect(reasonFor([S('GHSA-35jh-r3h4-6jhm', 'by ghsa')], ids, 'lodash-es')).toBe('by ghsa');
    expect(reasonFor([S('CVE-2021-23337', 'by cve', { package: 'lodash' })], ids, 'lodash')).toBe('by cve');
    expect(reasonFor([S('CVE-2021-2333', 'prefix')], ids, 'lodash')).toBeNull();
    expect(reasonFor([S('CVE-2020-0001', 'other')], ids, 'lodash')).toBeNull();
  });

  test('the package glob must match too; npm names are case-sensitive', () => {
    expect(reasonFor([S(ids[0], 'x', { package: 'lodash-es' })], ids, 'lodash')).toBeNull();
    expect(reasonFor([S(ids[0], 'x', { package: 'Lodash' })], ids, 'lodash')).toBeNull();
    expect(reasonFor([S(ids[0], 'x', { package: 'lodash*' })], ids, 'lodash-es')).toBe('x');
  });

  test('python: both sides PEP 503-normalised before the glob', () => {
    expect(
      reasonFor([S('PYSEC-1', 'py', { package: 'Zope_Interface' })], ['PYSEC-1'], 'zope.interface', 'python'),
    ).toBe('py');
    expect(reasonFor([S('PYSEC-1', 'py', { package: 'zope-*' })], ['PYSEC-1'], 'Zope__Interface', 'python')).toBe('py');
    expect(
      reasonFor([S('PYSEC-1', 'py', { package: 'Zope_Interface' })], ['PYSEC-1'], 'zope.interface', 'javascript'),
    ).toBeNull();
  });

  test('several matches: the first one in snapshot order wins; non-matching and expired ones are skipped', () => {
    const list = [
      S(ids[0], 'expired', { expires: '2020-01-01' }),
      S(ids[0], 'other package', { package: 'react' }),
      S(ids[1], 'first'),
      S(ids[0], 'second'),
    ];
    expect(reasonFor(list, ids, 'lodash')).toBe('first');
    expect(activeSuppressions(list, 'javascript', day).list.map((s) => s.reason)).toEqual([
      'other package',
      'first',
      'second',
    ]);
    expect(activeSuppressions(undefined, 'javascript', day)).toEqual({ list: [], byId: new Map() });
  });
});

const group = (cve: string, severity: Severity, extraIds: string[] = []): AdvisoryGroup => ({
  key: [cve, ...extraIds].sort().join(','),
  ids: [cve, ...extraIds].sort(),
  cve,
  severity,
  publishedAt: '2021-05-06T16:05:51.000Z',
  summary: `summary of ${cve}`,
});
const match = (nodeId: string, g: AdvisoryGroup, fixedVersion: string | null = null): Match => {
  const at = nodeId.lastIndexOf('@');
  return { nodeId, name: nodeId.slice(0, at), version: nodeId.slice(at + 1), group: g, fixedVersion };
};

describe('buildFindings', () => {
  const lodash = group('CVE-2021-23337', 'high', ['GHSA-35jh-r3h4-6jhm']);
  const crit = group('CVE-2023-45133', 'critical');
  const low = group('CVE-2024-24758', 'low');
  const med = group('CVE-2023-45857', 'medium');
  const input = (over: Partial<BuildInput> = {}): BuildInput => ({
    scanId: 'scn_1',
    projectId: 'prj_1',
    snapshot: { ecosystem: 'javascript', suppressions: [] },
    matches: [
      match('lodash@4.17.20', lodash, '4.17.21'),
      match('undici@5.0.0', low, '5.28.3'),
      match('babel-traverse@6.0.0', crit),
      match('axios@1.5.0', med, '1.6.0'),
      match('ws@1.0.0', low),
    ],
    paths: new Map([['lodash@4.17.20', ['package.json', 'lodash@4.17.20']]]),
    processingDay: day,
    ...over,
  });

  test('ids are deterministic per (scan, group, name, version) and differ when any of them changes', () => {
    const id = findingId('scn_1', lodash.key, 'lodash', '4.17.20');
    expect(id).toMatch(/^fnd_[0-9a-f]{24}$/);
    expect(findingId('scn_1', lodash.key, 'lodash', '4.17.20')).toBe(id);
    expect(
      new Set([
        id,
        findingId('scn_2', lodash.key, 'lodash', '4.17.20'),
        findingId('scn_1', crit.key, 'lodash', '4.17.20'),
        findingId('scn_1', lodash.key, 'lodash-es', '4.17.20'),
        findingId('scn_1', lodash.key, 'lodash', '4.17.19'),
      ]).size,
    ).toBe(5);
    expect(buildFindings(input()).findings.map((f) => f.id)).toEqual(buildFindings(input()).findings.map((f) => f.id));
    const other = new Set(buildFindings(input({ scanId: 'scn_2' })).findings.map((f) => f.id));
    expect(buildFindings(input()).findings.some((f) => other.has(f.id))).toBe(false);
  });

  test('order: severity descending, then id; every field of a finding', () => {
    const { findings } = buildFindings(input());
    expect(findings.map((f) => f.severity)).toEqual(['critical', 'high', 'medium', 'low', 'low']);
    const lows = findings.slice(3).map((f) => f.id);
    expect(lows).toEqual([...lows].sort());
    expect(findings[1]).toEqual({
      id: findingId('scn_1', lodash.key, 'lodash', '4.17.20'),
      scanId: 'scn_1',
      severity: 'high',
      cve: 'CVE-2021-23337',
      publishedAt: '2021-05-06T16:05:51.000Z',
      package: 'lodash',
      installedVersion: '4.17.20',
      fixedVersion: '4.17.21',
      path: ['package.json', 'lodash@4.17.20'],
      suppressed: false,
      suppressionReason: null,
      attributions: [],
      summary: 'summary of CVE-2021-23337',
      aliases: ['CVE-2021-23337', 'GHSA-35jh-r3h4-6jhm'],
      packageRef: dependencyId('prj_1', 'javascript', 'lodash', '4.17.20'),
    });
    expect(findings.find((f) => f.package === 'ws')!.path).toEqual(['ws@1.0.0']); // no path known: the node id
  });

  test('counts exclude suppressed findings, which are counted apart and stay listed', () => {
    const suppressions = [
      S('GHSA-35jh-r3h4-6jhm', 'not called', { package: 'lodash' }),
      S('CVE-2024-24758', 'dev only', { package: 'undici' }),
      S('CVE-2023-45857', 'expired', { expires: '2024-06-14' }),
    ];
    const built = buildFindings(input({ snapshot: { ecosystem: 'javascript', suppressions } }));
    expect(built.counts).toEqual({ critical: 1, high: 0, medium: 1, low: 1 });
    expect(built.suppressed).toBe(2);
    expect(built.findings).toHaveLength(5);
    expect(
      built.findings
        .filter((f) => f.suppressed)
        .map((f) => [f.package, f.suppressionReason])
        .sort(),
    ).toEqual([
      ['lodash', 'not called'],
      ['undici', 'dev only'],
    ]);
    expect(buildFindings(input()).counts).toEqual({ critical: 1, high: 1, medium: 1, low: 2 });
  });

  test('one name@version on two v1 nodes: one finding with the shorter path, whichever node comes first', () => {
    const paths = new Map([
      ['lodash@4.17.20', ['package.json', 'a@1', 'b@1', 'lodash@4.17.20']],
      ['lodash-4.17.20', ['package.json', 'c@1', 'lodash-4.17.20']],
    ]);
    const twin: Match = { ...match('lodash@4.17.20', lodash, '4.17.21'), nodeId: 'lodash-4.17.20' };
    for (const matches of [
      [match('lodash@4.17.20', lodash, '4.17.21'), twin],
      [twin, match('lodash@4.17.20', lodash, '4.17.21')],
    ]) {
      const built = buildFindings(input({ matches, paths }));
      expect(built.findings).toHaveLength(1);
      expect(built.findings[0].path).toEqual(['package.json', 'c@1', 'lodash-4.17.20']);
      expect(built.counts.high).toBe(1);
    }
    // Equal lengths: the path that sorts first element by element.
    const tie = new Map([
      ['lodash@4.17.20', ['package.json', 'z@1', 'lodash@4.17.20']],
      ['lodash-4.17.20', ['package.json', 'c@1', 'lodash-4.17.20']],
    ]);
    expect(
      buildFindings(input({ matches: [match('lodash@4.17.20', lodash), twin], paths: tie })).findings[0].path,
    ).toEqual(['package.json', 'c@1', 'lodash-4.17.20']);
  });

  test('no matches: no findings, zero counts', () => {
    expect(buildFindings(input({ matches: [] }))).toEqual({
      findings: [],
      counts: { critical: 0, high: 0, medium: 0, low: 0 },
      suppressed: 0,
    });
  });
});
