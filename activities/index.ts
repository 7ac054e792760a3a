// Scan activities: thin adapters from Temporal to the pure domain (src/domain) and MongoDB (src/storage).
// Each is idempotent: its outputs are keyed by scan id and replaced on retry, and the scan document only moves
// forward (queued → running → completed | failed), so a retried activity or a replayed workflow duplicates nothing.
import { setMaxListeners } from 'node:events';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Match, MatchResult } from '../src/domain/matching';
import type { Logger } from '../src/logger';
import type { Store } from '../src/storage/mongo';
import { getWork, getWorkInts, getWorkMeta, putWork, putWorkInts } from '../src/storage/activity-work';
import { MAX_PATH_CHARACTERS, MAX_PATH_SEGMENTS, AttributionLimitExceeded } from '../src/domain/attribution';
import { checkShardBudget, planBatches, planShards, vulnerableMask } from '../src/domain/attribution/v2-assemble';
import { attributionPool, type ShardRunner } from '../src/pool/attribution-pool';
import { configuredSources, syncAdvisories } from '../src/advisories/sync';
import { configuredIntelSources, syncIntel } from '../src/intel/sync';
import * as engine from './scan-steps';
import { withOutagePatience } from './outage';
import { recordScanCompleted, recordScanFailed, timedStages } from '../src/metrics/worker';
import { loadScanInputs } from './inputs';
import {
  ALERT_UPGRADE_SETTING,
  announceMove,
  moveScanAlerts,
  moveSummary,
  upgradePair,
  upgradePairs,
} from './alert-steps';
import { recordDailyMetrics, recordPairMetrics } from './alert-metrics';
import { rematchPair } from './alert-rematch';
import { reconcileOrg } from './triage-reconcile';
import { triageOrgIds } from '../src/storage/triage-marks';
import { alertPairs } from '../src/storage/alerts';
import { createPagedActivities } from './paged';
import { createWebhookActivities, type WebhookConfig } from './webhooks';
import type { ScanEvents } from '../src/temporal/events';

export interface ActivityDeps {
  store: Store;
  logger: Logger;
  /** The worker's attribution threads; created on first use when not given. */
  shards?: ShardRunner;
  /** Emits scan.completed / scan.failed when a scan ends; none are emitted without it. */
  events?: ScanEvents;
  /** The secret box and destination policy of webhook deliveries (default: from the environment, on first use). */
  webhooks?: WebhookConfig;
}

/** v2 attribution runs in this many shards whatever the thread count, so a retry on any worker resumes the plan. */
export const ATTRIBUTION_SHARDS = 32;

/** Heartbeat details of derivePaths on a v2 scan: a retried attempt skips the shards listed as done. */
export interface AttributionProgress {
  stage: 'attributing';
  shards: number;
  done: number[];
  threads: number;
  resumed: number;
}

type ShardCounts = { segments: number; characters: number; overBudget: boolean };

type StoredMatches = { matches: Match[]; unmatchedVersions: number };

/** Runs `fn`, heartbeating every 2 s meanwhile (activities whose work has no natural progress points). */
async function whileBeating<T>(fn: () => Promise<T>): Promise<T> {
  const info = Context.current().info;
  if (info.isLocal) return fn();
  const context = Context.current();
  context.heartbeat();
  const timer = setInterval(() => context.heartbeat(), 2000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

function heartbeat(details: object): void {
  // Local activities cannot heartbeat; they are short by construction.
  if (!Context.current().info.isLocal) Context.current().heartbeat(details);
}

/** The scan activities timed in scan_stage_duration_seconds, by stage name (scanSmall is the small-snapshot fast path). */
const SCAN_STAGES = {
  prepareScan: 'prepare',
  matchAdvisories: 'match',
  derivePaths: 'attribute',
  publishResults: 'publish',
  scanSmall: 'small_scan',
  planAttribution: 'attribute',
  attributeShard: 'attribute_shard',
  publishPaged: 'publish',
  moveAlerts: 'move_alerts',
} as const;

export function createActivities(deps: ActivityDeps) {
  const ctx: engine.EngineDeps = { store: deps.store, logger: deps.logger, events: deps.events };
  let runner = deps.shards;
  const shardRunner = () => (runner ??= attributionPool());
  const paged = createPagedActivities(ctx, shardRunner);

  /**
   * v2 attribution over the pool: the graph is built once, its resolutions are cut into a fixed plan of shards, the
   * shards still to walk run on the threads in batches (one pool task each), and every shard's output is stored as
   * soon as its batch is done, followed by a heartbeat that lists it. A retried attempt (worker killed, timeout)
   * reads its last heartbeat and runs only what is missing.
   */
  async function attributeSharded(
    scanId: string,
    inputs: Awaited<ReturnType<typeof loadScanInputs>>,
    matches: Match[],
  ) {
    const built = engine.graphOf(inputs);
    const shards = planShards(built.graph, ATTRIBUTION_SHARDS);
    const vulnerable = vulnerableMask(
      built,
      matches.map((m) => m.nodeId),
    );
    const info = Context.current().info;
    const prior = info.heartbeatDetails as AttributionProgress | undefined;
    const counts = new Map<number, ShardCounts>();
    if (info.attempt > 1) {
      // A retry. The last heartbeat that reached the server lists the shards done by then; shards stored after it
      // (the attempt died before its next heartbeat went out) are found in MongoDB. A shard's output depends only
      // on the snapshot and the stored matches, so any stored one is as good as a fresh one; one listed but
      // missing is simply run again.
      const listed = new Set(prior?.stage === 'attributing' && prior.shards === shards.length ? prior.done : []);
      await Promise.all(
        shards.map(async (_, k) => {
          const meta = await getWorkMeta(deps.store, scanId, `attr:${k}`);
          if (meta) counts.set(k, meta as ShardCounts);
          else if (listed.has(k))
            deps.logger.warn({ scanId, shard: k }, 'shard listed in the heartbeat is missing; running it again');
        }),
      );
      deps.logger.info(
        { scanId, attempt: info.attempt, listed: listed.size, resumed: counts.size, shards: shards.length },
        'attribution resumed',
      );
    }
    const resumed = counts.size;
    const pool = shardRunner();
    const progress = (): AttributionProgress => ({
      stage: 'attributing',
      shards: shards.length,
      done: [...counts.keys()].sort((a, b) => a - b),
      threads: pool.threads,
      resumed,
    });
    heartbeat(progress());
    const ticker = setInterval(() => heartbeat(progress()), 2000); // liveness while long shards run
    const abort = new AbortController();
    setMaxListeners(shards.length + 1, abort.signal); // one listener per queued batch
    try {
      const pending = shards.map((_, k) => k).filter((k) => !counts.has(k));
      await Promise.all(
        planBatches(built.graph, shards, pending, pool.threads).map(async (batch) => {
          const outs = await pool.run(
            {
              graph: built.graph,
              shards: batch.map((k) => shards[k]),
              vulnerable,
              maxSegments: MAX_PATH_SEGMENTS,
              maxCharacters: MAX_PATH_CHARACTERS,
            },
            abort.signal,
          );
          await Promise.all(
            outs.map(async (out, i) => {
              const c: ShardCounts = { segments: out.segments, characters: out.characters, overBudget: out.overBudget };
              if (out.overBudget) throw new AttributionLimitExceeded(out.segments, out.characters);
              await putWorkInts(deps.store, scanId, `attr:${batch[i]}`, out.data, c);
              counts.set(batch[i], c);
              heartbeat(progress()); // after each stored shard (the SDK throttles what reaches the server)
            }),
          );
        }),
      );
      checkShardBudget([...counts.values()]);
    } catch (err) {
      abort.abort();
      if (err instanceof AttributionLimitExceeded)
        throw ApplicationFailure.nonRetryable(err.message, 'attribution_limit_exceeded');
      throw err;
    } finally {
      clearInterval(ticker);
    }
    let segments = 0;
    let characters = 0;
    for (const c of counts.values()) {
      segments += c.segments;
      characters += c.characters;
    }
    return { segments, characters, shards: shards.length, resumed };
  }

  async function storedAttribution(scanId: string, inputs: Awaited<ReturnType<typeof loadScanInputs>>) {
    const shards = planShards(engine.graphOf(inputs).graph, ATTRIBUTION_SHARDS);
    const outputs = await Promise.all(
      shards.map(async (_, k) => {
        const w = await getWorkInts(deps.store, scanId, `attr:${k}`);
        if (!w) throw new Error(`attribution shard ${k} of ${scanId} missing`);
        return w.data;
      }),
    );
    return pathsOrFail(engine.assembleStored(inputs, outputs));
  }

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
    ...withOutagePatience(
      timedStages(
        {
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
            await putWork(deps.store, scanId, 'matches', {
              matches: r.matches,
              unmatchedVersions: r.unmatchedVersions,
            } satisfies StoredMatches);
            heartbeat({
              stage: 'matching',
              packages: inputs.snapshot.nodes.length,
              findings: r.matches.length,
              unmatchedVersions: r.unmatchedVersions,
            });
            return { findings: r.matches.length, unmatchedVersions: r.unmatchedVersions };
          },

          /** Derive the display path of every finding; over the output budget the scan fails, keeping nothing. */
          async derivePaths({ scanId }: { scanId: string }) {
            const [inputs, stored] = await Promise.all([
              loadScanInputs(ctx, scanId),
              getWork<StoredMatches>(deps.store, scanId, 'matches'),
            ]);
            if (inputs.snapshot.schemaVersion === 2) return attributeSharded(scanId, inputs, stored.matches);
            heartbeat({ stage: 'attributing', findings: stored.matches.length, roots: inputs.snapshot.roots.length });
            const r = pathsOrFail(engine.computePaths(inputs, stored.matches));
            await putWork(deps.store, scanId, 'paths', [...r.paths.entries()]);
            return { segments: r.segments, characters: r.characters, shards: 0, resumed: 0 };
          },

          /** Apply suppressions, write the findings, then publish them with one update of the scan document. */
          async publishResults({ scanId, generation }: { scanId: string; generation: string | null }) {
            // A retry after a publish whose completion was lost: the scan is already published, report it again.
            const done = await engine.getScan(deps.store, scanId);
            if (done?.status === 'completed') {
              await engine.emitTerminal(ctx, scanId, done); // the attempt that published may have failed on its emission
              return { findings: done.findingCount ?? 0, suppressed: done.suppressed ?? 0 };
            }
            const [inputs, stored] = await Promise.all([
              loadScanInputs(ctx, scanId),
              getWork<StoredMatches>(deps.store, scanId, 'matches'),
            ]);
            const derived =
              inputs.snapshot.schemaVersion === 2
                ? await storedAttribution(scanId, inputs)
                : {
                    paths: new Map(await getWork<Array<[string, string[]]>>(deps.store, scanId, 'paths')),
                    modules: [],
                  };
            const published = await engine.publish(ctx, scanId, inputs, stored as MatchResult, derived, generation);
            recordScanCompleted();
            return published;
          },

          /**
           * The fast path for small snapshots, run as one local activity: the same steps in one process, nothing written
           * between them. Retried as a whole; idempotent like the steps it runs.
           */
          async scanSmall({ scanId }: { scanId: string }) {
            const { summary, inputs, running } = await prepared(scanId);
            if (inputs.scan.status === 'completed') {
              // A retry after the publish landed (the attempt failed after it, on its emission say): emit, report it again.
              await engine.emitTerminal(ctx, scanId, inputs.scan);
              return {
                ...summary,
                findings: inputs.scan.findingCount ?? 0,
                suppressed: inputs.scan.suppressed ?? 0,
                segments: 0,
              };
            }
            const m = await engine.computeMatches(ctx, scanId, inputs, summary.generation);
            const derived = engine.computePaths(inputs, m.matches);
            await running; // the status write lands before anything else may
            const p = pathsOrFail(derived);
            const published = await engine.publish(ctx, scanId, inputs, m, p, summary.generation, false);
            recordScanCompleted();
            return { ...summary, ...published, segments: p.segments };
          },

          /** The advisory-refresh schedule's work: pull ADVISORY_SOURCES into a new generation. */
          async syncAdvisorySources() {
            const sources = configuredSources();
            const r = await syncAdvisories(deps.store, sources, { onProgress: (message) => heartbeat({ message }) });
            const failed = r.sources.filter((s) => s.status === 'failed');
            for (const f of failed)
              deps.logger.warn({ source: f.source, reason: f.reason, attempts: f.attempts }, 'advisory source failed');
            for (const f of r.failedFiles)
              deps.logger.warn(
                { file: f.source, reason: f.reason },
                'advisory file failed (skipped, the rest of its source applied)',
              );
            deps.logger.info(
              { generation: r.generation, new: r.new, updated: r.updated, withdrawn: r.withdrawn },
              'advisories synced',
            );
            return {
              generation: r.generation,
              changed: r.generation !== null && r.generation !== r.previous,
              applied: r.sources.length - failed.length,
              failed: failed.length,
              failedFiles: r.failedFiles.length,
            };
          },

          /**
           * The intel-refresh schedule's work: import INTEL_KEV_SOURCE and INTEL_EPSS_SOURCE. A refused file is the
           * feed's (reported, its previous generation stays); a database failure fails the activity, which is retried.
           */
          async syncIntelSources() {
            const r = await whileBeating(() =>
              syncIntel(deps.store, configuredIntelSources(), { onProgress: (message) => heartbeat({ message }) }),
            );
            for (const f of r.feeds)
              if (f.status === 'failed')
                deps.logger.warn({ feed: f.kind, source: f.source, reason: f.reason }, 'intel feed refused');
              else
                deps.logger.info(
                  { feed: f.kind, status: f.status, generation: f.generation, count: f.count },
                  'intel feed imported',
                );
            return {
              feeds: r.feeds.map((f) => ({
                kind: f.kind,
                status: f.status,
                generation: f.status === 'failed' ? null : f.generation,
                reason: f.status === 'failed' ? f.reason : null,
              })),
              failed: r.feeds.filter((f) => f.status === 'failed').length,
            };
          },

          /**
           * After a scan is published: move the project's alerts of its ecosystem when the scan is tracked (the
           * alert steps, activities/alert-steps.ts). Idempotent and ordered by the scans' startedAt.
           */
          async moveAlerts({ scanId }: { scanId: string }) {
            const r = await whileBeating(async () => {
              const moved = await moveScanAlerts(ctx, scanId);
              await announceMove(deps.events, moved);
              if (moved.outcome === 'moved' && moved.head)
                await recordPairMetrics(deps.store, deps.logger, moved.head.pairId);
              return moved;
            });
            if (r.outcome === 'moved')
              deps.logger.info(
                { scanId, seq: r.seq, opened: r.opened, fixed: r.fixed, reopened: r.reopened },
                'alerts moved',
              );
            return moveSummary(r);
          },

          /** The upgrade to alerts: the pairs with completed scans and no alerts yet. */
          async alertUpgradePairs() {
            return upgradePairs(deps.store);
          },

          /** The upgrade of one pair (no webhook events: the upgrade announces nothing). */
          async upgradeAlertPair({ projectId, ecosystem }: { projectId: string; ecosystem: string }) {
            const r = await upgradePair(ctx, projectId, ecosystem);
            return { outcome: r.outcome, ...('opened' in r ? { opened: r.opened } : {}) };
          },

          /** The upgrade is done: recorded, so that no process starts it again. */
          async finishAlertUpgrade({ pairs }: { pairs: number }) {
            await deps.store.c.settings.updateOne(
              { _id: ALERT_UPGRADE_SETTING },
              { $set: { value: { at: new Date().toISOString(), pairs } } },
              { upsert: true },
            );
          },

          /** Continuous monitoring: every (project, ecosystem) with alerts. */
          async listAlertPairs() {
            return alertPairs(deps.store);
          },

          /** Continuous monitoring: one pair's latest tracked snapshot matched against the newest generation. */
          async rematchAlerts({ pairId }: { pairId: string }) {
            const r = await rematchPair(ctx, pairId);
            await announceMove(deps.events, r);
            if (r.outcome === 'moved') await recordPairMetrics(deps.store, deps.logger, pairId);
            if (r.outcome === 'moved')
              deps.logger.info(
                { pairId, generation: r.generation, opened: r.opened, fixed: r.fixed, reopened: r.reopened },
                'alerts re-matched',
              );
            return moveSummary(r);
          },

          /** The daily run of the alert trends (activities/alert-metrics.ts): yesterday's points, old months dropped. */
          async recordDailyAlertMetrics() {
            const r = await whileBeating(() => recordDailyMetrics(deps.store));
            deps.logger.info(r, 'alert trends of the day written');
            return r;
          },

          /** Triage in the background: every organization with analyses or rules (the hourly sweep goes over them). */
          async triageOrgs() {
            return triageOrgIds(deps.store);
          },

          /**
           * Triage in the background: one organization's alerts' histories brought up to date with its rules and the
           * expiries of its analyses (activities/triage-reconcile.ts). Idempotent.
           */
          async reconcileTriage({ orgId }: { orgId: string }) {
            const r = await reconcileOrg({ store: deps.store, logger: deps.logger, events: deps.events }, orgId);
            if (r.ruleEvents || r.expired || r.announced) deps.logger.info({ orgId, ...r }, 'triage reconciled');
            return r;
          },

          async failScan({ scanId, reason, message }: { scanId: string; reason: string; message: string }) {
            await engine.fail(ctx, scanId, reason, message);
            await paged.forget(scanId);
            recordScanFailed(reason);
          },

          // Paged scans: planAttribution, attributeShard (one per shard), publishPaged.
          ...paged.activities,

          /**
           * publishPaged emits through engine.publish; its retry after the scan was published (it reports the scan again)
           * emits here, unless this process emitted already.
           */
          async publishPaged(input: { scanId: string; generation: string | null }) {
            const r = await paged.activities.publishPaged(input);
            if (!deps.events?.emitted(input.scanId, 'scan.completed')) await engine.emitTerminal(ctx, input.scanId);
            return r;
          },
        },
        SCAN_STAGES,
      ),
    ),
    ...createWebhookActivities({ store: deps.store, logger: deps.logger, webhooks: deps.webhooks }),
  };
}

export type { ShardRunner };
