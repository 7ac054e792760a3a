// The findings views: affected vs introduced, module and team together, unknown labels, counts.
import { countsOf, inScope, matchesFilters, type FindingFilter } from '../../../src/http/findings/filter';
import type { Finding, Severity } from '../../../src/shared/types';

const attr = (module: string, origins: string[]) => ({
  module,
  context: 'c',
  relationship: 'transitive' as const,
  path: [module, 'x@1'],
  origins: origins.map((m) => ({ module: m, dependency: 'x@1', path: [m, 'x@1'] })),
});
const finding = (
  id: string,
  severity: Severity,
  attributions: Finding['attributions'],
  suppressed = false,
): Finding => ({
  id,
  scanId: 's',
  severity,
  cve: id,
  publishedAt: null,
  package: 'x',
  installedVersion: '1',
  fixedVersion: null,
  path: [],
  suppressed,
  suppressionReason: suppressed ? 'r' : null,
  attributions,
  summary: '',
  aliases: [id],
});
// :app consumes x through :lib, which declares it; :web declares its own copy.
const findings = [
  finding('f1', 'critical', [attr(':lib', [':lib']), attr(':app', [':lib'])]),
  finding('f2', 'high', [attr(':web', [':web'])]),
  finding('f3', 'low', [attr(':app', [':app']), attr(':web', [':app'])], true),
];
const teams = {
  teams: new Map<string, string | null>([
    [':app', 'web-team'],
    [':lib', 'platform'],
    [':web', 'web-team'],
  ]),
};
const base: FindingFilter = { severityMode: 'at_least', suppressed: 'all', attribution: 'affected' };
const ids = (f: Partial<FindingFilter>) =>
  findings.filter((x) => inScope(x, { ...base, ...f }, teams)).map((x) => x.id);

test('affected selects consuming modules; introduced the declaring ones', () => {
  expect(ids({ module: ':app' })).toEqual(['f1', 'f3']);
  expect(ids({ module: ':app', attribution: 'introduced' })).toEqual(['f3']);
  expect(ids({ module: ':lib', attribution: 'introduced' })).toEqual(['f1']);
  expect(ids({ module: ':web', attribution: 'introduced' })).toEqual(['f2']);
});

test('team selects the modules whose teamName it is; module and team must agree', () => {
  expect(ids({ team: 'web-team' })).toEqual(['f1', 'f2', 'f3']);
  expect(ids({ team: 'platform', attribution: 'introduced' })).toEqual(['f1']);
  expect(ids({ module: ':app', team: 'web-team' })).toEqual(['f1', 'f3']);
  expect(ids({ module: ':app', team: 'platform' })).toEqual([]);
});

test('unknown labels select nothing (an empty list, not an error)', () => {
  expect(ids({ module: ':nope' })).toEqual([]);
  expect(ids({ team: 'nobody' })).toEqual([]);
});

test('counts cover the scope before severity and suppression filters; a finding in several modules counts once', () => {
  const scoped = findings.filter((x) => inScope(x, { ...base, team: 'web-team' }, teams));
  expect(countsOf(scoped)).toEqual({ critical: 1, high: 1, medium: 0, low: 0, suppressed: 1 });
  const shown = scoped.filter((x) => matchesFilters(x, { ...base, severity: 'high', suppressed: 'false' }));
  expect(shown.map((x) => x.id)).toEqual(['f1', 'f2']);
  expect(
    scoped
      .filter((x) => matchesFilters(x, { ...base, severity: 'high', severityMode: 'exact', suppressed: 'false' }))
      .map((x) => x.id),
  ).toEqual(['f2']);
});
