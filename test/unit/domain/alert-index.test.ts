// The alert index (src/domain/alerts/index.ts) answers every query exactly as filtering and sorting every alert would,
// whichever candidate list it reads, across pages.
import { AlertIndex } from '../../../src/domain/alerts/index';
import type { AlertRecord } from '../../../src/domain/alerts/move';
import { ALERT_SORTS, alertOrder, matchesQuery, viewOf, type AlertQuery } from '../../../src/domain/alerts/query';

const SEV = ['critical', 'high', 'medium', 'low'] as const;
function alerts(n: number): AlertRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `alr_${String(i).padStart(6, '0')}`,
    projectId: `prj_${i % 7}`,
    ecosystem: i % 3 ? 'javascript' : 'python',
    package: i % 3 ? `Pkg-${i % 11}` : `Pkg_${i % 11}`,
    key: i % 3 ? `pkg-${i % 11}` : `pkg-${i % 11}`,
    advisory: `GHSA-${i % 13}`,
    aliases: [`GHSA-${i % 13}`, `CVE-2024-${i % 17}`],
    severity: SEV[i % 4],
    cvss: i % 5 ? { version: '3.1', vector: 'v', score: (i % 10) + 0.5 } : null,
    summary: '',
    publishedAt: null,
    installedVersions: ['1.0.0'],
    fixedVersion: i % 2 ? '2.0.0' : null,
    status: i % 9 === 0 ? 'fixed' : i % 31 === 0 ? 'merged' : 'open',
    firstSeenAt: new Date(Date.UTC(2026, 0, 1 + (i % 40))).toISOString(),
    firstSeenScanId: 'scn_1',
    lastSeenAt: new Date(Date.UTC(2026, 1, 1 + (i % 20))).toISOString(),
    lastSeenScanId: 'scn_2',
    fixedAt: null,
    openedGeneration: null,
    modules: i % 4 ? [`:mod-${i % 5}`] : [],
    teams: i % 4 ? [`team-${i % 3}`] : [],
    suppressed: i % 8 === 0,
    suppressionSource: i % 8 === 0 ? 'snapshot' : null,
    ...(i % 31 === 0 && i % 9 !== 0 ? { mergedInto: 'alr_000001' } : {}),
  }));
}

test('every query answers as a filter and sort over every alert, page after page', () => {
  const views = alerts(1500).map((a) => viewOf(a));
  const index = new AlertIndex(views);
  const base: AlertQuery = { status: 'open', severityMode: 'at_least', suppressed: 'false', sort: 'severity' };
  const queries: Array<Partial<AlertQuery>> = [
    {},
    { status: 'all' },
    { status: 'fixed' },
    { projectIds: ['prj_3'] },
    { projectIds: ['prj_1', 'prj_2'], severity: 'high' },
    { package: 'PKG_4' },
    { package: 'pkg-4', ecosystem: 'python' },
    { advisory: 'cve-2024-5' },
    { advisory: 'GHSA-2', status: 'all', suppressed: 'all' },
    { team: 'team-1' },
    { module: ':mod-2', fixable: true },
    { q: 'pkg-1' },
    { q: 'PKG_' },
    { q: 'cve-2024-1', status: 'all' },
    { q: 'zzz' },
    { severity: 'critical', severityMode: 'exact' },
  ];
  for (const extra of queries)
    for (const sort of ALERT_SORTS) {
      const q = { ...base, ...extra, sort };
      const expected = views
        .filter((a) => matchesQuery(a, q))
        .sort(alertOrder(sort))
        .map((a) => a.id);
      const got: string[] = [];
      for (let offset = 0; ; offset += 50) {
        const page = index.page(q, offset, 50);
        got.push(...page.alerts.map((a) => a.id));
        if (!page.more) break;
      }
      expect([JSON.stringify(q), got]).toEqual([JSON.stringify(q), expected]);
    }
  expect(index.get('alr_000031')!.id).toBe('alr_000001'); // a merged id answers its survivor
  expect(index.mergedInto('alr_000001')).toContain('alr_000031');
});
