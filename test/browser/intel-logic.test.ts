// The web app's pure pieces of threat intelligence (web/src/intel.ts) and of the Alerts view's risk order and KEV and
// EPSS filters (web/src/alerts.ts): words, figures, ranges, references and the where-used search in the URL.
import { alertApiQuery, alertFiltersFromQuery, alertFiltersToQuery, alertsNarrowed } from '../../web/src/alerts';
import {
  epssLabel,
  epssText,
  kevText,
  percentileWords,
  percentText,
  rangeText,
  usageSearchFromQuery,
  usageSearchOf,
  usageSearchText,
  usageSearchToQuery,
  usagesCountText,
  webUrl,
} from '../../web/src/intel';
import { paths } from '../../web/src/paths';

test('a KEV entry in words: when added, when due, ransomware use', () => {
  expect(kevText({ dateAdded: '2021-12-10', dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known' })).toBe(
    "Known exploited: in CISA's KEV catalog since 2021-12-10, action due 2021-12-24, known ransomware campaign use",
  );
  expect(kevText({ dateAdded: '2022-04-04', dueDate: '2022-04-25', knownRansomwareCampaignUse: 'Unknown' })).toMatch(
    /, no known ransomware campaign use$/,
  );
  expect(kevText({ dateAdded: '2022-04-04', dueDate: '2022-04-25', knownRansomwareCampaignUse: 'Maybe' })).toMatch(
    /, ransomware campaign use: Maybe$/,
  );
});

test('an EPSS score as a percentage, its percentile in words', () => {
  expect(percentText(0.943)).toBe('94.3%');
  expect(percentText(0.94358)).toBe('94.4%');
  expect(percentText(1)).toBe('100.0%');
  expect(percentText(0.02)).toBe('2.0%');
  expect(percentText(0.00043)).toBe('0.04%');
  expect(percentText(0.00001)).toBe('<0.01%');
  expect(percentText(0)).toBe('0.00%');
  expect(percentileWords(0.99982)).toBe('higher than 99.9% of scored CVEs');
  expect(percentileWords(1)).toBe('higher than 99.9% of scored CVEs');
  expect(percentileWords(0.99)).toBe('higher than 99% of scored CVEs');
  expect(percentileWords(0.975)).toBe('higher than 97% of scored CVEs');
  expect(percentileWords(0.1)).toBe('higher than 10% of scored CVEs');
  const epss = { score: 0.943, percentile: 0.99982, date: '2025-08-25' };
  expect(epssLabel(epss)).toBe('EPSS 94.3%');
  expect(epssText(epss)).toBe(
    'EPSS 94.3%: a 94.3% probability of exploitation in the next 30 days, higher than 99.9% of scored CVEs (scores of 2025-08-25)',
  );
});

test("an advisory's ranges as text, and only web addresses as links", () => {
  expect(rangeText({ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.15.0' }] })).toBe(
    'ECOSYSTEM: introduced 0, fixed 2.15.0',
  );
  expect(
    rangeText({
      type: 'GIT',
      repo: 'https://example.test/r',
      events: [{ introduced: 'abc' }, { last_affected: 'def' }],
    }),
  ).toBe('GIT (https://example.test/r): introduced abc, last affected def');
  expect(rangeText({ type: 'SEMVER', events: [] })).toBe('SEMVER: no events');
  expect(webUrl('https://example.test/a?b=1')).toBe('https://example.test/a?b=1');
  expect(webUrl('http://example.test/')).toBe('http://example.test/');
  for (const bad of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,x', 'ftp://x/y', '/relative', ''])
    expect(webUrl(bad)).toBeNull();
});

test('alerts: risk is the default order (out of the URL); KEV and EPSS filters in the URL and the API query', () => {
  const d = alertFiltersFromQuery({});
  expect(d.sort).toBe('risk');
  expect(d.kev).toBeUndefined();
  expect(d.epssMin).toBeUndefined();
  expect(Object.values(alertFiltersToQuery(d)).filter(Boolean)).toEqual([]);
  expect(alertApiQuery('prj_1', d).sort).toBe('risk');
  for (const sort of ['severity', 'firstSeen', 'lastSeen'])
    expect(alertFiltersToQuery(alertFiltersFromQuery({ sort })).sort).toBe(sort);
  const f = alertFiltersFromQuery({ kev: 'true', epssMin: '0.5', sort: 'severity' });
  expect(alertFiltersToQuery(f)).toMatchObject({ kev: 'true', epssMin: '0.5', sort: 'severity' });
  expect(alertApiQuery('p', f)).toMatchObject({ kev: 'true', epssMin: '0.5', sort: 'severity' });
  expect(alertsNarrowed(f)).toBe(true);
  expect(alertsNarrowed(alertFiltersFromQuery({ kev: 'false' }))).toBe(true);
  expect(alertsNarrowed(alertFiltersFromQuery({ epssMin: '0.1' }))).toBe(true);
  // thresholds as the API reads them, written shortest; 0 and junk are no filter
  expect(alertFiltersFromQuery({ epssMin: '0.10' }).epssMin).toBe('0.1');
  expect(alertFiltersFromQuery({ epssMin: '.5' }).epssMin).toBe('0.5');
  expect(alertFiltersFromQuery({ epssMin: '1.0' }).epssMin).toBe('1');
  for (const junk of ['0', '1.5', '-0.1', 'abc', '1e-3', ' ', '0.5x'])
    expect(alertFiltersFromQuery({ epssMin: junk }).epssMin).toBeUndefined();
  expect(alertFiltersFromQuery({ kev: 'yes' }).kev).toBeUndefined();
  expect(paths.alerts('prj_1', alertFiltersToQuery(f))).toBe(
    '/app/projects/prj_1/alerts?kev=true&epssMin=0.5&sort=severity',
  );
});

test('where used: the search in the URL, a package search from a finding or an alert, the count in words', () => {
  expect(usageSearchFromQuery({})).toEqual({ name: undefined, version: undefined, ecosystem: undefined });
  expect(usageSearchFromQuery({ name: ' lodash ', version: ' 4.17.21 ', ecosystem: 'javascript' })).toEqual({
    name: 'lodash',
    version: '4.17.21',
    ecosystem: 'javascript',
  });
  expect(usageSearchFromQuery({ name: 'x', version: '', ecosystem: 'maven' })).toEqual({ name: 'x' });
  // the ecosystem only where it is a registry of its own: npm serves javascript and typescript alike
  expect(usageSearchOf('org.demo:a', '1.0.0', 'gradle')).toEqual({
    name: 'org.demo:a',
    version: '1.0.0',
    ecosystem: 'gradle',
  });
  expect(usageSearchOf('requests', '2.0.0', 'python').ecosystem).toBe('python');
  expect(usageSearchOf('lodash', '4.17.21', 'typescript').ecosystem).toBeUndefined();
  expect(usageSearchOf('lodash', '', 'javascript')).toEqual({
    name: 'lodash',
    version: undefined,
    ecosystem: undefined,
  });
  expect(paths.whereUsed(usageSearchToQuery(usageSearchOf('org.demo:a', '1.0.0', 'gradle')))).toBe(
    '/app/where-used?name=org.demo%3Aa&version=1.0.0&ecosystem=gradle',
  );
  expect(paths.whereUsed()).toBe('/app/where-used');
  expect(paths.advisory('CVE-2021-44228')).toBe('/app/advisories/CVE-2021-44228');
  expect(paths.advisory('a/b c')).toBe('/app/advisories/a%2Fb%20c');
  expect(usageSearchText({ name: 'lodash' })).toBe('lodash');
  expect(usageSearchText({ name: 'lodash', version: '1', ecosystem: 'javascript' })).toBe('lodash@1 (javascript)');
  expect(usagesCountText([{ project: 'a' }, { project: 'b' }, { project: 'b' }], true)).toBe('3 usages in 2 projects');
  expect(usagesCountText([{ project: 'a' }], false)).toBe('1 usage in 1 project loaded so far');
});
