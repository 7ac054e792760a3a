// Paged (multipart) scans: the workflow fans attribution out over the shards of roots of a fixed plan,
// one activity per shard, so that several worker processes on several machines share one scan; the completion then
// assembles the attributions one package at a time and stores them apart from the findings (storage/attributions.ts).
// No derived-path limit applies to paged scans: paths are read one attribution at a time.
import fs from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { findingId } from '../src/domain/findings';
import type { Match, MatchResult } from '../src/domain/matching';
import { moduleRank, orderModules, type ScanModule } from '../src/domain/attribution/module-order';
import { planShards, vulnerableMask } from '../src/domain/attribution/v2-assemble';
import type { BuiltGraph } from '../src/domain/attribution/v2-graph';
import { assemblePackage, indexShardOutputs, shortestPaths, type ShardIndex } from '../src/domain/attribution/v2-paged';
import {
  ScopeIndexBuilder,
  indexedModuleCounts,
  listItem,
  packageIdOf,
  pathItem,
} from '../src/domain/attribution/views';
import type { Finding, Snapshot } from '../src/shared/types';
import type { ShardRunner } from '../src/pool/attribution-pool';
import {
  AttributionWriter,
  clearAttributions,
  getShardOutput,
  putShardOutput,
  shardMeta,
} from '../src/storage/attributions';
import { getWork } from '../src/storage/activity-work';
import { recordScanCompleted } from '../src/metrics/worker';
import { Lru } from './cache';
import * as engine from './scan-steps';
import { loadScanInputs, type ScanEngineDeps, type ScanInputs } from './inputs';

/** Shards of a paged scan's plan (planShards: contiguous runs of roots of about equal size; fewer with fewer roots). */
export const PAGED_SHARDS = 32;

/** A stored finding of a paged scan: attributions [] and how many it has. */
export type PagedFinding = Finding & { attributionCount?: number };

interface PagedGraph {
  /**
   * The scan and its parsed snapshot, kept for the completion when it runs on this worker: a paged snapshot is larger
   * than the worker's snapshot cache holds, and parsing it again costs seconds.
   */
  inputs: ScanInputs;
  built: BuiltGraph;
  shards: Int32Array[];
  vulnerable: Uint8Array;
}

type StoredMatches = { matches: Match[]; unmatchedVersions: number };

function heartbeat(details: object): void {
  Context.current().heartbeat(details);
}

/** While `work` runs, a heartbeat every 2 s (liveness: a dead worker is noticed within the heartbeat timeout). */
async function withHeartbeats<T>(details: () => object, work: () => Promise<T>): Promise<T> {
  heartbeat(details());
  const ticker = setInterval(() => heartbeat(details()), 2000);
  try {
    return await work();
  } finally {
    clearInterval(ticker);
  }
}

/**
 * Test-only hook, inert unless SCANNER_TEST_SHARD_BARRIER names a directory (never set in production): each shard
 * activity writes `<scanId>.<pid>.<shard>` there and waits, heartbeating, until a file of another process for the same
 * scan is there, and while a file named `hold` exists. Lets a test hold shards until two workers each have one.
 */
async function shardBarrier(scanId: string, shard: number): Promise<void> {
  const dir = process.env.SCANNER_TEST_SHARD_BARRIER;
  if (!dir) return;
  const me = String(process.pid);
  fs.writeFileSync(path.join(dir, `${scanId}.${me}.${shard}`), '');
  for (;;) {
    const files = fs.readdirSync(dir);
    const other = files.some((f) => f.startsWith(`${scanId}.`) && f.split('.')[1] !== me);
    if (other && !files.includes('hold')) return;
    heartbeat({ stage: 'attributing', shard, barrier: true });
    await Context.current().sleep(50);
  }
}

export function createPagedActivities(deps: ScanEngineDeps, shardRunner: () => ShardRunner) {
  const { store } = deps;
  // The parsed snapshot, built graph, shard plan and vulnerable mask of the (at most two) paged scans in flight on this
  // worker: built once per scan, shared by the shard activities that land here (the graph's arrays sit on
  // SharedArrayBuffers, moved to no thread) and by the completion.
  const graphs = new Lru<string, Promise<PagedGraph>>(2);

  function pagedGraph(scanId: string): Promise<PagedGraph> {
    let p = graphs.get(scanId);
    if (!p) {
      p = (async () => {
        const [inputs, stored] = await Promise.all([
          loadScanInputs(deps, scanId),
          getWork<StoredMatches>(store, scanId, 'matches'),
        ]);
        if (inputs.snapshot.schemaVersion !== 2)
          throw ApplicationFailure.nonRetryable(
            `scan ${scanId} is paged but its snapshot is not v2`,
            'invalid_snapshot',
          );
        const built = engine.graphOf(inputs);
        return {
          inputs,
          built,
          shards: planShards(built.graph, PAGED_SHARDS),
          vulnerable: vulnerableMask(
            built,
            stored.matches.map((m) => m.nodeId),
          ),
        };
      })();
      p.catch(() => graphs.delete(scanId));
      graphs.set(scanId, p);
    }
    return p;
  }

  /**
   * Stores the attributions of the findings apart (one package at a time: its list, its paths), sets each finding's
   * attributionCount, then the scope index and the per-module counts. Called by publish() before anything else is
   * written; a retried completion starts again from nothing (AttributionWriter.start).
   */
  async function storeAttributions(
    scanId: string,
    snapshot: Snapshot,
    g: PagedGraph,
    index: ShardIndex,
    modules: ScanModule[],
    matches: Match[],
    findings: PagedFinding[],
  ): Promise<number> {
    const nodeOf = new Map(matches.map((m) => [findingId(scanId, m.group.key, m.name, m.version), m.nodeId]));
    const byNode = new Map<string, number[]>();
    findings.forEach((f, i) => {
      const node = nodeOf.get(f.id) ?? packageIdOf(f);
      const list = byNode.get(node);
      if (list) list.push(i);
      else byNode.set(node, [i]);
    });
    const rank = moduleRank(modules);
    const teams = new Map(modules.map((m) => [m.path, m.teamName ?? null]));
    const scope = new ScopeIndexBuilder((m) => teams.get(m));
    const writer = new AttributionWriter(store, scanId);
    await writer.start();
    let total = 0;
    for (const [node, positions] of byNode) {
      const target = g.built.labelOf.get(node);
      const attributions =
        target === undefined ? [] : assemblePackage(snapshot.roots, g.built.labels, index, target, rank);
      for (const p of positions) {
        findings[p].attributions = [];
        findings[p].attributionCount = attributions.length;
      }
      if (!attributions.length) continue;
      total += attributions.length;
      scope.add(positions, attributions);
      const pkg = packageIdOf(findings[positions[0]]);
      await writer.putPackage(
        pkg,
        attributions.map((a) => listItem(pkg, a)),
        attributions.map(pathItem),
      );
    }
    const entries = scope.entries();
    await writer.putScopes(entries);
    await writer.putModuleCounts(indexedModuleCounts(entries, findings, modules));
    await writer.close();
    return total;
  }

  const activities = {
    /** Builds the graph (cached on this worker) and returns the size of the shard plan the workflow fans out over. */
    async planAttribution({ scanId }: { scanId: string }) {
      const g = await withHeartbeats(
        () => ({ stage: 'planning' }),
        () => pagedGraph(scanId),
      );
      return {
        shards: g.shards.length,
        roots: g.built.graph.resRoot.length,
        vertices: g.built.graph.label.length,
        edges: g.built.graph.targets.length,
      };
    },

    /** Walks one shard of the plan on the attribution pool and stores its output; a stored shard is not walked again. */
    async attributeShard({ scanId, shard }: { scanId: string; shard: number }) {
      const stored = await shardMeta(store, scanId, shard);
      if (stored) return { shard, segments: stored.segments, characters: stored.characters, reused: true };
      const g = await withHeartbeats(
        () => ({ stage: 'planning', shard }),
        () => pagedGraph(scanId),
      );
      if (!(shard >= 0 && shard < g.shards.length))
        throw ApplicationFailure.nonRetryable(
          `shard ${shard} is outside the plan of ${g.shards.length}`,
          'internal_error',
        );
      await shardBarrier(scanId, shard);
      const signal = Context.current().cancellationSignal;
      const out = await withHeartbeats(
        () => ({ stage: 'attributing', shard, of: g.shards.length }),
        async () => {
          try {
            const [o] = await shardRunner().run(
              {
                graph: g.built.graph,
                shards: [g.shards[shard]],
                vulnerable: g.vulnerable,
                maxSegments: Infinity,
                maxCharacters: Infinity,
              },
              signal,
            );
            return o;
          } catch (err) {
            if (signal.aborted) throw new CancelledFailure('shard cancelled');
            throw err;
          }
        },
      );
      await putShardOutput(store, scanId, shard, out.data, { segments: out.segments, characters: out.characters });
      return { shard, segments: out.segments, characters: out.characters, reused: false };
    },

    /** Assembles and stores the attributions, writes the findings (attributions [], attributionCount) and completes. */
    async publishPaged({ scanId, generation }: { scanId: string; generation: string | null }) {
      const done = await engine.getScan(store, scanId);
      if (done?.status === 'completed')
        return { findings: done.findingCount ?? 0, suppressed: done.suppressed ?? 0, attributions: -1 };
      let attributions = 0;
      const published = await withHeartbeats(
        () => ({ stage: 'publishing' }),
        async () => {
          const [stored, g] = await Promise.all([getWork<StoredMatches>(store, scanId, 'matches'), pagedGraph(scanId)]);
          const inputs = g.inputs;
          const index = indexShardOutputs(await Promise.all(g.shards.map((_, k) => getShardOutput(store, scanId, k))));
          const modules = orderModules(inputs.snapshot.modules ?? []);
          const derived = { paths: shortestPaths(index, g.built.labels), modules };
          return engine.publish(
            deps,
            scanId,
            inputs,
            stored as MatchResult,
            derived,
            generation,
            true,
            async (findings) => {
              attributions = await storeAttributions(
                scanId,
                inputs.snapshot,
                g,
                index,
                modules,
                stored.matches,
                findings,
              );
            },
          );
        },
      );
      graphs.delete(scanId);
      recordScanCompleted();
      return { ...published, attributions };
    },
  };

  /** A failed scan keeps nothing of its attributions (the caller clears the intermediate results). */
  async function forget(scanId: string): Promise<void> {
    graphs.delete(scanId);
    await clearAttributions(store, scanId);
  }

  return { activities, forget };
}
