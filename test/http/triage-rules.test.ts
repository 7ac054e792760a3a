// Triage rules over real HTTP and the real database: create, list, read, change and delete (owners and admins write,
// any member reads, every change audited), refusals naming the field, the preview of a dry-run rule (matches and what
// enforcing would change, nothing changed meanwhile), an enforced rule suppressing alerts at once with precedence after
// an alert's own analysis, and attribution conditions that hold only when every attribution matches.
import { storeFirstMove } from '../helpers/alerts';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { v1Snapshot } from '../helpers/snapshots';

let t: TestContext;
let org: Org;
let owner: string;
let key: string;
const alert: Record<string, string> = {};

const attribution = (module: string, context: string) => ({
  module,
  context,
  relationship: 'direct' as const,
  path: [module],
  origins: [{ module, dependency: 'x', path: [module] }],
});
const finding = (pkg: string, cve: string, attributions: ReturnType<typeof attribution>[]) => ({
  id: `fnd_${pkg}`,
  package: pkg,
  installedVersion: '1.0.0',
  fixedVersion: null,
  severity: 'high' as const,
  cve,
  aliases: [cve],
  summary: pkg,
  publishedAt: null,
  suppressed: false,
  attributions,
  cvss: null,
});

beforeAll(async () => {
  t = await testContext();
  org = await newOrg(t.store);
  owner = org.ownerToken;
  key = await org.key(['sca:upload', 'findings:read', 'findings:triage']);
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(v1Snapshot('ruled'));
  expect(up.status).toBe(201);
  const projectId = up.body.project;
  const stored = await storeFirstMove(t.store, {
    orgId: org.orgId,
    projectId,
    scanId: up.body.id,
    findings: [
      // reaches module web through devDependencies only
      finding('devonly', 'CVE-2020-0001', [attribution('web', 'devDependencies')]),
      // reaches web through devDependencies and api through dependencies
      finding('both', 'CVE-2020-0002', [attribution('web', 'devDependencies'), attribution('api', 'dependencies')]),
    ],
    teamOf: (m) => (m === 'web' ? 'frontend' : 'backend'),
  });
  for (const a of stored) alert[a.package] = a.id;
}, 60_000);
afterAll(() => t.close());

const post = (body: unknown, token = owner) =>
  t.api
    .post('/v1/triage-rules')
    .set(bearer(token))
    .send(body as object);
const getAlert = async (id: string) => (await t.api.get(`/v1/alerts/${id}`).set(bearer(key))).body;
const devOnly = {
  name: 'dev-only findings of the frontend',
  conditions: { teams: ['frontend'], contexts: ['devDependencies'] },
  analysis: { state: 'not_affected', justification: 'requires_environment', detail: 'never shipped' },
  mode: 'dry_run',
};

test('refusals name the field; keys and auditors cannot write', async () => {
  const cases: Array<[unknown, number, string, RegExp]> = [
    [{ ...devOnly, name: undefined }, 422, 'missing_parameter', /^name: /],
    [{ ...devOnly, mode: 'maybe' }, 422, 'invalid_parameter', /^mode: /],
    [{ ...devOnly, conditions: { colour: ['red'] } }, 422, 'invalid_parameter', /^conditions\.colour: /],
    [{ ...devOnly, conditions: { teams: [] } }, 422, 'invalid_parameter', /^conditions\.teams: /],
    [{ ...devOnly, conditions: { teams: Array(101).fill('t') } }, 422, 'invalid_parameter', /^conditions\.teams: /],
    [{ ...devOnly, conditions: { relationship: 'cousin' } }, 422, 'invalid_parameter', /^conditions\.relationship: /],
    [{ ...devOnly, conditions: { severities: ['huge'] } }, 422, 'invalid_parameter', /^conditions\.severities: /],
    [{ ...devOnly, conditions: { projects: ['nope'] } }, 422, 'unknown_project', /^conditions\.projects: /],
    [
      { ...devOnly, analysis: { state: 'not_affected', detail: 'x' } },
      422,
      'missing_parameter',
      /^analysis\.justification: /,
    ],
    [
      { ...devOnly, analysis: { state: 'in_triage', versions: ['1'] } },
      422,
      'invalid_parameter',
      /^analysis\.versions: /,
    ],
    [{ ...devOnly, expiresAt: '2001-01-01T00:00:00Z' }, 422, 'invalid_parameter', /^expiresAt: /],
  ];
  for (const [body, status, code, message] of cases) {
    const res = await post(body);
    expect([body, res.status, res.body.error?.code]).toEqual([body, status, code]);
    expect(res.body.error.message).toMatch(message);
  }
  expect((await post(devOnly, key)).status).toBe(403);
  expect((await post(devOnly, await org.session('auditor'))).status).toBe(403);
  expect((await post(devOnly, await org.session('member'))).status).toBe(403);
  expect((await t.api.get('/v1/triage-rules').set(bearer(await org.session('auditor')))).status).toBe(200);
});

test('a dry-run rule changes nothing and its preview says what it would change; enforced, it suppresses', async () => {
  const created = await post(devOnly);
  expect(created.status).toBe(201);
  const rule = created.body;
  expect(rule).toMatchObject({ id: expect.stringMatching(/^trl_/), mode: 'dry_run', expired: false });
  // the dev-only rule matches the dev-only alert alone: the other also reaches production
  const matches = await t.api.get(`/v1/triage-rules/${rule.id}/matches`).set(bearer(owner));
  expect(matches.status).toBe(200);
  expect(matches.body.matches.map((m: any) => [m.alert.package, m.wouldChange])).toEqual([['devonly', true]]);
  expect(matches.body.count).toBe(1);
  expect(await getAlert(alert.devonly)).toMatchObject({ suppressed: false, ruleId: null });

  const enforced = await t.api.patch(`/v1/triage-rules/${rule.id}`).set(bearer(owner)).send({ mode: 'enforce' });
  expect(enforced.status).toBe(200);
  expect(enforced.body).toMatchObject({ mode: 'enforce', name: devOnly.name, conditions: devOnly.conditions });
  expect(await getAlert(alert.devonly)).toMatchObject({ suppressed: true, suppressionSource: 'rule', ruleId: rule.id });
  expect(await getAlert(alert.both)).toMatchObject({ suppressed: false, ruleId: null });
  const after = await t.api.get(`/v1/triage-rules/${rule.id}/matches`).set(bearer(owner));
  expect(after.body.matches.map((m: any) => m.wouldChange)).toEqual([false]); // in force already

  // the alert's own analysis comes first
  const own = await t.api
    .put(`/v1/alerts/${alert.devonly}/analysis`)
    .set(bearer(key))
    .send({ state: 'exploitable', detail: 'the dev server is exposed' });
  expect(own.body).toMatchObject({ suppressed: false, suppressionSource: null, ruleId: null });
  await t.api.delete(`/v1/alerts/${alert.devonly}/analysis`).set(bearer(key));
  expect(await getAlert(alert.devonly)).toMatchObject({ suppressed: true, ruleId: rule.id });

  // a module condition: both alerts reach web, only one reaches nothing else
  const web = await post({ ...devOnly, name: 'web', conditions: { modules: ['web'] } });
  const webMatches = await t.api.get(`/v1/triage-rules/${web.body.id}/matches`).set(bearer(owner));
  expect(webMatches.body.matches.map((m: any) => m.alert.package)).toEqual(['devonly']);
  // a package glob and an advisory id match regardless of attributions
  const glob = await post({
    ...devOnly,
    name: 'glob',
    conditions: { packages: ['b*h'], advisories: ['cve-2020-0002'] },
  });
  const globMatches = await t.api.get(`/v1/triage-rules/${glob.body.id}/matches`).set(bearer(owner));
  expect(globMatches.body.matches.map((m: any) => [m.alert.package, m.wouldChange])).toEqual([['both', true]]);

  // listing, oldest first; deleting the enforced rule unsuppresses at once; every change audited
  const list = await t.api.get('/v1/triage-rules').set(bearer(owner));
  expect(list.body.rules.map((r: any) => r.name)).toEqual([devOnly.name, 'web', 'glob']);
  expect((await t.api.delete(`/v1/triage-rules/${rule.id}`).set(bearer(owner))).status).toBe(204);
  expect((await t.api.get(`/v1/triage-rules/${rule.id}`).set(bearer(owner))).status).toBe(404);
  expect(await getAlert(alert.devonly)).toMatchObject({ suppressed: false, ruleId: null });
  for (const type of ['triage_rule.created', 'triage_rule.updated', 'triage_rule.deleted']) {
    const audit = await t.api.get(`/v1/audit-events?type=${type}`).set(bearer(owner));
    expect([type, audit.body.auditEvents.length > 0]).toEqual([type, true]);
  }
  const updated = await t.api.get('/v1/audit-events?type=triage_rule.updated').set(bearer(owner));
  expect(updated.body.auditEvents[0].target).toMatchObject({
    kind: 'triage_rule',
    id: rule.id,
    before: { mode: 'dry_run' },
    after: { mode: 'enforce' },
  });
});
