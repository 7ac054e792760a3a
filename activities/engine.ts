// The steps of a scan, as plain async functions over MongoDB and the pure domain. The activities wrap them: the
// regular pipeline persists what passes between steps (claim check), the fast path keeps it in memory.
import { validateSnapshot } from '../src/domain/snapshot';
import { ApiError } from '../src/domain/errors';
import { buildAdvisoryIndex, rulesFor, type AdvisoryIndex } from '../src/domain/advisories';
import { matchSnapshot, type MatchResult } from '../src/domain/matching';
import { derivePathBudget, v1Paths, AttributionLimitExceeded } from '../src/domain/attribution';
import { buildFindings } from '../src/domain/findings';
import { currentGeneration, loadGeneration } from '../src/storage/advisories';
import { getScan, markCompleted, markFailed, markRunning } from '../src/storage/scans';
import { writeResults } from '../src/storage/results';
import { clearWork } from '../src/storage/work';
import { Lru } from './cache';
import { forgetScan, loadScanInputs, type ScanEngineDeps, type ScanInputs } from './inputs';

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
  const [inputs, current] = await Promise.all([loadScanInputs(deps, scanId), currentGeneration(deps.store)]);
  const { scan, snapshot, bytes } = inputs;
  // Deep check: the stored bytes must still be the snapshot that was validated at upload.
  try {
    validateSnapshot(snapshot, bytes);
  } catch (err) {
    return { kind: 'invalid', message: err instanceof ApiError ? err.message : String(err) };
  }
  if (!rulesFor(scan.ecosystem)) return { kind: 'unsupported', message: `ecosystem ${scan.ecosystem} is not supported yet` };
  // The generation is pinned on the first attempt: a retry, or an import finishing mid-scan, never changes it.
  const generation = scan.advisoryGeneration !== undefined ? scan.advisoryGeneration : current;
  const running = scan.status === 'queued' ? markRunning(deps.store, scanId, generation ?? null) : Promise.resolve();
  running.catch(() => undefined); // awaited by the caller; never an unhandled rejection meanwhile
  return { kind: 'ok', inputs, running, summary: { ecosystem: scan.ecosystem, nodeCount: scan.nodeCount, generation: generation ?? null, schemaVersion: scan.schemaVersion } };
}

export async function computeMatches(deps: ScanEngineDeps, scanId: string, inputs: ScanInputs, generation: string | null): Promise<MatchResult> {
  const result = matchSnapshot(inputs.snapshot, await advisoryIndex(deps, generation));
  if (result.unmatchedVersions > 0) {
    deps.logger.warn({ scanId, unmatchedVersions: result.unmatchedVersions, examples: result.unmatched.slice(0, 5) }, 'versions the ecosystem rules could not parse');
  }
  return result;
}

export type PathsResult =
  | { kind: 'ok'; paths: Map<string, string[]>; segments: number; characters: number }
  | { kind: 'over_budget'; message: string };

export function computePaths(inputs: ScanInputs, matches: MatchResult['matches']): PathsResult {
  const paths = v1Paths(inputs.snapshot, new Set(matches.map((m) => m.nodeId)));
  try {
    return { kind: 'ok', paths, ...derivePathBudget(paths.values()) };
  } catch (err) {
    if (err instanceof AttributionLimitExceeded) return { kind: 'over_budget', message: err.message };
    throw err;
  }
}

/** Writes the findings, then publishes them with one update of the scan document. Idempotent. */
export async function publish(deps: ScanEngineDeps, scanId: string, inputs: ScanInputs, m: MatchResult, paths: Map<string, string[]>, generation: string | null, intermediates = true) {
  const built = buildFindings({ scanId, snapshot: inputs.snapshot, matches: m.matches, paths, processingDay: new Date().toISOString().slice(0, 10) });
  const resultChunks = await writeResults(deps.store, scanId, built.findings);
  await markCompleted(deps.store, scanId, { findings: built.counts, suppressed: built.suppressed, advisoryGeneration: generation, unmatchedVersions: m.unmatchedVersions, resultChunks, findingCount: built.findings.length });
  if (intermediates) await clearWork(deps.store, scanId, ['matches', 'paths']);
  forgetScan(scanId);
  return { findings: built.findings.length, suppressed: built.suppressed };
}

export async function fail(deps: ScanEngineDeps, scanId: string, reason: string, message: string): Promise<void> {
  await markFailed(deps.store, scanId, reason as never, message);
  await clearWork(deps.store, scanId, ['matches', 'paths']);
  forgetScan(scanId);
}

export { getScan };
