// Triage in the background, the pure part (src/domain/triage/reconcile.ts): which alerts' histories are behind after
// a rule change or with time, and what their events say. A rule event only where the suppressing rule changed and the
// rules decide the alert (not under its own analysis in force, not when its snapshot suppresses it); an alert without
// a mark starts from the rules as last reconciled; an expiry is told once per analysis.
import type { AlertRecord } from '../../../src/domain/alerts/move';
import type { Analysis } from '../../../src/domain/triage/analysis';
import {
  planReconcile,
  ruleChange,
  ruleEventDetails,
  type Mark,
  type ReconcileInput,
} from '../../../src/domain/triage/reconcile';
import { compileRule, type TriageRule } from '../../../src/domain/triage/rules';

const NOW = new Date('2026-11-28T12:00:00Z');
const actor = { kind: 'user' as const, id: 'usr_1' };

const alert = (id: string, pkg: string, extra: Partial<AlertRecord> = {}): AlertRecord =>
  ({
    id,
    projectId: 'prj_1',
    ecosystem: 'javascript',
    package: pkg,
    key: pkg,
    advisory: `GHSA-${id}`,
    aliases: [],
    severity: 'high',
    installedVersions: ['1.0.0'],
    status: 'open',
    suppressed: false,
    suppressionSource: null,
    units: [],
    ...extra,
  }) as unknown as AlertRecord;

const analysis = (state: Analysis['state'], extra: Partial<Analysis> = {}): Analysis => ({
  state,
  justification: state === 'not_affected' ? 'code_not_reachable' : null,
  response: [],
  detail: 'x',
  expiresAt: null,
  versions: null,
  ticketUrl: null,
  updatedAt: '2026-11-01T00:00:00.000Z',
  updatedBy: actor,
  ...extra,
});

const rule = (id: string, packages: string[], extra: Partial<TriageRule> = {}): TriageRule => ({
  id,
  name: id,
  conditions: { packages },
  analysis: analysis('not_affected'),
  expiresAt: null,
  mode: 'enforce',
  createdAt: `2026-11-0${id.length}T00:00:00.000Z`,
  createdBy: actor,
  updatedAt: '2026-11-01T00:00:00.000Z',
  ...extra,
});

function input(o: Partial<ReconcileInput> & { now?: Date }): ReconcileInput {
  return {
    alerts: [],
    analyses: new Map(),
    rules: [],
    baseline: { rules: [], at: new Date('2026-11-28T11:00:00Z') },
    marks: new Map(),
    now: NOW,
    ...o,
  };
}

const ids = (plans: ReturnType<typeof planReconcile>) => plans.map((p) => p.alert.id).sort();

test('a new enforce rule: an event on the alerts it suppresses, none on the others or under their own analysis', () => {
  const a = alert('a', 'alpha');
  const b = alert('b', 'beta');
  const c = alert('c', 'gamma'); // not matched
  const d = alert('d', 'alpha', { suppressed: true, suppressionSource: 'snapshot' }); // the snapshot decides
  const e = alert('e', 'alpha'); // its own analysis decides
  const f = alert('f', 'alpha', { status: 'merged' });
  const plans = planReconcile(
    input({
      alerts: [a, b, c, d, e, f],
      analyses: new Map([['e', analysis('in_triage')]]),
      rules: [compileRule(rule('trl_x', ['alpha', 'beta']))],
    }),
  );
  // d and e change rule quietly: no mark yet, so nothing to write for them (the baseline moves on)
  expect(ids(plans)).toEqual(['a', 'b']);
  expect(plans[0]).toMatchObject({
    before: { ruleId: null, suppressed: false },
    after: { ruleId: 'trl_x', suppressed: true },
    decide: true,
    expired: null,
  });
  expect(ruleEventDetails(plans[0].before, plans[0].after)).toEqual({
    source: 'rule',
    ruleId: 'trl_x',
    suppressed: true,
    before: { ruleId: null, suppressed: false },
  });
});

test('an alert without a mark starts from the rules as last reconciled: an unchanged rule tells nothing', () => {
  const r = compileRule(rule('trl_x', ['alpha']));
  const opened = alert('a', 'alpha'); // opened since, under the same rule
  expect(planReconcile(input({ alerts: [opened], rules: [r], baseline: { rules: [r], at: NOW } }))).toEqual([]);
});

test("an enforce rule's expiry since the last reconciliation is told; a deleted rule is told from the mark", () => {
  const expiring = rule('trl_x', ['alpha'], { expiresAt: '2026-11-28T11:30:00.000Z' });
  const a = alert('a', 'alpha');
  const plans = planReconcile(
    input({
      alerts: [a],
      rules: [compileRule(expiring)],
      baseline: { rules: [compileRule(expiring)], at: new Date('2026-11-28T11:00:00Z') },
    }),
  );
  expect(plans.map((p) => [p.before, p.after])).toEqual([
    [
      { ruleId: 'trl_x', suppressed: true },
      { ruleId: null, suppressed: false },
    ],
  ]);
  const marked = new Map<string, Mark>([['a', { ruleId: 'trl_x', suppressed: true, expiredAnalysis: null }]]);
  expect(ids(planReconcile(input({ alerts: [a], marks: marked })))).toEqual(['a']);
});

test('a change hidden by the alert own analysis writes its mark without an event', () => {
  expect(ruleChange({ ruleId: 'trl_x', suppressed: true }, { ruleId: null, suppressed: false }, false)).toEqual({
    event: false,
    write: true,
  });
  // another rule that does not suppress either: no change of suppression, no event
  expect(ruleChange({ ruleId: null, suppressed: false }, { ruleId: 'trl_y', suppressed: false }, true)).toEqual({
    event: false,
    write: true,
  });
  expect(ruleChange({ ruleId: 'trl_x', suppressed: true }, { ruleId: 'trl_y', suppressed: true }, true)).toEqual({
    event: true,
    write: true,
  });
  expect(ruleChange({ ruleId: 'trl_x', suppressed: true }, { ruleId: 'trl_x', suppressed: true }, true)).toEqual({
    event: false,
    write: false,
  });
});

test('an expired analysis is told once: not again once its mark holds it, again for a new analysis', () => {
  const a = alert('a', 'alpha');
  const expired = analysis('not_affected', { expiresAt: '2026-11-28T11:59:00.000Z' });
  const analyses = new Map([['a', expired]]);
  const first = planReconcile(input({ alerts: [a], analyses }));
  expect(first.map((p) => p.expired)).toEqual([expired]);
  const told = new Map<string, Mark>([['a', { ruleId: null, suppressed: false, expiredAnalysis: expired.updatedAt }]]);
  expect(planReconcile(input({ alerts: [a], analyses, marks: told }))).toEqual([]);
  const renewed = { ...expired, updatedAt: '2026-11-20T00:00:00.000Z' };
  expect(planReconcile(input({ alerts: [a], analyses: new Map([['a', renewed]]), marks: told }))).toHaveLength(1);
  // not expired yet: nothing
  const later = analysis('not_affected', { expiresAt: '2026-12-01T00:00:00.000Z' });
  expect(planReconcile(input({ alerts: [a], analyses: new Map([['a', later]]) }))).toEqual([]);
});
