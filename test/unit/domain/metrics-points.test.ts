// Alert trends (src/domain/metrics/points.ts) and the portfolio (src/domain/metrics/portfolio.ts): what a day's point
// counts, how days without a point are carried, teams capped, the mean time to fix, and the portfolio's counts.
import type { AlertRecord } from '../../../src/domain/alerts/move';
import { viewOf, type AlertView } from '../../../src/domain/alerts/query';
import {
  addDays,
  addSeries,
  COUNTS,
  countsOf,
  dayPoint,
  daysBetween,
  isDay,
  presentSeries,
  teamCounts,
  type Counts,
} from '../../../src/domain/metrics/points';
import { portfolioOf } from '../../../src/domain/metrics/portfolio';

let n = 0;
const alert = (o: Partial<AlertRecord>): AlertView =>
  viewOf({
    id: `alr_${++n}`,
    projectId: 'prj_1',
    ecosystem: 'gradle',
    package: `g:a${n}`,
    key: `g:a${n}`,
    advisory: `GHSA-${n}`,
    aliases: [`GHSA-${n}`],
    severity: 'high',
    cvss: null,
    summary: '',
    publishedAt: null,
    installedVersions: ['1.0.0'],
    fixedVersion: null,
    status: 'open',
    firstSeenAt: '2026-03-01T10:00:00.000Z',
    firstSeenScanId: 'scn_1',
    lastSeenAt: '2026-03-01T10:00:00.000Z',
    lastSeenScanId: 'scn_1',
    fixedAt: null,
    openedGeneration: null,
    modules: [],
    teams: ['payments'],
    suppressed: false,
    suppressionSource: null,
    ...o,
  });

/** Counts by name (their layout: open by severity, suppressed, opened, fixed, [fixes, days] by severity). */
const parts = (c: Float64Array) => ({
  open: Array.from(c.subarray(0, 4)),
  suppressed: c[4],
  opened: c[5],
  fixed: c[6],
  ttf: [0, 1, 2, 3].map((s) => [c[7 + 2 * s], c[8 + 2 * s]]),
});

const ev = (type: 'fixed' | 'reopened', at: string, seq: number) => ({ alertId: 'x', type, at, details: {}, seq });

describe('days', () => {
  test('are UTC calendar days', () => {
    expect(isDay('2026-02-28')).toBe(true);
    expect(isDay('2026-02-29')).toBe(false);
    expect(isDay('2026-2-28')).toBe(false);
    expect(isDay('2024-02-29')).toBe(true);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(daysBetween('2026-01-01', '2026-12-31')).toBe(364);
  });
});

describe('a day point', () => {
  test('counts open alerts by severity, suppressed ones apart, merged and fixed ones not', () => {
    const p = dayPoint(
      [
        alert({ severity: 'critical' }),
        alert({ severity: 'high' }),
        alert({ severity: 'high' }),
        alert({ severity: 'low', suppressed: true, suppressionSource: 'snapshot' }),
        alert({ severity: 'medium', status: 'merged', mergedInto: 'alr_1' }),
        alert({ severity: 'medium', status: 'fixed', fixedAt: '2026-02-01T00:00:00.000Z' }),
      ],
      '2026-03-05',
    );
    expect(parts(p.p)).toMatchObject({ open: [1, 2, 0, 0], suppressed: 1, opened: 0, fixed: 0 });
  });

  test('counts alerts first seen or reopened, and fixed, that day, with their days to fix', () => {
    const views = [
      alert({ firstSeenAt: '2026-03-05T01:00:00.000Z' }), // opened that day
      alert({
        severity: 'critical',
        firstSeenAt: '2026-03-01T00:00:00.000Z',
        status: 'fixed',
        fixedAt: '2026-03-05T12:00:00.000Z',
        history: [ev('fixed', '2026-03-05T12:00:00.000Z', 1)],
      }), // 4.5 days
      alert({
        severity: 'critical',
        firstSeenAt: '2026-01-01T00:00:00.000Z',
        history: [
          ev('fixed', '2026-02-01T00:00:00.000Z', 1),
          ev('reopened', '2026-03-04T00:00:00.000Z', 2),
          ev('fixed', '2026-03-05T00:00:00.000Z', 3),
          ev('reopened', '2026-03-05T18:00:00.000Z', 4),
        ],
      }), // fixed 1 day after its reopen, then reopened: open again
      alert({
        firstSeenAt: '2026-03-05T02:00:00.000Z',
        suppressed: true,
        suppressionSource: 'snapshot',
      }), // suppressed: not counted as opened
    ];
    const p = dayPoint(views, '2026-03-05');
    expect(parts(p.p)).toEqual({
      open: [1, 1, 0, 0],
      suppressed: 1,
      opened: 2,
      fixed: 2,
      ttf: [
        [2, 5.5],
        [0, 0],
        [0, 0],
        [0, 0],
      ],
    });
    expect(parts(dayPoint(views, '2026-03-04').p).opened).toBe(1); // the reopen of the 4th
  });

  test('a fix older than the inline history is read from the record', () => {
    const p = dayPoint(
      [alert({ status: 'fixed', firstSeenAt: '2026-03-01T00:00:00.000Z', fixedAt: '2026-03-03T00:00:00.000Z' })],
      '2026-03-03',
    );
    expect(parts(p.p)).toMatchObject({
      fixed: 1,
      ttf: [
        [0, 0],
        [1, 2],
        [0, 0],
        [0, 0],
      ],
    });
  });

  test('counts each team of an alert, "unassigned" without one; past the cap the smallest teams are "other"', () => {
    const views = [
      alert({ teams: ['a', 'b'] }),
      alert({ teams: ['a'] }),
      alert({ teams: [] }),
      alert({ teams: ['c'] }),
      alert({ teams: ['other'] }),
    ];
    const full = dayPoint(views, '2026-03-05');
    expect(full.t.map(([t, c]) => [t, c[1]])).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 1],
      ['other', 1],
      ['unassigned', 1],
    ]);
    const capped = dayPoint(views, '2026-03-05', 3);
    // a (2) and b (1, first by label among the ones) kept; c, unassigned and the team named "other" as "other"
    expect(capped.t.map(([t, c]) => [t, c[1]])).toEqual([
      ['a', 2],
      ['b', 1],
      ['other', 3],
    ]);
    expect(capped.p[1]).toBe(5);
    expect(teamCounts(capped, 'a')![1]).toBe(2);
    expect(teamCounts(capped, 'c')).toBeNull();
  });
});

describe('a series', () => {
  const at = (i: number, counts: Counts) => ({ at: i, counts });
  const series = (points: ReturnType<typeof at>[], from: number, days: number) => {
    const dense = new Float64Array(days * COUNTS);
    addSeries(dense, points, from, days);
    return Array.from({ length: days }, (_, i) => parts(dense.subarray(i * COUNTS, (i + 1) * COUNTS)));
  };

  test('carries a point forward over days without one, from before the range too; nothing before the first', () => {
    const points = [
      at(1, countsOf([0, 3], 1, 3)),
      at(
        4,
        countsOf([0, 2], 1, 0, 1, [
          [0, 0],
          [1, 3],
        ]),
      ),
    ];
    const s = series(points, 0, 7);
    expect(s.map((c) => c.open[1])).toEqual([0, 3, 3, 3, 2, 2, 2]);
    expect(s.map((c) => c.suppressed)).toEqual([0, 1, 1, 1, 1, 1, 1]);
    expect(s.map((c) => c.opened)).toEqual([0, 3, 0, 0, 0, 0, 0]);
    expect(s.map((c) => c.fixed)).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(s.map((c) => c.ttf[1][0])).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(series(points, 2, 2).map((c) => [c.open[1], c.suppressed, c.opened])).toEqual([
      [3, 1, 0],
      [3, 1, 0],
    ]);
    expect(series([], 0, 2).map((c) => c.open[1])).toEqual([0, 0]);
  });

  test('adds projects up into the answer, with the mean time to fix over the range', () => {
    const dense = new Float64Array(2 * COUNTS);
    const a = [
      at(
        0,
        countsOf([0, 1], 1, 1, 1, [
          [0, 0],
          [1, 2],
        ]),
      ),
    ];
    const b = [
      at(
        1,
        countsOf([0, 4], 1, 0, 2, [
          [0, 0],
          [2, 7],
        ]),
      ),
    ];
    addSeries(dense, a, 0, 2);
    addSeries(dense, b, 0, 2);
    const s = presentSeries('2026-03-01', dense);
    expect(s.points).toEqual([
      { date: '2026-03-01', open: { critical: 0, high: 1, medium: 0, low: 0 }, suppressed: 1, opened: 1, fixed: 1 },
      { date: '2026-03-02', open: { critical: 0, high: 5, medium: 0, low: 0 }, suppressed: 2, opened: 0, fixed: 2 },
    ]);
    expect(s.meanTimeToFixDays).toEqual({ critical: null, high: 3, medium: null, low: null });
    // the stored counts are not changed by adding them up
    expect(a[0].counts[1]).toBe(1);
  });
});

describe('the portfolio', () => {
  test('counts open alerts that are not suppressed by project and team, KEV apart, projects out of date', () => {
    const now = new Date('2026-03-31T00:00:00.000Z');
    const kev = { dateAdded: '2021-12-10', dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known' };
    const one = [
      Object.assign(alert({ severity: 'critical', teams: ['a'] }), { kev }),
      alert({ severity: 'low', teams: [] }),
      alert({ severity: 'low', suppressed: true, suppressionSource: 'snapshot' }),
      alert({ severity: 'high', status: 'fixed' }),
    ];
    const two = [alert({ projectId: 'prj_2', severity: 'high', teams: ['a', 'b'] })];
    const p = portfolioOf(
      [
        { id: 'prj_2', slug: 'beta', lastTrackedScanAt: new Date('2026-02-01T00:00:00.000Z') },
        { id: 'prj_1', slug: 'alpha', lastTrackedScanAt: new Date('2026-03-30T00:00:00.000Z') },
        { id: 'prj_3', slug: 'gamma', lastTrackedScanAt: null },
      ],
      new Map([
        ['prj_1', one],
        ['prj_2', two],
      ]),
      now,
    );
    expect(p.open).toEqual({ critical: 1, high: 1, medium: 0, low: 1 });
    expect(p.suppressed).toBe(1);
    expect(p.kev).toBe(1);
    expect(p.projects.map((x) => [x.slug, x.open.critical + x.open.high + x.open.low, x.kev, x.outOfDate])).toEqual([
      ['alpha', 2, 1, false],
      ['beta', 1, 0, true],
      ['gamma', 0, 0, true],
    ]);
    expect(p.teams).toEqual([
      { team: 'a', open: { critical: 1, high: 1, medium: 0, low: 0 }, kev: 1, projects: 2 },
      { team: 'b', open: { critical: 0, high: 1, medium: 0, low: 0 }, kev: 0, projects: 1 },
      { team: 'unassigned', open: { critical: 0, high: 0, medium: 0, low: 1 }, kev: 0, projects: 1 },
    ]);
  });
});
