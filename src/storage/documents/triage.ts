// Stored documents of triage (src/storage/triage.ts).
import type { Analysis } from '../../domain/triage/analysis';
import type { AlertEvent } from '../../domain/alerts/move';
import type { TriageRule } from '../../domain/triage/rules';

/**
 * The analysis of one alert and its newest analysis history events: `_id` = the alert id. Written by compare-and-set on
 * `rev` (the store has no transactions): of two writes from one revision one lands and the other reads again and
 * applies on top, so the later write wins and the history holds both. Found by organization (the alert index reads
 * them all at once) and by pair (a scan's resolution reads its project and ecosystem's).
 */
export interface AlertAnalysisDoc {
  _id: string;
  orgId: string;
  projectId: string;
  pairId: string;
  rev: number;
  /** Null once deleted (the history stays). */
  analysis: Analysis | null;
  /** The newest analysis events (at most ANALYSIS_INLINE_EVENTS, oldest first); every one is also in alertEvents. */
  events: Array<AlertEvent & { seq: number }>;
  /** How many analysis events the alert has had in all. */
  eventCount: number;
  updatedAt: Date;
}

/** A triage rule of an organization (src/domain/triage/rules.ts); _id = the rule id (trl_...). */
export interface TriageRuleDoc {
  _id: string;
  orgId: string;
  rule: Omit<TriageRule, 'id'>;
}
