// Triage's pure core: an analysis checked from a request body (each rule of docs/triage.md, the field named), what it
// does at a time (suppression, expiry, versions), its effect on a scan's findings, and on the alert as reads see it.
import { viewOf } from '../../../src/domain/alerts/query';
import type { AlertRecord } from '../../../src/domain/alerts/move';
import { ApiError } from '../../../src/domain/errors';
import {
  parseAnalysis,
  sameDecision,
  suppressesAlert,
  suppressesVersion,
  type Analysis,
} from '../../../src/domain/triage/analysis';
import { applyTriage, suppressionSourceOf } from '../../../src/domain/triage/apply';
import {
  byAge,
  compileRule,
  parseRule,
  ruleFor,
  type Subject,
  type TriageRule,
} from '../../../src/domain/triage/rules';
import type { Finding } from '../../../src/shared/types';

const now = new Date('2026-11-28T12:00:00Z');
const actor = { kind: 'user' as const, id: 'usr_1', name: 'a@example.test' };
const parse = (body: Record<string, unknown>, installedVersions: string[] | null = ['1.0.0', '1.1.0']) =>
  parseAnalysis(body, { now, installedVersions, actor });
const refusal = (f: () => unknown): [number, string, string] => {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return [e.status, e.code, e.message];
    throw e;
  }
  throw new Error('accepted');
};

test('the rules of an analysis, each refusal naming its field', () => {
  expect(refusal(() => parse({}))).toEqual([422, 'missing_parameter', 'state: is required']);
  expect(refusal(() => parse({ state: 'wontfix' }))[2]).toMatch(/^state: must be one of/);
  expect(refusal(() => parse({ state: 'not_affected', detail: 'd' }))[2]).toMatch(/^justification: is required/);
  expect(refusal(() => parse({ state: 'in_triage', justification: 'x' }))[2]).toMatch(/^justification: /);
  for (const state of ['not_affected', 'false_positive', 'resolved'])
    expect(refusal(() => parse({ state, justification: 'code_not_present' }))[2]).toMatch(/^detail: is required/);
  expect(refusal(() => parse({ state: 'resolved', detail: '   ' }))[2]).toMatch(/^detail: must not be blank/);
  expect(refusal(() => parse({ state: 'resolved', detail: 'é'.repeat(2001) }))[2]).toMatch(/^detail: at most 2000/);
  // 2,000 characters (not UTF-16 units) are accepted
  expect(parse({ state: 'resolved', detail: '😀'.repeat(2000) }).detail).toHaveLength(4000);
  expect(refusal(() => parse({ state: 'in_triage', response: 'update' }))[2]).toMatch(/^response: must be an array/);
  expect(refusal(() => parse({ state: 'in_triage', response: ['update', 'update'] }))[2]).toMatch(/^response: /);
  expect(refusal(() => parse({ state: 'in_triage', expiresAt: '2026-11-28T11:59:59Z' }))[2]).toMatch(/future/);
  expect(refusal(() => parse({ state: 'in_triage', expiresAt: '2027-12-31T00:00:00Z' }))[2]).toMatch(/one year/);
  expect(refusal(() => parse({ state: 'in_triage', expiresAt: '2027-01-01' }))[2]).toMatch(/^expiresAt: .*RFC 3339/);
  expect(refusal(() => parse({ state: 'in_triage', versions: [] }))[2]).toMatch(/^versions: /);
  expect(refusal(() => parse({ state: 'in_triage', versions: ['2.0.0'] }))[2]).toMatch(/not an installed version/);
  // a bulk decision (no installed versions) takes no versions at all
  expect(refusal(() => parse({ state: 'in_triage', versions: ['1.0.0'] }, null))[2]).toMatch(/^versions: /);
  for (const url of ['http://t.example/1', 'https://user:pw@t.example/1', 'javascript:alert(1)', 'https://t .example'])
    expect(refusal(() => parse({ state: 'in_triage', ticketUrl: url }))[2]).toMatch(/^ticketUrl: /);
  expect(refusal(() => parse({ state: 'in_triage', note: 1 }))[2]).toMatch(/^note: is not a field/);
  expect(
    refusal(() =>
      parseAnalysis({ state: 'resolved', detail: 1 }, { now, installedVersions: null, actor }, 'analysis.'),
    )[2],
  ).toMatch(/^analysis\.detail: /);
});

test('an accepted analysis, normalised', () => {
  const a = parse({
    state: 'not_affected',
    justification: 'code_not_reachable',
    response: ['will_not_fix'],
    detail: 'never called',
    expiresAt: '2027-01-01T00:00:00+01:00',
    versions: ['1.1.0', '1.0.0', '1.1.0'],
    ticketUrl: 'https://jira.example.test/browse/SEC-1',
  });
  expect(a).toEqual({
    state: 'not_affected',
    justification: 'code_not_reachable',
    response: ['will_not_fix'],
    detail: 'never called',
    expiresAt: '2026-12-31T23:00:00.000Z',
    versions: ['1.0.0', '1.1.0'],
    ticketUrl: 'https://jira.example.test/browse/SEC-1',
    updatedAt: now.toISOString(),
    updatedBy: actor,
  });
  expect(sameDecision(a, { ...a, updatedAt: 'later', updatedBy: { kind: 'api_key', id: 'key_1' } })).toBe(true);
  expect(sameDecision(a, { ...a, detail: 'other' })).toBe(false);
});

const analysis = (over: Partial<Analysis>): Analysis => ({
  state: 'false_positive',
  justification: null,
  response: [],
  detail: 'not ours',
  expiresAt: null,
  versions: null,
  ticketUrl: null,
  updatedAt: now.toISOString(),
  updatedBy: actor,
  ...over,
});

test('what an analysis suppresses, and until when', () => {
  const later = new Date(now.getTime() + 3600_000);
  const expiring = analysis({ expiresAt: later.toISOString() });
  expect(suppressesVersion(expiring, '1.0.0', now)).toBe(true);
  expect(suppressesVersion(expiring, '1.0.0', later)).toBe(false); // expiry is effective at the instant
  expect(suppressesVersion(analysis({ state: 'exploitable' }), '1.0.0', now)).toBe(false);
  expect(suppressesVersion(analysis({ state: 'in_triage' }), '1.0.0', now)).toBe(false);
  const one = analysis({ versions: ['1.0.0'] });
  expect(suppressesVersion(one, '1.1.0', now)).toBe(false);
  expect(suppressesAlert(one, ['1.0.0'], now)).toBe(true);
  // an alert is suppressed only while every installed version is covered
  expect(suppressesAlert(one, ['1.0.0', '1.1.0'], now)).toBe(false);
});

const finding = (id: string, version: string, alertId: string | null, suppressed = false): Finding => ({
  id,
  scanId: 'scn_1',
  severity: 'high',
  cve: 'CVE-1',
  publishedAt: null,
  package: 'p',
  installedVersion: version,
  fixedVersion: null,
  path: ['p'],
  suppressed,
  suppressionReason: suppressed ? 'snapshot says' : null,
  attributions: [],
  summary: '',
  aliases: ['CVE-1'],
  packageRef: 'dep_1',
  alertId,
});

test("a scan's findings: analyses suppress the versions they cover; a snapshot suppression wins the source", () => {
  const fs = [
    finding('fnd_a', '1.0.0', 'alr_1'),
    finding('fnd_b', '1.1.0', 'alr_1'),
    finding('fnd_c', '1.0.0', 'alr_2', true),
    finding('fnd_d', '1.0.0', null),
    finding('fnd_e', '1.0.0', 'alr_3'),
  ];
  const analyses = new Map([
    ['alr_1', analysis({ versions: ['1.0.0'], detail: 'only 1.0.0 is ours' })],
    ['alr_2', analysis({})],
    ['alr_3', analysis({ state: 'exploitable', detail: 'yes' })],
  ]);
  const t = { analyses, rules: [], projectId: 'prj_1', ecosystem: 'javascript', teamOf: () => null };
  expect(applyTriage(fs, t, now)).toBe(1);
  expect(fs.map((f) => [f.id, f.suppressed, suppressionSourceOf(f), f.suppressionReason])).toEqual([
    ['fnd_a', true, 'analysis', 'only 1.0.0 is ours'],
    ['fnd_b', false, null, null],
    ['fnd_c', true, 'snapshot', 'snapshot says'],
    ['fnd_d', false, null, null],
    ['fnd_e', false, null, null],
  ]);
});

test('the alert as read: triage read live, the snapshot suppression its own', () => {
  const record = {
    id: 'alr_1',
    installedVersions: ['1.0.0'],
    suppressed: false,
    suppressionSource: null,
  } as unknown as AlertRecord;
  expect(viewOf(record, { analysis: analysis({}), now })).toMatchObject({
    suppressed: true,
    suppressionSource: 'analysis',
    analysis: { state: 'false_positive', expired: false },
  });
  // the scan suppressed it by analysis, the analysis is gone: the alert reads unsuppressed
  expect(viewOf({ ...record, suppressed: true, suppressionSource: 'analysis' }, { now })).toMatchObject({
    suppressed: false,
    suppressionSource: null,
    analysis: null,
  });
  // a snapshot suppression keeps its source whatever the analysis
  expect(
    viewOf({ ...record, suppressed: true, suppressionSource: 'snapshot' }, { analysis: analysis({}), now }),
  ).toMatchObject({ suppressed: true, suppressionSource: 'snapshot' });
  // expired: shown, no longer suppressing
  const expired = analysis({ expiresAt: new Date(now.getTime() - 1).toISOString() });
  expect(viewOf(record, { analysis: expired, now })).toMatchObject({ suppressed: false, analysis: { expired: true } });
});

const rule = (over: Partial<TriageRule> & { conditions: TriageRule['conditions'] }): TriageRule => ({
  id: 'trl_1',
  name: 'r',
  analysis: analysis({ state: 'not_affected', justification: 'requires_environment', detail: 'dev only' }),
  expiresAt: null,
  mode: 'enforce',
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: actor,
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});
const subject = (over: Partial<Subject> = {}): Subject => ({
  projectId: 'prj_1',
  ecosystem: 'javascript',
  package: '@types/node',
  ids: ['GHSA-aaaa', 'CVE-2026-1'],
  severity: 'high',
  units: [['web', 'frontend', 'devDependencies', 'direct']],
  ...over,
});

test('rule conditions: all must hold, any value within one; attribution conditions hold for every attribution only', () => {
  const test_ = (conditions: TriageRule['conditions'], s = subject()) => compileRule(rule({ conditions })).test(s);
  expect(test_({})).toBe(true);
  expect(test_({ teams: ['frontend', 'platform'], contexts: ['devDependencies'] })).toBe(true);
  expect(test_({ teams: ['platform'] })).toBe(false);
  expect(test_({ advisories: ['cve-2026-1'] })).toBe(true); // any alias, any case
  expect(test_({ packages: ['@types/*'] })).toBe(true);
  expect(test_({ packages: ['@Types/*'] })).toBe(false); // globs are case-sensitive, as suppressions'
  expect(test_({ severities: ['critical'] })).toBe(false);
  expect(test_({ projects: ['prj_2'] })).toBe(false);
  expect(test_({ relationship: 'transitive' })).toBe(false);
  // one attribution also reaches production: a dev-only rule does not hold
  const both = subject({
    units: [
      ['web', 'frontend', 'devDependencies', 'direct'],
      ['api', 'backend', 'dependencies', 'direct'],
    ],
  });
  expect(test_({ contexts: ['devDependencies'] }, both)).toBe(false);
  expect(test_({ contexts: ['devDependencies', 'dependencies'] }, both)).toBe(true);
  // a module without a team fails a team condition; a v1 finding (no attributions) never meets one
  expect(test_({ teams: ['frontend'] }, subject({ units: [['web', null, 'devDependencies', 'direct']] }))).toBe(false);
  expect(test_({ modules: ['web'] }, subject({ units: [] }))).toBe(false);
  expect(test_({ packages: ['*'] }, subject({ units: [] }))).toBe(true);
});

test('precedence: the oldest enforce rule in force; dry-run and expired rules never apply', () => {
  const older = rule({ id: 'trl_a', conditions: {}, createdAt: '2026-01-01T00:00:00.000Z' });
  const newer = rule({ id: 'trl_b', conditions: {}, createdAt: '2026-02-01T00:00:00.000Z' });
  const compiled = [newer, older].sort(byAge).map(compileRule);
  expect(ruleFor(compiled, subject(), now)?.id).toBe('trl_a');
  const dry = [rule({ id: 'trl_c', conditions: {}, mode: 'dry_run' })].map(compileRule);
  expect(ruleFor(dry, subject(), now)).toBeNull();
  const expired = [rule({ id: 'trl_d', conditions: {}, expiresAt: now.toISOString() })].map(compileRule);
  expect(ruleFor(expired, subject(), now)).toBeNull();
});

test("a scan's findings: the alert's own analysis first, then rules (dev-only reaching one module only)", () => {
  const att = (module: string, context: string) => ({
    module,
    context,
    relationship: 'direct' as const,
    path: [module],
    origins: [{ module, dependency: 'd', path: [module] }],
  });
  const devOnly = { ...finding('fnd_dev', '1.0.0', null), attributions: [att('web', 'devDependencies')] };
  const both = {
    ...finding('fnd_both', '1.0.0', null),
    attributions: [att('web', 'devDependencies'), att('api', 'dependencies')],
  };
  const own = { ...finding('fnd_own', '1.0.0', 'alr_own'), attributions: [att('web', 'devDependencies')] };
  const v1 = finding('fnd_v1', '1.0.0', null);
  const r = rule({ conditions: { contexts: ['devDependencies'] } });
  const fs = [devOnly, both, own, v1];
  const t = {
    analyses: new Map([['alr_own', analysis({ state: 'exploitable', detail: 'reachable' })]]),
    rules: [compileRule(r)],
    projectId: 'prj_1',
    ecosystem: 'javascript',
    teamOf: () => 'frontend',
  };
  expect(applyTriage(fs, t, now)).toBe(1);
  expect(fs.map((f) => [f.id, f.suppressed, suppressionSourceOf(f), f.ruleId ?? null])).toEqual([
    ['fnd_dev', true, 'rule', 'trl_1'],
    ['fnd_both', false, null, null],
    ['fnd_own', false, null, null],
    ['fnd_v1', false, null, null],
  ]);
  expect(devOnly.suppressionReason).toBe('dev only');
});

test('a rule from a request body; a change keeps what it does not name', () => {
  const input = parseRule(
    { name: 'n', conditions: { teams: ['a', 'a'] }, analysis: { state: 'in_triage' }, mode: 'dry_run' },
    { now, actor },
  );
  expect(input).toMatchObject({ name: 'n', conditions: { teams: ['a'] }, mode: 'dry_run', expiresAt: null });
  const changed = parseRule({ mode: 'enforce' }, { now, actor, current: input });
  expect(changed).toEqual({ ...input, mode: 'enforce' });
  expect(refusal(() => parseRule({ mode: 'enforce', colour: 1 }, { now, actor, current: input }))[2]).toMatch(
    /^colour: /,
  );
});
