// The scan list's time partition: whatever order and timing scans arrive in, regions stay contiguous, every startedAt
// falls in exactly one region, and groups never decrease with startedAt, which is what makes the list's group order
// the list's order (newest first by startedAt, ties by id descending). Property tests over random arrivals, including
// stalled uploads that arrive after newer ones.
import fc from 'fast-check';
import {
  firstRegion,
  GROUP_TARGET,
  holds,
  legacyRegions,
  newestFirst,
  nextRegion,
  REGION_MAX_MS,
  REGION_MIN_MS,
  regionAt,
  type Region,
} from '../../../src/domain/scan-list/regions';

/** Files scans arriving in this order (startedAt values) as storage/scan-regions.ts does: a region is created when a scan lies past the newest one. */
function file(arrivals: number[]): { regions: Region[]; groups: number[] } {
  const regions: Region[] = [];
  const counts = new Map<number, number>();
  const groups = arrivals.map((at) => {
    if (regions.length === 0) regions.push(firstRegion(at));
    while (at >= regions[regions.length - 1].end) {
      const top = regions[regions.length - 1];
      regions.push(nextRegion(top, at, counts.get(top.g) ?? 0));
    }
    const r = regionAt(regions, at)!;
    counts.set(r.g, (counts.get(r.g) ?? 0) + 1);
    return r.g;
  });
  return { regions, groups };
}

const T0 = 1_700_000_000_000;
/** Arrivals: mostly increasing startedAt with random gaps (bursts and quiet spells), some arriving late by up to `lag` ms. */
const arrivals = (lag: number) =>
  fc
    .array(
      fc.record({
        gap: fc.oneof(
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 0, max: 2_000 }),
          fc.integer({ min: 0, max: 86_400_000 }),
        ),
        late: fc.integer({ min: 0, max: lag }),
      }),
      { minLength: 1, maxLength: 300 },
    )
    .map((xs) => {
      let t = T0;
      const keyed = xs.map(({ gap, late }, i) => {
        t += gap;
        return { at: t, arrives: t + late, i };
      });
      return keyed.sort((a, b) => a.arrives - b.arrives || a.i - b.i).map((k) => k.at);
    });

test('regions are contiguous from 0, non-empty, and each startedAt is held by exactly one', () => {
  fc.assert(
    fc.property(arrivals(5_000), (ats) => {
      const { regions } = file(ats);
      expect(regions[0].start).toBe(0);
      regions.forEach((r, n) => {
        expect(r.n).toBe(n);
        expect(r.end).toBeGreaterThan(r.start);
        if (n > 0) expect(r.start).toBe(regions[n - 1].end);
      });
      for (const at of ats) expect(regions.filter((r) => holds(r, at))).toHaveLength(1);
    }),
  );
});

test('groups never decrease with startedAt, whatever the arrival order (so listing groups newest first is startedAt order)', () => {
  fc.assert(
    fc.property(arrivals(60_000), (ats) => {
      const { groups } = file(ats);
      const byTime = ats.map((at, i) => ({ at, g: groups[i] })).sort((a, b) => a.at - b.at);
      for (let i = 1; i < byTime.length; i++) expect(byTime[i].g).toBeGreaterThanOrEqual(byTime[i - 1].g);
      // dense: no group number is skipped
      const distinct = [...new Set(groups)].sort((a, b) => a - b);
      expect(distinct).toEqual(distinct.map((_, i) => distinct[0] + i));
    }),
  );
});

test('steady and bursty uploads fill groups of about the target size', () => {
  for (const every of [1, 10, 100, 1_000, 60_000]) {
    const ats = Array.from({ length: 2_000 }, (_, i) => T0 + i * every);
    const { groups } = file(ats);
    const sizes = [...groups.reduce((m, g) => m.set(g, (m.get(g) ?? 0) + 1), new Map<number, number>()).values()].slice(
      1,
      -1,
    );
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(GROUP_TARGET);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2 * GROUP_TARGET);
  }
});

test('region widths stay within their bounds', () => {
  fc.assert(
    fc.property(arrivals(0), (ats) => {
      const { regions } = file(ats);
      for (const r of regions.slice(1)) {
        // a region ends at most REGION_MAX_MS after the scan that created it, and at least REGION_MIN_MS
        const creator = ats.find((at) => at >= r.start && at < r.end && at >= r.end - REGION_MAX_MS);
        expect(creator).toBeDefined();
        expect(r.end - creator!).toBeGreaterThanOrEqual(REGION_MIN_MS);
      }
    }),
  );
});

test('nextRegion refuses a scan its predecessor holds', () => {
  expect(() => nextRegion(firstRegion(T0), T0, 0)).toThrow(/inside region 0/);
});

describe('legacyRegions: buckets filed by arrival become regions in startedAt order', () => {
  test('scans already in order stay in their bucket; out-of-order ones move to the region that holds them', () => {
    // buckets of 3 by arrival; the scan started at T0+5 arrived after those of T0+6 and T0+7 (bucket 2, not 1)
    const scans = [
      { bucket: 0, at: T0 + 1 },
      { bucket: 0, at: T0 + 2 },
      { bucket: 0, at: T0 + 3 },
      { bucket: 1, at: T0 + 4 },
      { bucket: 1, at: T0 + 6 },
      { bucket: 1, at: T0 + 7 },
      { bucket: 2, at: T0 + 5 },
      { bucket: 2, at: T0 + 8 },
      { bucket: 2, at: T0 + 9 },
    ];
    const regions = legacyRegions(scans);
    expect(regions.map((r) => [r.start, r.end, r.g])).toEqual([
      [0, T0 + 4, 0],
      [T0 + 4, T0 + 5, 1],
      [T0 + 5, T0 + 10, 2],
    ]);
    expect(scans.map((s) => regionAt(regions, s.at)!.g)).toEqual([0, 0, 0, 1, 2, 2, 2, 2, 2]);
  });

  test('any arrival order: regions contiguous, every scan held, groups non-decreasing with startedAt', () => {
    fc.assert(
      fc.property(
        arrivals(10_000),
        fc.integer({ min: 1, max: 20 }),
        fc.option(fc.integer({ min: 0, max: 5 })),
        (ats, size, skipped) => {
          // what the earlier versions did: a counter by arrival, `size` a bucket (a bucket number may also be missing)
          const scans = ats.map((at, i) => ({
            bucket: Math.floor(i / size) + (skipped !== null && Math.floor(i / size) >= skipped ? 1 : 0),
            at,
          }));
          const regions = legacyRegions(scans);
          regions.forEach((r, n) => {
            expect(r.g).toBe(n);
            expect(r.end).toBeGreaterThanOrEqual(r.start);
            if (n > 0) expect(r.start).toBe(regions[n - 1].end);
          });
          const filed = scans.map((s) => ({ at: s.at, g: regionAt(regions, s.at)!.g })).sort((a, b) => a.at - b.at);
          for (let i = 1; i < filed.length; i++) expect(filed[i].g).toBeGreaterThanOrEqual(filed[i - 1].g);
          // new scans (after the latest) go to regions created after the last one
          expect(regions[regions.length - 1].end).toBe(Math.max(...ats) + 1);
        },
      ),
    );
  });

  test('no scans: no regions', () => expect(legacyRegions([])).toEqual([]));
});

test('newestFirst: startedAt descending, ties by id descending', () => {
  const keys = [
    { at: 2, id: 'a' },
    { at: 3, id: 'a' },
    { at: 2, id: 'b' },
    { at: 1, id: 'z' },
  ];
  expect([...keys].sort(newestFirst)).toEqual([
    { at: 3, id: 'a' },
    { at: 2, id: 'b' },
    { at: 2, id: 'a' },
    { at: 1, id: 'z' },
  ]);
});
