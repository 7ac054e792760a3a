// Stored documents of triage (src/storage/triage.ts).
import type { Analysis } from '../../domain/triage/analysis';
import type { TriageRule } from '../../domain/triage/rules';

/**
 * One revision of an alert's analysis: `_id` = `${alertId}:${rev}`; the newest revision of an alert is its analysis
 * in force (its history event is `alertEvents` `${alertId}:analysis:${rev}`, whose unique id serialises writes). A
 * write inserts its revision and deletes those it superseded; readers take the newest they meet. Found by alert, by
 * organization (the alert index reads them all at once) and by pair (a scan's resolution reads its project and
 * ecosystem's).
 */
export interface AlertAnalysisDoc {
  _id: string;
  alertId: string;
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
