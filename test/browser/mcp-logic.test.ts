// The MCP pages' pure pieces (web/src/components/mcp/logic.ts): issue counts by severity from each form the API may
// give them in, the issue order, versions typed comma-separated and shown, usage counts in words, the issue codes
// against the service's own table.
import { ISSUE_ORDER, ISSUE_SEVERITY } from '../../src/domain/mcp/issues';
import {
  ISSUE_CODES,
  issueCounts,
  parseVersions,
  sortIssues,
  usageText,
  versionsText,
} from '../../web/src/components/mcp/logic';
import type { McpIssue } from '../../web/src/types';

// only what the counting and the order read (codes and severities outside the API's too: the pieces tolerate them)
const issue = (code: string, severity: McpIssue['severity'], tool?: string) =>
  ({ code, severity, message: `${code} ${tool ?? ''}`, ...(tool ? { tool } : {}) }) as McpIssue;

test('issue counts: from a list of issues (what GET /v1/mcp/servers gives), by severity, by code', () => {
  const list = [
    issue('vulnerable_package', 'critical'),
    issue('vulnerable_package', 'critical'),
    issue('prompt_injection_suspected', 'high', 't'),
    issue('not_in_registry', 'low'),
  ];
  expect(issueCounts(list)).toEqual({ counts: { critical: 2, high: 1, medium: 0, low: 1 }, byCode: [] });
  expect(issueCounts([])).toEqual({ counts: { critical: 0, high: 0, medium: 0, low: 0 }, byCode: [] });
  // an unknown severity is not counted under another one
  expect(issueCounts([{ ...issue('x', 'high'), severity: 'urgent' as McpIssue['severity'] }]).counts).toEqual({
    critical: 0,
    high: 0,
    medium: 0,
    low: 0,
  });
  // counts by severity, missing ones zero
  expect(issueCounts({ critical: 1, low: 3 }).counts).toEqual({ critical: 1, high: 0, medium: 0, low: 3 });
  expect(issueCounts({ bySeverity: { high: 2 } } as never).counts).toEqual({ critical: 0, high: 2, medium: 0, low: 0 });
  // counts by code: under each code's fixed severity...
  expect(issueCounts({ registry_denied: 1, tool_shadowing: 2, unpinned_package: 1 }).counts).toEqual({
    critical: 0,
    high: 1,
    medium: 2,
    low: 1,
  });
  // ...unless a code's severity is the advisory's: then the codes themselves
  expect(issueCounts({ vulnerable_package: 2, not_in_registry: 1, secret_in_config: 0 })).toEqual({
    counts: null,
    byCode: [
      ['vulnerable_package', 2],
      ['not_in_registry', 1],
    ],
  });
  expect(issueCounts(null).counts).toEqual({ critical: 0, high: 0, medium: 0, low: 0 });
});

test('issues in order: most severe first, then by code, then by tool', () => {
  const sorted = sortIssues([
    issue('not_in_registry', 'low'),
    issue('tool_shadowing', 'medium', 'b'),
    issue('tool_shadowing', 'medium', 'a'),
    issue('vulnerable_package', 'high'),
    issue('registry_denied', 'high'),
    issue('vulnerable_package', 'critical'),
  ]);
  expect(sorted.map((i) => `${i.severity} ${i.code}${i.tool ? ` ${i.tool}` : ''}`)).toEqual([
    'critical vulnerable_package',
    'high registry_denied',
    'high vulnerable_package',
    'medium tool_shadowing a',
    'medium tool_shadowing b',
    'low not_in_registry',
  ]);
});

test('the issue codes and severities are the service’s (the table of src/domain/mcp/issues.ts)', () => {
  expect(ISSUE_CODES.map((c) => c.code)).toEqual([...ISSUE_ORDER]);
  for (const c of ISSUE_CODES)
    expect([c.code, c.severity]).toEqual([
      c.code,
      c.code === 'vulnerable_package' ? null : ISSUE_SEVERITY[c.code as keyof typeof ISSUE_SEVERITY],
    ]);
});

test('versions: typed comma-separated (blanks and repeats dropped), empty is any; shown as typed or "any"', () => {
  expect(parseVersions('1.0.0, 1.1.0 ,')).toEqual(['1.0.0', '1.1.0']);
  expect(parseVersions(' 2.0.0 ,2.0.0')).toEqual(['2.0.0']);
  expect(parseVersions('')).toBeNull();
  expect(parseVersions(' , ')).toBeNull();
  expect(versionsText(['1.0.0', '1.1.0'])).toBe('1.0.0, 1.1.0');
  expect(versionsText(null)).toBe('any');
  expect(versionsText([])).toBe('any');
});

test('usage counts in words', () => {
  expect(usageText({ calls: 1, errors: 1, blocked: 0 })).toBe('1 call, 1 error, 0 blocked');
  expect(usageText({ calls: 55, errors: 5, blocked: 2 })).toBe('55 calls, 5 errors, 2 blocked');
  expect(usageText({ calls: 0, errors: 0, blocked: 0 })).toBe('0 calls, 0 errors, 0 blocked');
});
