// The steps of a scan, as plain async functions over MongoDB and the pure domain. The activities wrap them.
import { validateSnapshot } from '../src/domain/snapshot';
import { ApiError } from '../src/domain/errors';
import type { Snapshot } from '../src/domain/types';
import { buildAdvisoryIndex, rulesFor, type AdvisoryIndex } from '../src/domain/advisories';
import { matchSnapshot, type Match } from '../src/domain/matching';
import { derivePathBudget, v1Paths, AttributionLimitExceeded } from '../src/domain/attribution';
import { buildFindings } from '../src/domain/findings';
import { currentGeneration, loadGeneration } from '../src/storage/advisories';
import { getSnapshotBytes } from '../src/storage/snapshots';
import { getScan, markCompleted, markFailed, markRunning } from '../src/storage/scans';
import { writeResults } from '../src/storage/results';
import { clearWork, getWork, putWork } from '../src/storage/work';
import { Lru } from './cache';
import { forgetScan, type ScanEngineDeps, type ScanInputs } from './inputs';

const indexes = new Lru<string, AdvisoryIndex>(2);
const EMPTY = '(none)';

async function advisoryIndex(deps: ScanEngineDeps, generation: string | null): Promise<AdvisoryIndex> {
  return indexes.getOrCreate(generation ?? EMPTY, async () => buildAdvisoryIndex(generation ? await loadGeneration(deps.store, generation) : []));
}

export type PrepareResult =
  | { kind: 'ok'; summary: { ecosystem: string; nodeCount: number; generation: string | null; schemaVersion: number } }
  | { kind: 'unsupported'; message: string }
  | { kind: 'invalid'; message: string };

export async function prepare(deps: ScanEngineDeps, scanId: string): Promise<PrepareResult> {
  const scan = await getScan(deps.store, scanId);
  if (!scan) throw new Error(`scan ${scanId} not found`);
  const bytes = await getSnapshotBytes(deps.store, scanId);
  if (!bytes) throw new Error(`snapshot of ${scanId} not found`);
  // Deep check: the stored bytes must still be the snapshot that was validated at upload.
  try {
    validateSnapshot(JSON.parse(bytes.toString('utf8')), bytes.length);
  } catch (err) {
    return { kind: 'invalid', message: err instanceof ApiError ? err.message : String(err) };
  }
  if (!rulesFor(scan.ecosystem)) return { kind: 'unsupported', message: `ecosystem ${scan.ecosystem} is not supported yet` };
  await markRunning(deps.store, scanId);
  // Pin the advisory generation now: an import finishing mid-scan never changes what this scan sees.
  const generation = scan.advisoryGeneration ?? (await currentGeneration(deps.store));
  await deps.store.c.scans.updateOne({ _id: scanId, advisoryGeneration: { $exists: false } }, { $set: { advisoryGeneration: generation } });
  const pinned = (await getScan(deps.store, scanId))?.advisoryGeneration ?? generation;
  return { kind: 'ok', summary: { ecosystem: scan.ecosystem, nodeCount: scan.nodeCount, generation: pinned ?? null, schemaVersion: scan.schemaVersion } };
}

export async function match(deps: ScanEngineDeps, scanId: string, inputs: ScanInputs, generation: string | null, progress: (p: unknown) => void) {
  const index = await advisoryIndex(deps, generation);
  progress({ stage: 'matching', packages: inputs.snapshot.nodes.length });
  const result = matchSnapshot(inputs.snapshot, index);
  if (result.unmatchedVersions > 0) {
    deps.logger.warn({ scanId, unmatchedVersions: result.unmatchedVersions, examples: result.unmatched.slice(0, 5) }, 'versions the ecosystem rules could not parse');
  }
  await putWork(deps.store, scanId, 'matches', result.matches);
  return { findings: result.matches.length, unmatchedVersions: result.unmatchedVersions };
}

export type PathsResult = { kind: 'ok'; summary: { segments: number; characters: number } } | { kind: 'over_budget'; message: string };

export async function derivePaths(deps: ScanEngineDeps, scanId: string, inputs: ScanInputs): Promise<PathsResult> {
  const matches = await getWork<Match[]>(deps.store, scanId, 'matches');
  const paths = v1Paths(inputs.snapshot, matches.map((m) => m.nodeId));
  try {
    const budget = derivePathBudget([...paths.values()]);
    await putWork(deps.store, scanId, 'paths', [...paths.entries()]);
    return { kind: 'ok', summary: budget };
  } catch (err) {
    if (err instanceof AttributionLimitExceeded) return { kind: 'over_budget', message: err.message };
    throw err;
  }
}

export async function publish(deps: ScanEngineDeps, scanId: string, inputs: ScanInputs, generation: string | null, unmatchedVersions: number) {
  const [matches, pathEntries] = await Promise.all([getWork<Match[]>(deps.store, scanId, 'matches'), getWork<Array<[string, string[]]>>(deps.store, scanId, 'paths')]);
  const built = buildFindings({ scanId, snapshot: inputs.snapshot as Snapshot, matches, paths: new Map(pathEntries), processingDay: new Date().toISOString().slice(0, 10) });
  const resultChunks = await writeResults(deps.store, scanId, built.findings);
  await markCompleted(deps.store, scanId, { findings: built.counts, suppressed: built.suppressed, advisoryGeneration: generation, unmatchedVersions, resultChunks, findingCount: built.findings.length });
  await clearWork(deps.store, scanId, ['matches', 'paths']);
  forgetScan(scanId);
  return { findings: built.findings.length, suppressed: built.suppressed };
}

export async function fail(deps: ScanEngineDeps, scanId: string, reason: string, message: string): Promise<void> {
  await markFailed(deps.store, scanId, reason as never, message);
  await clearWork(deps.store, scanId, ['matches', 'paths']);
  forgetScan(scanId);
}
