// Stored documents of triage (src/storage/triage.ts).
import type { Analysis } from '../../domain/triage/analysis';
import type { TriageRule } from '../../domain/triage/rules';

/**
 * The analysis in force of one alert: `_id` = the alert id, `rev` the revision (its history event is
 * `alertEvents` `${alertId}:analysis:${rev}`, whose unique id serialises writes). Found by organization (the alert
 * index reads them all at once) and by pair (a scan's resolution reads its project and ecosystem's).
 */
export interface AlertAnalysisDoc {
  _id: string;
  orgId: string;
  projectId: string;
  pairId: string;
  rev: number;
  /** Null once deleted. */
  analysis: Analysis | null;
  updatedAt: Date;
}

/** A triage rule of an organization (src/domain/triage/rules.ts); _id = the rule id (trl_...). */
export interface TriageRuleDoc {
  _id: string;
  orgId: string;
  rule: Omit<TriageRule, 'id'>;
}
