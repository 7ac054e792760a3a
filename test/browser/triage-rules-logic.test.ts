// The web app's pure pieces of triage rules (web/src/triage-rules.ts): values split from what is typed, the rule
// form's checks against the server's rules (src/domain/triage/rules.ts, whose parseRule is run on every body the form
// would send, and on the bodies it refuses), the body, a refusal mapped onto the field it names, a rule's conditions in
// words, and why enforcing a rule would or would not change a matched alert.
import { parseRule } from '../../src/domain/triage/rules';
import {
  checkRule,
  conditionLines,
  conditionsText,
  matchWords,
  orList,
  ruleBody,
  ruleDraftOf,
  ruleRefusal,
  splitValues,
  type RuleDraft,
} from '../../web/src/triage-rules';
import type { Analysis, TriageRule } from '../../web/src/types';

const NOW = new Date('2026-06-01T12:00:00Z');
const actor = { kind: 'user' as const, id: 'usr_1', name: 'owner@example.test' };
const PROJECTS = [
  { id: 'prj_1', slug: 'shop' },
  { id: 'prj_2', slug: 'web' },
];

/** A draft: an empty form with a name and a valid analysis, then `patch`. */
function draft(patch: Partial<RuleDraft> = {}, lists: Partial<RuleDraft['lists']> = {}): RuleDraft {
  const d = ruleDraftOf(null);
  return {
    ...d,
    name: 'dev tooling',
    analysis: { ...d.analysis, state: 'resolved', detail: 'never shipped' },
    ...patch,
    lists: { ...d.lists, ...lists },
  };
}

/** What the server makes of the body the form would send (its 422 message, or the rule it would store). */
function server(d: RuleDraft) {
  try {
    return parseRule(ruleBody(d) as unknown as Record<string, unknown>, { now: NOW, actor });
  } catch (e) {
    return (e as Error).message;
  }
}

const rule = (patch: Partial<TriageRule> = {}): TriageRule => ({
  id: 'trl_b',
  name: 'the web team',
  conditions: { teams: ['web'] },
  analysis: {
    state: 'not_affected',
    justification: 'requires_environment',
    response: [],
    detail: 'never deployed',
    expiresAt: null,
    versions: null,
    ticketUrl: null,
    updatedAt: '2026-05-01T00:00:00Z',
    updatedBy: { kind: 'user', id: 'usr_1', name: 'owner@example.test' },
    expired: false,
  } as Analysis,
  expiresAt: null,
  mode: 'dry_run',
  expired: false,
  createdAt: '2026-05-02T00:00:00Z',
  createdBy: { kind: 'user', id: 'usr_1', name: 'owner@example.test' },
  updatedAt: '2026-05-02T00:00:00Z',
  ...patch,
});

test('values are split at commas and line ends, trimmed, empty ones dropped, each once', () => {
  expect(splitValues(' web, platform\n\nweb ,\r\nmobile,, ')).toEqual(['web', 'platform', 'mobile']);
  expect(splitValues('  ')).toEqual([]);
  expect(orList(['a'])).toBe('a');
  expect(orList(['a', 'b', 'c'])).toBe('a, b or c');
});

test('a valid draft: no error, and the server stores what it sends (no versions, no analysis expiry)', () => {
  const d = draft(
    { ecosystems: ['gradle'], severities: ['low', 'high'], relationship: 'transitive', expiresOn: '2026-07-01' },
    { teams: 'web,\nplatform', packages: 'com.fasterxml.jackson.core:*', projects: 'shop' },
  );
  expect(checkRule(d, { now: NOW, projects: PROJECTS })).toEqual({});
  const body = ruleBody(d);
  expect(body).toEqual({
    name: 'dev tooling',
    conditions: {
      projects: ['shop'],
      teams: ['web', 'platform'],
      packages: ['com.fasterxml.jackson.core:*'],
      ecosystems: ['gradle'],
      severities: ['high', 'low'],
      relationship: 'transitive',
    },
    analysis: { state: 'resolved', detail: 'never shipped' },
    expiresAt: '2026-07-01T23:59:59.000Z',
    mode: 'dry_run',
  });
  expect(server(d)).toMatchObject({ name: 'dev tooling', mode: 'dry_run', expiresAt: '2026-07-01T23:59:59.000Z' });
  // no condition at all: every alert, as the server takes it
  expect(ruleBody(draft()).conditions).toEqual({});
  expect(server(draft())).toMatchObject({ conditions: {} });
});

test('the checks mirror the server: each refusal of the form is one the server makes, at the same field', () => {
  const cases: [RuleDraft, string, RegExp][] = [
    [draft({ name: '   ' }), 'name', /^name: /],
    [draft({ name: 'x'.repeat(201) }), 'name', /^name: /],
    [
      draft({}, { teams: Array.from({ length: 101 }, (_, i) => `t${i}`).join(',') }),
      'conditions.teams',
      /^conditions\.teams: at most 100/,
    ],
    [draft({}, { packages: 'p'.repeat(513) }), 'conditions.packages', /^conditions\.packages: /],
    [draft({ analysis: { ...draft().analysis, detail: '' } }), 'analysis.detail', /^analysis\.detail: /],
    [
      draft({ analysis: { ...draft().analysis, state: 'not_affected' } }),
      'analysis.justification',
      /^analysis\.justification: /,
    ],
    [
      draft({ analysis: { ...draft().analysis, ticketUrl: 'http://x.test' } }),
      'analysis.ticketUrl',
      /^analysis\.ticketUrl: /,
    ],
    [draft({ expiresOn: '2026-05-31' }), 'expiresAt', /^expiresAt: /],
    [draft({ expiresOn: '2027-06-03' }), 'expiresAt', /^expiresAt: /],
  ];
  for (const [d, field, message] of cases) {
    const errors = checkRule(d, { now: NOW });
    expect({ field, fields: Object.keys(errors) }).toEqual({ field, fields: [field] });
    expect({ field, server: server(d) }).toEqual({ field, server: expect.stringMatching(message) });
  }
  expect(
    checkRule(draft({}, { teams: Array.from({ length: 101 }, (_, i) => `t${i}`).join(',') }), { now: NOW }),
  ).toEqual({
    'conditions.teams': 'At most 100 teams (there are 101).',
  });
  expect(checkRule(draft({ analysis: { ...draft().analysis, detail: '' } }), { now: NOW })).toEqual({
    'analysis.detail': 'The detail is required when the state is “resolved”.',
  });
  expect(checkRule(draft({ expiresOn: '2026-05-31' }), { now: NOW })).toEqual({
    expiresAt: 'The rule’s expiry date must be in the future.',
  });
  // a project the organization does not have (the server: 422 unknown_project), when the projects are known
  expect(checkRule(draft({}, { projects: 'shop, nope' }), { now: NOW, projects: PROJECTS })).toEqual({
    'conditions.projects': 'No project “nope” in this organization.',
  });
  expect(checkRule(draft({}, { projects: 'prj_2' }), { now: NOW, projects: PROJECTS })).toEqual({});
});

test('a rule as a draft again: projects by slug, the analysis without its expiry, an unchanged day keeps its time', () => {
  const r = rule({
    conditions: { projects: ['prj_1'], teams: ['web', 'ops'], severities: ['low'], relationship: 'direct' },
    expiresAt: '2026-07-01T10:00:00.000Z',
    analysis: { ...rule().analysis, expiresAt: '2026-06-10T00:00:00.000Z' },
  });
  const d = ruleDraftOf(r, (id) => PROJECTS.find((p) => p.id === id)?.slug);
  expect([d.lists.projects, d.lists.teams, d.severities, d.relationship, d.expiresOn, d.analysis.expiresOn]).toEqual([
    'shop',
    'web, ops',
    ['low'],
    'direct',
    '2026-07-01',
    '',
  ]);
  expect(ruleBody(d, r)).toMatchObject({
    expiresAt: '2026-07-01T10:00:00.000Z',
    analysis: { state: 'not_affected', justification: 'requires_environment', detail: 'never deployed' },
  });
  expect(ruleBody(d, r).analysis).not.toHaveProperty('expiresAt');
  expect(ruleBody({ ...d, expiresOn: '' }, r).expiresAt).toBeNull();
});

test('a refusal of the server lands on the field it names', () => {
  expect(ruleRefusal(422, 'invalid_parameter', 'conditions.teams: at most 100 values')).toEqual({
    field: 'conditions.teams',
    text: 'The teams condition: at most 100 values.',
  });
  expect(ruleRefusal(422, 'unknown_project', 'conditions.projects: "nope" does not exist')).toEqual({
    field: 'conditions.projects',
    text: 'The projects condition: "nope" does not exist.',
  });
  expect(ruleRefusal(422, 'missing_parameter', 'analysis.detail: is required')).toEqual({
    field: 'analysis.detail',
    text: 'The detail is required.',
  });
  expect(
    ruleRefusal(422, 'invalid_parameter', 'analysis.justification: is required when state is not_affected'),
  ).toEqual({
    field: 'analysis.justification',
    text: 'The justification is required when the state is “not affected”.',
  });
  expect(ruleRefusal(422, 'invalid_parameter', 'name: must be a string of 1 to 200 characters')).toEqual({
    field: 'name',
    text: 'The name must be a string of 1 to 200 characters.',
  });
  expect(ruleRefusal(422, 'invalid_parameter', 'expiresAt: must be in the future')).toEqual({
    field: 'expiresAt',
    text: 'The rule’s expiry date must be in the future.',
  });
  // naming no field of the form: said under it
  expect(ruleRefusal(422, 'invalid_parameter', 'rules: at most 200 per organization').field).toBeUndefined();
  expect(ruleRefusal(403, 'insufficient_scope', 'owners and admins only').field).toBeUndefined();
});

test('conditions in words', () => {
  const slugOf = (id: string) => PROJECTS.find((p) => p.id === id)?.slug;
  expect(
    conditionLines(
      {
        projects: ['prj_1', 'prj_9'],
        ecosystems: ['gradle'],
        teams: ['web'],
        modules: [':app', ':lib'],
        contexts: ['devDependencies'],
        relationship: 'direct',
        packages: ['com.fasterxml.*'],
        advisories: ['CVE-2022-24785'],
        severities: ['low', 'medium'],
      },
      slugOf,
    ),
  ).toEqual([
    'project shop or prj_9',
    'ecosystem gradle',
    'package matching com.fasterxml.*',
    'advisory CVE-2022-24785',
    'severity low or medium',
    'brought in only by team web',
    'brought in only by module :app or :lib',
    'only in context devDependencies',
    'only as a direct dependency',
  ]);
  expect(conditionsText({ packages: ['lodash'] })).toBe('Every alert with package lodash.');
  expect(conditionsText({})).toBe('Every alert of the organization (no condition).');
});

test('why enforcing a rule would, or would not, change a matched alert', () => {
  const r = rule(); // not_affected: suppresses
  const open = { suppressed: false, suppressionSource: null, ruleId: null, analysis: null };
  const older = rule({ id: 'trl_a', name: 'the old one', createdAt: '2026-04-01T00:00:00Z', mode: 'enforce' });
  const newer = rule({ id: 'trl_c', name: 'the new one', createdAt: '2026-05-20T00:00:00Z', mode: 'enforce' });
  const rules = [older, r, newer];
  const words = (alert: object, wouldChange: boolean, on = r) =>
    matchWords({ alert: { ...open, ...alert } as never, wouldChange }, on, rules);
  expect(words({}, true)).toEqual({ label: 'would change', why: 'enforcing this rule would suppress it' });
  expect(words({ ruleId: r.id, suppressed: true, suppressionSource: 'rule' }, false)).toEqual({
    label: 'no change',
    why: 'this rule applies to it already',
  });
  expect(words({ suppressed: true, suppressionSource: 'snapshot' }, false).why).toBe(
    'the snapshot’s suppressions suppress it already',
  );
  expect(words({ analysis: { state: 'exploitable', expired: false } }, false).why).toBe(
    'its own analysis (exploitable) comes before any rule',
  );
  expect(words({ ruleId: older.id, suppressed: true, suppressionSource: 'rule' }, false).why).toBe(
    'an older rule in force decides it: “the old one”',
  );
  // a newer rule suppresses it already: enforcing this one would change nothing, for that reason
  expect(words({ ruleId: newer.id, suppressed: true, suppressionSource: 'rule' }, false).why).toBe(
    'it is suppressed already',
  );
  // an expired analysis does not decide
  expect(words({ analysis: { state: 'exploitable', expired: true } }, true).label).toBe('would change');
  // a rule whose state does not suppress
  const triage = rule({ analysis: { ...r.analysis, state: 'in_triage', justification: null } });
  expect(words({}, false, triage).why).toBe('it is counted already, and “in triage” does not suppress');
  expect(words({ ruleId: newer.id, suppressed: true, suppressionSource: 'rule' }, true, triage).why).toMatch(
    /^enforcing this rule would count it again: it is older than the rule that suppresses it now/,
  );
});
