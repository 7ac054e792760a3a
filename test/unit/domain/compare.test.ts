// The comparison of a scan with its baseline (src/domain/compare): each class of §2 on its own, names compared as the
// ecosystem compares them, aliases shared across id kinds, suppressions added, dependency changes, the order, and the
// choice of the automatic baseline.
import {
  chooseBaseline,
  classify,
  dependencyChanges,
  sidePackages,
  suppressionsAdded,
  type ClassifiedFinding,
  type CompareSide,
  type ComparedFinding,
} from '../../../src/domain/compare';
import { presentCompareFinding } from '../../../src/presenters/findings';
import type { Severity } from '../../../src/shared/types';

let n = 0;
const f = (
  scanId: string,
  pkg: string,
  version: string,
  cve: string,
  aliases: string[] = [cve],
  extra: Partial<ComparedFinding> = {},
): ComparedFinding => ({
  id: `fnd_${String(++n).padStart(4, '0')}`,
  scanId,
  severity: 'high',
  cve,
  publishedAt: null,
  package: pkg,
  installedVersion: version,
  fixedVersion: null,
  path: [pkg],
  suppressed: false,
  suppressionReason: null,
  attributions: [],
  summary: `${cve} in ${pkg}`,
  aliases,
  packageRef: `dep_${pkg}`,
  ...extra,
});

const side = (
  findings: ComparedFinding[],
  packages: Array<[string, string]>,
  extra: Partial<CompareSide> = {},
  ecosystem = 'javascript',
): CompareSide => ({
  findings,
  packages: sidePackages(
    ecosystem,
    packages.map(([name, version]) => ({ name, version })),
  ),
  suppressions: [],
  teamOf: () => undefined,
  ...extra,
});

const ids = (list: ClassifiedFinding[]) => list.map((x) => `${x.finding.package} ${x.finding.cve}`);

describe('classify', () => {
  test('added, unchanged, disclosed and removed, each as §2 defines it', () => {
    const base = side(
      [
        f('b', 'lodash', '4.17.20', 'GHSA-lod1', ['GHSA-lod1', 'CVE-2021-1']), // fixed by the head
        f('b', 'minimist', '1.2.0', 'GHSA-min1'), // bumped, still vulnerable
        f('b', 'axios', '0.21.0', 'GHSA-ax1'), // untouched
      ],
      [
        ['lodash', '4.17.20'],
        ['minimist', '1.2.0'],
        ['axios', '0.21.0'],
        ['qs', '6.5.2'],
      ],
    );
    const head = side(
      [
        f('h', 'minimist', '1.2.5', 'GHSA-min1'),
        f('h', 'axios', '0.21.0', 'GHSA-ax1'),
        f('h', 'qs', '6.5.2', 'GHSA-qs1'), // qs untouched, advisory new since the baseline
        f('h', 'moment', '2.29.1', 'GHSA-mom1'), // the change added moment
      ],
      [
        ['lodash', '4.17.21'],
        ['minimist', '1.2.5'],
        ['axios', '0.21.0'],
        ['qs', '6.5.2'],
        ['moment', '2.29.1'],
      ],
    );
    const c = classify('javascript', head, base);
    expect(ids(c.findings.added)).toEqual(['moment GHSA-mom1']);
    expect(ids(c.findings.disclosed)).toEqual(['qs GHSA-qs1']);
    expect(ids(c.findings.unchanged).sort()).toEqual(['axios GHSA-ax1', 'minimist GHSA-min1']);
    expect(ids(c.findings.removed)).toEqual(['lodash GHSA-lod1']);
    const minimist = c.findings.unchanged.find((x) => x.finding.package === 'minimist')!;
    expect(minimist).toMatchObject({ versionsChanged: true, baselineVersions: ['1.2.0'] });
    expect(c.findings.unchanged.find((x) => x.finding.package === 'axios')).toMatchObject({ versionsChanged: false });
    expect(c.counts.added).toEqual({ critical: 0, high: 1, medium: 0, low: 0 });
    expect(c.counts.removed.high).toBe(1);
    expect(c.dependencies).toEqual({
      added: [{ name: 'moment', version: '2.29.1' }],
      removed: [],
      changed: [
        { name: 'lodash', from: ['4.17.20'], to: ['4.17.21'] },
        { name: 'minimist', from: ['1.2.0'], to: ['1.2.5'] },
      ],
    });
  });

  test('an alias shared across id kinds is the same vulnerability; names compare as the ecosystem does', () => {
    const base = side(
      [f('b', 'Django', '3.2.0', 'PYSEC-2022-1', ['PYSEC-2022-1', 'CVE-2022-9'])],
      [['Django', '3.2.0']],
      {},
      'python',
    );
    const head = side(
      [f('h', 'django', '3.2.1', 'GHSA-dj1', ['GHSA-dj1', 'CVE-2022-9'])],
      [['django', '3.2.1']],
      {},
      'python',
    );
    const c = classify('python', head, base);
    expect(ids(c.findings.unchanged)).toEqual(['django GHSA-dj1']);
    expect(c.findings.added).toEqual([]);
    expect(c.findings.removed).toEqual([]);
    // PyPI names: Django and django are one package, its version changed.
    expect(c.dependencies.changed).toEqual([{ name: 'django', from: ['3.2.0'], to: ['3.2.1'] }]);
  });

  test('another advisory of a package the baseline had vulnerable is added when the version is new', () => {
    const base = side([f('b', 'lodash', '4.17.11', 'GHSA-a')], [['lodash', '4.17.11']]);
    const head = side([f('h', 'lodash', '4.17.12', 'GHSA-b')], [['lodash', '4.17.12']]);
    const c = classify('javascript', head, base);
    expect(ids(c.findings.added)).toEqual(['lodash GHSA-b']);
    expect(ids(c.findings.removed)).toEqual(['lodash GHSA-a']);
  });

  test('no baseline: the head alone, everything added', () => {
    const head = side(
      [
        f('h', 'a', '1', 'GHSA-1', undefined, { severity: 'low' }),
        f('h', 'b', '1', 'GHSA-2', undefined, { severity: 'critical' }),
      ],
      [
        ['b', '1'],
        ['a', '1'],
      ],
      { suppressions: [{ cve: 'GHSA-9', reason: 'not reachable' }] },
    );
    const c = classify('javascript', head, null);
    expect(ids(c.findings.added)).toEqual(['b GHSA-2', 'a GHSA-1']); // severity order
    expect(c.dependencies.added).toEqual([
      { name: 'a', version: '1' },
      { name: 'b', version: '1' },
    ]);
    expect(c.suppressionsAdded).toEqual([{ cve: 'GHSA-9', reason: 'not reachable' }]);
  });

  test('counts leave suppressed findings out; lists keep them with their flag', () => {
    const head = side(
      [f('h', 'a', '1', 'GHSA-1', undefined, { suppressed: true, suppressionReason: 'x' })],
      [['a', '1']],
    );
    const c = classify('javascript', head, side([], []));
    expect(c.counts.added.high).toBe(0);
    expect(c.findings.added).toHaveLength(1);
    expect(c.findings.added[0].finding.suppressed).toBe(true);
  });

  test('order: severity then id, whatever the input order', () => {
    const sev: Severity[] = ['low', 'critical', 'medium', 'high', 'critical'];
    const head = side(
      sev.map((s, i) => f('h', `p${i}`, '1', `GHSA-${i}`, undefined, { severity: s, id: `fnd_${9 - i}` })),
      sev.map((_, i) => [`p${i}`, '1'] as [string, string]),
    );
    const c = classify('javascript', head, null);
    expect(c.findings.added.map((x) => `${x.finding.severity} ${x.finding.id}`)).toEqual([
      'critical fnd_5',
      'critical fnd_8',
      'high fnd_6',
      'medium fnd_7',
      'low fnd_9',
    ]);
  });

  test('introducing modules and their teams', () => {
    const attributed = f('h', 'a', '1', 'GHSA-1', undefined, {
      attributions: [
        {
          module: 'apps/web',
          context: 'runtime',
          relationship: 'transitive',
          path: [],
          origins: [
            { module: 'libs/ui', dependency: 'x', path: [] },
            { module: 'apps/web', dependency: 'y', path: [] },
          ],
        },
        { module: 'apps/api', context: 'runtime', relationship: 'direct', path: [], origins: [] },
      ],
    });
    const teams: Record<string, string | null> = { 'libs/ui': '@acme/ui', 'apps/web': '@acme/web', 'apps/api': null };
    const c = classify('javascript', side([attributed], [['a', '1']], { teamOf: (m) => teams[m] }), null);
    expect(c.findings.added[0]).toMatchObject({
      modules: ['apps/api', 'apps/web', 'libs/ui'],
      teams: ['@acme/ui', '@acme/web'],
    });
    // As served: the light shape, with its attributions counted.
    expect(presentCompareFinding(c.findings.added[0])).toMatchObject({
      attributions: [],
      attributionCount: 2,
      modules: ['apps/api', 'apps/web', 'libs/ui'],
    });
  });
});

describe('suppressions added and dependency changes', () => {
  test('a suppression the baseline carried is not added; a later expiry is', () => {
    const had = [{ cve: 'GHSA-1', reason: 'old reason', package: 'a', expires: '2027-01-01' }];
    expect(
      suppressionsAdded(
        [
          { cve: 'GHSA-1', reason: 'new wording', package: 'a', expires: '2027-01-01' },
          { cve: 'GHSA-1', reason: 'longer', package: 'a', expires: '2028-01-01' },
          { cve: 'CVE-2', reason: 'r' },
          { cve: 'CVE-2', reason: 'r again' },
        ],
        had,
      ),
    ).toEqual([
      { cve: 'CVE-2', reason: 'r' },
      { cve: 'GHSA-1', reason: 'longer', package: 'a', expires: '2028-01-01' },
    ]);
  });

  test('several versions of one package: a changed set is one change; names as the ecosystem compares them', () => {
    const d = dependencyChanges(
      sidePackages('javascript', [
        { name: 'a', version: '1' },
        { name: 'a', version: '2' },
        { name: 'c', version: '1' },
        { name: 'B', version: '1' },
      ]),
      sidePackages('javascript', [
        { name: 'a', version: '1' },
        { name: 'b', version: '1' },
        { name: 'd', version: '1' },
      ]),
    );
    expect(d.changed).toEqual([{ name: 'a', from: ['1'], to: ['1', '2'] }]);
    expect(d.added).toEqual([{ name: 'c', version: '1' }]);
    expect(d.removed).toEqual([{ name: 'd', version: '1' }]);
  });
});

describe('the automatic baseline', () => {
  const at = (id: string, iso: string) => ({ id, startedAt: new Date(iso) });
  const head = at('scn_head', '2026-05-10T00:00:00Z');

  test('the scan of the base commit first, the newest of several', () => {
    const byCommit = [at('scn_a', '2026-05-01T00:00:00Z'), at('scn_b', '2026-05-02T00:00:00Z')];
    const tracked = [at('scn_c', '2026-05-09T00:00:00Z')];
    expect(chooseBaseline(head, byCommit, tracked)?.id).toBe('scn_b');
  });

  test('else the newest tracked scan that started before the head; never the head itself nor a later one', () => {
    const tracked = [
      at('scn_old', '2026-05-01T00:00:00Z'),
      at('scn_new', '2026-05-09T00:00:00Z'),
      at('scn_head', '2026-05-10T00:00:00Z'),
      at('scn_later', '2026-05-11T00:00:00Z'),
    ];
    expect(chooseBaseline(head, [], tracked)?.id).toBe('scn_new');
    expect(chooseBaseline(head, [at('scn_head', '2026-05-10T00:00:00Z')], tracked)?.id).toBe('scn_new');
  });

  test('equal start times order by id; none before: null', () => {
    const same = [at('scn_a', '2026-05-10T00:00:00Z'), at('scn_z', '2026-05-10T00:00:00Z')];
    expect(chooseBaseline(head, [], same)?.id).toBe('scn_a');
    expect(chooseBaseline(head, [], [at('scn_later', '2026-06-01T00:00:00Z')])).toBeNull();
  });
});
