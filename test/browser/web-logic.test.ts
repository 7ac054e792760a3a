// The web app's pure pieces (web/src): the findings filters' URL form and the grouped rows of the findings list.
import { apiQuery, filtersFromQuery, filtersToQuery } from '../../web/src/filters';
import { buildRows, groupsOf } from '../../web/src/rows';
import { safeNext } from '../../web/src/paths';
import { pageCursor, withPage } from '../../web/src/pages';
import { ORG_WIDE_SCOPES, SCOPES } from '../../src/domain/scopes';
import * as principal from '../../src/http/auth/principal';
import * as roles from '../../src/domain/roles';
import * as webRoles from '../../web/src/roles';
import * as webScopes from '../../web/src/scopes';
import type { Finding } from '../../web/src/types';

test('filters: defaults stay out of the URL; the app sends the introduced view explicitly; junk falls back', () => {
  const d = filtersFromQuery({});
  expect(d).toEqual({
    attribution: 'introduced',
    severityMode: 'at_least',
    suppressed: 'false',
    group: 'module',
    module: undefined,
    team: undefined,
    severity: undefined,
  });
  expect(Object.values(filtersToQuery(d)).filter(Boolean)).toEqual([]);
  expect(apiQuery(d)).toMatchObject({ attribution: 'introduced', suppressed: 'false', severityMode: undefined });
  const q = {
    attribution: 'affected',
    module: ':a',
    team: 't',
    severity: 'high',
    severityMode: 'exact',
    suppressed: 'all',
    group: 'none',
  };
  expect(filtersToQuery(filtersFromQuery(q))).toEqual(q);
  expect(filtersFromQuery({ attribution: 'x', severity: 'urgent', suppressed: 'maybe', group: '<b>' })).toEqual(d);
  // a severity mode without a severity is dropped
  expect(filtersToQuery(filtersFromQuery({ severityMode: 'exact' })).severityMode).toBeUndefined();
});

test('safeNext: only paths of this app, never another origin', () => {
  expect(safeNext('/app/scans/scn_1?x=1')).toBe('/app/scans/scn_1?x=1');
  for (const bad of [
    undefined,
    '',
    '//evil.example/app/',
    'https://evil.example/app/',
    '/app\\..\\x',
    '/other',
    '/app/sign-in?next=/app/',
  ])
    expect(safeNext(bad)).toBe('/app/');
});

const finding = (id: string, origins: [string, string, string][]): Finding => ({
  id,
  scanId: 's',
  severity: 'high',
  cve: `CVE-${id}`,
  publishedAt: null,
  package: 'p',
  installedVersion: '1',
  fixedVersion: null,
  path: [],
  suppressed: false,
  suppressionReason: null,
  summary: '',
  // [consuming module, declaring module, dependency]
  attributions: origins.map(([module, from, dependency]) => ({
    module,
    context: 'c',
    relationship: 'transitive',
    path: [module, dependency],
    origins: [{ module: from, dependency, path: [from, dependency] }],
  })),
});

test('rows: grouped by declaring module (introduced) or consuming module (affected) or dependency, scoped by module/team', () => {
  const teams: Record<string, string> = { ':app': 'pay', ':lib': 'plat' };
  const teamOf = (m: string) => teams[m] ?? null;
  const a = finding('a', [
    [':app', ':lib', 'x@1'],
    [':lib', ':lib', 'x@1'],
  ]);
  const b = finding('b', [[':app', ':app', 'y@1']]);
  const introduced = filtersFromQuery({});
  expect(groupsOf(a, introduced, teamOf)).toEqual([':lib']);
  expect(groupsOf(a, filtersFromQuery({ attribution: 'affected' }), teamOf)).toEqual([':app', ':lib']);
  expect(groupsOf(a, filtersFromQuery({ group: 'dependency' }), teamOf)).toEqual(['x@1']);
  expect(groupsOf(a, filtersFromQuery({ attribution: 'affected', team: 'plat' }), teamOf)).toEqual([':lib']);
  expect(groupsOf(finding('v1', []), introduced, teamOf)).toEqual(['(no module attribution)']);
  const paged = { ...finding('p', []), attributionCount: 3 };
  expect(groupsOf(paged, introduced, teamOf)).toEqual(['(modules: open the finding)']);
  expect(groupsOf(paged, filtersFromQuery({ module: ':lib' }), teamOf)).toEqual([':lib']);
  const rows = buildRows([a, b], introduced, teamOf);
  expect(rows.map((r) => (r.kind === 'group' ? `# ${r.label} ${r.count}` : r.finding.id))).toEqual([
    '# :lib · team plat 1',
    'a',
    '# :app · team pay 1',
    'b',
  ]);
  expect(buildRows([a, b], filtersFromQuery({ group: 'none' }), teamOf).map((r) => r.key)).toEqual(['a', 'b']);
  // a finding under two groups is listed in both, with distinct row keys
  const twice = buildRows([a], filtersFromQuery({ attribution: 'affected' }), teamOf).filter(
    (r) => r.kind === 'finding',
  );
  expect(twice).toHaveLength(2);
  expect(new Set(twice.map((r) => r.key)).size).toBe(2);
});

test('scopes: the API-key form lists the scopes of the server (one module, src/domain/scopes.ts, dependency-free)', () => {
  // the server's principal.ts re-exports src/domain/scopes.ts; web/src/scopes.ts is typed against the OpenAPI
  // document's Scope and OrgWideScope (made from it), and holds the same lists in the same order
  expect(principal.SCOPES).toBe(SCOPES);
  expect(principal.ORG_WIDE_SCOPES).toBe(ORG_WIDE_SCOPES);
  expect(ORG_WIDE_SCOPES.every((s) => SCOPES.includes(s))).toBe(true);
  expect(SCOPES.filter((s) => principal.isScope(s))).toEqual([...SCOPES]);
  expect(webScopes.SCOPES).toEqual([...SCOPES]);
  expect(webScopes.ORG_WIDE_SCOPES).toEqual([...ORG_WIDE_SCOPES]);
  expect(SCOPES.filter((s) => webScopes.isOrgWide(s))).toEqual(SCOPES.filter((s) => ORG_WIDE_SCOPES.includes(s)));
});

test('roles: the app lists and checks the roles of the server (src/domain/roles.ts)', () => {
  expect(webRoles.ROLES).toEqual([...roles.ROLES]);
  expect(webRoles.ASSIGNABLE_ROLES).toEqual([...roles.ASSIGNABLE_ROLES]);
  expect(webRoles.MANAGER_ROLES).toEqual([...roles.MANAGER_ROLES]);
  for (const r of [...roles.ROLES, null, undefined])
    expect([r, webRoles.isManager(r)]).toEqual([r, roles.isManager(r)]);
  // the invitation form: member first; admins and owners only offered to owners
  expect(webRoles.invitableRoles('owner')).toEqual(['member', 'auditor', 'admin', 'owner']);
  expect(webRoles.invitableRoles('admin')).toEqual(['member', 'auditor']);
  expect(Object.keys(webRoles.ROLE_LABELS).sort()).toEqual([...roles.ROLES].sort());
});

test('pages of a list shown whole: a first page replaces the rows, a later one is appended; a new list starts over', () => {
  expect(withPage(['a', 'b'], undefined, ['c'])).toEqual(['c']);
  expect(withPage(['a', 'b'], 'cur1', ['c'])).toEqual(['a', 'b', 'c']);
  expect(pageCursor({ key: 'prj_1', cursor: 'cur1' }, 'prj_1')).toBe('cur1');
  // another project, other filters: the first page, whatever cursor was asked for before
  expect(pageCursor({ key: 'prj_1', cursor: 'cur1' }, 'prj_2')).toBeUndefined();
  expect(pageCursor({ key: 'prj_1' }, 'prj_1')).toBeUndefined();
});
