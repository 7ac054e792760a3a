// The MCP pages' pure pieces, apart from the components for unit tests: the issue codes and their
// severities, a server's issues counted by severity whatever form the API gives them in, issues in their order, the
// registry decisions and control levels in words, versions typed and shown, usage counts in words.
import type {
  Checked,
  ListsEvery,
  McpControlLevelName,
  McpDecisionFilter,
  McpIssue,
  McpIssueCode,
  McpIssues,
  Severity,
  SeverityCounts,
} from '../../types';
import { SEVERITIES } from '../../types';

/**
 * The issue codes of MCP auditing, in the contract's order, with their words and the severity each is raised with. The
 * codes are the OpenAPI document's McpIssueCode (the service's table, src/domain/mcp/issues.ts): one missing here, or
 * one the service does not have, fails the type-check.
 */
export const ISSUE_CODES = [
  { code: 'vulnerable_package', label: 'Vulnerable package', severity: null },
  { code: 'registry_denied', label: 'Denied by the registry', severity: 'high' },
  { code: 'secret_in_config', label: 'Secret in the configuration', severity: 'high' },
  { code: 'tool_definition_changed', label: 'Tool definition changed', severity: 'high' },
  { code: 'prompt_injection_suspected', label: 'Prompt injection suspected', severity: 'high' },
  { code: 'tool_shadowing', label: 'Tool shadowing', severity: 'medium' },
  { code: 'insecure_transport', label: 'Insecure transport', severity: 'medium' },
  { code: 'unpinned_package', label: 'Unpinned package', severity: 'low' },
  { code: 'not_in_registry', label: 'Not in the registry', severity: 'low' },
] as const satisfies readonly { code: McpIssueCode; label: string; severity: Severity | null }[];
export type IssueCodesListed = Checked<ListsEvery<McpIssueCode, (typeof ISSUE_CODES)[number]['code'][]>>;
export const ISSUE_LABELS: Record<string, string> = Object.fromEntries(ISSUE_CODES.map((c) => [c.code, c.label]));

const isSeverity = (s: string): s is Severity => (SEVERITIES as readonly string[]).includes(s);

/**
 * A server's issues as the API gives them (a list of issues, counts by severity, or counts by code) → counts by
 * severity, or null when only codes of unknown severity are counted (then `byCode` is shown instead).
 */
export function issueCounts(issues: McpIssues | null | undefined): {
  counts: SeverityCounts | null;
  byCode: [string, number][];
} {
  const counts: SeverityCounts = { critical: 0, high: 0, medium: 0, low: 0 };
  if (Array.isArray(issues)) {
    for (const i of issues) if (isSeverity(i.severity)) counts[i.severity]++;
    return { counts, byCode: [] };
  }
  const o = (issues ?? {}) as Record<string, unknown>;
  const bySeverity = (o.bySeverity ?? o) as Record<string, unknown>;
  if (SEVERITIES.some((s) => typeof bySeverity[s] === 'number')) {
    for (const s of SEVERITIES) counts[s] = typeof bySeverity[s] === 'number' ? (bySeverity[s] as number) : 0;
    return { counts, byCode: [] };
  }
  const byCode = Object.entries((o.byCode ?? o) as Record<string, unknown>).filter(
    (e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0,
  );
  // codes of a fixed severity are counted under it; vulnerable_package (the advisory's severity) cannot be
  if (byCode.some(([c]) => !ISSUE_CODES.find((x) => x.code === c)?.severity)) return { counts: null, byCode };
  for (const [c, n] of byCode) counts[ISSUE_CODES.find((x) => x.code === c)!.severity!] += n;
  return { counts, byCode: [] };
}

/** Issues most severe first, then by code and tool. */
export function sortIssues(issues: McpIssue[]): McpIssue[] {
  const rank = (s: string) => (isSeverity(s) ? SEVERITIES.indexOf(s) : SEVERITIES.length);
  return [...issues].sort(
    (a, b) =>
      rank(a.severity) - rank(b.severity) ||
      (a.code < b.code ? -1 : a.code > b.code ? 1 : 0) ||
      ((a.tool ?? '') < (b.tool ?? '') ? -1 : (a.tool ?? '') > (b.tool ?? '') ? 1 : 0),
  );
}

export const DECISIONS = ['allow', 'deny', 'unreviewed'] as const satisfies readonly McpDecisionFilter[];
export type DecisionsListed = Checked<ListsEvery<McpDecisionFilter, typeof DECISIONS>>;
export const DECISION_LABELS: Record<string, string> = { allow: 'Allowed', deny: 'Denied', unreviewed: 'Unreviewed' };

export const LEVELS = [
  { level: 'observe', label: 'Observe', means: 'Every call is allowed; usage is only recorded.' },
  {
    level: 'warn',
    label: 'Warn',
    means:
      'Calls to denied or unreviewed servers, and to servers with high or critical issues on that host, are answered warn; the rest allow.',
  },
  {
    level: 'block',
    label: 'Block',
    means:
      'Calls to denied and unreviewed servers are blocked; allowed servers with high or critical issues get warn; the rest allow.',
  },
] as const satisfies readonly { level: McpControlLevelName; label: string; means: string }[];
export type LevelsListed = Checked<ListsEvery<McpControlLevelName, (typeof LEVELS)[number]['level'][]>>;

/** Usage counts in words: "3 calls, 1 error, 0 blocked". */
export function usageText(u: { calls: number; errors: number; blocked: number }): string {
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  return `${n(u.calls, 'call', 'calls')}, ${n(u.errors, 'error', 'errors')}, ${u.blocked} blocked`;
}

/** A registry entry's versions: the list, or "any" (null). */
export const versionsText = (versions: string[] | null | undefined): string =>
  versions && versions.length ? versions.join(', ') : 'any';

/** Versions typed comma-separated (spaces around them dropped); empty: any version (null). */
export function parseVersions(text: string): string[] | null {
  const list = text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  return list.length ? [...new Set(list)] : null;
}
