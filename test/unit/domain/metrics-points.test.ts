// Alert trends (src/domain/metrics/points.ts) and the portfolio (src/domain/metrics/portfolio.ts): what a day's point
// counts, how days without a point are carried, teams capped, the mean time to fix, and the portfolio's counts.
import type { AlertRecord } from '../../../src/domain/alerts/move';
import { viewOf, type AlertView } from '../../../src/domain/alerts/query';
import {
  addDays,
  dayPoint,
  daysBetween,
  isDay,
  projectSeries,
  sumSeries,
  type DayPoint,
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
    expect(p.p.o).toEqual([1, 2, 0, 0]);
    expect(p.p.s).toBe(1);
    expect(p.p.op).toBe(0);
    expect(p.p.fx).toBe(0);
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
    expect(p.p.op).toBe(2);
    expect(p.p.fx).toBe(2);
    expect(p.p.ttf[0]).toEqual([2, 5.5]);
    expect(p.p.o).toEqual([1, 1, 0, 0]);
    expect(p.p.s).toBe(1);
    expect(dayPoint(views, '2026-03-04').p.op).toBe(1); // the reopen of the 4th
  });

  test('a fix older than the inline history is read from the record', () => {
    const p = dayPoint(
      [alert({ status: 'fixed', firstSeenAt: '2026-03-01T00:00:00.000Z', fixedAt: '2026-03-03T00:00:00.000Z' })],
      '2026-03-03',
    );
    expect(p.p.fx).toBe(1);
    expect(p.p.ttf[1]).toEqual([1, 2]);
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
    expect(full.t.map(([t, c]) => [t, c.o[1]])).toEqual([
      ['a', 2],
      ['b', 1],
      ['c', 1],
      ['other', 1],
      ['unassigned', 1],
    ]);
    const capped = dayPoint(views, '2026-03-05', 3);
    // a (2) and b (1, first by label among the ones) kept; c, unassigned and the team named "other" as "other"
    expect(capped.t.map(([t, c]) => [t, c.o[1]])).toEqual([
      ['a', 2],
      ['b', 1],
      ['other', 3],
    ]);
    expect(capped.p.o[1]).toBe(5);
  });
});

describe('a series', () => {
  const point = (open: number, op = 0, fx = 0, ttf: [number, number] = [0, 0]): DayPoint => ({
    p: { o: [0, open, 0, 0], s: 1, op, fx, ttf: [[0, 0], ttf, [0, 0], [0, 0]] },
    t: [['payments', { o: [0, open, 0, 0], s: 0, op, fx, ttf: [[0, 0], ttf, [0, 0], [0, 0]] }]],
  });

  test('carries a point forward over days without one, from before the range too; nothing before the first', () => {
    const points = new Map([
      ['2026-03-01', point(3, 3)],
      ['2026-03-04', point(2, 0, 1, [1, 3])],
    ]);
    const s = projectSeries(points, '2026-02-28', '2026-03-06');
    expect(s.map((c) => c.o[1])).toEqual([0, 3, 3, 3, 2, 2, 2]);
    expect(s.map((c) => c.op)).toEqual([0, 3, 0, 0, 0, 0, 0]);
    expect(s.map((c) => c.fx)).toEqual([0, 0, 0, 0, 1, 0, 0]);
    expect(projectSeries(points, '2026-03-02', '2026-03-03').map((c) => [c.o[1], c.s])).toEqual([
      [3, 1],
      [3, 1],
    ]);
    // a team's series; a point stands in for its day (today's, made live)
    expect(
      projectSeries(points, '2026-03-03', '2026-03-05', 'payments', ['2026-03-05', point(7)]).map((c) => c.o[1]),
    ).toEqual([3, 2, 7]);
    expect(projectSeries(points, '2026-03-03', '2026-03-04', 'nobody').map((c) => c.o[1])).toEqual([0, 0]);
  });

  test('adds projects up and means the time to fix over the range', () => {
    const a = projectSeries(new Map([['2026-03-01', point(1, 1, 1, [1, 2])]]), '2026-03-01', '2026-03-02');
    const b = projectSeries(new Map([['2026-03-02', point(4, 0, 2, [2, 7])]]), '2026-03-01', '2026-03-02');
    const s = sumSeries('2026-03-01', [a, b], 2);
    expect(s.points).toEqual([
      { date: '2026-03-01', open: { critical: 0, high: 1, medium: 0, low: 0 }, suppressed: 1, opened: 1, fixed: 1 },
      { date: '2026-03-02', open: { critical: 0, high: 5, medium: 0, low: 0 }, suppressed: 2, opened: 0, fixed: 2 },
    ]);
    expect(s.meanTimeToFixDays).toEqual({ critical: null, high: 3, medium: null, low: null });
    // the stored points are not changed by adding them up
    expect(a[0].o[1]).toBe(1);
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
