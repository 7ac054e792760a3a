// Moving alerts with tracked scans (src/domain/alerts/move.ts): open on first sight (announced only after a pair's
// first tracked scan), fixed when a later scan lacks them, reopened when they come back, versions changed, merged when
// two alerts come to share an id; deterministic (a retry computes the same ids and events); and the list's filters
// and order (src/domain/alerts/query.ts).
import {
  INLINE_HISTORY,
  alertIdsOf,
  moveAlerts,
  type AlertRecord,
  type MoveFinding,
} from '../../../src/domain/alerts/move';
import {
  alertOrder,
  historyInline,
  historyOf,
  inlineEvents,
  matchesQuery,
  viewOf,
  type AlertQuery,
} from '../../../src/domain/alerts/query';

const f = (
  id: string,
  pkg: string,
  version: string,
  cve: string,
  aliases: string[],
  extra: Partial<MoveFinding> = {},
): MoveFinding => ({
  id,
  package: pkg,
  installedVersion: version,
  fixedVersion: '9.9.9',
  severity: 'high',
  cve,
  aliases,
  summary: `${cve} in ${pkg}`,
  publishedAt: '2024-01-01T00:00:00.000Z',
  suppressed: false,
  attributions: [],
  cvss: null,
  ...extra,
});
const source = (scanId: string, day: number) => ({
  projectId: 'prj_1',
  ecosystem: 'javascript',
  scanId,
  startedAt: `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z`,
  at: `2026-11-${String(day).padStart(2, '0')}T00:00:01.000Z`,
  generation: `gen${day}`,
});
const noTeam = () => null;

test('a first tracked scan opens one alert per package and alias group and announces nothing; a retry computes the same', () => {
  const findings = [
    f('a', 'lodash', '4.17.0', 'CVE-1', ['CVE-1', 'GHSA-1']),
    f('b', 'lodash', '4.17.1', 'CVE-1', ['CVE-1', 'GHSA-1']),
    f('c', 'minimist', '1.0.0', 'CVE-2', ['CVE-2']),
  ];
  const m = moveAlerts([], findings, source('scn_1', 1), noTeam, true);
  expect(m.alerts).toHaveLength(2);
  expect(m.opened).toEqual([]); // the first tracked scan: nothing announced
  expect(m.events).toEqual([]);
  const lodash = m.alerts.find((a) => a.key === 'lodash')!;
  expect(lodash).toMatchObject({
    status: 'open',
    installedVersions: ['4.17.0', '4.17.1'],
    firstSeenAt: '2026-11-01T00:00:00.000Z',
    firstSeenScanId: 'scn_1',
    openedGeneration: 'gen1',
    advisory: 'CVE-1',
    aliases: ['CVE-1', 'GHSA-1'],
  });
  expect(lodash.id).toMatch(/^alr_[0-9a-f]{24}$/);
  expect(m.alertOf.get('a')).toBe(lodash.id);
  expect(m.alertOf.get('b')).toBe(lodash.id);
  // Deterministic: the same input gives the same alerts, whatever the order of the findings.
  expect(moveAlerts([], [...findings].reverse(), source('scn_1', 1), noTeam, true).alerts).toEqual(m.alerts);
});

test('later scans: fixed when absent, reopened when back, versions changed, opened announced', () => {
  const s1 = moveAlerts(
    [],
    [f('a', 'lodash', '4.17.0', 'CVE-1', ['CVE-1']), f('c', 'minimist', '1.0.0', 'CVE-2', ['CVE-2'])],
    source('scn_1', 1),
    noTeam,
    true,
  );
  const lodash = s1.alerts.find((a) => a.key === 'lodash')!.id;
  const minimist = s1.alerts.find((a) => a.key === 'minimist')!.id;
  // Scan 2: minimist fixed, lodash at another version, a new advisory on express.
  const s2 = moveAlerts(
    s1.alerts,
    [f('a2', 'lodash', '4.17.5', 'CVE-1', ['CVE-1']), f('e', 'express', '4.0.0', 'CVE-3', ['CVE-3'])],
    source('scn_2', 2),
    noTeam,
    false,
  );
  const express = s2.alerts.find((a) => a.key === 'express')!.id;
  expect(s2.fixed).toEqual([minimist]);
  expect(s2.opened).toEqual([express]);
  expect(s2.reopened).toEqual([]);
  expect(s2.alerts.find((a) => a.id === minimist)).toMatchObject({
    status: 'fixed',
    fixedScanId: 'scn_2',
    fixedAt: '2026-11-02T00:00:01.000Z',
  });
  expect(s2.alerts.find((a) => a.id === lodash)).toMatchObject({
    status: 'open',
    installedVersions: ['4.17.5'],
    firstSeenScanId: 'scn_1',
    lastSeenScanId: 'scn_2',
  });
  expect(s2.events.map((e) => [e.alertId, e.type])).toEqual(
    [
      [lodash, 'versions_changed'],
      [minimist, 'fixed'],
    ].sort((a, b) => (a[0] < b[0] ? -1 : 1)),
  );
  // Scan 3: minimist back: the same alert reopens, keeping its first sight.
  const s3 = moveAlerts(
    s2.alerts,
    [f('a3', 'lodash', '4.17.5', 'CVE-1', ['CVE-1']), f('c3', 'minimist', '1.0.1', 'CVE-2', ['CVE-2'])],
    source('scn_3', 3),
    noTeam,
    false,
  );
  expect(s3.reopened).toEqual([minimist]);
  expect(s3.fixed).toEqual([express]);
  expect(s3.alerts.find((a) => a.id === minimist)).toMatchObject({
    status: 'open',
    fixedAt: null,
    fixedScanId: null,
    firstSeenAt: '2026-11-01T00:00:00.000Z',
    installedVersions: ['1.0.1'],
  });
  const reopened = s3.events.find((e) => e.type === 'reopened')!;
  expect(reopened).toMatchObject({ alertId: minimist, scanId: 'scn_3', generation: 'gen3' });
  // A scan with the same findings changes nothing.
  const s4 = moveAlerts(
    s3.alerts,
    [f('a4', 'lodash', '4.17.5', 'CVE-1', ['CVE-1']), f('c4', 'minimist', '1.0.1', 'CVE-2', ['CVE-2'])],
    source('scn_4', 4),
    noTeam,
    false,
  );
  expect(s4.events).toEqual([]);
  expect(s4.alerts.map((a) => [a.id, a.status])).toEqual(s3.alerts.map((a) => [a.id, a.status]));
});

test('two alerts whose groups come to share an id merge: the older survives, the other is merged into it', () => {
  const s1 = moveAlerts([], [f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1'])], source('scn_1', 1), noTeam, true);
  const s2 = moveAlerts(
    s1.alerts,
    [f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1']), f('b', 'lodash', '1.0.0', 'GHSA-2', ['GHSA-2'])],
    source('scn_2', 2),
    noTeam,
    false,
  );
  const older = s1.alerts[0].id;
  const younger = s2.alerts.find((a) => a.advisory === 'GHSA-2')!.id;
  const s3 = moveAlerts(
    s2.alerts,
    [f('c', 'lodash', '1.0.0', 'CVE-1', ['CVE-1', 'GHSA-2'])],
    source('scn_3', 3),
    noTeam,
    false,
  );
  expect(s3.alerts.find((a) => a.id === younger)).toMatchObject({ status: 'merged', mergedInto: older });
  expect(s3.alerts.find((a) => a.id === older)).toMatchObject({ status: 'open', aliases: ['CVE-1', 'GHSA-2'] });
  expect(s3.events).toEqual([
    expect.objectContaining({ alertId: younger, type: 'merged', details: { mergedInto: older } }),
  ]);
  expect(s3.fixed).toEqual([]);
});

test('introducing modules and their teams; an alert whose findings are all suppressed is suppressed', () => {
  const attributions = [
    {
      module: 'app',
      context: 'runtime',
      relationship: 'transitive' as const,
      path: [],
      origins: [{ module: 'lib', dependency: 'x', path: [] }],
    },
  ];
  const m = moveAlerts(
    [],
    [f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1'], { attributions, suppressed: true })],
    source('scn_1', 1),
    (mod) => (mod === 'lib' ? 'platform' : null),
    true,
  );
  expect(m.alerts[0]).toMatchObject({
    modules: ['lib'],
    teams: ['platform'],
    suppressed: true,
    suppressionSource: 'snapshot',
  });
});

test('findings resolve to existing alerts on any scan; a new one gets an id on a tracked scan only', () => {
  const s1 = moveAlerts([], [f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1'])], source('scn_1', 1), noTeam, true);
  const findings = [
    { id: 'x', package: 'Lodash', cve: 'CVE-1', aliases: ['CVE-1'] },
    { id: 'y', package: 'express', cve: 'CVE-3', aliases: ['CVE-3'] },
  ];
  const branch = alertIdsOf('javascript', s1.alerts, findings, null);
  expect(branch.get('x')).toEqual({ alertId: s1.alerts[0].id, firstSeenAt: '2026-11-01T00:00:00.000Z' });
  expect(branch.get('y')).toEqual({ alertId: null, firstSeenAt: null });
  const tracked = alertIdsOf('javascript', s1.alerts, findings, { projectId: 'prj_1', at: '2026-11-02T00:00:00.000Z' });
  const moved = moveAlerts(
    s1.alerts,
    findings.map((x) => f(x.id, x.package, '1.0.0', x.cve, x.aliases)),
    source('scn_2', 2),
    noTeam,
    false,
  );
  // The id the resolution gives a new alert is the one its move opens.
  expect(tracked.get('y')).toEqual({ alertId: moved.alertOf.get('y'), firstSeenAt: '2026-11-02T00:00:00.000Z' });
});

test('the list filters and orders; history is newest first with the opening derived', () => {
  const m = moveAlerts(
    [],
    [
      f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1', 'GHSA-x'], { severity: 'medium' }),
      f('b', 'minimist', '1.0.0', 'CVE-2', ['CVE-2'], { severity: 'critical', fixedVersion: null }),
      f('c', 'express', '1.0.0', 'CVE-3', ['CVE-3'], {
        severity: 'critical',
        cvss: { version: '3.1', vector: 'v', score: 9.8 },
      }),
    ],
    source('scn_1', 1),
    noTeam,
    true,
  );
  const views = m.alerts.map((a) => viewOf(a));
  const q: AlertQuery = { status: 'open', severityMode: 'at_least', suppressed: 'false', sort: 'severity' };
  const list = (extra: Partial<AlertQuery>) =>
    views
      .filter((a) => matchesQuery(a, { ...q, ...extra }))
      .sort(alertOrder(extra.sort ?? 'severity'))
      .map((a) => a.key);
  expect(list({})).toEqual(['express', 'minimist', 'lodash']);
  expect(list({ severity: 'critical', severityMode: 'exact' })).toEqual(['express', 'minimist']);
  expect(list({ fixable: false })).toEqual(['minimist']);
  expect(list({ advisory: 'ghsa-X' })).toEqual(['lodash']);
  expect(list({ q: 'MIN' })).toEqual(['minimist']);
  expect(list({ q: 'cve-3' })).toEqual(['express']);
  expect(list({ package: 'Express' })).toEqual(['express']);
  expect(list({ kev: true })).toEqual([]);
  expect(list({ status: 'fixed' })).toEqual([]);
  expect(list({ analysis: 'none' })).toHaveLength(3);
  // History: each alert keeps its newest events (with the move's seq), read newest first, the opening last.
  const id = m.alerts.find((a) => a.key === 'lodash')!.id;
  const s2 = moveAlerts(m.alerts, [], { ...source('scn_2', 2), seq: 2 }, noTeam, false); // everything fixed
  const s3 = moveAlerts(
    s2.alerts,
    [f('a3', 'lodash', '1.0.1', 'CVE-1', ['CVE-1', 'GHSA-x'])],
    { ...source('scn_3', 3), seq: 3 },
    noTeam,
    false,
  );
  const lodash = s3.alerts.find((a) => a.id === id)!;
  expect(lodash.history!.map((e) => [e.seq, e.type])).toEqual([
    [2, 'fixed'],
    [3, 'reopened'],
  ]);
  expect(lodash.historyCount).toBe(2);
  expect(historyInline([lodash])).toBe(true);
  const history = historyOf(lodash, inlineEvents([lodash]));
  expect(history.map((e) => [e.type, e.scanId])).toEqual([
    ['reopened', 'scn_3'],
    ['fixed', 'scn_2'],
    ['opened', 'scn_1'],
  ]);
  expect(history[2].generation).toBe('gen1');
  // Past the inline bound, the record keeps the newest and says there are more.
  let alerts = s3.alerts;
  for (let seq = 4; seq < 4 + INLINE_HISTORY + 10; seq++)
    alerts = moveAlerts(
      alerts,
      seq % 2 ? [] : [f('x', 'lodash', '1.0.1', 'CVE-1', ['CVE-1', 'GHSA-x'])],
      { ...source('scn_x', 4), seq },
      noTeam,
      false,
    ).alerts;
  const long = alerts.find((a) => a.id === id)!;
  expect(long.history).toHaveLength(INLINE_HISTORY);
  expect(long.historyCount).toBe(2 + INLINE_HISTORY + 9); // the first of those moves changed nothing (still open)
  expect(historyInline([long])).toBe(false);
});

test('alert ids avoid ids already taken (a merged alert keeps its id)', () => {
  const s1 = moveAlerts([], [f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1'])], source('scn_1', 1), noTeam, true);
  const merged: AlertRecord[] = [{ ...s1.alerts[0], status: 'merged', mergedInto: 'alr_other' }];
  const s2 = moveAlerts(merged, [f('a', 'lodash', '1.0.0', 'CVE-1', ['CVE-1'])], source('scn_2', 2), noTeam, false);
  const open = s2.alerts.filter((a) => a.status === 'open');
  expect(open).toHaveLength(1);
  expect(open[0].id).not.toBe(s1.alerts[0].id);
});
