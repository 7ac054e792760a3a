// The decision given to a `pre` usage event: what an agent's hook or a gateway should do before a
// tool call, from the organization's control level, the registry's decision for the server, and whether the server
// has issues of severity high or critical on the event's host. Pure: the route gathers the three inputs.
//
//   observe → allow (recorded only)
//   warn    → warn for a denied or unreviewed server, and for an allowed one with high or critical issues; else allow
//   block   → block for a denied or unreviewed server; warn for an allowed one with such issues; else allow
//
// The reason says which rule decided, one of REASONS (a denial wins over issues: it is the stronger reason).

export const CONTROL_LEVELS = ['observe', 'warn', 'block'] as const;
export type ControlLevel = (typeof CONTROL_LEVELS)[number];
export type RegistryVerdict = 'allow' | 'deny' | 'unreviewed';
export type Decision = 'allow' | 'warn' | 'block';

export const REASONS = {
  /** control level observe: every call is allowed, events are recorded */
  observe: 'control_level_observe',
  /** a deny entry of the registry matches the server (and its version) */
  denied: 'registry_denied',
  /** no entry allows the server (unknown server, or a version outside an entry's list) */
  unreviewed: 'not_in_registry',
  /** allowed by the registry, but with high or critical issues on the event's host */
  issues: 'high_severity_issues',
  /** allowed by the registry, without high or critical issues on the event's host */
  allowed: 'registry_allowed',
} as const;
export type Reason = (typeof REASONS)[keyof typeof REASONS];

export interface PreDecision {
  decision: Decision;
  reason: Reason;
}

export function preDecision(level: ControlLevel, registry: RegistryVerdict, severeIssues: boolean): PreDecision {
  if (level === 'observe') return { decision: 'allow', reason: REASONS.observe };
  const strict: Decision = level === 'block' ? 'block' : 'warn';
  if (registry === 'deny') return { decision: strict, reason: REASONS.denied };
  if (registry === 'unreviewed') return { decision: strict, reason: REASONS.unreviewed };
  if (severeIssues) return { decision: 'warn', reason: REASONS.issues };
  return { decision: 'allow', reason: REASONS.allowed };
}

/** Severities that count for a decision. */
export const isSevere = (severity: string): boolean => severity === 'high' || severity === 'critical';
