// The web app's pure pieces (web/src): the findings filters' URL form and the grouped rows of the findings list.
import { apiQuery, filtersFromQuery, filtersToQuery } from '../../web/src/filters';
import { buildRows, findingRows, groupsOf, listCountText } from '../../web/src/rows';
import { advisoryLinks } from '../../web/src/advisories';
import { refusal } from '../../web/src/errors';
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
  // the counts in words: findings, and the rows when a finding is listed under several groups, in every grouping
  const affected = buildRows([a], filtersFromQuery({ attribution: 'affected' }), teamOf);
  expect(listCountText(1, findingRows(affected), filtersFromQuery({ attribution: 'affected' }), true)).toBe(
    '1 finding, shown in 2 rows: a finding is listed under every module it affects, so the groups add up to more',
  );
  expect(listCountText(3, 5, filtersFromQuery({}), true)).toBe(
    '3 findings, shown in 5 rows: a finding is listed under every module that introduces it, so the groups add up to more',
  );
  expect(listCountText(3, 5, filtersFromQuery({ group: 'dependency' }), false)).toBe(
    '3 findings loaded so far, shown in 5 rows: a finding is listed under every dependency that introduces it, so the groups add up to more',
  );
  expect(listCountText(2, 2, filtersFromQuery({}), true)).toBe('2 findings');
  expect(listCountText(2, 2, filtersFromQuery({ group: 'none' }), true)).toBe('2 findings');
  // a module without a team is named as unassigned
  expect(buildRows([a], introduced, () => null)[0]).toMatchObject({ kind: 'group', label: ':lib · team unassigned' });
});

test('advisory links: GitHub for a well-formed GHSA id, NVD for a CVE, OSV for the ids it serves, nothing else', () => {
  const hrefs = (id: string) => advisoryLinks(id).map((l) => l.href);
  expect(hrefs('GHSA-jfh8-c2jp-5v3q')).toEqual([
    'https://github.com/advisories/GHSA-jfh8-c2jp-5v3q',
    'https://osv.dev/vulnerability/GHSA-jfh8-c2jp-5v3q',
  ]);
  expect(hrefs('CVE-2021-44228')).toEqual([
    'https://nvd.nist.gov/vuln/detail/CVE-2021-44228',
    'https://osv.dev/vulnerability/CVE-2021-44228',
  ]);
  expect(hrefs('PYSEC-2021-19')).toEqual(['https://osv.dev/vulnerability/PYSEC-2021-19']);
  expect(hrefs('javascript:alert(1)')).toEqual([]);
  expect(hrefs('CVE-2021-44228/../x')).toEqual([]);
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

test('refusals in words: the field apart, its name in words, never the error code', () => {
  expect(refusal(422, 'invalid_parameter', 'expiresAt: must be in the future')).toEqual({
    field: 'expiresAt',
    text: 'The expiry date must be in the future.',
  });
  expect(refusal(422, 'missing_parameter', 'role: is required')).toEqual({
    field: 'role',
    text: 'The role is required.',
  });
  expect(refusal(409, 'already_member', 'email: a@example.test is already a member of this organization')).toEqual({
    field: 'email',
    text: 'a@example.test is already a member of this organization.', // a value is never capitalised
  });
  expect(refusal(422, 'invalid_scope', 'scopes: hosts:read covers the whole organization')).toEqual({
    field: 'scopes',
    text: 'The scopes: hosts:read covers the whole organization.',
  });
  expect(refusal(422, 'invalid_parameter', 'issue: must be one of a, b')).toEqual({
    field: 'issue',
    text: 'Must be one of a, b (issue).',
  });
  expect(refusal(409, 'last_owner', 'the organization must keep at least one owner')).toEqual({
    text: 'The organization must keep at least one owner.',
  });
  expect(refusal(403, 'insufficient_scope', 'requires role owner').text).toBe(
    'You are not allowed to do this: requires role owner.',
  );
  expect(refusal(503, 'service_unavailable', 'database unavailable').text).toBe(
    'The service is busy or restarting: try again in a moment.',
  );
  expect(refusal(422, 'missing_parameter', 'entries[0].identity: is required').text).toBe(
    'The field entries[0].identity is required.',
  );
  for (const code of ['invalid_parameter', 'missing_parameter', 'already_member', 'last_owner', 'insufficient_scope'])
    expect(refusal(422, code, 'x: y').text).not.toContain(code);
});
