// Scan activities: thin adapters from Temporal to the pure domain (src/domain) and MongoDB (src/storage).
// Each is idempotent: its outputs are keyed by scan id and replaced on retry, and the scan document only moves
// forward (queued → running → completed | failed), so a retried activity or a replayed workflow duplicates nothing.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Match, MatchResult } from '../src/domain/matching';
import type { Logger } from '../src/logger';
import type { Store } from '../src/storage/mongo';
import { getWork, putWork } from '../src/storage/work';
import { configuredSources, syncAdvisories } from '../src/advisories/sync';
import * as engine from './engine';
import { loadScanInputs, type ScanEngineDeps } from './inputs';

export interface ActivityDeps {
  store: Store;
  logger: Logger;
}

type StoredMatches = { matches: Match[]; unmatchedVersions: number };

function heartbeat(details: Record<string, unknown>): void {
  // Local activities cannot heartbeat; they are short by construction.
  if (!Context.current().info.isLocal) Context.current().heartbeat(details);
}

export function createActivities(deps: ActivityDeps) {
  const ctx: ScanEngineDeps = { store: deps.store, logger: deps.logger };

  async function prepared(scanId: string) {
    const r = await engine.prepare(ctx, scanId);
    if (r.kind === 'unsupported') throw ApplicationFailure.nonRetryable(r.message, 'unsupported_ecosystem');
    if (r.kind === 'invalid') throw ApplicationFailure.nonRetryable(r.message, 'invalid_snapshot');
    return r;
  }

  function pathsOrFail(r: engine.PathsResult) {
    if (r.kind === 'over_budget') throw ApplicationFailure.nonRetryable(r.message, 'attribution_limit_exceeded');
    return r;
  }

  return {
    /** Load the stored snapshot, check it again in depth, pin the advisory generation, mark the scan running. */
    async prepareScan({ scanId }: { scanId: string }) {
      const r = await prepared(scanId);
      await r.running;
      return r.summary;
    },

    /** Match every third-party package against the pinned advisory generation. */
    async matchAdvisories({ scanId, generation }: { scanId: string; generation: string | null }) {
      const inputs = await loadScanInputs(ctx, scanId);
      heartbeat({ stage: 'matching', packages: inputs.snapshot.nodes.length });
      const r = await engine.computeMatches(ctx, scanId, inputs, generation);
      await putWork(deps.store, scanId, 'matches', { matches: r.matches, unmatchedVersions: r.unmatchedVersions } satisfies StoredMatches);
      heartbeat({ stage: 'matching', packages: inputs.snapshot.nodes.length, findings: r.matches.length, unmatchedVersions: r.unmatchedVersions });
      return { findings: r.matches.length, unmatchedVersions: r.unmatchedVersions };
    },

    /** Derive the display path of every finding; over the output budget the scan fails, keeping nothing. */
    async derivePaths({ scanId }: { scanId: string }) {
      const [inputs, stored] = await Promise.all([loadScanInputs(ctx, scanId), getWork<StoredMatches>(deps.store, scanId, 'matches')]);
      heartbeat({ stage: 'attributing', findings: stored.matches.length, roots: inputs.snapshot.roots.length });
      const r = pathsOrFail(engine.computePaths(inputs, stored.matches));
      await putWork(deps.store, scanId, 'paths', [...r.paths.entries()]);
      return { segments: r.segments, characters: r.characters };
    },

    /** Apply suppressions, write the findings, then publish them with one update of the scan document. */
    async publishResults({ scanId, generation }: { scanId: string; generation: string | null }) {
      // A retry after a publish whose completion was lost: the scan is already published, report it again.
      const done = await engine.getScan(deps.store, scanId);
      if (done?.status === 'completed') return { findings: done.findingCount ?? 0, suppressed: done.suppressed ?? 0 };
      const [inputs, stored, paths] = await Promise.all([
        loadScanInputs(ctx, scanId),
        getWork<StoredMatches>(deps.store, scanId, 'matches'),
        getWork<Array<[string, string[]]>>(deps.store, scanId, 'paths'),
      ]);
      return engine.publish(ctx, scanId, inputs, stored as MatchResult, new Map(paths), generation);
    },

    /**
     * The fast path for small snapshots, run as one local activity: the same steps in one process, nothing written
     * between them. Retried as a whole; idempotent like the steps it runs.
     */
    async scanSmall({ scanId }: { scanId: string }) {
      const { summary, inputs, running } = await prepared(scanId);
      const m = await engine.computeMatches(ctx, scanId, inputs, summary.generation);
      const derived = engine.computePaths(inputs, m.matches);
      await running; // the status write lands before anything else may
      const p = pathsOrFail(derived);
      const published = await engine.publish(ctx, scanId, inputs, m, p.paths, summary.generation, false);
      return { ...summary, ...published, segments: p.segments };
    },

    /** The advisory-refresh schedule's work: pull ADVISORY_SOURCES into a new generation. */
    async syncAdvisorySources() {
      const sources = configuredSources();
      const r = await syncAdvisories(deps.store, sources, { onProgress: (message) => heartbeat({ message }) });
      const failed = r.sources.filter((s) => s.status === 'failed');
      for (const f of failed) deps.logger.warn({ source: f.source, reason: f.reason, attempts: f.attempts }, 'advisory source failed');
      deps.logger.info({ generation: r.generation, new: r.new, updated: r.updated, withdrawn: r.withdrawn }, 'advisories synced');
      return { generation: r.generation, applied: r.sources.length - failed.length, failed: failed.length };
    },

    async failScan({ scanId, reason, message }: { scanId: string; reason: string; message: string }) {
      await engine.fail(ctx, scanId, reason, message);
    },
  };
}
