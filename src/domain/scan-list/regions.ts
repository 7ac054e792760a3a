// The time partition behind GET /v1/scans (newest first by startedAt, ties by id descending).
//
// Each scope (an organization, or one project) cuts time into regions [start, end): region 0 starts at 0, region
// n + 1 starts where region n ends, and a region's bounds are fixed when it is created, before any scan can be filed
// in it. A scan is filed in the region that holds its startedAt. Region order is therefore startedAt order by
// construction: whatever order concurrent uploads reach the database in, however long one of them stalls, whatever
// the clocks of the API processes say. (A counter taken beside startedAt cannot give that: two uploads may take the
// two in opposite orders, and on FerretDB concurrent increments are not even atomic.)
//
// Consecutive regions share a group until the group holds about GROUP_TARGET scans; the group number is what a scan
// carries (orgBucket, projectBucket) and what a list reads by equality, so a page reads about limit / GROUP_TARGET
// groups whatever the history. Regions are short (at most REGION_MAX_MS), so that a burst after a quiet spell still
// fills groups of about the target size, and they are created only when a scan needs one, so quiet spells cost
// nothing. The sizes are heuristics: no order or completeness property depends on them.

export interface Region {
  /** Dense per scope: 0, 1, 2, ... (region n + 1 exists only once region n does). */
  n: number;
  /** startedAt (ms since the epoch) at or after which scans belong to this region... */
  start: number;
  /** ...and before which (exclusive). */
  end: number;
  /** The group (list bucket) of this region's scans: non-decreasing with n. */
  g: number;
  /** startedAt of the first scan that opened the group (its rate decides the width of the next region). */
  since: number;
}

/** About how many scans a group holds (the list reads groups of about this size). */
export const GROUP_TARGET = 16;
export const REGION_MIN_MS = 10;
export const REGION_MAX_MS = 500;
/** A region holds about this share of a group at the group's rate so far. */
const REGIONS_PER_GROUP = 4;

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** The first region of a scope, created by the scan at `at`: it also holds everything before. */
export function firstRegion(at: number): Region {
  return { n: 0, start: 0, end: at + REGION_MAX_MS, g: 0, since: at };
}

/**
 * The region after `prev`, created by a scan at `at` (at >= prev.end), when `prev`'s group holds `groupCount` scans.
 * It starts where `prev` ends and ends a little after `at`; it opens a new group once the current one is full.
 */
export function nextRegion(prev: Region, at: number, groupCount: number): Region {
  if (at < prev.end) throw new Error(`nextRegion: ${at} is inside region ${prev.n}`);
  const full = groupCount >= GROUP_TARGET;
  const rate = groupCount / Math.max(1, at - prev.since); // scans per ms over the group so far
  const width = rate > 0 ? clamp(GROUP_TARGET / REGIONS_PER_GROUP / rate, REGION_MIN_MS, REGION_MAX_MS) : REGION_MAX_MS;
  return {
    n: prev.n + 1,
    start: prev.end,
    end: at + Math.ceil(width),
    g: full ? prev.g + 1 : prev.g,
    since: full ? at : prev.since,
  };
}

export const holds = (r: Region, at: number): boolean => r.start <= at && at < r.end;

/** The region of `regions` (sorted by n, contiguous) that holds `at`, or undefined. */
export function regionAt(regions: readonly Region[], at: number): Region | undefined {
  let lo = 0;
  let hi = regions.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = regions[mid];
    if (at < r.start) hi = mid - 1;
    else if (at >= r.end) lo = mid + 1;
    else return r;
  }
  return undefined;
}

/**
 * Regions for scans that earlier versions filed in buckets by arrival (a counter per scope, which could disagree with
 * startedAt by a few ms at a bucket's edge). Region b keeps group b, so most scans stay where they are: it starts at
 * the earliest startedAt of bucket b (never before the region below; an empty bucket gets an empty region) and the
 * last region ends just after the latest scan. A scan whose startedAt lies outside its bucket's region moves to the
 * region that holds it.
 */
export function legacyRegions(scans: ReadonlyArray<{ bucket: number; at: number }>): Region[] {
  if (scans.length === 0) return [];
  const top = Math.max(...scans.map((s) => s.bucket));
  const minAt = new Map<number, number>();
  let latest = 0;
  for (const s of scans) {
    minAt.set(s.bucket, Math.min(minAt.get(s.bucket) ?? Infinity, s.at));
    latest = Math.max(latest, s.at);
  }
  const starts: number[] = [];
  for (let b = 0; b <= top; b++) starts.push(b === 0 ? 0 : Math.max(starts[b - 1], minAt.get(b) ?? starts[b - 1]));
  return starts.map((start, b) => {
    const end = b < top ? starts[b + 1] : Math.max(latest + 1, start + 1);
    return { n: b, start, end, g: b, since: Math.min(minAt.get(b) ?? start, end) };
  });
}

/** A scan's place in the list: startedAt (ms), then id. */
export interface ListKey {
  at: number;
  id: string;
}

/** Newest first: startedAt descending, ties by id descending. */
export function newestFirst(a: ListKey, b: ListKey): number {
  if (a.at !== b.at) return b.at - a.at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
