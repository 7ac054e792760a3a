// Triage in the background (docs/triage.md, "In the background"): what a rule change and the passing of time do to
// the alerts' histories. Alerts read rules and expiries live, so nothing here changes how an alert reads; it decides
// which history events say so: an `analysis_changed` event (source rule) where the rule that suppresses an alert
// changes, and one `analysis_expired` event per analysis that reaches its expiry. Pure: the reconciler
// (activities/triage-reconcile.ts) gives the alerts, their analyses, the rules now and as last reconciled, and what
// each alert's history already says (its mark).
import type { AlertRecord } from '../alerts/move';
import { subjectOf } from '../alerts/query';
import { isExpired, SUPPRESSING_STATES, type Analysis } from './analysis';
import { ruleFor, type CompiledRule } from './rules';

/** The rule that decides an alert apart from its own analysis: the oldest enforce rule in force that matches it. */
export interface RuleState {
  ruleId: string | null;
  /** Whether that rule suppresses (its analysis's state is a suppressing one). */
  suppressed: boolean;
}

export const NO_RULE: RuleState = { ruleId: null, suppressed: false };

/** An alert's rule state at `now` under `rules` (compiled, oldest first). */
export function ruleStateOf(rules: readonly CompiledRule[], a: AlertRecord, now: Date): RuleState {
  const rule = rules.length ? ruleFor(rules, subjectOf(a), now) : null;
  return rule ? { ruleId: rule.id, suppressed: SUPPRESSING_STATES.includes(rule.analysis.state) } : NO_RULE;
}

/** The rule that suppresses the alert in a state, or null: what a rule event is about. */
const suppressingRule = (s: RuleState): string | null => (s.suppressed ? s.ruleId : null);

export const sameRuleState = (a: RuleState, b: RuleState): boolean =>
  a.ruleId === b.ruleId && a.suppressed === b.suppressed;

/**
 * Whether the rules decide the alert's suppression: neither its own analysis in force (which comes first) nor a
 * snapshot suppression (which suppresses it whatever the rules say) hides them.
 */
export function rulesDecide(a: AlertRecord, analysis: Analysis | null, now: Date): boolean {
  if (a.suppressed && a.suppressionSource === 'snapshot') return false;
  return !(analysis && !isExpired(analysis, now));
}

/**
 * What a change of an alert's rule state writes: a history event when the suppressing rule changed (another rule, or
 * none, or one where there was none) and the rules decide the alert; the new state in any case (`write`), so that a
 * change hidden by the alert's own analysis is not told later as if it had just happened.
 */
export function ruleChange(before: RuleState, after: RuleState, decide: boolean): { event: boolean; write: boolean } {
  if (sameRuleState(before, after)) return { event: false, write: false };
  return { event: decide && suppressingRule(before) !== suppressingRule(after), write: true };
}

/** The details of a rule's history event: the rule state after, and before. */
export const ruleEventDetails = (before: RuleState, after: RuleState) => ({
  source: 'rule' as const,
  ruleId: after.ruleId,
  suppressed: after.suppressed,
  before: { ruleId: before.ruleId, suppressed: before.suppressed },
});

/** The rule state a rule event's details say (what a history holding the event says). */
export function ruleStateOfEvent(details: Record<string, unknown>): RuleState {
  return {
    ruleId: typeof details.ruleId === 'string' ? details.ruleId : null,
    suppressed: details.suppressed === true,
  };
}

/** What the reconciler knows of one alert's history: its last rule state and the expiry it announced last. */
export interface Mark extends RuleState {
  /** The `updatedAt` of the analysis whose expiry was announced (one announcement per analysis). */
  expiredAnalysis: string | null;
}

export interface ReconcileInput {
  /** The organization's alerts (merged ones are left out here: reads of their ids answer the survivor). */
  alerts: readonly AlertRecord[];
  /** Each alert's analysis, if any. */
  analyses: ReadonlyMap<string, Analysis | null>;
  /** The rules now, compiled, oldest first. */
  rules: readonly CompiledRule[];
  /** The rules as last reconciled and when: the rule state of an alert without a mark. */
  baseline: { rules: readonly CompiledRule[]; at: Date };
  marks: ReadonlyMap<string, Mark>;
  now: Date;
}

/** One alert whose history is behind: its rule state changed, or its analysis expired unannounced. */
export interface AlertPlan {
  alert: AlertRecord;
  /** The rule state its history holds: its mark's, else the baseline's. */
  before: RuleState;
  after: RuleState;
  /** Whether the rules decide its suppression now (see rulesDecide). */
  decide: boolean;
  /** Its analysis, expired and not announced yet (null: nothing to announce). */
  expired: Analysis | null;
}

/**
 * The alerts whose histories are behind. An alert without a mark has never had a rule event or an expiry: its history
 * holds the rule state of the rules as last reconciled, at that time (so that a rule change, or an enforce rule's
 * expiry, since then is told, and an alert opened since under an unchanged rule is not).
 */
export function planReconcile(input: ReconcileInput): AlertPlan[] {
  const out: AlertPlan[] = [];
  for (const a of input.alerts) {
    if (a.status === 'merged') continue;
    const analysis = input.analyses.get(a.id) ?? null;
    const mark = input.marks.get(a.id);
    const before: RuleState = mark
      ? { ruleId: mark.ruleId, suppressed: mark.suppressed }
      : ruleStateOf(input.baseline.rules, a, input.baseline.at);
    const after = ruleStateOf(input.rules, a, input.now);
    const expired =
      analysis && isExpired(analysis, input.now) && mark?.expiredAnalysis !== analysis.updatedAt ? analysis : null;
    const decide = rulesDecide(a, analysis, input.now);
    if (expired || ruleChange(before, after, decide).event || (mark && !sameRuleState(before, after)))
      out.push({ alert: a, before, after, decide, expired });
  }
  return out;
}

/** The details of an `analysis_expired` history event: the analysis that expired, and what the alert reads now. */
export const expiryEventDetails = (
  analysis: Analysis,
  now: { suppressed: boolean; suppressionSource: string | null; ruleId: string | null },
) => ({
  analysis: {
    state: analysis.state,
    expiresAt: analysis.expiresAt,
    updatedAt: analysis.updatedAt,
    updatedBy: analysis.updatedBy,
  },
  suppressed: now.suppressed,
  suppressionSource: now.suppressionSource,
  ruleId: now.ruleId,
});
