// KEV and EPSS joined onto an alias group (src/domain/intel/types.ts intelOf), onto alert views (viewOf) and findings
// as served (presentFinding), and the risk order of alerts (alertOrder('risk')): KEV first, then severity, then EPSS
// descending (none last), then CVSS descending, then the newest firstSeenAt, then id. Scores below are made up.
import { AlertIndex } from '../../../src/domain/alerts/index';
import type { AlertRecord } from '../../../src/domain/alerts/move';
import { alertOrder, matchesQuery, viewOf, type AlertQuery } from '../../../src/domain/alerts/query';
import { intelOf, NO_INTEL, type Intel } from '../../../src/domain/intel/types';
import { presentFinding } from '../../../src/presenters/findings';
import type { Finding } from '../../../src/shared/types';

const intel: Intel = {
  version: 'kev-1|epss-1',
  kev: {
    generation: 'kev-1',
    catalogVersion: '2025.08.25',
    dateReleased: '2025-08-25T17:04:19.979Z',
    entries: new Map([
      ['CVE-2021-44228', { dateAdded: '2021-12-10', dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known' }],
      ['CVE-2021-45046', { dateAdded: '2023-05-01', dueDate: '2023-05-22', knownRansomwareCampaignUse: 'Unknown' }],
    ]),
  },
  epss: {
    generation: 'epss-1',
    modelVersion: 'v2025.03.14',
    scoreDate: '2025-08-25',
    scores: new Map<string, readonly [number, number]>([
      ['CVE-2021-44228', [0.944, 0.999]],
      ['CVE-2021-45046', [0.97, 0.9998]],
      ['CVE-2024-0001', [0.02, 0.5]],
      ['CVE-2024-0002', [0.4, 0.9]],
    ]),
  },
};

describe('intelOf', () => {
  test('KEV of any CVE in the group (the earliest added), EPSS the highest over its CVEs, ids in any case', () => {
    expect(intelOf(['GHSA-jfh8-c2jp-5v3q', 'cve-2021-44228', 'CVE-2021-45046'], intel)).toEqual({
      kev: { dateAdded: '2021-12-10', dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known' },
      epss: { score: 0.97, percentile: 0.9998, date: '2025-08-25' },
    });
  });
  test('a group without a CVE in either feed, or no feeds at all: null', () => {
    expect(intelOf(['GHSA-aaaa-bbbb-cccc', 'PYSEC-2020-1', 'CVE-2099-0001'], intel)).toEqual({ kev: null, epss: null });
    expect(intelOf(['CVE-2021-44228'], NO_INTEL)).toEqual({ kev: null, epss: null });
  });
  test('EPSS without KEV, and KEV only when the catalog is there', () => {
    expect(intelOf(['CVE-2024-0002'], intel)).toEqual({
      kev: null,
      epss: { score: 0.4, percentile: 0.9, date: '2025-08-25' },
    });
    expect(intelOf(['CVE-2021-44228'], { ...intel, epss: null }).epss).toBeNull();
  });
});

const record = (i: number, o: Partial<AlertRecord>): AlertRecord => ({
  id: `alr_${String(i).padStart(4, '0')}`,
  projectId: 'prj_1',
  ecosystem: 'gradle',
  package: `g:a${i}`,
  key: `g:a${i}`,
  advisory: `GHSA-000${i}`,
  aliases: [`GHSA-000${i}`],
  severity: 'medium',
  cvss: null,
  summary: '',
  publishedAt: null,
  installedVersions: ['1.0.0'],
  fixedVersion: null,
  status: 'open',
  firstSeenAt: '2026-01-01T00:00:00.000Z',
  firstSeenScanId: 'scn_1',
  lastSeenAt: '2026-01-02T00:00:00.000Z',
  lastSeenScanId: 'scn_1',
  fixedAt: null,
  openedGeneration: null,
  modules: [],
  teams: [],
  suppressed: false,
  suppressionSource: null,
  ...o,
});

describe('alerts: KEV and EPSS on views, the risk order, the kev and epssMin filters', () => {
  const records = [
    record(1, { severity: 'critical', cvss: { version: '3.1', vector: 'v', score: 9.8 } }),
    record(2, { severity: 'low', aliases: ['GHSA-0002', 'CVE-2021-45046'] }), // KEV, low
    record(3, { severity: 'critical', aliases: ['GHSA-0003', 'CVE-2024-0001'] }), // EPSS 0.02
    record(4, { severity: 'critical', aliases: ['GHSA-0004', 'CVE-2024-0002'] }), // EPSS 0.4
    record(5, { severity: 'high', aliases: ['GHSA-0005', 'CVE-2021-44228'] }), // KEV, high
    record(6, { severity: 'critical', cvss: { version: '3.1', vector: 'v', score: 9.0 } }),
    record(7, {
      severity: 'critical',
      cvss: { version: '3.1', vector: 'v', score: 9.0 },
      firstSeenAt: '2026-02-01T00:00:00.000Z',
    }),
  ];
  const views = records.map((r) => viewOf(r, { intel }));

  test('views carry the joined entries', () => {
    expect(views[1].kev?.dateAdded).toBe('2023-05-01');
    expect(views[1].epss?.score).toBe(0.97);
    expect(views[0].kev).toBeNull();
    expect(views[0].epss).toBeNull();
  });

  test('risk: KEV first (by severity among them), then severity, EPSS descending (none last), CVSS, newest, id', () => {
    expect([...views].sort(alertOrder('risk')).map((v) => v.id)).toEqual([
      'alr_0005', // KEV high
      'alr_0002', // KEV low
      'alr_0004', // critical, EPSS 0.4
      'alr_0003', // critical, EPSS 0.02
      'alr_0001', // critical, no EPSS, CVSS 9.8
      'alr_0007', // critical, CVSS 9.0, newer
      'alr_0006',
    ]);
    // without the feeds, risk is the severity order
    const plain = records.map((r) => viewOf(r));
    expect([...plain].sort(alertOrder('risk')).map((v) => v.id)).toEqual(
      [...plain].sort(alertOrder('severity')).map((v) => v.id),
    );
  });

  test('kev and epssMin filter on the joined entries; the index answers as filtering does', () => {
    const base: AlertQuery = { status: 'open', severityMode: 'at_least', suppressed: 'false', sort: 'risk' };
    const ids = (q: AlertQuery) => views.filter((v) => matchesQuery(v, q)).map((v) => v.id);
    expect(ids({ ...base, kev: true })).toEqual(['alr_0002', 'alr_0005']);
    expect(ids({ ...base, kev: false })).toEqual(['alr_0001', 'alr_0003', 'alr_0004', 'alr_0006', 'alr_0007']);
    expect(ids({ ...base, epssMin: 0.4 })).toEqual(['alr_0002', 'alr_0004', 'alr_0005']);
    const index = new AlertIndex(views);
    expect(index.page({ ...base, kev: true }, 0, 10).alerts.map((v) => v.id)).toEqual(['alr_0005', 'alr_0002']);
  });

  test('a view made again from its record keeps the entries it had (known)', () => {
    const again = viewOf(records[1], { known: views[1] });
    expect([again.kev, again.epss]).toEqual([views[1].kev, views[1].epss]);
  });
});

test('findings as served carry kev and epss of their alias group (null without the feeds)', () => {
  const f = {
    id: 'fnd_1',
    scanId: 'scn_1',
    severity: 'critical',
    cve: 'GHSA-jfh8-c2jp-5v3q',
    publishedAt: null,
    package: 'org.apache.logging.log4j:log4j-core',
    installedVersion: '2.14.1',
    fixedVersion: '2.15.0',
    path: [],
    suppressed: false,
    suppressionReason: null,
    attributions: [],
    summary: '',
    aliases: ['GHSA-jfh8-c2jp-5v3q', 'CVE-2021-44228'],
    packageRef: 'dep_1',
  } satisfies Finding;
  expect(presentFinding(f, undefined, undefined, intel)).toMatchObject({
    kev: { dateAdded: '2021-12-10' },
    epss: { score: 0.944, percentile: 0.999, date: '2025-08-25' },
  });
  expect(presentFinding(f)).toMatchObject({ kev: null, epss: null });
});
