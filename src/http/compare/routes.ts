// GET /v1/scans/{scanId}/compare (docs/pr-gate.md): a completed scan's findings against a baseline scan of the same
// project and ecosystem (auto: the tracked scan of the scan's base commit, else the newest tracked scan before it),
// classified added, unchanged, disclosed or removed (src/domain/compare), with the suppressions the snapshot added and
// the dependency changes. Everything read is immutable once published, so a comparison is computed once per pair of
// scans and remembered; the query's suppressed filter and paging apply to the remembered result.
import Router from '@koa/router';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import {
  chooseBaseline,
  classify,
  sidePackages,
  type Classified,
  type ClassifiedFinding,
  type CompareSide,
} from '../../domain/compare';
import { computeInventory } from '../../domain/inventory';
import { ApiError, invalidParameter, notFound } from '../../domain/errors';
import {
  COMPARE_DEPENDENCIES_INLINE,
  COMPARE_FINDINGS_INLINE,
  COMPARE_PARTS,
  type CompareBaseline,
  type CompareParts,
  type ComparePart,
  type CompareResult,
} from '../../shared/compare';
import { presentCompareFinding } from '../../presenters/findings';
import type { Intel } from '../../domain/intel/types';
import { currentIntel } from '../intel';
import { pairIdOf } from '../../storage/alerts';
import type { ScanDoc } from '../../storage/documents/scans';
import { readInventory } from '../../storage/inventory';
import type { Store } from '../../storage/mongo';
import { readScanSnapshot } from '../../storage/scan-snapshot';
import { getScan } from '../../storage/scans';
import {
  readCompareInputs,
  trackedScansBefore,
  trackedScansOfCommit,
  type CompareInputs,
  type TrackedScan,
} from '../../storage/tracked-scans';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import { canReachProject } from '../auth/principal';
import type { AppDeps } from '../deps';
import { findingsOf, isPaged, modulesOf, teamOf, type StoredFinding } from '../findings/scope';
import type { ScanModule } from '../../domain/attribution/module-order';
import { compareCodePoints } from '../../shared/inventory-ids';
import { readScope } from '../../storage/attributions';
import { offsetOf } from '../findings/routes';
import { cursorQuery, enumQuery, parseLimit, singleQuery } from '../pagination';
import { pathId } from '../params';
import { Timing } from '../timing';
import { reachableScan } from '../scans/routes';

const SCAN_ID = /^scn_[A-Za-z0-9_-]{1,64}$/;

/** `baseline`: auto (default) or a scan id; any other value names no scan of the organization (404). */
function baselineQuery(ctx: Context): string {
  const v = singleQuery(ctx, 'baseline');
  if (v === undefined || v === 'auto') return 'auto';
  if (v === '') throw invalidParameter('baseline', 'must be auto or a scan id');
  return v;
}

const invalidState = (what: string) => new ApiError(409, 'invalid_state', what);

/** A scan of the organization in the credential's reach, or 404 not_found (checked before anything else). */
async function reachableBaseline(deps: AppDeps, ctx: Context, id: string): Promise<ScanDoc> {
  const p = principalOf(ctx);
  const scan = SCAN_ID.test(id) ? await getScan(deps.store, id) : null;
  if (!scan || scan.orgId !== p.orgId || !canReachProject(p, scan.projectId)) throw notFound(`scan ${id}`);
  return scan;
}

/** The completed scans among tracked ones (a filing is written before its scan is marked completed). */
async function completedOf(store: Store, scans: TrackedScan[]): Promise<Candidate[]> {
  const docs = await Promise.all(scans.map((s) => getScan(store, s.scanId)));
  return docs
    .filter((d): d is ScanDoc => d?.status === 'completed')
    .map((d) => ({ id: d._id, startedAt: d.startedAt, doc: d }));
}

/** A baseline candidate with the scan read to choose it (the one chosen is not read again). */
type Candidate = { id: string; startedAt: Date; doc: ScanDoc };

/** baseline=auto: the tracked scan of the head's base commit, else the newest tracked scan before it, else none. */
async function autoBaseline(store: Store, head: ScanDoc): Promise<ScanDoc | null> {
  const pairId = pairIdOf(head.projectId, head.ecosystem);
  const me = { id: head._id, startedAt: head.startedAt };
  const baseCommit = head.metadata?.baseCommit;
  const byCommit = baseCommit ? await completedOf(store, await trackedScansOfCommit(store, pairId, baseCommit)) : [];
  let chosen = chooseBaseline(me, byCommit, []);
  if (!chosen) {
    // Month by month back from the head's: the first month with a completed tracked scan before the head decides.
    let found: Candidate[] = [];
    await trackedScansBefore(store, pairId, head.startedAt, async (scans) => {
      found = await completedOf(store, scans);
      const pick = chooseBaseline(me, [], found);
      return pick ? scans.filter((s) => s.scanId === pick.id) : [];
    });
    chosen = chooseBaseline(me, [], found);
  }
  return chosen?.doc ?? null;
}

/** A completed scan's side of a comparison: its findings, packages, snapshot suppressions and module teams. */
async function sideOf(store: Store, scan: ScanDoc): Promise<CompareSide> {
  const [findings, inputs, modules] = await Promise.all([
    findingsOf(store, scan),
    readCompareInputs(store, scan._id, () => olderInputs(store, scan)),
    modulesOf(store, scan),
  ]);
  return {
    findings,
    packages: inputs.packages,
    suppressions: inputs.suppressions,
    teamOf: teamOf(modules),
    ...(isPaged(scan) ? { introducedOf: await pagedIntroduced(store, scan, findings, modules) } : {}),
  };
}

/**
 * A paged scan's introducing modules by finding (its findings carry no attributions): the introduced view of its
 * scope index, one list per module (read in its 64 buckets, whatever the number of modules), turned around.
 */
async function pagedIntroduced(
  store: Store,
  scan: ScanDoc,
  findings: StoredFinding[],
  modules: ScanModule[],
): Promise<(f: StoredFinding) => string[] | undefined> {
  const lists = await Promise.all(modules.map((m) => readScope(store, scan._id, 'introduced', 'module', m.path)));
  const byPosition = new Map<number, string[]>();
  modules.forEach((m, i) => {
    const pairs = lists[i];
    for (let k = 0; k < pairs.length; k += 2) {
      const list = byPosition.get(pairs[k]);
      if (list) list.push(m.path);
      else byPosition.set(pairs[k], [m.path]);
    }
  });
  const byFinding = new Map<StoredFinding, string[]>();
  for (const [position, paths] of byPosition)
    if (findings[position]) byFinding.set(findings[position], [...new Set(paths)].sort(compareCodePoints));
  return (f) => byFinding.get(f) ?? [];
}

/**
 * A scan published before its comparison inputs were stored: its suppressions from its snapshot, its packages from
 * its dependency inventory (or, older still, from its snapshot).
 */
async function olderInputs(store: Store, scan: ScanDoc): Promise<CompareInputs> {
  const snapshot = (await readScanSnapshot(store, scan._id)).snapshot;
  const items = await readInventory(store, scan._id, scan.ecosystem)
    .then((inv) => inv.items)
    .catch(() => computeInventory(snapshot, scan.projectId));
  return { suppressions: snapshot.suppressions ?? [], packages: sidePackages(scan.ecosystem, items) };
}

/**
 * A comparison as served: the classification, findings presented only as a request slices them out (a remembered
 * comparison holds references to the scans' findings, not 2,500 presented copies that every collection would walk).
 */
interface Served {
  classified: Classified;
  /**
   * The whole answer serialised, by suppressed filter, when no part of it is cut (a cut answer carries cursors,
   * which are made per request): a repeated read sends the same bytes without building them again.
   */
  bodies: Map<string, string>;
}

// Pairs of scans compared: immutable inputs, so a comparison stands for as long as it is remembered.
const compared = new LRUCache<string, Promise<Served>>({ max: 16 });

// Sides read (a baseline is compared with many heads; a head's read starts before its baseline is chosen). Their
// arrays are those the results cache holds: remembering a side keeps them, it does not copy them.
const sides = new LRUCache<string, Promise<CompareSide>>({ max: 8 });

/** A completed scan's side, read once per process while remembered; a read that fails is not kept. */
function sideFor(store: Store, scan: ScanDoc): Promise<CompareSide> {
  let side = sides.get(scan._id);
  if (!side) {
    side = sideOf(store, scan);
    side.catch(() => sides.delete(scan._id));
    sides.set(scan._id, side);
  }
  return side;
}

/** The comparison of a pair, computed once; the request that computes it marks its steps on `timing`. */
function comparison(store: Store, head: ScanDoc, baseline: ScanDoc | null, timing: Timing): Promise<Served> {
  const key = `${head._id}:${baseline?._id ?? '-'}`;
  let c = compared.get(key);
  if (!c) {
    c = Promise.all([sideFor(store, head), baseline ? sideFor(store, baseline) : null]).then(([h, b]) => {
      timing.mark('read');
      const classified = classify(head.ecosystem, h, b);
      timing.mark('classify');
      return { classified, bodies: new Map() };
    });
    c.catch(() => compared.delete(key));
    compared.set(key, c);
  }
  return c;
}

/** One part's items, the query's suppressed filter applied to findings (not yet presented). */
function partItems(c: Served, part: ComparePart, suppressed: 'false' | 'true' | 'all'): unknown[] {
  const [kind, name] = part.split('.') as ['findings' | 'dependencies', string];
  if (kind === 'dependencies') return c.classified.dependencies[name as 'added' | 'removed' | 'changed'];
  const list = c.classified.findings[name as 'added' | 'unchanged' | 'disclosed' | 'removed'];
  return suppressed === 'all' ? list : list.filter((f) => f.finding.suppressed === (suppressed === 'true'));
}

/** A slice of a part's items as served: findings presented, dependency changes as they are. */
const presented = (part: ComparePart, items: unknown[], intel: Intel): unknown[] =>
  part.startsWith('findings.') ? (items as ClassifiedFinding[]).map((f) => presentCompareFinding(f, intel)) : items;

const inlineCap = (part: ComparePart) =>
  part.startsWith('findings.') ? COMPARE_FINDINGS_INLINE : COMPARE_DEPENDENCIES_INLINE;

const presentBaseline = (b: ScanDoc | null): CompareBaseline | null =>
  b
    ? {
        id: b._id,
        ref: b.metadata?.ref ?? null,
        commit: b.metadata?.commit ?? null,
        startedAt: b.startedAt.toISOString(),
      }
    : null;

export function compareRoutes(deps: AppDeps): Router {
  const r = new Router();
  r.get('/v1/scans/:scanId/compare', access(deps, 'GET /v1/scans/:scanId/compare'), async (ctx) => {
    const timing = new Timing(ctx.state.startedAt);
    timing.mark('auth');
    const wanted = baselineQuery(ctx);
    const suppressed = enumQuery(ctx, 'suppressed', ['false', 'true', 'all'] as const) ?? 'false';
    const part = enumQuery(ctx, 'part', COMPARE_PARTS);
    const limit = parseLimit(ctx);
    const cursor = cursorQuery(ctx);
    if (cursor !== undefined && !part) throw invalidParameter('cursor', 'is given with part');
    // Ids out of reach are 404 before any other check: the scan's, then the baseline's.
    const head = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    const named = wanted === 'auto' ? null : await reachableBaseline(deps, ctx, wanted);
    if (head.status !== 'completed') throw invalidState(`scan ${head._id} is ${head.status}, not completed`);
    if (named && named.status !== 'completed')
      throw invalidState(`baseline scan ${named._id} is ${named.status}, not completed`);
    if (named && (named.projectId !== head.projectId || named.ecosystem !== head.ecosystem))
      throw invalidParameter('baseline', 'must be a scan of the same project and ecosystem');
    // A head not compared yet: its side is read while its baseline is looked for (needed whichever is chosen).
    if (![...compared.keys()].some((k) => k.startsWith(`${head._id}:`)))
      sideFor(deps.store, head).catch(() => undefined);
    const baseline = wanted === 'auto' ? await autoBaseline(deps.store, head) : named;
    timing.mark('scans');
    const [c, intel] = await Promise.all([comparison(deps.store, head, baseline, timing), currentIntel(deps.store)]);
    timing.mark('compare');
    const listingOf = (p: ComparePart) => `compare:${head._id}:${baseline?._id ?? '-'}:${suppressed}:${p}`;
    const common = { scanId: head._id, baseline: presentBaseline(baseline) };
    if (part) {
      const items = partItems(c, part, suppressed);
      const offset = offsetOf(deps, listingOf(part), cursor);
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      timing.mark('recheck');
      timing.write(ctx);
      ctx.body = {
        ...common,
        part,
        items: presented(part, items.slice(offset, offset + limit), intel),
        nextCursor: offset + limit < items.length ? deps.cursors.encode(listingOf(part), offset + limit) : null,
      };
      return;
    }
    const parts = {} as CompareParts;
    const cut = (p: ComparePart) => {
      const items = partItems(c, p, suppressed);
      const cap = inlineCap(p);
      parts[p] = {
        count: items.length,
        nextCursor: items.length > cap ? deps.cursors.encode(listingOf(p), cap) : null,
      };
      return presented(p, items.slice(0, cap), intel) as never;
    };
    const body: CompareResult = {
      ...common,
      baselineMissing: baseline ? null : 'no_tracked_scan',
      counts: c.classified.counts,
      findings: {
        added: cut('findings.added'),
        unchanged: cut('findings.unchanged'),
        disclosed: cut('findings.disclosed'),
        removed: cut('findings.removed'),
      },
      suppressionsAdded: c.classified.suppressionsAdded,
      dependencies: {
        added: cut('dependencies.added'),
        removed: cut('dependencies.removed'),
        changed: cut('dependencies.changed'),
      },
      parts,
    };
    const whole = Object.values(parts).every((p) => p.nextCursor === null);
    // (a body kept is the one of the feeds it was made with: a new KEV or EPSS generation makes it again)
    const bodyKey = `${suppressed}:${intel.version}`;
    let text = whole ? c.bodies.get(bodyKey) : undefined;
    if (text === undefined) {
      text = JSON.stringify(body);
      if (whole) c.bodies.set(bodyKey, text);
    }
    timing.mark('body');
    await recheck(deps, principalOf(ctx)); // after the load, just before the answer
    timing.mark('recheck');
    timing.write(ctx);
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = text;
  });
  return r;
}
