// The current analyses of one project and ecosystem's alerts, as the findings of its scans show them (docs/triage.md:
// a scan is a record, its counts and each finding's `suppressed` stay as processed; its findings carry their alert's
// analysis of today, additive). Read in one query by pair (src/storage/triage.ts) and kept per API process, validated
// on every read by one read by _id: the organization's triage version, which every analysis write changes after its
// own write. As src/http/alerts/index-cache.ts does, the version is read before the
// analyses, so an entry is kept under a version no newer than what it was built from: a later write changes the
// version and the next read builds again. Expiry needs no invalidation here: `expired` is computed at each read.
import { LRUCache } from 'lru-cache';
import { analysisView, type Analysis, type AnalysisView } from '../../domain/triage/analysis';
import { orgTriageVersion, pairIdOf } from '../../storage/alerts';
import type { Store } from '../../storage/mongo';
import { pairAnalysesWithoutHistory } from '../../storage/triage';

type Analyses = ReadonlyMap<string, Analysis>;

const NONE: Analyses = new Map();
/** Pairs kept per process; an entry is small (the pair's analyses in force, without history). */
const pairs = new LRUCache<string, { version: string; analyses: Promise<Analyses> }>({ max: 512 });

/**
 * The analyses in force of a pair's alerts, by alert id. Concurrent reads of one pair at one version share one query;
 * a query that fails is not kept.
 */
export async function pairAnalysesCached(
  store: Store,
  s: { orgId: string; projectId: string; ecosystem: string },
): Promise<Analyses> {
  const version = await orgTriageVersion(store, s.orgId);
  if (version === null) return NONE; // nothing was ever triaged in this organization
  const pairId = pairIdOf(s.projectId, s.ecosystem);
  const cached = pairs.get(pairId);
  if (cached && cached.version === version) return cached.analyses;
  const analyses: Promise<Analyses> = pairAnalysesWithoutHistory(store, pairId);
  const entry = { version, analyses };
  pairs.set(pairId, entry);
  analyses.catch(() => {
    if (pairs.get(pairId) === entry) pairs.delete(pairId);
  });
  return analyses;
}

/**
 * The analysis a finding shows: its alert's current one (with `expired` at `now`), or null (no alert, or no analysis).
 * The finding's `alertId` as stored is used: a finding whose alert was merged into another since shows the merged
 * alert's own analysis (usually none), not the survivor's; the alert read (GET /v1/alerts/{alertId}) follows the merge.
 */
export function findingAnalysis(
  analyses: Analyses,
  alertId: string | null | undefined,
  now: Date,
): AnalysisView | null {
  const a = alertId ? analyses.get(alertId) : undefined;
  return a ? analysisView(a, now) : null;
}
