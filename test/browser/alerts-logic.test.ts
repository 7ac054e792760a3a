// The web app's pure pieces of project alerts (web/src/alerts.ts): the Alerts view's filters in the URL and in the API
// query, the list's count in words, history events in words, and what each scan opened.
import {
  alertApiQuery,
  alertFiltersFromQuery,
  alertFiltersToQuery,
  alertScopes,
  alertsCountText,
  alertsNarrowed,
  alertSummary,
  EVENT_WORDS,
  eventWords,
  openedByScan,
  openedText,
  utcText,
} from '../../web/src/alerts';
import { refusal } from '../../web/src/errors';
import { paths } from '../../web/src/paths';
import type { Alert, AlertEvent } from '../../web/src/types';

test('filters: defaults stay out of the URL; status and suppression go to the API explicitly; junk falls back', () => {
  const d = alertFiltersFromQuery({});
  expect(d).toEqual({
    status: 'open',
    severity: undefined,
    severityMode: 'at_least',
    team: undefined,
    module: undefined,
    q: undefined,
    suppressed: 'false',
    sort: 'risk',
  });
  expect(Object.values(alertFiltersToQuery(d)).filter(Boolean)).toEqual([]);
  expect(alertsNarrowed(d)).toBe(false);
  expect(alertApiQuery('prj_1', d)).toEqual({
    project: 'prj_1',
    status: 'open',
    severity: undefined,
    severityMode: undefined,
    team: undefined,
    module: undefined,
    q: undefined,
    suppressed: 'false',
    sort: 'risk',
  });
  const q = {
    status: 'fixed',
    severity: 'high',
    severityMode: 'exact',
    team: 'payments',
    module: ':app',
    q: 'org.demo',
    suppressed: 'all',
    sort: 'lastSeen',
  };
  const f = alertFiltersFromQuery(q);
  expect(alertFiltersToQuery(f)).toEqual(q);
  expect(alertsNarrowed(f)).toBe(true);
  expect(alertApiQuery('shop', f)).toEqual({ project: 'shop', ...q });
  // unknown values are no filter; a severity mode without a severity is dropped; the search is trimmed
  expect(
    alertFiltersFromQuery({ status: 'merged', severity: 'urgent', suppressed: 'maybe', sort: 'priority', team: '' }),
  ).toEqual(d);
  expect(alertFiltersToQuery(alertFiltersFromQuery({ severityMode: 'exact' })).severityMode).toBeUndefined();
  expect(alertApiQuery('p', alertFiltersFromQuery({ severityMode: 'exact' })).severityMode).toBeUndefined();
  expect(alertFiltersFromQuery({ q: '  lodash ' }).q).toBe('lodash');
  expect(alertFiltersFromQuery({ q: '   ' }).q).toBeUndefined();
  // each narrowing filter alone counts as narrowing
  for (const one of [{ status: 'all' }, { severity: 'low' }, { team: 't' }, { module: ':m' }, { q: 'x' }])
    expect(alertsNarrowed(alertFiltersFromQuery(one))).toBe(true);
  // the order alone narrows nothing
  expect(alertsNarrowed(alertFiltersFromQuery({ sort: 'firstSeen' }))).toBe(false);
});

test('the Alerts view URL carries the filters of its query', () => {
  expect(paths.alerts('prj_1')).toBe('/app/projects/prj_1/alerts');
  expect(paths.alerts('a b', alertFiltersToQuery(alertFiltersFromQuery({ status: 'fixed', q: 'lo dash' })))).toBe(
    '/app/projects/a%20b/alerts?status=fixed&q=lo+dash',
  );
  expect(paths.alert('alr_1')).toBe('/app/alerts/alr_1');
});

test('the count says what it counts, and whether more remain to be read', () => {
  const f = (q: Record<string, string> = {}) => alertFiltersFromQuery(q);
  expect(alertsCountText(3, f(), true)).toBe('3 open alerts');
  expect(alertsCountText(1, f({ status: 'fixed' }), true)).toBe('1 fixed alert');
  expect(alertsCountText(4, f({ status: 'all' }), true)).toBe('4 alerts');
  expect(alertsCountText(2, f({ status: 'all', suppressed: 'true' }), true)).toBe('2 suppressed alerts');
  expect(alertsCountText(100, f(), false)).toBe('100 open alerts loaded so far');
  expect(alertsCountText(0, f(), true)).toBe('0 open alerts');
});

const alert = (over: Partial<Alert>): Alert =>
  ({
    id: 'alr_x',
    project: 'prj_1',
    ecosystem: 'gradle',
    package: 'org.demo:alpha',
    advisory: 'CVE-2099-0001',
    aliases: ['CVE-2099-0001'],
    severity: 'critical',
    summary: '',
    publishedAt: null,
    installedVersions: ['1.0.0'],
    fixedVersion: '9.0.0',
    status: 'open',
    firstSeenAt: '2024-01-01T00:00:00.000Z',
    firstSeenScanId: 'scn_1',
    lastSeenAt: '2024-01-01T00:00:00.000Z',
    lastSeenScanId: 'scn_1',
    fixedAt: null,
    fixedScanId: null,
    modules: [],
    teams: [],
    suppressed: false,
    suppressionSource: null,
    ruleId: null,
    analysis: null,
    kev: null,
    epss: null,
    cvss: null,
    ...over,
  }) as Alert;

test('filters offer the teams and modules the alerts name, once each, sorted', () => {
  expect(
    alertScopes([
      alert({ teams: ['platform'], modules: [':lib', ':app10'] }),
      alert({ teams: ['payments', 'platform'], modules: [':app2'] }),
    ]),
  ).toEqual({ teams: ['payments', 'platform'], modules: [':app2', ':app10', ':lib'] });
});

test('the project line counts open and fixed alerts as the list shows them, suppressed ones apart', () => {
  expect(
    alertSummary([
      alert({ status: 'open' }),
      alert({ status: 'open' }),
      alert({ status: 'fixed' }),
      alert({ status: 'open', suppressed: true }),
      alert({ status: 'fixed', suppressed: true }),
    ]),
  ).toEqual({ open: 2, fixed: 1, suppressed: 2 });
});

test('what each scan opened: first seen there, at its start; later first sights came from a re-match of its snapshot', () => {
  const scans = [
    { id: 'scn_2', startedAt: '2024-02-01T00:00:00.000Z' },
    { id: 'scn_1', startedAt: '2024-01-01T00:00:00.000Z' },
  ];
  const c = openedByScan(
    [
      alert({ firstSeenScanId: 'scn_1', firstSeenAt: '2024-01-01T00:00:00.000Z' }),
      alert({ firstSeenScanId: 'scn_1', firstSeenAt: '2024-01-01T00:00:00Z', status: 'fixed' }),
      alert({ firstSeenScanId: 'scn_1', firstSeenAt: '2024-01-15T10:00:00.000Z' }), // a re-match opened it
      alert({ firstSeenScanId: 'scn_2', firstSeenAt: '2024-02-01T00:00:00.000Z' }),
      alert({ firstSeenScanId: 'scn_0', firstSeenAt: '2023-12-01T00:00:00.000Z' }), // a scan not listed
      alert({
        firstSeenScanId: 'scn_0',
        firstSeenAt: '2023-12-01T00:00:00.000Z',
        status: 'fixed',
        fixedScanId: 'scn_2',
      }),
    ],
    scans,
  );
  expect(Object.fromEntries(c)).toEqual({
    scn_1: { byScan: 2, byRematch: 1, fixed: 0 },
    scn_2: { byScan: 1, byRematch: 0, fixed: 1 },
  });
  expect(openedText(c.get('scn_1'))).toBe(
    'opened 2 alerts; 1 more later, by newer advisories matched against its snapshot',
  );
  expect(openedText(c.get('scn_2'))).toBe('opened 1 alert, fixed 1 alert');
  expect(openedText(undefined)).toBe('opened no alert');
});

const event = (over: Partial<AlertEvent>): AlertEvent =>
  ({ type: 'opened', at: '2024-01-01T00:00:00.000Z', alertId: 'alr_x', details: {}, ...over }) as AlertEvent;

test('history events in words: every type named; versions, fixes, reopenings and merges say what changed', () => {
  expect(Object.keys(EVENT_WORDS).sort()).toEqual(
    [
      'analysis_changed',
      'analysis_expired',
      'fixed',
      'merged',
      'opened',
      'reopened',
      'summarised',
      'versions_changed',
    ].sort(),
  );
  // the oldest events of a long history, folded into one
  expect(
    eventWords(
      event({
        type: 'summarised',
        details: {
          events: 3,
          byType: { fixed: 2, reopened: 1 },
          from: '2024-01-01T00:00:00Z',
          to: '2024-02-01T00:00:00Z',
        } as never,
      }),
      'alr_x',
    ),
  ).toEqual({
    title: 'Earlier events, summarised',
    detail: '3 earlier events from 2024-01-01 00:00 UTC to 2024-02-01 00:00 UTC: 2 fixed, 1 reopened',
  });
  expect(eventWords(event({ type: 'opened', generation: 'gen_1' }), 'alr_x')).toEqual({
    title: 'Opened',
    detail: 'first seen',
  });
  expect(
    eventWords(
      event({ type: 'versions_changed', details: { from: ['1.0.0'], to: ['1.0.1', '1.1.0'] } as never }),
      'alr_x',
    ),
  ).toEqual({ title: 'Installed versions changed', detail: 'installed versions 1.0.0 → 1.0.1, 1.1.0' });
  expect(eventWords(event({ type: 'fixed', details: { installedVersions: ['1.0.1'] } as never }), 'alr_x')).toEqual({
    title: 'Fixed',
    detail: 'no longer found; it had 1.0.1',
  });
  expect(
    eventWords(
      event({
        type: 'reopened',
        details: { installedVersions: ['1.0.0'], fixedAt: '2024-03-04T05:06:07.000Z' } as never,
      }),
      'alr_x',
    ),
  ).toEqual({ title: 'Reopened', detail: 'found again in 1.0.0; fixed since 2024-03-04 05:06 UTC' });
  // the merged alert's own event, read on the survivor's page (which the merged id answers)
  expect(eventWords(event({ type: 'merged', details: { mergedInto: 'alr_y' } as never }), 'alr_y')).toEqual({
    title: 'Merged',
    detail: 'alert alr_x merged into this one',
  });
  expect(eventWords(event({ type: 'merged', details: { mergedInto: 'alr_y' } as never }), 'alr_x').detail).toBe(
    'merged into alert alr_y',
  );
  // an event of an alert merged into the one shown says whose it was
  expect(eventWords(event({ type: 'fixed', alertId: 'alr_old', details: {} as never }), 'alr_x').detail).toBe(
    'no longer found; it had no version recorded (of alert alr_old, since merged into this one)',
  );
  expect(utcText('2024-01-02T03:04:05Z')).toBe('2024-01-02 03:04 UTC');
  expect(utcText('not a time')).toBe('not a time');
});

test("the alerts list's refusals read as sentences about the filter", () => {
  expect(refusal(422, 'invalid_parameter', 'q: must be at most 512 characters').text).toBe(
    'The search must be at most 512 characters.',
  );
  expect(refusal(422, 'unknown_project', 'project: "x" does not exist or is out of reach')).toEqual({
    field: 'project',
    text: 'The project: "x" does not exist or is out of reach.',
  });
});
