// The web app's pure pieces of triage (web/src/triage.ts, and what web/src/alerts.ts gained for it): the triage
// form's checks against the server's rules (src/domain/triage/analysis.ts, whose parseAnalysis is run on every body
// the form would send), the body it sends, a refusal mapped onto the form's field, an analysis in words, the analysis
// filter in the URL and the API query, analysis events in words, and the alerts list's selection.
import { parseAnalysis } from '../../src/domain/triage/analysis';
import {
  alertApiQuery,
  alertFiltersFromQuery,
  alertFiltersToQuery,
  alertsNarrowed,
  eventWords,
} from '../../web/src/alerts';
import { canTriage, ROLES, TRIAGE_ROLES } from '../../web/src/roles';
import {
  analysisBody,
  analysisRefusal,
  analysisTitle,
  bulkResultText,
  checkDraft,
  coverageText,
  deciderText,
  draftOf,
  effectText,
  expiryDays,
  expiryOf,
  selectRows,
  ticketHref,
  type TriageDraft,
} from '../../web/src/triage';
import type { Alert, AlertEvent, Analysis } from '../../web/src/types';

const NOW = new Date('2026-06-15T12:00:00.000Z');
const ONE = { installedVersions: ['1.0.0'] };
const TWO = { installedVersions: ['1.0.0', '1.0.1'] };
const BULK = { installedVersions: null };

const draft = (over: Partial<TriageDraft> = {}): TriageDraft => ({ ...draftOf(null, ['1.0.0']), ...over });

const analysis = (over: Partial<Analysis> = {}): Analysis => ({
  state: 'not_affected',
  justification: 'code_not_reachable',
  response: [],
  detail: 'never called',
  expiresAt: null,
  versions: null,
  ticketUrl: null,
  updatedAt: '2026-06-01T10:00:00.000Z',
  updatedBy: { kind: 'user', id: 'usr_1', name: 'ann@example.test' },
  expired: false,
  ...over,
});

/** What the server makes of the body the form would send (its refusal's message, or null when it takes it). */
function server(d: TriageDraft, installedVersions: readonly string[] | null): string | null {
  try {
    parseAnalysis(analysisBody(d, { installedVersions }) as unknown as Record<string, unknown>, {
      now: NOW,
      installedVersions,
      actor: { kind: 'user', id: 'usr_1' },
    });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

test('an empty form asks for a state; each state asks for what the server requires, at its field', () => {
  expect(checkDraft(draft(), ONE, NOW)).toEqual({ state: 'Choose a state.' });
  expect(checkDraft(draft({ state: 'in_triage' }), ONE, NOW)).toEqual({});
  expect(checkDraft(draft({ state: 'exploitable' }), ONE, NOW)).toEqual({});
  expect(checkDraft(draft({ state: 'not_affected' }), ONE, NOW)).toEqual({
    justification: 'The justification is required when the state is “not affected”.',
    detail: 'The detail is required when the state is “not affected”.',
  });
  expect(checkDraft(draft({ state: 'false_positive', detail: '   ' }), ONE, NOW)).toEqual({
    detail: 'The detail is required when the state is “false positive”.',
  });
  expect(checkDraft(draft({ state: 'resolved' }), ONE, NOW)).toEqual({
    detail: 'The detail is required when the state is “resolved”.',
  });
  expect(checkDraft(draft({ state: 'resolved', detail: 'upgraded' }), ONE, NOW)).toEqual({});
  expect(
    checkDraft(draft({ state: 'not_affected', justification: 'requires_environment', detail: 'x' }), ONE, NOW),
  ).toEqual({});
});

test('the detail: 1 to 2,000 characters counted as the server counts them (an emoji is one)', () => {
  const ok = draft({ state: 'resolved', detail: '😀'.repeat(2000) });
  expect(checkDraft(ok, ONE, NOW)).toEqual({});
  expect(server(ok, ONE.installedVersions)).toBeNull();
  const long = draft({ state: 'resolved', detail: 'x'.repeat(2001) });
  expect(checkDraft(long, ONE, NOW)).toEqual({ detail: 'The detail must be at most 2,000 characters (it has 2,001).' });
  expect(server(long, ONE.installedVersions)).toMatch(/^detail: /);
  // surrounding blanks are not sent
  expect(analysisBody(draft({ state: 'resolved', detail: '  done \n' }), ONE).detail).toBe('done');
  expect(checkDraft(draft({ state: 'in_triage', detail: 'a\u0000b' }), ONE, NOW).detail).toBe(
    'The detail must not contain a NUL character.',
  );
});

test('the expiry: a day from today to a year ahead, holding through its end (UTC)', () => {
  expect(expiryDays(NOW)).toEqual({ min: '2026-06-15', max: '2027-06-15' });
  expect(expiryOf('2026-07-01')).toBe('2026-07-01T23:59:59.000Z');
  const at = (expiresOn: string) => checkDraft(draft({ state: 'in_triage', expiresOn }), ONE, NOW).expiresAt;
  expect(at('2026-06-15')).toBeUndefined(); // today, until its end
  expect(at('2027-06-15')).toBeUndefined();
  expect(at('2026-06-14')).toBe('The expiry date must be in the future.');
  expect(at('2027-06-16')).toBe('The expiry date must be at most one year ahead (2027-06-15 at the latest).');
  expect(at('2026-02-30')).toBe('The expiry date must be a date (YYYY-MM-DD).');
  expect(at('15/06/2026')).toBe('The expiry date must be a date (YYYY-MM-DD).');
  // what the form lets through, the server takes: the first and the last day it offers
  for (const day of ['2026-06-15', '2027-06-15'])
    expect(server(draft({ state: 'in_triage', expiresOn: day }), null)).toBeNull();
  // an unchanged day keeps the previous analysis's own time
  const previous = analysis({ expiresAt: '2026-09-01T08:00:00.000Z' });
  expect(draftOf(previous, ['1.0.0']).expiresOn).toBe('2026-09-01');
  expect(analysisBody(draftOf(previous, ['1.0.0']), { ...ONE, previous }).expiresAt).toBe('2026-09-01T08:00:00.000Z');
  expect(analysisBody(draft({ state: 'in_triage', expiresOn: '2026-09-02' }), { ...ONE, previous }).expiresAt).toBe(
    '2026-09-02T23:59:59.000Z',
  );
});

test('versions: every version (none sent) or a non-empty subset of the installed ones; a bulk decision sends none', () => {
  expect(checkDraft(draft({ state: 'in_triage', versions: [] }), TWO, NOW)).toEqual({
    versions: 'Choose at least one version, or every version.',
  });
  expect(checkDraft(draft({ state: 'in_triage', versions: ['2.0.0'] }), TWO, NOW)).toEqual({
    versions: '2.0.0 is not an installed version of the alert.',
  });
  expect(analysisBody(draft({ state: 'in_triage', versions: ['1.0.1', '1.0.0'] }), TWO).versions).toEqual([
    '1.0.0',
    '1.0.1',
  ]);
  expect('versions' in analysisBody(draft({ state: 'in_triage' }), TWO)).toBe(false);
  expect('versions' in analysisBody(draft({ state: 'in_triage', versions: ['1.0.0'] }), BULK)).toBe(false);
  expect(checkDraft(draft({ state: 'in_triage', versions: [] }), BULK, NOW)).toEqual({});
  // an analysis's versions no longer installed are left out; none left: every version
  expect(draftOf(analysis({ versions: ['0.9.0', '1.0.1'] }), TWO.installedVersions).versions).toEqual(['1.0.1']);
  expect(draftOf(analysis({ versions: ['0.9.0'] }), TWO.installedVersions).versions).toBeNull();
  expect(draftOf(analysis({ versions: ['1.0.0'] }), null).versions).toBeNull();
});

test('the ticket URL: https only, as the server checks it; only such a URL is ever a link', () => {
  const at = (ticketUrl: string) => checkDraft(draft({ state: 'in_triage', ticketUrl }), ONE, NOW).ticketUrl;
  const refused = 'The ticket URL must be an https address (https://…) of at most 2,048 characters.';
  expect(at('https://jira.example.com/browse/SEC-1')).toBeUndefined();
  expect(at('  https://jira.example.com/browse/SEC-1 ')).toBeUndefined(); // trimmed, as sent
  for (const bad of [
    'http://jira.example.com/SEC-1',
    'javascript:alert(1)',
    'jira.example.com',
    'https://user:pw@jira.example.com/',
    'https://a b.example.com/',
    `https://example.com/${'x'.repeat(2048)}`,
  ]) {
    expect(at(bad)).toBe(refused);
    expect(server(draft({ state: 'in_triage', ticketUrl: bad.trim() }), null)).toMatch(/^ticketUrl: /);
  }
  expect(ticketHref('https://jira.example.com/x')).toBe('https://jira.example.com/x');
  expect(ticketHref('javascript:alert(1)')).toBeUndefined();
  expect(ticketHref(null)).toBeUndefined();
});

test('the body: only what the draft sets, a justification only for not_affected, responses in the API order', () => {
  expect(analysisBody(draft({ state: 'exploitable', justification: 'code_not_present' }), ONE)).toEqual({
    state: 'exploitable',
  });
  expect(
    analysisBody(
      {
        state: 'not_affected',
        justification: 'code_not_reachable',
        response: ['will_not_fix', 'can_not_fix'],
        detail: 'never called',
        expiresOn: '2027-01-31',
        versions: ['1.0.0'],
        ticketUrl: 'https://jira.example.com/browse/SEC-1',
      },
      TWO,
    ),
  ).toEqual({
    state: 'not_affected',
    justification: 'code_not_reachable',
    response: ['can_not_fix', 'will_not_fix'],
    detail: 'never called',
    expiresAt: '2027-01-31T23:59:59.000Z',
    versions: ['1.0.0'],
    ticketUrl: 'https://jira.example.com/browse/SEC-1',
  });
  // a draft the form finds nothing wrong with is one the server takes, for each state
  for (const state of ['in_triage', 'exploitable', 'not_affected', 'false_positive', 'resolved'] as const) {
    const d = draft({ state, justification: 'protected_at_runtime', detail: 'why', response: ['update'] });
    expect(checkDraft(d, TWO, NOW)).toEqual({});
    expect(server(d, TWO.installedVersions)).toBeNull();
    expect(server(d, null)).toBeNull();
  }
  // and one it refuses, the server refuses at the same field
  for (const [d, field] of [
    [draft({ state: 'not_affected', detail: 'x' }), 'justification'],
    [draft({ state: 'resolved' }), 'detail'],
    [draft({ state: 'in_triage', expiresOn: '2026-01-01' }), 'expiresAt'],
    [draft({ state: 'in_triage', versions: [] }), 'versions'],
  ] as const) {
    expect(Object.keys(checkDraft(d, TWO, NOW))).toEqual([field]);
    expect(server(d, TWO.installedVersions)).toMatch(new RegExp(`^${field}: `));
  }
});

test("the server's refusals land on the field they name, a bulk decision's too, in words", () => {
  expect(analysisRefusal(422, 'missing_parameter', 'detail: is required when state is resolved')).toEqual({
    field: 'detail',
    text: 'The detail is required when the state is “resolved”.',
  });
  expect(
    analysisRefusal(422, 'missing_parameter', 'analysis.justification: is required when state is not_affected'),
  ).toEqual({
    field: 'justification',
    text: 'The justification is required when the state is “not affected”.',
  });
  expect(analysisRefusal(422, 'invalid_parameter', 'analysis.expiresAt: must be in the future')).toEqual({
    field: 'expiresAt',
    text: 'The expiry date must be in the future.',
  });
  expect(
    analysisRefusal(422, 'invalid_parameter', 'ticketUrl: must be an https URL of at most 2048 characters'),
  ).toEqual({
    field: 'ticketUrl',
    text: 'The ticket URL must be an https URL of at most 2048 characters.',
  });
  // not a field of the form: said under it
  expect(analysisRefusal(422, 'invalid_parameter', 'alertIds: must be an array of 1 to 500 alert ids')).toEqual({
    field: undefined,
    text: 'The selection must be an array of 1 to 500 alert ids.',
  });
  expect(analysisRefusal(403, 'insufficient_scope', 'findings:triage is required').field).toBeUndefined();
  expect(analysisRefusal(404, 'not_found', 'alert alr_x not found')).toEqual({
    field: undefined,
    text: 'It is not there any more (or not within your reach).',
  });
});

test('an analysis in words: state and justification, who decided, what it covers, what it does', () => {
  expect(analysisTitle(analysis())).toBe('Not affected: the vulnerable code is not reachable');
  expect(analysisTitle(analysis({ state: 'resolved', justification: null }))).toBe('Resolved');
  expect(deciderText({ kind: 'user', id: 'usr_1', name: 'ann@example.test' })).toBe('ann@example.test');
  expect(deciderText({ kind: 'api_key', id: 'key_1', name: 'ci' })).toBe('the API key ci');
  expect(deciderText({ kind: 'api_key', id: 'key_1' })).toBe('the API key key_1');
  expect(coverageText(analysis())).toBe('every installed version, now and later');
  expect(coverageText(analysis({ versions: ['1.0.0'] }))).toBe('1.0.0 only');
  const on = (a: Analysis | null, suppressionSource: Alert['suppressionSource']) =>
    effectText({ analysis: a, suppressionSource });
  expect(on(null, null)).toBe('');
  expect(on(analysis(), 'analysis')).toMatch(/^It suppresses the alert/);
  expect(on(analysis({ expired: true }), null)).toBe('It has expired: it no longer suppresses the alert.');
  expect(on(analysis({ versions: ['1.0.0'] }), null)).toBe(
    'It does not suppress the alert: it does not cover every installed version.',
  );
  expect(on(analysis(), 'snapshot')).toMatch(/snapshot/);
  expect(on(analysis({ state: 'exploitable' }), null)).toBe('Exploitable does not suppress the alert.');
  expect(bulkResultText(3, 'resolved')).toBe(
    '3 alerts marked “resolved”: suppressed, they leave a list that hides suppressed alerts.',
  );
  expect(bulkResultText(1, 'in_triage')).toBe('1 alert marked “in triage”.');
});

test('the alerts list: the analysis filter lives in the URL and goes to the API; junk is no filter', () => {
  const f = alertFiltersFromQuery({ analysis: 'not_affected', suppressed: 'all' });
  expect(f.analysis).toBe('not_affected');
  expect(alertFiltersToQuery(f)).toEqual(expect.objectContaining({ analysis: 'not_affected', suppressed: 'all' }));
  expect(alertApiQuery('prj_1', f).analysis).toBe('not_affected');
  expect(alertsNarrowed(f)).toBe(true);
  expect(alertFiltersFromQuery({ analysis: 'none' }).analysis).toBe('none');
  expect(alertsNarrowed(alertFiltersFromQuery({ analysis: 'none' }))).toBe(true);
  expect(alertFiltersFromQuery({ analysis: 'maybe' }).analysis).toBeUndefined();
  expect(alertFiltersToQuery(alertFiltersFromQuery({})).analysis).toBeUndefined();
});

test('an analysis change in the history: from what to what, by whom, in which bulk decision; a rule change', () => {
  const event = (details: object): AlertEvent =>
    ({ type: 'analysis_changed', at: '2026-06-01T00:00:00.000Z', alertId: 'alr_x', details }) as unknown as AlertEvent;
  expect(
    eventWords(
      event({ before: null, after: analysis(), actor: { kind: 'user', id: 'u', name: 'ann@x.test' } }),
      'alr_x',
    ),
  ).toEqual({ title: 'Analysis changed', detail: 'none → not affected by ann@x.test' });
  expect(
    eventWords(
      event({
        before: analysis({ state: 'in_triage' }),
        after: analysis({ state: 'resolved' }),
        actor: { kind: 'api_key', id: 'key_1', name: 'ci' },
        bulkId: 'blk_1',
      }),
      'alr_x',
    ).detail,
  ).toBe('in triage → resolved by the API key ci in bulk decision blk_1');
  expect(eventWords(event({ before: analysis(), after: null }), 'alr_x').detail).toBe('not affected → none');
  expect(eventWords(event({ before: { state: 'resolved' }, after: null, reason: 'reopened' }), 'alr_x').detail).toBe(
    'resolved → none (cleared when the alert reopened)',
  );
  // a triage rule's events
  expect(eventWords(event({ source: 'rule', ruleId: 'rul_1', suppressed: true, before: {} }), 'alr_x').detail).toBe(
    'suppressed by triage rule rul_1',
  );
  expect(eventWords(event({ source: 'rule', ruleId: null, suppressed: false, before: {} }), 'alr_x').detail).toBe(
    'no longer suppressed by a triage rule',
  );
});

test('selection: a click turns one row; Shift extends from the row clicked before, the same way', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  let s = selectRows(new Set(), ids, 'b', true, null, false);
  expect([...s]).toEqual(['b']);
  s = selectRows(s, ids, 'd', true, 'b', true);
  expect([...s].sort()).toEqual(['b', 'c', 'd']);
  // upwards, and unchecking a range
  s = selectRows(s, ids, 'a', true, 'd', true);
  expect([...s].sort()).toEqual(['a', 'b', 'c', 'd']);
  s = selectRows(s, ids, 'b', false, 'd', true);
  expect([...s].sort()).toEqual(['a']);
  // without an anchor, or one no longer shown, a Shift+click turns its row only
  expect([...selectRows(new Set(), ids, 'c', true, null, true)]).toEqual(['c']);
  expect([...selectRows(new Set(), ids, 'c', true, 'gone', true)]).toEqual(['c']);
  // without Shift the anchor does not matter
  expect([...selectRows(new Set(['a']), ids, 'e', true, 'a', false)].sort()).toEqual(['a', 'e']);
});

test('who triages: owners, admins and members; an auditor reads only', () => {
  expect(ROLES.filter(canTriage)).toEqual([...TRIAGE_ROLES]);
  expect(canTriage('auditor')).toBe(false);
  expect(canTriage(null)).toBe(false);
  expect(canTriage(undefined)).toBe(false);
});
