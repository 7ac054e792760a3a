// The steps of a scan, as plain async functions over MongoDB and the pure domain. The activities wrap them: the
// regular pipeline persists what passes between steps (claim check), the fast path keeps it in memory.
import { validateSnapshot } from '../src/domain/snapshot';
import { checkPagedSnapshot } from '../src/domain/snapshot/parts-merge';
import { ApiError, invalidSnapshot } from '../src/domain/errors';
import { buildAdvisoryIndex, rulesFor, type AdvisoryIndex } from '../src/domain/advisories';
import { matchSnapshot, type MatchResult } from '../src/domain/matching';
import { derivePathBudget, v1Paths, AttributionLimitExceeded } from '../src/domain/attribution';
import { moduleRank, orderModules, type ScanModule } from '../src/domain/attribution/module-order';
import { assembleV2, attributeInline } from '../src/domain/attribution/v2-assemble';
import { buildAttributionGraph, type BuiltGraph } from '../src/domain/attribution/v2-graph';
import type { FindingAttribution } from '../src/shared/types';
import { buildFindings, countFindings } from '../src/domain/findings';
import { currentGeneration, loadGeneration } from '../src/storage/advisories';
import { claimCompletion, getScan, markCompleted, markFailed, markRunning } from '../src/storage/scans';
import { writeModules, writeResults } from '../src/storage/results';
import { computeInventory } from '../src/domain/inventory';
import { pruneInventoryHeads, writeInventory } from '../src/storage/inventory';
import { touchOrgUsages } from '../src/storage/usages';
import { recordTrackedScan, writeCompareInputs } from '../src/storage/tracked-scans';
import { normalizedName } from '../src/shared/package-names';
import { pairIdOf } from '../src/storage/alerts';
import { clearAllWork } from '../src/storage/activity-work';
import type { ScanEvents } from '../src/temporal/events';
import { Lru } from './cache';
import { startResolution } from './alert-steps';
import { forgetScan, loadScan, loadScanInputs, loadSnapshot, type ScanEngineDeps, type ScanInputs } from './inputs';

/**
 * The engine's dependencies, with the emitter of scan events when webhooks are delivered. The paged
 * activities hand the same object back to publish(), so their completions emit too.
 */
export interface EngineDeps extends ScanEngineDeps {
  events?: ScanEvents;
}

const indexes = new Lru<string, Promise<AdvisoryIndex>>(2);
const EMPTY = '(none)';

/** The advisory index of a generation, built once per worker process (generations are immutable). */
export function advisoryIndex(deps: ScanEngineDeps, generation: string | null): Promise<AdvisoryIndex> {
  const key = generation ?? EMPTY;
  let p = indexes.get(key);
  if (!p) {
    p = (async () => buildAdvisoryIndex(generation ? await loadGeneration(deps.store, generation) : []))();
    p.catch(() => indexes.delete(key));
    indexes.set(key, p);
  }
  return p;
}

export interface PrepareSummary {
  ecosystem: string;
  nodeCount: number;
  generation: string | null;
  schemaVersion: number;
}

export type PrepareResult =
  | { kind: 'ok'; summary: PrepareSummary; inputs: ScanInputs; running: Promise<void> }
  | { kind: 'unsupported'; message: string }
  | { kind: 'invalid'; message: string };

/**
 * Loads and checks the scan in depth, pins the advisory generation and moves the scan to running. The status write
 * is returned as a promise so that the fast path overlaps it with matching; it is awaited before any result is
 * written.
 */
export async function prepare(deps: ScanEngineDeps, scanId: string): Promise<PrepareResult> {
  // The snapshot's read and parse start at once; the status write starts as soon as the scan document and the
  // current generation are in, so that its round trips overlap the parse, the deep check and the matching.
  const parsed = loadSnapshot(deps, scanId);
  parsed.catch(() => undefined); // awaited below, unless the scan turns out unsupported first
  const [scan, current] = await Promise.all([loadScan(deps, scanId), currentGeneration(deps.store)]);
  if (!rulesFor(scan.ecosystem))
    return { kind: 'unsupported', message: `ecosystem ${scan.ecosystem} is not supported yet` };
  // The generation is pinned on the first attempt: a retry, or an import finishing mid-scan, never changes it.
  const generation = scan.advisoryGeneration !== undefined ? scan.advisoryGeneration : current;
  const running = scan.status === 'queued' ? markRunning(deps.store, scanId, generation ?? null) : Promise.resolve();
  running.catch(() => undefined); // awaited by the caller; never an unhandled rejection meanwhile
  const { snapshot, bytes, asValidated } = await parsed;
  // Deep check: the stored bytes must still be the snapshot that was validated at upload. A body stored with its
  // SHA-256 is checked against it (a hash instead of the whole validation again: 0.1 ms instead of some 10 for
  // 1,000 nodes); one stored by an earlier version, without it, is validated again.
  try {
    // A multipart (paged) scan is above the single-document limits by design: its upload's budgets, the
    // cross-references over the whole graph and the hops are checked instead.
    if (scan.attributionMode === 'paged') checkPagedSnapshot(snapshot);
    else if (asValidated === false) throw invalidSnapshot('', 'the stored body is not the one validated at upload');
    else if (asValidated === null) validateSnapshot(snapshot, bytes);
  } catch (err) {
    await running.catch(() => undefined); // landed before the failure is written
    return { kind: 'invalid', message: err instanceof ApiError ? err.message : String(err) };
  }
  const inputs: ScanInputs = { scan, snapshot, bytes };
  return {
    kind: 'ok',
    inputs,
    running,
    summary: {
      ecosystem: scan.ecosystem,
      nodeCount: scan.nodeCount,
      generation: generation ?? null,
      schemaVersion: scan.schemaVersion,
    },
  };
}

export async function computeMatches(
  deps: ScanEngineDeps,
  scanId: string,
  inputs: ScanInputs,
  generation: string | null,
): Promise<MatchResult> {
  const result = matchSnapshot(inputs.snapshot, await advisoryIndex(deps, generation));
  if (result.unmatchedVersions > 0) {
    deps.logger.warn(
      { scanId, unmatchedVersions: result.unmatchedVersions, examples: result.unmatched.slice(0, 5) },
      'versions the ecosystem rules could not parse',
    );
  }
  return result;
}

/** What the path step derives: display paths, and for v2 the attributions and the ordered module metadata. */
export interface Derived {
  paths: Map<string, string[]>;
  attributions?: Map<string, FindingAttribution[]>;
  modules: ScanModule[];
}

export type PathsResult =
  ({ kind: 'ok'; segments: number; characters: number } & Derived) | { kind: 'over_budget'; message: string };

const overBudget = (err: unknown): PathsResult => {
  if (err instanceof AttributionLimitExceeded) return { kind: 'over_budget', message: err.message };
  throw err;
};

/** v1 display paths, or (small v2 scans) the whole attribution in this thread. */
export function computePaths(inputs: ScanInputs, matches: MatchResult['matches']): PathsResult {
  const ids = new Set(matches.map((m) => m.nodeId));
  try {
    if (inputs.snapshot.schemaVersion === 2) {
      const modules = orderModules(inputs.snapshot.modules ?? []);
      const built = graphOf(inputs);
      const v2 = attributeInline(inputs.snapshot, built, ids, moduleRank(modules));
      return { kind: 'ok', ...v2, modules, ...countDerived(v2) };
    }
    const paths = v1Paths(inputs.snapshot, ids);
    return { kind: 'ok', paths, modules: [], ...derivePathBudget(paths.values()) };
  } catch (err) {
    return overBudget(err);
  }
}

/** The derived-path output of a v2 scan: every Finding.path, attributions[].path and origins[].path. */
function* derivedPaths(d: Pick<Derived, 'paths' | 'attributions'>): Generator<string[]> {
  yield* d.paths.values();
  for (const list of d.attributions?.values() ?? []) {
    for (const a of list) {
      yield a.path;
      for (const o of a.origins) yield o.path;
    }
  }
}

export const countDerived = (d: Pick<Derived, 'paths' | 'attributions'>) => derivePathBudget(derivedPaths(d));

/** The compact graph of a v2 scan, built once per scan and worker process. */
const graphs = new Lru<string, BuiltGraph>(2);
export function graphOf(inputs: ScanInputs): BuiltGraph {
  return graphs.getOrCreateSync(inputs.scan._id, () => buildAttributionGraph(inputs.snapshot));
}

/** The v2 attribution from stored shard outputs: assembled, counted against the budget as a whole. */
export function assembleStored(inputs: ScanInputs, outputs: Int32Array[]): PathsResult {
  try {
    const modules = orderModules(inputs.snapshot.modules ?? []);
    const v2 = assembleV2(inputs.snapshot, graphOf(inputs).labels, outputs, moduleRank(modules));
    return { kind: 'ok', ...v2, modules, ...countDerived(v2) };
  } catch (err) {
    return overBudget(err);
  }
}

/**
 * Writes the findings (and v2 module metadata), then publishes them with one update of the scan document. Idempotent.
 * `before` (paged scans) runs on the built findings before anything is written: it stores their attributions apart
 * and sets each finding's attributionCount (activities/paged.ts).
 */
export async function publish(
  deps: EngineDeps,
  scanId: string,
  inputs: ScanInputs,
  m: MatchResult,
  derived: Derived,
  generation: string | null,
  intermediates = true,
  before?: (findings: ReturnType<typeof buildFindings>['findings']) => Promise<void>,
) {
  // Each finding's alert: the reads start now and overlap the building of the findings.
  const resolution = startResolution(deps.store, inputs.scan);
  const built = buildFindings({
    scanId,
    projectId: inputs.scan.projectId,
    snapshot: inputs.snapshot,
    matches: m.matches,
    paths: derived.paths,
    attributions: derived.attributions,
    processingDay: new Date().toISOString().slice(0, 10),
  });
  // Analyses in force suppress findings: the counts are then those after triage.
  const teams = new Map((derived.modules ?? []).map((m) => [m.path, m.teamName ?? null]));
  if ((await resolution.apply(built.findings, (m) => teams.get(m))) > 0)
    Object.assign(built, countFindings(built.findings));
  if (before) await before(built.findings);
  const v2 = inputs.snapshot.schemaVersion === 2;
  const claimed = claimCompletion(deps.store, scanId);
  claimed.catch(() => undefined); // awaited by markCompleted
  // Whether the organization wants scan.completed: asked now, so that its round trip overlaps the writes below.
  const subscribed = deps.events?.subscribed(inputs.scan.orgId, 'scan.completed');
  subscribed?.catch(() => undefined); // awaited after the completion
  // The results' writes go out first; the dependency inventory is computed while they are on their way, and written
  // with them, before the scan is marked completed.
  const results = Promise.all([
    writeResults(deps.store, scanId, built.findings),
    v2 ? writeModules(deps.store, scanId, derived.modules) : undefined,
    // What the comparison of scans reads: the scan's filing when it is tracked (its suppressions and packages are
    // written with the inventory below).
    resolution.tracked.then((tracked) =>
      tracked
        ? recordTrackedScan(deps.store, {
            scanId,
            pairId: pairIdOf(inputs.scan.projectId, inputs.scan.ecosystem),
            commit: inputs.scan.metadata?.commit ?? null,
            startedAt: inputs.scan.startedAt,
          })
        : undefined,
    ),
  ]);
  results.catch(() => undefined); // awaited below
  const inventory = computeInventory(inputs.snapshot, inputs.scan.projectId, v2 ? graphOf(inputs) : undefined);
  const [[resultChunks]] = await Promise.all([
    results,
    // then a new version of the organization's usages, before the completion (src/storage/usages.ts)
    writeInventory(deps.store, inputs.scan, inventory).then(() => touchOrgUsages(deps.store, inputs.scan.orgId)),
    writeCompareInputs(deps.store, scanId, {
      suppressions: inputs.snapshot.suppressions ?? [],
      packages: {
        names: inventory.map((i) => i.name),
        versions: inventory.map((i) => i.version),
        keys: inventory.map((i) => normalizedName(inputs.scan.ecosystem, i.name)),
      },
    }),
  ]);
  await markCompleted(
    deps.store,
    scanId,
    {
      findings: built.counts,
      suppressed: built.suppressed,
      advisoryGeneration: generation,
      unmatchedVersions: m.unmatchedVersions,
      resultChunks,
      findingCount: built.findings.length,
      ...(v2 ? { moduleCount: derived.modules.length } : {}),
    },
    new Date(),
    claimed,
  );
  // The event is emitted after the terminal write, and only by the completion that won (a failure claimed first is
  // emitted by failScan). An emission error fails this attempt: its retry finds the scan published and emits again.
  const completed = (await claimed) === 'completed';
  // The inventory entries this completion displaced: cleaned up without holding the activity (a lost clean-up only
  // leaves the next completion of the project more entries to prune).
  if (completed)
    void pruneInventoryHeads(deps.store, { projectId: inputs.scan.projectId, ecosystem: inputs.scan.ecosystem }).catch(
      (err) => deps.logger.debug({ scanId, err: String(err) }, 'inventory entries not pruned'),
    );
  await Promise.all([
    intermediates ? clearAllWork(deps.store, scanId) : undefined,
    completed && deps.events ? deps.events.emit(scanId, inputs.scan.orgId, 'scan.completed', subscribed) : undefined,
  ]);
  forget(scanId);
  return { findings: built.findings.length, suppressed: built.suppressed };
}

/**
 * A completed scan's findings as a match against another advisory generation would give them (the re-match of a
 * tracked snapshot after an advisory import): the same matching, paths and suppressions as the scan; attributions for
 * inline scans within the budget (a paged scan's, or one over the budget, are left out: the alerts keep no paths).
 */
export async function findingsAgainst(
  deps: ScanEngineDeps,
  scanId: string,
  generation: string | null,
): Promise<{ findings: ReturnType<typeof buildFindings>['findings']; modules: ScanModule[] }> {
  const inputs = await loadScanInputs(deps, scanId);
  try {
    const m = await computeMatches(deps, scanId, inputs, generation);
    const modules = orderModules(inputs.snapshot.modules ?? []);
    const derived = inputs.scan.attributionMode === 'paged' ? null : computePaths(inputs, m.matches);
    const ok = derived?.kind === 'ok' ? derived : null;
    const built = buildFindings({
      scanId,
      projectId: inputs.scan.projectId,
      snapshot: inputs.snapshot,
      matches: m.matches,
      paths: ok?.paths ?? new Map(),
      attributions: ok?.attributions,
      processingDay: new Date().toISOString().slice(0, 10),
    });
    return { findings: built.findings, modules };
  } finally {
    forget(scanId);
  }
}

/**
 * Emits the event of a scan's terminal status, read now (a retried completion, a failure). A scan whose failure lost
 * to a completion (the completion landed, then its activity failed for good, say on its own emission) is completed:
 * its scan.completed goes out here, its last chance. Deduplicated by the event's workflow id.
 */
export async function emitTerminal(
  deps: EngineDeps,
  scanId: string,
  known?: { orgId: string; status: string },
): Promise<void> {
  const events = deps.events;
  if (!events) return;
  const scan = known ?? (await getScan(deps.store, scanId));
  if (scan?.status === 'completed') await events.emit(scanId, scan.orgId, 'scan.completed');
  else if (scan?.status === 'failed') await events.emit(scanId, scan.orgId, 'scan.failed');
}

function forget(scanId: string): void {
  forgetScan(scanId);
  graphs.delete(scanId);
}

export async function fail(deps: EngineDeps, scanId: string, reason: string, message: string): Promise<void> {
  await markFailed(deps.store, scanId, reason as never, message, new Date(), true);
  // The event is emitted after the terminal write; an emission error fails the activity, whose retry emits again.
  await Promise.all([clearAllWork(deps.store, scanId), emitTerminal(deps, scanId)]);
  forget(scanId);
}

export { getScan };
