// Analyses of alerts over real HTTP and the real database: PUT, DELETE and the bulk decision, their refusals naming
// the field, the suppression they bring to the alert (and its expiry), the history holding every decision with its
// actor, the audit trail, and access (an auditor: 403; another project's restricted key: 404).
import { storeFirstMove } from '../helpers/alerts';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let org: Org;
let key: string;
const alerts: string[] = [];
let projectId = '';

const finding = (pkg: string, version: string, cve: string) => ({
  id: `fnd_${pkg}`,
  package: pkg,
  installedVersion: version,
  fixedVersion: null,
  severity: 'high' as const,
  cve,
  aliases: [cve],
  summary: pkg,
  publishedAt: null,
  suppressed: false,
  attributions: [],
  cvss: null,
});

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'findings:read', 'findings:triage']);
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot('triage'));
  expect(up.status).toBe(201);
  projectId = up.body.project;
  const stored = await storeFirstMove(t.store, {
    orgId: org.orgId,
    projectId,
    scanId: up.body.id,
    findings: [finding('lodash', '4.17.20', 'CVE-2021-23337'), finding('minimist', '1.2.5', 'CVE-2021-44906')],
  });
  // alerts[0]: lodash's, alerts[1]: minimist's
  alerts.push(...['lodash', 'minimist'].map((p) => stored.find((a) => a.package === p)!.id));
}, 60_000);
afterAll(() => t.close());

const put = (id: string, body: unknown, token = key) =>
  t.api
    .put(`/v1/alerts/${id}/analysis`)
    .set(bearer(token))
    .send(body as object);
const inDays = (d: number) => new Date(Date.now() + d * 24 * 3600 * 1000).toISOString();

test('every refusal names its field', async () => {
  const cases: Array<[unknown, number, string, RegExp]> = [
    [{}, 422, 'missing_parameter', /^state: /],
    [{ state: 'fixed' }, 422, 'invalid_parameter', /^state: /],
    [{ state: 'not_affected', detail: 'x' }, 422, 'missing_parameter', /^justification: /],
    [{ state: 'not_affected', justification: 'because', detail: 'x' }, 422, 'invalid_parameter', /^justification: /],
    [{ state: 'false_positive' }, 422, 'missing_parameter', /^detail: /],
    [{ state: 'resolved', detail: 'x'.repeat(2001) }, 422, 'invalid_parameter', /^detail: /],
    [{ state: 'in_triage', response: ['panic'] }, 422, 'invalid_parameter', /^response: /],
    [{ state: 'in_triage', expiresAt: inDays(-1) }, 422, 'invalid_parameter', /^expiresAt: .*future/],
    [{ state: 'in_triage', expiresAt: inDays(400) }, 422, 'invalid_parameter', /^expiresAt: .*year/],
    [{ state: 'in_triage', expiresAt: 'tomorrow' }, 422, 'invalid_parameter', /^expiresAt: /],
    [{ state: 'in_triage', versions: ['9.9.9'] }, 422, 'invalid_parameter', /^versions: .*not an installed version/],
    [{ state: 'in_triage', ticketUrl: 'http://jira.example.test/X-1' }, 422, 'invalid_parameter', /^ticketUrl: /],
    [{ state: 'in_triage', owner: 'me' }, 422, 'invalid_parameter', /^owner: /],
  ];
  for (const [body, status, code, message] of cases) {
    const res = await put(alerts[0], body);
    expect([body, res.status, res.body.error?.code]).toEqual([body, status, code]);
    expect(res.body.error.message).toMatch(message);
  }
  expect((await put('alr_nope', { state: 'in_triage' })).status).toBe(404);
  // nothing was written by any of them
  expect((await t.api.get(`/v1/alerts/${alerts[0]}`).set(bearer(key))).body.analysis).toBeNull();
});

test('a suppressing analysis suppresses the alert, shows in its history with the actor, and is audited', async () => {
  const res = await put(alerts[0], {
    state: 'not_affected',
    justification: 'code_not_reachable',
    response: ['will_not_fix'],
    detail: 'we never call template()',
    expiresAt: inDays(30),
    versions: ['4.17.20'],
    ticketUrl: 'https://jira.example.test/browse/SEC-1',
  });
  expect([res.status, res.body.error]).toEqual([200, undefined]);
  expect(res.body).toMatchObject({
    id: alerts[0],
    suppressed: true,
    suppressionSource: 'analysis',
    analysis: {
      state: 'not_affected',
      justification: 'code_not_reachable',
      response: ['will_not_fix'],
      versions: ['4.17.20'],
      expired: false,
      updatedBy: { kind: 'api_key' },
    },
  });
  // the list: suppressed by default filters it out; analysis= selects it
  const open = await t.api.get('/v1/alerts').set(bearer(key));
  expect(open.body.alerts.map((a: any) => a.id)).toEqual([alerts[1]]);
  const na = await t.api.get('/v1/alerts?analysis=not_affected&suppressed=all').set(bearer(key));
  expect(na.body.alerts.map((a: any) => a.id)).toEqual([alerts[0]]);
  // a second decision: the later wins, the history holds both, newest first
  const second = await put(alerts[0], { state: 'exploitable', detail: 'reachable after all' });
  expect(second.body).toMatchObject({ suppressed: false, suppressionSource: null, analysis: { state: 'exploitable' } });
  const history = await t.api.get(`/v1/alerts/${alerts[0]}/history`).set(bearer(key));
  expect(history.body.events.map((e: any) => [e.type, e.details.after?.state ?? null])).toEqual([
    ['analysis_changed', 'exploitable'],
    ['analysis_changed', 'not_affected'],
    ['opened', null],
  ]);
  expect(history.body.events[0].details.before.state).toBe('not_affected');
  const audit = await t.api.get('/v1/audit-events?type=alert.analysis_changed').set(bearer(org.ownerToken));
  expect(audit.status).toBe(200);
  expect(audit.body.auditEvents.length).toBeGreaterThanOrEqual(2);
  expect(audit.body.auditEvents[0].target).toMatchObject({ kind: 'alert', id: alerts[0] });
  // delete: 204, the alert has none, the history keeps the removal
  expect((await t.api.delete(`/v1/alerts/${alerts[0]}/analysis`).set(bearer(key))).status).toBe(204);
  expect((await t.api.get(`/v1/alerts/${alerts[0]}`).set(bearer(key))).body.analysis).toBeNull();
  const after = await t.api.get(`/v1/alerts/${alerts[0]}/history`).set(bearer(key));
  expect(after.body.events[0]).toMatchObject({ type: 'analysis_changed', details: { after: null } });
});

test('expiry is effective at read: an expired analysis no longer suppresses and matches no analysis filter', async () => {
  // the alert has one installed version; covering it suppresses, and expiry is effective at read (stored as past)
  await put(alerts[1], { state: 'false_positive', detail: 'not our minimist', expiresAt: inDays(1) });
  await t.store.c.alertAnalyses.updateMany(
    { alertId: alerts[1] },
    { $set: { 'analysis.expiresAt': new Date(Date.now() - 1000).toISOString() } },
  );
  // a write elsewhere moves the organization's version, as the next read would see after the expiry
  await put(alerts[0], { state: 'in_triage' });
  const a = await t.api.get(`/v1/alerts/${alerts[1]}`).set(bearer(key));
  expect(a.body).toMatchObject({ suppressed: false, analysis: { state: 'false_positive', expired: true } });
  const none = await t.api.get('/v1/alerts?analysis=false_positive&suppressed=all').set(bearer(key));
  expect(none.body.alerts).toEqual([]);
});

test('bulk: every id checked first, then applied idempotently under one bulk id', async () => {
  const bulk = (body: unknown, token = key) =>
    t.api
      .post('/v1/alerts/analysis')
      .set(bearer(token))
      .send(body as object);
  const refused = await bulk({ alertIds: [alerts[0], 'alr_unknown'], analysis: { state: 'resolved', detail: 'x' } });
  expect(refused.status).toBe(404);
  expect(
    (await bulk({ alertIds: [alerts[0]], analysis: { state: 'in_triage', versions: ['1'] } })).body.error.message,
  ).toMatch(/^analysis\.versions: /);
  expect((await bulk({ alertIds: [], analysis: { state: 'in_triage' } })).body.error.message).toMatch(/^alertIds: /);
  const body = { alertIds: alerts, analysis: { state: 'resolved', detail: 'upgraded in the monorepo' } };
  const first = await bulk(body);
  expect(first.status).toBe(200);
  expect(first.body.alerts.map((a: any) => [a.id, a.suppressed, a.analysis.bulkId])).toEqual(
    alerts.map((id) => [id, true, first.body.bulkId]),
  );
  // a retry changes nothing: no new history event
  const before = (await t.api.get(`/v1/alerts/${alerts[1]}/history`).set(bearer(key))).body.events.length;
  expect((await bulk(body)).status).toBe(200);
  const again = (await t.api.get(`/v1/alerts/${alerts[1]}/history`).set(bearer(key))).body.events.length;
  expect(again).toBe(before);
});

test('access: an auditor reads but cannot decide; a key without findings:triage is 403', async () => {
  const auditor = await org.session('auditor');
  const res = await put(alerts[0], { state: 'in_triage' }, auditor);
  expect([res.status, res.body.error.code]).toEqual([403, 'insufficient_scope']);
  const reader = await org.key(['findings:read']);
  expect((await put(alerts[0], { state: 'in_triage' }, reader)).status).toBe(403);
});

test('decisions at once: every one lands in the history, the later wins', async () => {
  const before = (await t.api.get(`/v1/alerts/${alerts[0]}/history?limit=200`).set(bearer(key))).body.events.length;
  const details = Array.from({ length: 8 }, (_, i) => `decision ${i}`);
  const bulk = t.api
    .post('/v1/alerts/analysis')
    .set(bearer(key))
    .send({ alertIds: alerts, analysis: { state: 'exploitable', detail: 'bulk at once' } });
  const [bulkRes, ...puts] = await Promise.all([
    bulk,
    ...details.map((detail) => put(alerts[0], { state: 'exploitable', detail })),
  ]);
  expect([bulkRes, ...puts].map((r) => [r.status, r.body.error])).toEqual(Array(9).fill([200, undefined]));
  const history = (await t.api.get(`/v1/alerts/${alerts[0]}/history?limit=200`).set(bearer(key))).body.events;
  expect(history.length - before).toBe(9);
  // the newest event's decision is the one in force
  const alert = (await t.api.get(`/v1/alerts/${alerts[0]}`).set(bearer(key))).body;
  expect(alert.analysis.detail).toBe(history[0].details.after.detail);
  expect(new Set(history.slice(0, 9).map((e: any) => e.details.after.detail))).toEqual(
    new Set([...details, 'bulk at once']),
  );
});
