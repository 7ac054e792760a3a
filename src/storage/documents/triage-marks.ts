// Stored documents of triage in the background (src/storage/triage-marks.ts, activities/triage-reconcile.ts).
import type { TriageRule } from '../../domain/triage/rules';

/**
 * One revision of what an alert's history says of triage in the background: `_id` = `${alertId}:${rev}`, written once
 * and never changed (the store's updates are no atomic compare-and-set: of two writers of one revision only one insert
 * lands, and the other reads again and decides again). Readers take an alert's highest revision; older ones are
 * deleted after a new one lands. Only alerts that have had a rule or expiry event have marks.
 */
export interface AlertTriageMarkDoc {
  _id: string;
  alertId: string;
  orgId: string;
  rev: number;
  /** The rule that decides the alert apart from its own analysis, as its history holds it, and whether it suppresses. */
  ruleId: string | null;
  ruleSuppressed: boolean;
  /** The `updatedAt` of the analysis whose expiry was told, and the announcement that told it. */
  expiredAnalysis: string | null;
  expiryBatch: string | null;
  /** The history event that came with this revision (alertEvents), if any. */
  eventId: string | null;
  at: Date;
}

/** One alert of an announcement of expired analyses. */
export interface ExpiryItem {
  alertId: string;
  /** The analysis that expired (its `updatedAt`). */
  analysisUpdatedAt: string;
  /** Its `analysis_expired` history event (in alertEvents). */
  eventId: string;
  /** The rule state a first mark of the alert starts with (what its history held before). */
  ruleId: string | null;
  ruleSuppressed: boolean;
  /** Whether the webhook event lists it (open alerts only). */
  announce: boolean;
}

/**
 * An `analysis.expired` announcement, recorded before its alerts' marks claim it and its webhook event starts (once:
 * the event's workflow id is the announcement's), deleted once done: `_id` = the announcement id.
 */
export interface TriageAnnouncementDoc {
  _id: string;
  orgId: string;
  items: ExpiryItem[];
  createdAt: Date;
}

/**
 * The rules of an organization as last reconciled, and when: the rule state of an alert without a mark. `_id` = the
 * org id. Inserted once (before the first rule change, or by the first reconciliation), then set by each one.
 */
export interface TriageReconcileDoc {
  _id: string;
  rules: TriageRule[];
  at: Date;
}
