// The alert index (src/domain/alerts/index.ts) answers every query exactly as filtering and sorting every alert would,
// whichever candidate list it reads, across pages.
import { AlertIndex } from '../../../src/domain/alerts/index';
import type { AlertRecord } from '../../../src/domain/alerts/move';
import {
  ALERT_SORTS,
  alertOrder,
  matchesQuery,
  viewOf,
  type AlertQuery,
  type AlertView,
} from '../../../src/domain/alerts/query';
import type { Analysis } from '../../../src/domain/triage/analysis';

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
  { analysis: 'none' },
  { analysis: 'exploitable', suppressed: 'all' },
  { analysis: 'not_affected', suppressed: 'all', status: 'all' },
];

/** Every query, every sort, page after page: the index answers as filtering and sorting `views` would. */
function answersAsFiltering(index: AlertIndex, views: readonly AlertView[]) {
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
}

test('every query answers as a filter and sort over every alert, page after page', () => {
  const views = alerts(1500).map((a) => viewOf(a));
  const index = new AlertIndex(views);
  answersAsFiltering(index, views);
  expect(index.get('alr_000031')!.id).toBe('alr_000001'); // a merged id answers its survivor
  expect(index.mergedInto('alr_000001')).toContain('alr_000031');
});

test('an index with some views replaced (their triage changed) answers as one built from every view afresh', () => {
  const records = alerts(1500);
  const now = new Date('2026-06-01T00:00:00Z');
  const analysis = (state: Analysis['state'], i: number): Analysis => ({
    state,
    justification: state === 'not_affected' ? 'code_not_present' : null,
    response: [],
    detail: `decision ${i}`,
    versions: null,
    expiresAt: null,
    ticketUrl: null,
    updatedAt: now.toISOString(),
    updatedBy: { kind: 'user', id: 'usr_1', name: 'a@example.com' },
  });
  const decided = new Map<string, Analysis>();
  records.forEach((a, i) => {
    if (i % 10 === 0) decided.set(a.id, analysis('in_triage', i));
  });
  const view = (a: AlertRecord) => viewOf(a, { analysis: decided.get(a.id) ?? null, now });
  const first = new AlertIndex(records.map(view));
  // every list the first index has built is carried over: build some (sorts, groups, a prefix search, by analysis)
  answersAsFiltering(first, records.map(view));
  // a bulk decision: some alerts newly decided (suppressing), some changed, some analyses removed
  const changed: string[] = [];
  records.forEach((a, i) => {
    if (i % 7 === 0) decided.set(a.id, analysis(i % 2 ? 'not_affected' : 'exploitable', i));
    else if (i % 20 === 0) decided.delete(a.id);
    else return;
    changed.push(a.id);
  });
  const byId = new Map(records.map((a) => [a.id, a]));
  const next = first.withViews(changed.map((id) => view(byId.get(id)!)));
  const views = records.map(view);
  answersAsFiltering(next, views);
  answersAsFiltering(new AlertIndex(views), views);
  // the first index is left as it was
  answersAsFiltering(
    first,
    records.map((a, i) => viewOf(a, { analysis: i % 10 === 0 ? analysis('in_triage', i) : null, now })),
  );
  expect(next.get(changed[1])!.analysis?.state).toBe(decided.get(changed[1])?.state);
});
