// Alert identity (src/domain/alerts/identity.ts): package as the ecosystem compares names plus alias group; groups
// that grow keep their alert, groups that join merge alerts (the older survives), groups that split leave the alert
// with the part holding its display id; several installed versions are one alert; the order of the input never
// changes the outcome.
import { resolveAlerts, type AlertIdentity, type FindingIdentity } from '../../../src/domain/alerts/identity';

const NOW = '2026-11-27T00:00:00.000Z';
const newId = (pkg: string, advisory: string) => `alr_${pkg}_${advisory}`;
const alert = (id: string, pkg: string, advisory: string, ids: string[], firstSeenAt: string): AlertIdentity => ({
  id,
  package: pkg,
  advisory,
  ids,
  firstSeenAt,
});
const finding = (key: string, pkg: string, advisory: string, ids: string[]): FindingIdentity => ({
  key,
  package: pkg,
  advisory,
  ids,
});
const plain = (r: ReturnType<typeof resolveAlerts>) => ({ ...r, alertOf: Object.fromEntries(r.alertOf) });

test('a first scan opens one alert per package and alias group; several versions of a package are one alert', () => {
  const r = resolveAlerts(
    'python',
    [],
    [
      finding('f1', 'Django', 'CVE-2024-1', ['CVE-2024-1', 'GHSA-aaaa-bbbb-cccc']),
      finding('f2', 'django', 'CVE-2024-1', ['GHSA-aaaa-bbbb-cccc', 'CVE-2024-1']), // another version, other case
      finding('f3', 'requests', 'CVE-2024-1', ['CVE-2024-1']), // the same advisory, another package
      finding('f4', 'django', 'CVE-2024-9', ['CVE-2024-9']),
    ],
    newId,
    NOW,
  );
  expect(plain(r)).toEqual({
    alertOf: {
      f1: 'alr_django_CVE-2024-1',
      f2: 'alr_django_CVE-2024-1',
      f3: 'alr_requests_CVE-2024-1',
      f4: 'alr_django_CVE-2024-9',
    },
    opened: [
      alert('alr_django_CVE-2024-1', 'django', 'CVE-2024-1', ['CVE-2024-1', 'GHSA-aaaa-bbbb-cccc'], NOW),
      alert('alr_django_CVE-2024-9', 'django', 'CVE-2024-9', ['CVE-2024-9'], NOW),
      alert('alr_requests_CVE-2024-1', 'requests', 'CVE-2024-1', ['CVE-2024-1'], NOW),
    ],
    regrouped: [],
    merged: [],
  });
});

test('a finding joins the alert of its package that shares any id; a group that grew keeps its alert', () => {
  const existing = [alert('alr_1', 'lodash', 'GHSA-aaaa-bbbb-cccc', ['GHSA-aaaa-bbbb-cccc'], '2026-01-01')];
  const r = resolveAlerts(
    'javascript',
    existing,
    [finding('f1', 'lodash', 'CVE-2021-23337', ['CVE-2021-23337', 'GHSA-aaaa-bbbb-cccc'])],
    newId,
    NOW,
  );
  expect(plain(r)).toEqual({
    alertOf: { f1: 'alr_1' },
    opened: [],
    regrouped: [{ id: 'alr_1', ids: ['CVE-2021-23337', 'GHSA-aaaa-bbbb-cccc'], advisory: 'CVE-2021-23337' }],
    merged: [],
  });
  // unchanged group: nothing regrouped; an alert without findings is left alone (fixing is the move's business)
  const same = resolveAlerts(
    'javascript',
    [...existing, alert('alr_2', 'minimist', 'CVE-1', ['CVE-1'], '2026-01-02')],
    [finding('f1', 'lodash', 'GHSA-aaaa-bbbb-cccc', ['GHSA-aaaa-bbbb-cccc'])],
    newId,
    NOW,
  );
  expect(plain(same)).toEqual({ alertOf: { f1: 'alr_1' }, opened: [], regrouped: [], merged: [] });
});

test('a group that joins two alerts merges them: the older survives, the newer is merged into it', () => {
  const r = resolveAlerts(
    'gradle',
    [
      alert('alr_new', 'org.x:y', 'CVE-2', ['CVE-2'], '2026-03-01'),
      alert('alr_old', 'org.x:y', 'GHSA-1', ['GHSA-1'], '2026-02-01'),
      alert('alr_third', 'org.x:y', 'PYSEC-3', ['PYSEC-3'], '2026-04-01'),
    ],
    [
      finding('f1', 'org.x:y', 'CVE-2', ['CVE-2', 'GHSA-1']),
      finding('f2', 'org.x:y', 'CVE-2', ['CVE-2', 'GHSA-1']),
      finding('f3', 'org.x:y', 'PYSEC-3', ['PYSEC-3']),
    ],
    newId,
    NOW,
  );
  expect(plain(r)).toEqual({
    alertOf: { f1: 'alr_old', f2: 'alr_old', f3: 'alr_third' },
    opened: [],
    regrouped: [{ id: 'alr_old', ids: ['CVE-2', 'GHSA-1'], advisory: 'CVE-2' }],
    merged: [{ id: 'alr_new', mergedInto: 'alr_old' }],
  });
});

test('a group holding the display ids of several alerts merges them into the oldest; equal ages: the smaller id', () => {
  const r = resolveAlerts(
    'gradle',
    [
      alert('alr_b', 'p', 'B', ['B'], '2026-01-01'),
      alert('alr_a', 'p', 'A', ['A'], '2026-01-01'),
      alert('alr_c', 'p', 'C', ['C'], '2025-12-01'),
    ],
    [finding('f1', 'p', 'A', ['A', 'B', 'C'])],
    newId,
    NOW,
  );
  expect(r.merged).toEqual([
    { id: 'alr_a', mergedInto: 'alr_c' },
    { id: 'alr_b', mergedInto: 'alr_c' },
  ]);
  expect(plain(r).alertOf).toEqual({ f1: 'alr_c' });
  expect(r.regrouped).toEqual([{ id: 'alr_c', ids: ['A', 'B', 'C'], advisory: 'A' }]);
  // without the older one, A and B tie on age: alr_a survives
  const tie = resolveAlerts(
    'gradle',
    [alert('alr_b', 'p', 'B', ['B'], '2026-01-01'), alert('alr_a', 'p', 'A', ['A'], '2026-01-01')],
    [finding('f1', 'p', 'A', ['A', 'B'])],
    newId,
    NOW,
  );
  expect(tie.merged).toEqual([{ id: 'alr_b', mergedInto: 'alr_a' }]);
});

test('an alert whose display id was withdrawn follows a group sharing another of its ids, once', () => {
  const r = resolveAlerts(
    'gradle',
    [alert('alr_1', 'p', 'GHSA-gone', ['GHSA-gone', 'CVE-1', 'CVE-2'], '2026-01-01')],
    [finding('f1', 'p', 'CVE-1', ['CVE-1']), finding('f2', 'p', 'CVE-2', ['CVE-2'])],
    newId,
    NOW,
  );
  // the first group (by display id) keeps it; the other part opens its own
  expect(plain(r).alertOf).toEqual({ f1: 'alr_1', f2: 'alr_p_CVE-2' });
  expect(r.regrouped).toEqual([{ id: 'alr_1', ids: ['CVE-1'], advisory: 'CVE-1' }]);
  // one that shares an id with a group another alert claims: merged as any two alerts sharing an id (the older lives)
  const m = resolveAlerts(
    'gradle',
    [
      alert('alr_old', 'p', 'GHSA-gone', ['GHSA-gone', 'CVE-7'], '2025-01-01'),
      alert('alr_new', 'p', 'CVE-8', ['CVE-8'], '2026-01-01'),
    ],
    [finding('f1', 'p', 'CVE-7', ['CVE-7', 'CVE-8'])],
    newId,
    NOW,
  );
  expect(plain(m)).toEqual({
    alertOf: { f1: 'alr_old' },
    opened: [],
    regrouped: [{ id: 'alr_old', ids: ['CVE-7', 'CVE-8'], advisory: 'CVE-7' }],
    merged: [{ id: 'alr_new', mergedInto: 'alr_old' }],
  });
});

test('a group that splits leaves the alert with the part holding its display id; the other part opens its own', () => {
  const existing = [alert('alr_1', 'flask', 'CVE-2023-1', ['CVE-2023-1', 'GHSA-2222-3333-4444'], '2026-01-01')];
  const r = resolveAlerts(
    'python',
    existing,
    [
      finding('f1', 'Flask', 'GHSA-2222-3333-4444', ['GHSA-2222-3333-4444']),
      finding('f2', 'flask', 'CVE-2023-1', ['CVE-2023-1']),
    ],
    newId,
    NOW,
  );
  expect(plain(r)).toEqual({
    alertOf: { f1: 'alr_flask_GHSA-2222-3333-4444', f2: 'alr_1' },
    opened: [alert('alr_flask_GHSA-2222-3333-4444', 'flask', 'GHSA-2222-3333-4444', ['GHSA-2222-3333-4444'], NOW)],
    regrouped: [{ id: 'alr_1', ids: ['CVE-2023-1'], advisory: 'CVE-2023-1' }],
    merged: [],
  });
});

test('the order of alerts and findings never changes the outcome', () => {
  const alerts = [
    alert('alr_1', 'p', 'A', ['A', 'X'], '2026-01-01'),
    alert('alr_2', 'p', 'B', ['B'], '2026-01-02'),
    alert('alr_3', 'q', 'A', ['A'], '2026-01-03'),
  ];
  const findings = [
    finding('f1', 'p', 'A', ['A']),
    finding('f2', 'p', 'X', ['X', 'B']),
    finding('f3', 'q', 'A', ['A', 'Z']),
    finding('f4', 'r', 'N', ['N']),
  ];
  const expected = plain(resolveAlerts('gradle', alerts, findings, newId, NOW));
  const shuffle = <T>(xs: T[], seed: number) =>
    xs
      .map((x, i) => ({ x, k: (i * 7919 + seed * 104729) % 101 }))
      .sort((a, b) => a.k - b.k)
      .map((e) => e.x);
  for (let seed = 1; seed < 20; seed++) {
    const got = resolveAlerts(
      'gradle',
      shuffle(alerts, seed),
      shuffle(findings, seed + 3).map((f) => ({ ...f, ids: shuffle(f.ids, seed) })),
      newId,
      NOW,
    );
    expect(plain(got)).toEqual(expected);
  }
  // and what it is: alr_1 split, keeping A (its display id); X went to B's group, which alr_2 keeps (no merge)
  expect(expected.alertOf).toEqual({ f1: 'alr_1', f2: 'alr_2', f3: 'alr_3', f4: 'alr_r_N' });
  expect(expected.merged).toEqual([]);
  expect(expected.regrouped).toEqual([
    { id: 'alr_1', ids: ['A'], advisory: 'A' },
    { id: 'alr_2', ids: ['B', 'X'], advisory: 'X' },
    { id: 'alr_3', ids: ['A', 'Z'], advisory: 'A' },
  ]);
});
