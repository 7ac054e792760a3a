// Real GitHub-reviewed OSV advisories (advisories/ of the third-party data, src/infra/shared-data.ts) read with
// readOsvSources, indexed, and matched against small npm snapshots.
import { readOsvSources, type OsvItem } from '../../../src/advisories/reader';
import { buildAdvisoryIndex, type AdvisoryIndex } from '../../../src/domain/advisories/build-index';
import { rulesForOsv } from '../../../src/domain/advisories/ecosystems';
import { matchSnapshot, type Match } from '../../../src/domain/matching';
import type { OsvAdvisory } from '../../../src/shared/types';
import { describeWithSharedData, sharedDataPath } from '../../helpers/shared-data';
import { npmSnapshot } from './helpers';

const DATA = sharedDataPath('advisories');

async function readAll(
  paths: string[],
): Promise<{ advisories: OsvAdvisory[]; errors: Array<{ source: string; error: string }> }> {
  const advisories: OsvAdvisory[] = [];
  const errors: Array<{ source: string; error: string }> = [];
  for await (const item of readOsvSources(paths) as AsyncGenerator<OsvItem>) {
    if ('error' in item) errors.push(item);
    else advisories.push(item.advisory);
  }
  return { advisories, errors };
}

describeWithSharedData('real advisories', () => {
  let npm: OsvAdvisory[];
  let maven: OsvAdvisory[];
  let pypi: OsvAdvisory[];
  let index: AdvisoryIndex;

  beforeAll(async () => {
    const [n, m, p] = await Promise.all([
      readAll([`${DATA}/npm`]),
      readAll([`${DATA}/maven`]),
      readAll([`${DATA}/pypi`]),
    ]);
    expect([n.errors, m.errors, p.errors]).toEqual([[], [], []]);
    [npm, maven, pypi] = [n.advisories, m.advisories, p.advisories];
    index = buildAdvisoryIndex(npm);
  });

  const matches = (ids: string[], idx = index): Match[] => matchSnapshot(npmSnapshot(ids), idx).matches;
  /** nodeId → sorted "cve fixedVersion severity" lines. */
  const table = (ids: string[], idx = index) => {
    const out: Record<string, string[]> = {};
    for (const id of ids) out[id] = [];
    for (const m of matches(ids, idx)) out[m.nodeId].push(`${m.group.cve} ${m.fixedVersion} ${m.group.severity}`);
    for (const id of ids) out[id].sort();
    return out;
  };

  test('the npm, maven and pypi folders read completely', () => {
    expect([npm.length, maven.length, pypi.length]).toEqual([29, 28, 2661]);
    expect(npm.every((a) => !a.withdrawn)).toBe(true);
  });

  test('lodash 4.17.20: CVE-2021-23337 (GHSA-35jh-r3h4-6jhm), high from CVSS 3.1 7.2, fixed 4.17.21; 4.17.21 is clean', () => {
    const [m, ...rest] = matches(['lodash@4.17.20']);
    expect(rest).toEqual([]);
    expect(m.group.cve).toBe('CVE-2021-23337');
    expect(m.group.ids).toEqual(['CVE-2021-23337', 'GHSA-35jh-r3h4-6jhm']);
    expect(m.group.severity).toBe('high');
    expect(m.fixedVersion).toBe('4.17.21');
    expect(m.group.publishedAt).toBe('2021-05-06T16:05:51.000Z');
    expect(m.group.summary).toBe('Command Injection in lodash');
    expect(matches(['lodash@4.17.21', 'lodash-es@4.17.21'])).toEqual([]);
    expect(table(['lodash-es@4.17.15'])).toEqual({ 'lodash-es@4.17.15': ['CVE-2021-23337 4.17.21 high'] });
  });

  test('axios: GHSA-8hc4-vh64-cxmj names the package "Axios" and still matches axios', () => {
    const [m, ...rest] = matches(['axios@1.6.0']);
    expect(rest).toEqual([]);
    expect(m.group.ids).toEqual(['CVE-2024-39338', 'GHSA-8hc4-vh64-cxmj']);
    expect(npm.find((a) => a.id === 'GHSA-8hc4-vh64-cxmj')!.affected![0].package!.name).toBe('Axios');
    expect(table(['axios@1.6.0', 'axios@1.5.0', 'axios@1.7.4', 'axios@0.8.0'])).toEqual({
      'axios@1.6.0': ['CVE-2024-39338 1.7.4 high'],
      'axios@1.5.0': ['CVE-2023-45857 1.6.0 medium', 'CVE-2024-39338 1.7.4 high'],
      'axios@1.7.4': [],
      'axios@0.8.0': [],
    });
  });

  test('ip 1.1.8: GHSA-78xj-cgh5-2h22 (last_affected, no fix) and GHSA-2p57-rm9w-gvfp (fixed 2.0.1)', () => {
    const ms = matches(['ip@1.1.8']);
    expect(
      ms
        .map((m) => [m.group.ids.find((id) => id.startsWith('GHSA-')), m.group.cve, m.fixedVersion, m.group.severity])
        .sort(),
    ).toEqual([
      ['GHSA-2p57-rm9w-gvfp', 'CVE-2024-29415', '2.0.1', 'high'],
      ['GHSA-78xj-cgh5-2h22', 'CVE-2023-42282', null, 'high'],
    ]);
    expect(table(['ip@1.1.9', 'ip@2.0.1'])).toEqual({ 'ip@1.1.9': ['CVE-2024-29415 2.0.1 high'], 'ip@2.0.1': [] });
  });

  test("ws: one advisory, four intervals; each installed version gets its own line's fix", () => {
    expect(table(['ws@7.5.9', 'ws@8.0.0', 'ws@8.17.1', 'ws@6.2.2', 'ws@5.2.4', 'ws@2.0.0'])).toEqual({
      'ws@7.5.9': ['CVE-2024-37890 7.5.10 high'],
      'ws@8.0.0': ['CVE-2024-37890 8.17.1 high'],
      'ws@8.17.1': [],
      'ws@6.2.2': ['CVE-2024-37890 6.2.3 high'],
      'ws@5.2.4': [],
      'ws@2.0.0': [],
    });
  });

  test('qs 6.10.1 → 6.10.3 (nine intervals); 6.2.0 → 6.2.4; 6.10.3 clean', () => {
    expect(table(['qs@6.10.1', 'qs@6.2.0', 'qs@6.10.3', 'qs@6.3.3'])).toEqual({
      'qs@6.10.1': ['CVE-2022-24999 6.10.3 high'],
      'qs@6.2.0': ['CVE-2022-24999 6.2.4 high'],
      'qs@6.10.3': [],
      'qs@6.3.3': [],
    });
  });

  test('babel-traverse: a range with only introduced "0" affects every version, no fix; @babel/traverse has fixes', () => {
    expect(
      table([
        'babel-traverse@6.26.0',
        'babel-traverse@99.0.0',
        '@babel/traverse@7.23.1',
        '@babel/traverse@8.0.0-alpha.3',
        '@babel/traverse@7.23.2',
      ]),
    ).toEqual({
      'babel-traverse@6.26.0': ['CVE-2023-45133 null critical'],
      'babel-traverse@99.0.0': ['CVE-2023-45133 null critical'],
      '@babel/traverse@7.23.1': ['CVE-2023-45133 7.23.2 critical'],
      '@babel/traverse@8.0.0-alpha.3': ['CVE-2023-45133 8.0.0-alpha.4 critical'],
      '@babel/traverse@7.23.2': [],
    });
  });

  test('node-fetch: the partial bound "1.0" is read as 1.0.0', () => {
    // Ranges [1.0, 3.1.1) and [0, 2.6.7): 2.6.1 is in both, so the fix that leaves both is 3.1.1; 0.9.0 is only in
    // the second (it would be in both if "1.0" were unreadable and opened the range from the beginning).
    expect(table(['node-fetch@2.6.1', 'node-fetch@0.9.0', 'node-fetch@3.0.0', 'node-fetch@3.1.1'])).toEqual({
      'node-fetch@2.6.1': ['CVE-2022-0235 3.1.1 high'],
      'node-fetch@0.9.0': ['CVE-2022-0235 2.6.7 high'],
      'node-fetch@3.0.0': ['CVE-2022-0235 3.1.1 high'],
      'node-fetch@3.1.1': [],
    });
  });

  test("severity from real vectors: CVSS 4.0 wins over 3.1 and over the database's MODERATE", () => {
    expect(
      table([
        'serve-static@1.15.0',
        'body-parser@1.20.2',
        'express@4.19.1',
        'follow-redirects@1.14.7',
        'undici@5.26.1',
      ]),
    ).toEqual({
      'serve-static@1.15.0': ['CVE-2024-43800 1.16.0 low'], // v3.1 5.0 medium, v4 2.3 low
      'body-parser@1.20.2': ['CVE-2024-45590 1.20.3 high'], // v4 8.7
      'express@4.19.1': ['CVE-2024-29041 4.19.2 medium', 'CVE-2024-43796 4.20.0 low'],
      'follow-redirects@1.14.7': [
        'CVE-2022-0155 1.14.8 high',
        'CVE-2022-0536 1.14.8 medium',
        'CVE-2023-26159 1.15.4 medium',
      ],
      'undici@5.26.1': ['CVE-2023-45143 5.26.2 low', 'CVE-2024-24758 5.28.3 low'],
    });
  });

  test('entries of ecosystems not scanned in npm advisories (NuGet, RubyGems) are not indexed; Maven webjars are, as Maven', () => {
    expect([...index.byPackage.keys()].every((k) => k.startsWith('npm\u0000') || k.startsWith('Maven\u0000'))).toBe(
      true,
    );
    expect(index.byPackage.has('npm\u0000moment.js')).toBe(false);
    expect(table(['moment@2.29.1', 'http-cache-semantics@4.1.0'])).toEqual({
      'moment@2.29.1': ['CVE-2022-24785 2.29.2 high'],
      'http-cache-semantics@4.1.0': ['CVE-2022-25881 4.1.1 high'],
    });
  });

  test('maven/ and pypi/ data add nothing to npm matching', () => {
    for (const e of ['PyPI', 'Maven', 'npm']) expect(rulesForOsv(e)).not.toBeNull();
    const all = buildAdvisoryIndex([...npm, ...maven, ...pypi]);
    const npmKeys = (i: typeof all) => [...i.byPackage.keys()].filter((k) => k.startsWith('npm\u0000')).sort();
    expect(npmKeys(all)).toEqual(npmKeys(index));
    expect(all.advisoryCount).toBe(29 + 28 + 2661);
    // Every package named by an npm advisory, at a few versions, plus names that also occur in the PyPI and Maven data.
    const names = [
      ...new Set(
        npm.flatMap((a) =>
          a.affected!.filter((x) => x.package?.ecosystem === 'npm').map((x) => x.package!.name.toLowerCase()),
        ),
      ),
    ];
    const ids = names
      .flatMap((n) => ['0.0.1', '1.0.0', '2.0.0', '4.17.20', '6.10.1', '8.0.0'].map((v) => `${n}@${v}`))
      .concat(['django@1.0.0', 'requests@2.0.0', 'jinja2@2.0.0', 'log4j-core@2.14.1']);
    const render = (ms: Match[]) =>
      ms
        .map(
          (m) =>
            `${m.nodeId} ${m.group.key} ${m.group.cve} ${m.group.severity} ${m.fixedVersion} ${m.group.publishedAt}`,
        )
        .sort();
    const expected = render(matches(ids));
    expect(expected.length).toBeGreaterThan(40);
    expect(render(matches(ids, all))).toEqual(expected);
  });

  test('pypi-all.zip reads completely: 2661 advisories, the same ids as pypi/, zero errors', async () => {
    const { advisories, errors } = await readAll([`${DATA}/pypi-all.zip`]);
    expect(errors).toEqual([]);
    expect(advisories).toHaveLength(2661);
    expect(advisories.map((a) => a.id).sort()).toEqual(pypi.map((a) => a.id).sort());
    expect(advisories.filter((a) => a.withdrawn)).toHaveLength(10);
    expect(advisories.filter((a) => (a.severity ?? []).some((s) => s.type === 'CVSS_V3'))).toHaveLength(202);
    const names = new Set(
      advisories
        .filter((a) => !a.withdrawn)
        .flatMap((a) =>
          (a.affected ?? [])
            .filter((x) => x.package?.ecosystem === 'PyPI')
            .map((x) => x.package!.name.toLowerCase().replace(/[-_.]+/g, '-')),
        ),
    );
    expect(buildAdvisoryIndex(advisories).byPackage.size).toBe(names.size);
  });
});
