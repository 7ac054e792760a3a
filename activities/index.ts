// Scan activities: thin adapters from Temporal to the pure domain (src/domain) and MongoDB (src/storage).
// Each is idempotent: its outputs are keyed by scan id and replaced on retry, and the scan document only moves
// forward (queued → running → completed | failed), so a retried activity or a replayed workflow duplicates nothing.
import { ApplicationFailure, heartbeat } from '@temporalio/activity';
import type { Logger } from '../src/logger';
import type { Store } from '../src/storage/mongo';
import { loadScanInputs, type ScanEngineDeps } from './inputs';
import * as engine from './engine';

export interface ActivityDeps {
  store: Store;
  logger: Logger;
}

export function createActivities(deps: ActivityDeps) {
  const ctx: ScanEngineDeps = { store: deps.store, logger: deps.logger };
  return {
    /** Load the stored snapshot, check it again in depth, pin the advisory generation, mark the scan running. */
    async prepareScan({ scanId }: { scanId: string }) {
      const r = await engine.prepare(ctx, scanId);
      if (r.kind === 'unsupported') throw ApplicationFailure.nonRetryable(r.message, 'unsupported_ecosystem');
      if (r.kind === 'invalid') throw ApplicationFailure.nonRetryable(r.message, 'invalid_snapshot');
      return r.summary;
    },

    /** Match every third-party package against the pinned advisory generation. */
    async matchAdvisories({ scanId, generation }: { scanId: string; generation: string | null }) {
      heartbeat({ stage: 'matching', scanId });
      const inputs = await loadScanInputs(ctx, scanId);
      return engine.match(ctx, scanId, inputs, generation, (progress) => heartbeat(progress));
    },

    /** Derive the display path of every finding; over the output budget the scan fails, keeping nothing. */
    async derivePaths({ scanId }: { scanId: string }) {
      heartbeat({ stage: 'attributing', scanId });
      const inputs = await loadScanInputs(ctx, scanId);
      const r = await engine.derivePaths(ctx, scanId, inputs);
      if (r.kind === 'over_budget') throw ApplicationFailure.nonRetryable(r.message, 'attribution_limit_exceeded');
      return r.summary;
    },

    /** Apply suppressions, write the findings, then publish them with one update of the scan document. */
    async publishResults(input: { scanId: string; generation: string | null; unmatchedVersions: number }) {
      const inputs = await loadScanInputs(ctx, input.scanId);
      return engine.publish(ctx, input.scanId, inputs, input.generation, input.unmatchedVersions);
    },

    async failScan({ scanId, reason, message }: { scanId: string; reason: string; message: string }) {
      await engine.fail(ctx, scanId, reason, message);
    },
  };
}
