// GET /v1/alerts/export.csv over the real API, database and an in-process worker: alerts of real tracked scans (two
// projects, one alert triaged through the API) and hostile ones stored as a move would store them (package names,
// module paths and team labels starting with =, +, -, @, tab or CR, holding quotes, commas and newlines). Read back
// with csv-parse, every export is the list's answer to the same query: the same alerts in the same order, each cell
// the Alert resource's value, joined by `;`, guarded against formulas and otherwise intact. Filters and sort are the
// list's; a restricted key sees its projects only; an auditor reads; a bad query is a 422 and no credential a 401, both
// the JSON envelope; /v1/alerts/export.csv is not taken for an alert id. On an app of its own with a lower row cap, a
// larger selection is cut and says so (X-Truncated), and a failure after the first byte cuts the body and is logged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Router from '@koa/router';
import Koa from 'koa';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import { importAdvisories } from '../../src/advisories/import';
import { moveAlerts, type MoveFinding } from '../../src/domain/alerts/move';
import { alertCsvExport } from '../../src/http/alerts/export-csv';
import { access } from '../../src/http/auth/matrix';
import type { AppDeps, AppState } from '../../src/http/deps';
import { errorEnvelope } from '../../src/http/middleware/errors';
import { requestId } from '../../src/http/middleware/request-id';
import { openApiDocument } from '../../src/http/openapi/document';
import { platformFromEnv } from '../../src/http/platform';
import { createLogger } from '../../src/logger';
import { ALERT_CSV_COLUMNS } from '../../src/presenters/alerts-csv';
import { advanceHead, insertState, pairIdOf } from '../../src/storage/alerts';
import { cursorCodec, loadCursorSecret } from '../../src/storage/cursors';
import { installRuntime } from '../../workers/temporal-runtime';
import { storeFirstMove } from '../helpers/alerts';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { startTestWorker, type TestWorker } from '../helpers/worker';

const CSV = '/v1/alerts/export.csv';
const logger = createLogger('test', 'silent');

let t: TestContext;
let org: Org;
let key: string; // upload, read and triage
let worker: TestWorker | undefined;
const projects: Record<string, string> = {}; // slug → id
const slugOf = (id: string) => Object.entries(projects).find(([, v]) => v === id)?.[0] ?? '';

// --------------------------------------------------------------------------------------------- advisories --
const osv = (
  id: string,
  name: string,
  o: { aliases?: string[]; fixed?: string; severity?: string; cvss?: string },
) => ({
  id,
  modified: '2024-01-01T00:00:00Z',
  published: '2024-01-02T00:00:00Z',
  summary: `${name} is vulnerable`,
  aliases: o.aliases ?? [],
  ...(o.cvss ? { severity: [{ type: 'CVSS_V3', score: o.cvss }] } : {}),
  ...(o.severity ? { database_specific: { severity: o.severity } } : {}),
  affected: [
    {
      package: { ecosystem: 'npm', name },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, ...(o.fixed ? [{ fixed: o.fixed }] : [])] }],
    },
  ],
});

const node = (id: string, dependencies: string[] = []) => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship: 'transitive', dependencies };
};
const snapshot = (project: string, deps: string[], nodes: ReturnType<typeof node>[]) => ({
  schemaVersion: 1,
  project,
  ecosystem: 'javascript',
  manifests: ['package-lock.json'],
  roots: [{ module: 'app', manifest: 'app/package.json', context: 'dependencies', dependencies: deps }],
  nodes,
  suppressions: [{ cve: 'GHSA-csv1-0000-0003', reason: 'ok only runs in tests' }],
});

/** A completed tracked scan whose alerts have moved: its id and project id. */
async function scanned(body: object): Promise<{ scanId: string; projectId: string }> {
  const up = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(body);
  expect(up.status).toBe(201);
  const scanId: string = up.body.id;
  const until = Date.now() + 90_000;
  for (;;) {
    const res = await t.api.get(`/v1/scans/${scanId}?wait=10`).set(bearer(key));
    if (res.body.status === 'completed') break;
    if (res.body.status === 'failed' || Date.now() > until) throw new Error(`scan ${scanId}: ${res.body.status}`);
  }
  const list = await t.api.get(`/v1/scans/${scanId}/findings?suppressed=all&limit=200`).set(bearer(key));
  for (const alertId of new Set<string>(list.body.findings.map((f: any) => f.alertId).filter(Boolean))) {
    for (;;) {
      const res = await t.api.get(`/v1/alerts/${alertId}`).set(bearer(key));
      if (res.status === 200) break;
      if (res.status !== 404 || Date.now() > until) throw new Error(`alert ${alertId}: ${res.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { scanId, projectId: up.body.project };
}

// ------------------------------------------------------------------------------------------ hostile values --
/** Package names, modules and team labels a spreadsheet would run as formulas, or that need quoting. */
const HOSTILE: Array<{ pkg: string; module: string; team: string }> = [
  { pkg: '=cmd|"/c calc"!A1', module: '=mod', team: '=HYPERLINK("https://evil.example","x")' },
  { pkg: '+plus', module: '+mod', team: '+team' },
  { pkg: '-minus', module: '-mod', team: '-2+3' },
  { pkg: '@at', module: '@mod', team: '@SUM(A1)' },
  { pkg: '\ttab', module: '\tmod', team: '\tteam' },
  { pkg: '\rcr', module: '\rmod', team: '\rteam' },
  { pkg: 'quote"d,comma', module: 'q"m,od', team: 'team, "quoted"' },
  { pkg: 'new\nline', module: 'multi\nline', team: 'cr\r\nlf' },
];

const hostileFindings = (): MoveFinding[] =>
  HOSTILE.map((h, i) => ({
    id: `fnd_hostile${i}`,
    package: h.pkg,
    installedVersion: `${i}.0.0`,
    fixedVersion: i % 2 ? null : `${i}.0.1`,
    severity: (['critical', 'high', 'medium', 'low'] as const)[i % 4],
    cve: `GHSA-hstl-0000-000${i}`,
    aliases: [`GHSA-hstl-0000-000${i}`, `CVE-2024-900${i}`],
    summary: 'hostile',
    publishedAt: null,
    suppressed: false,
    attributions: [{ module: h.module, context: 'runtime', relationship: 'direct' }] as never,
    cvss: null,
  }));

// ---------------------------------------------------------------------------------------------- the CSV --
const GUARDED = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const guard = (v: string) => (GUARDED.test(v) ? `'${v}` : v);
const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** The documented cells of an alert as GET /v1/alerts serves it, guarded. */
const expectedCells = (a: any): string[] =>
  [
    a.id,
    a.project,
    slugOf(a.project),
    a.ecosystem,
    a.package,
    a.installedVersions.join(';'),
    a.advisory,
    a.aliases.join(';'),
    a.severity,
    text(a.cvss?.score),
    text(a.cvss?.vector),
    text(a.kev?.dateAdded),
    text(a.epss?.score),
    a.status,
    String(a.suppressed),
    text(a.suppressionSource),
    text(a.analysis?.state),
    text(a.analysis?.justification),
    text(a.analysis?.detail),
    text(a.fixedVersion),
    text(a.firstSeenAt),
    text(a.lastSeenAt),
    text(a.fixedAt),
    a.teams.join(';'),
    a.modules.join(';'),
  ].map(guard);

/** The CSV answer of a query (200, its headers checked): the raw text and the records after the header row. */
async function exportCsv(query: string, token = key) {
  const res = await t.api.get(`${CSV}${query ? `?${query}` : ''}`).set(bearer(token));
  expect({ status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
    status: 200,
    body: undefined,
  });
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers['content-disposition']).toMatch(/^attachment; filename="alerts-\d{4}-\d{2}-\d{2}\.csv"$/);
  expect(res.headers['x-truncated']).toBe('false');
  const raw: string = res.text;
  expect(raw.endsWith('\r\n')).toBe(true);
  const rows: string[][] = parse(raw);
  expect(rows[0]).toEqual(ALERT_CSV_COLUMNS);
  for (const r of rows) expect(r).toHaveLength(ALERT_CSV_COLUMNS.length);
  return { raw, rows: rows.slice(1) };
}

/** Every alert GET /v1/alerts lists for the query, page after page. */
async function listAll(query: string, token = key): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const qs: string = [query, 'limit=200', cursor ? `cursor=${encodeURIComponent(cursor)}` : '']
      .filter(Boolean)
      .join('&');
    const res = await t.api.get(`/v1/alerts?${qs}`).set(bearer(token));
    expect(res.status).toBe(200);
    out.push(...res.body.alerts);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/** The export is the list's answer to the same query: the same alerts in the same order, each cell as documented. */
async function sameAsList(query: string, token = key): Promise<string[]> {
  const [{ rows }, listed] = await Promise.all([exportCsv(query, token), listAll(query, token)]);
  expect(rows.map((r) => r[0])).toEqual(listed.map((a) => a.id));
  expect(rows).toEqual(listed.map(expectedCells));
  return rows.map((r) => r[0]);
}

const errorOf = (res: request.Response) => {
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return { status: res.status, code: res.body.error?.code };
};

// --------------------------------------------------------------------------------------------------- setup --
beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'csv-adv-'));
  for (const a of [
    osv('GHSA-csv1-0000-0001', 'left-pad', { aliases: ['CVE-2024-4001'], fixed: '1.4.0', severity: 'CRITICAL' }),
    osv('GHSA-csv1-0000-0002', '@acme/util', {
      fixed: '2.1.0',
      cvss: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
    }),
    osv('GHSA-csv1-0000-0003', 'ok', { severity: 'LOW' }),
    osv('GHSA-csv1-0000-0004', 'minimist', { aliases: ['CVE-2021-44906'], fixed: '1.2.6', severity: 'MODERATE' }),
  ])
    fs.writeFileSync(path.join(dir, `${a.id}.json`), JSON.stringify(a));
  expect((await importAdvisories(t.store, [dir])).rejected).toEqual([]);
  org = await newOrg(t.store, 'Acme CSV');
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'findings:triage']);
  worker = await startTestWorker(t, { logger });

  const web = await scanned(
    snapshot(
      'csv-web',
      ['@acme/util@2.0.0', 'left-pad@1.2.0', 'ok@1.0.0', 'minimist@1.2.5'],
      [
        node('@acme/util@2.0.0', ['left-pad@1.3.0']),
        node('left-pad@1.3.0'),
        node('left-pad@1.2.0'),
        node('ok@1.0.0'),
        node('minimist@1.2.5'),
      ],
    ),
  );
  const api = await scanned(
    snapshot('csv-api', ['left-pad@1.3.0', 'minimist@1.2.5'], [node('left-pad@1.3.0'), node('minimist@1.2.5')]),
  );
  // a project with no vulnerable package, whose python alerts are the hostile ones (stored as a move stores them)
  const hostile = await scanned(snapshot('csv-hostile', ['safe@1.0.0'], [node('safe@1.0.0')]));
  Object.assign(projects, { 'csv-web': web.projectId, 'csv-api': api.projectId, 'csv-hostile': hostile.projectId });
  const teams = new Map(HOSTILE.map((h) => [h.module, h.team]));
  await storeFirstMove(t.store, {
    orgId: org.orgId,
    projectId: hostile.projectId,
    scanId: hostile.scanId,
    ecosystem: 'python',
    findings: hostileFindings(),
    teamOf: (m) => teams.get(m) ?? null,
  });
  // csv-api's minimist alert: not_affected (suppressed) with a detail that needs quoting and the guard
  const [minimist] = await listAll(`project=csv-api&package=minimist`);
  const put = await t.api.put(`/v1/alerts/${minimist.id}/analysis`).set(bearer(key)).send({
    state: 'not_affected',
    justification: 'code_not_reachable',
    detail: '=SUM(1,2) "quoted", and\r\na second line',
  });
  expect([put.status, put.body.error]).toEqual([200, undefined]);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

// --------------------------------------------------------------------------------------------------- tests --
describe('the export is the list, as CSV', () => {
  test('the default query (open, unsuppressed, risk order): the same alerts in the same order, every cell', async () => {
    const ids = await sameAsList('');
    // web: left-pad, @acme/util, minimist (ok is suppressed by the snapshot); api: left-pad; hostile: 8
    expect(ids).toHaveLength(12);
    const { rows } = await exportCsv('');
    const first = Object.fromEntries(ALERT_CSV_COLUMNS.map((c, i) => [c, rows[0][i]]));
    expect(first).toMatchObject({ severity: 'critical', suppressed: 'false', kev: '', epss: '' });
    // a scoped npm package starts with @: guarded like any other cell
    const util = rows.find((r) => r[4] === "'@acme/util")!;
    expect([util[2], util[9], util[10], util[19]]).toEqual([
      'csv-web',
      '7.5',
      'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N',
      '2.1.0',
    ]);
    const leftPad = rows.find((r) => r[4] === 'left-pad' && r[2] === 'csv-web')!;
    expect([leftPad[5], leftPad[7]]).toEqual(['1.2.0;1.3.0', 'CVE-2024-4001;GHSA-csv1-0000-0001']);
  });

  test.each([
    'sort=severity',
    'sort=firstSeen',
    'sort=lastSeen',
    'sort=risk&status=all&suppressed=all',
    'severity=high',
    'severity=medium&severityMode=exact',
    'project=csv-web',
    'project=csv-api&status=all',
    'package=left-pad',
    'advisory=cve-2024-4001',
    'fixable=true',
    'fixable=false&suppressed=all',
    'q=left',
    'ecosystem=python',
    `team=${encodeURIComponent('@SUM(A1)')}`,
    `module=${encodeURIComponent('=mod')}`,
    'analysis=not_affected&suppressed=all',
    'analysis=none',
    'suppressed=true',
    'kev=true',
  ])('%s: the same alerts as the list, in its order', async (query) => {
    await sameAsList(query);
  });

  test('filters select: the exports differ as the list does', async () => {
    const all = await sameAsList('status=all&suppressed=all');
    expect(all).toHaveLength(14); // + ok (snapshot-suppressed) + api's minimist (analysis)
    expect(await sameAsList('project=csv-web')).toHaveLength(3);
    expect(await sameAsList(`team=${encodeURIComponent('@SUM(A1)')}`)).toHaveLength(1);
    expect(await sameAsList('suppressed=true')).toHaveLength(2);
    const severity = await sameAsList('sort=severity');
    const firstSeen = await sameAsList('sort=firstSeen');
    expect(new Set(severity)).toEqual(new Set(firstSeen));
  });

  test('a triaged alert: its analysis in three cells, the detail guarded and kept whole', async () => {
    const { rows } = await exportCsv('analysis=not_affected&suppressed=all');
    expect(rows).toHaveLength(1);
    const cells = Object.fromEntries(ALERT_CSV_COLUMNS.map((c, i) => [c, rows[0][i]]));
    expect(cells).toMatchObject({
      projectSlug: 'csv-api',
      package: 'minimist',
      suppressed: 'true',
      suppressionSource: 'analysis',
      analysisState: 'not_affected',
      analysisJustification: 'code_not_reachable',
      analysisDetail: `'=SUM(1,2) "quoted", and\r\na second line`,
    });
  });
});

describe('hostile values', () => {
  test('every package, module and team label comes back guarded when it starts like a formula, intact otherwise', async () => {
    const { raw, rows } = await exportCsv('ecosystem=python');
    expect(rows).toHaveLength(HOSTILE.length);
    const byPackage = new Map(rows.map((r) => [r[4], r]));
    for (const h of HOSTILE) {
      const row = byPackage.get(guard(h.pkg));
      expect(row).toBeDefined();
      expect([row![4], row![23], row![24]]).toEqual([guard(h.pkg), guard(h.team), guard(h.module)]);
      expect(row![2]).toBe('csv-hostile');
    }
    // what a spreadsheet would read: no cell of the file starts with a formula character
    for (const r of rows) for (const cell of r) expect(cell).not.toMatch(GUARDED);
    // the guarded ones, literally
    expect(byPackage.has(`'=cmd|"/c calc"!A1`)).toBe(true);
    expect(byPackage.has(`'\ttab`)).toBe(true);
    expect(byPackage.has(`'\rcr`)).toBe(true);
    expect(byPackage.has('quote"d,comma')).toBe(true);
    expect(byPackage.has('new\nline')).toBe(true);
    // RFC 4180 on the wire: quoted with doubled quotes; records end with CRLF
    expect(raw).toContain(`"'=cmd|""/c calc""!A1"`);
    expect(raw).toContain('"quote""d,comma"');
    expect(raw).toContain('"new\nline"');
    expect(raw.split('\r\n').length).toBeGreaterThan(HOSTILE.length);
  });
});

describe('access, errors and routing', () => {
  test('a key restricted to a project sees its alerts only; another project is 422 unknown_project', async () => {
    const restricted = await org.key(['findings:read'], [projects['csv-web']]);
    const ids = await sameAsList('status=all&suppressed=all', restricted);
    expect(ids.length).toBe(4); // left-pad, @acme/util, minimist, ok
    const { rows } = await exportCsv('status=all&suppressed=all', restricted);
    expect(new Set(rows.map((r) => r[1]))).toEqual(new Set([projects['csv-web']]));
    expect(new Set(rows.map((r) => r[2]))).toEqual(new Set(['csv-web']));
    expect(errorOf(await t.api.get(`${CSV}?project=csv-hostile`).set(bearer(restricted)))).toEqual({
      status: 422,
      code: 'unknown_project',
    });
  });

  test('an auditor session reads the same file', async () => {
    const auditor = await org.session('auditor');
    const [mine, theirs] = await Promise.all([exportCsv('status=all'), exportCsv('status=all', auditor)]);
    expect(theirs.rows).toEqual(mine.rows);
  });

  test('a bad query is 422 and no credential 401, as JSON, before any CSV', async () => {
    const get = (qs: string, token: string | null = key) => {
      const r = t.api.get(`${CSV}${qs}`);
      return token ? r.set(bearer(token)) : r;
    };
    expect(errorOf(await get('?severity=bogus'))).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(errorOf(await get('?sort=risk&sort=severity'))).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(errorOf(await get('?epssMin=2'))).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(errorOf(await get('?team='))).toEqual({ status: 422, code: 'invalid_parameter' });
    expect(errorOf(await get('?project=nope'))).toEqual({ status: 422, code: 'unknown_project' });
    expect(errorOf(await get('', null))).toEqual({ status: 401, code: 'invalid_token' });
    expect(errorOf(await get('', 'svc_key_' + '0'.repeat(40)))).toEqual({ status: 401, code: 'invalid_token' });
    const scansOnly = await org.key(['scans:read']);
    expect(errorOf(await get('', scansOnly))).toEqual({ status: 403, code: 'insufficient_scope' });
    // another organization's credential: its own (empty) alerts, never these
    const other = await newOrg(t.store, 'Other CSV');
    const { rows } = await exportCsv('status=all&suppressed=all', await other.key(['findings:read']));
    expect(rows).toEqual([]);
  });

  test('export.csv is its own route, not an alert id; alert ids still answer', async () => {
    const { rows } = await exportCsv('');
    const one = await t.api.get(`/v1/alerts/${rows[0][0]}`).set(bearer(key));
    expect([one.status, one.body.id]).toEqual([200, rows[0][0]]);
    expect(errorOf(await t.api.get('/v1/alerts/export.json').set(bearer(key)))).toEqual({
      status: 404,
      code: 'not_found',
    });
  });

  test('the OpenAPI document declares the CSV answer, its headers and the list filters', () => {
    const op = (openApiDocument() as any).paths['/v1/alerts/export.csv'].get;
    expect(op.responses['200'].content).toEqual({ 'text/csv': { schema: { type: 'string' } } });
    expect(Object.keys(op.responses['200'].headers)).toEqual(
      expect.arrayContaining(['Content-Disposition', 'X-Truncated']),
    );
    const list = (openApiDocument() as any).paths['/v1/alerts'].get;
    const names = (o: any) => o.parameters.map((p: any) => p.name);
    expect(names(op)).toEqual(names(list).filter((n: string) => n !== 'limit' && n !== 'cursor'));
    for (const c of ALERT_CSV_COLUMNS) expect(op.description).toContain(`\`${c}\``);
  });
});

// ----------------------------------------------------------------------- cap and failure (an app of its own) --
describe('the row cap and a failure after the first byte (the export on an app of its own)', () => {
  let lines: string[];
  const appWith = async (maxRows: number) => {
    lines = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const deps = {
      store: t.store,
      cursors: cursorCodec(await loadCursorSecret(t.store)),
      logger: createLogger('test', 'info', sink),
      platform: platformFromEnv(),
    } as unknown as AppDeps;
    const app = new Koa<AppState>();
    app.silent = true;
    app.use(requestId());
    app.use(errorEnvelope(deps.logger));
    const r = new Router();
    r.get(CSV, access(deps, 'GET /v1/alerts/export.csv'), alertCsvExport(deps, { maxRows }));
    app.use(r.routes());
    return request(app.callback());
  };

  test('more alerts than the cap: the first ones in the sort, and X-Truncated: true', async () => {
    const full = (await exportCsv('status=all&suppressed=all')).rows;
    const api = await appWith(3);
    const cut = await api.get(`${CSV}?status=all&suppressed=all`).set(bearer(key));
    expect([cut.status, cut.headers['x-truncated'], cut.headers['content-type']]).toEqual([
      200,
      'true',
      'text/csv; charset=utf-8',
    ]);
    expect(parse(cut.text)).toEqual([ALERT_CSV_COLUMNS, ...full.slice(0, 3)]);
    const exact = await (await appWith(full.length)).get(`${CSV}?status=all&suppressed=all`).set(bearer(key));
    expect([exact.headers['x-truncated'], parse(exact.text).length]).toEqual(['false', full.length + 1]);
  });

  test('a failure once the body has started: the response is cut short (no complete file) and the error logged', async () => {
    // another organization with 1,200 alerts, the last in the risk order unreadable (installedVersions not a list)
    const broken = await newOrg(t.store, 'Broken CSV');
    const projectId = 'prj_brokencsv0001';
    const findings: MoveFinding[] = Array.from({ length: 1200 }, (_, i) => ({
      id: `fnd_b${i}`,
      package: `pkg-${i}`,
      installedVersion: '1.0.0',
      fixedVersion: null,
      severity: i === 1199 ? 'low' : 'high',
      cve: `GHSA-brkn-${String(i).padStart(4, '0')}-xxxx`,
      aliases: [`GHSA-brkn-${String(i).padStart(4, '0')}-xxxx`],
      summary: 'x',
      publishedAt: null,
      suppressed: false,
      attributions: [],
      cvss: null,
    }));
    const at = new Date().toISOString();
    const moved = moveAlerts(
      [],
      findings,
      { projectId, ecosystem: 'javascript', scanId: 'scn_broken', startedAt: at, at, generation: null },
      () => null,
      true,
    );
    const last = moved.alerts.find((a) => a.package === 'pkg-1199')!;
    (last as { installedVersions: unknown }).installedVersions = null;
    const head = {
      pairId: pairIdOf(projectId, 'javascript'),
      orgId: broken.orgId,
      projectId,
      ecosystem: 'javascript',
      scanId: 'scn_broken',
      startedAt: new Date(),
      seq: 1,
    };
    await insertState(t.store, {
      ...head,
      at: new Date(),
      generation: null,
      rematch: false,
      alerts: moved.alerts,
      move: { events: [], opened: [], fixed: [], reopened: [], announce: false },
    });
    await advanceHead(t.store, { ...head, at: new Date(), open: moved.alerts.length });
    const api = await appWith(100_000);
    const got = await api
      .get(CSV)
      .set(bearer(await broken.key(['findings:read'])))
      .then(
        (res) => ({ status: res.status, text: res.text as string, error: null as unknown }),
        (error: unknown) => ({ status: null, text: '', error }),
      );
    // the 200 had gone out: the client sees a failed download (the transfer aborted), never a complete file
    if (got.error === null) expect(got.text.split('\r\n').length).toBeLessThan(1200 + 1);
    else expect(String((got.error as Error).message)).toMatch(/aborted|socket hang up|ECONNRESET|premature/i);
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.some((l) => l.includes('alerts CSV export failed while streaming'))).toBe(true);
  });
});
