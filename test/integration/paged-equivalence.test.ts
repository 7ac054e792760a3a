// The same v2 graph uploaded inline and in parts gives the same results: findings (advisory,
// package, version, severity, fixedVersion, path, suppression), counts, the module list, and per finding the same
// attributions, paths and origins. A property test on random graphs (random groupings into parts), then the bench's
// largest single document, whose inventory is also the same. Real API, real worker, real database.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { importAdvisories } from '../../src/advisories/import';
import { syntheticSnapshot } from '../../src/domain/snapshot/synthetic';
import type { Snapshot } from '../../src/shared/types';
import { startTestWorker, type TestWorker } from '../helpers/worker';
import { installRuntime } from '../../workers/temporal-runtime';
import { bearer, newOrg, testContext, type Org, type TestContext } from '../helpers/context';
import { randomGraph, splitIntoParts } from '../helpers/random-graph';

let t: TestContext;
let org: Org;
let key: string;
let worker: TestWorker | undefined;
const UPLOADS = '/v1/scans/dependency-snapshots/uploads';

beforeAll(async () => {
  installRuntime('error');
  t = await testContext();
  // Synthetic advisories for org.example:lib-<i> (every 10th i): most fixed in 9.0.0, every 20th fixed in 1.5 (so
  // version 2.0 of those is not affected), every 30th with no fix at all.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'equiv-adv-'));
  for (let i = 0; i < 10_000; i += 10) {
    const name = `org.example:lib-${String(i).padStart(5, '0')}`;
    const id = `GHSA-test-${String(i).padStart(4, '0')}-v2v2`;
    const events =
      i % 30 === 0 ? [{ introduced: '0' }] : [{ introduced: '0' }, { fixed: i % 20 === 0 ? '1.5' : '9.0.0' }];
    const severity = i % 40 === 0 ? [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }] : [];
    const osv = {
      id,
      modified: '2024-01-01T00:00:00Z',
      published: '2024-01-01T00:00:00Z',
      summary: `synthetic ${i}`,
      severity,
      affected: [{ package: { ecosystem: 'Maven', name }, ranges: [{ type: 'ECOSYSTEM', events }] }],
    };
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify(osv));
  }
  const report = await importAdvisories(t.store, [dir]);
  expect(report.rejected).toEqual([]);
  org = await newOrg(t.store);
  key = await org.key(['sca:upload', 'scans:read', 'findings:read', 'deps:read']);
  worker = await startTestWorker(t);
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await t?.close();
});

async function finished(id: string, timeoutMs = 120_000): Promise<Record<string, any>> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const got = await t.api.get(`/v1/scans/${id}?wait=5`).set(bearer(key));
    expect(got.status).toBe(200);
    if (got.body.status === 'completed' || got.body.status === 'failed') return got.body;
  }
  throw new Error(`scan ${id} did not finish`);
}

async function inline(s: Snapshot): Promise<string> {
  const res = await t.api.post('/v1/scans/dependency-snapshots').set(bearer(key)).send(s);
  expect(res.status).toBe(201);
  return res.body.id;
}

async function paged(s: Snapshot, parts: number, seed: number): Promise<string> {
  const { modules: _m, nodes: _n, roots: _r, ...header } = s;
  const created = await t.api
    .post(UPLOADS)
    .set(bearer(key))
    .send({ ...header, parts });
  expect(created.status).toBe(201);
  const id = created.body.upload.id;
  // the parts in a shuffled order: the order parts arrive in never matters
  const bodies = splitIntoParts(s, parts, seed).map((body, i) => ({ n: i + 1, body }));
  for (const { n, body } of bodies.sort(
    (a, b) => ((a.n * 2654435761 + seed) % 97) - ((b.n * 2654435761 + seed) % 97),
  )) {
    const res = await t.api.put(`${UPLOADS}/${id}/parts/${n}`).set(bearer(key)).send(body);
    expect(res.status).toBe(201);
  }
  const done = await t.api.post(`${UPLOADS}/${id}/completion`).set(bearer(key)).send();
  expect(done.status).toBe(201);
  expect(done.body.attributionMode).toBe('paged');
  return done.body.id;
}

async function pages(url: string, items: string): Promise<{ items: any[]; last: any }> {
  const out: any[] = [];
  let cursor: string | null = null;
  let last: any;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const res: any = await t.api
      .get(`${url}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      .set(bearer(key));
    expect(res.status).toBe(200);
    out.push(...res.body[items]);
    last = res.body;
    cursor = res.body.nextCursor;
  } while (cursor);
  return { items: out, last };
}

/** Findings of one severity are listed by id, and ids hash the scan id: two scans list them in different orders. */
const byContent = (list: any[]) =>
  [...list].sort((x, y) => (contentKey(x) < contentKey(y) ? -1 : contentKey(x) > contentKey(y) ? 1 : 0));
const contentKey = (f: any) => `${f.severity} ${f.package}@${f.installedVersion} ${f.cve}`;

/** Everything compared above, of one scan, with what necessarily differs between two scans (ids, times) left out. */
async function resultsOf(scanId: string, opts: { attributionsOf?: (finding: any) => boolean; scopes?: boolean } = {}) {
  const scan = await finished(scanId);
  expect(scan.status).toBe('completed');
  const findings = await pages(`/v1/scans/${scanId}/findings?suppressed=all&details=summary`, 'findings');
  const modules = await pages(`/v1/scans/${scanId}/modules`, 'modules');
  const out = {
    findings: scan.findings,
    suppressed: scan.suppressed,
    moduleCount: modules.items.length,
    modules: modules.items,
    counts: findings.last.counts,
    list: [] as any[],
    scopes: {} as Record<string, unknown>,
  };
  for (const f of findings.items) {
    const { id, scanId: _s, attributions: _a, ...rest } = f;
    const item: any = { ...rest };
    if (opts.attributionsOf?.(f) ?? true) {
      const atts = await pages(`/v1/scans/${scanId}/findings/${id}/attributions`, 'attributions');
      item.attributions = [];
      for (const a of atts.items) {
        const p = await t.api.get(`/v1/scans/${scanId}/findings/${id}/attributions/${a.id}/path`).set(bearer(key));
        expect(p.status).toBe(200);
        item.attributions.push({ ...a, ...p.body });
      }
    }
    out.list.push(item);
  }
  out.list = byContent(out.list);
  if (opts.scopes) {
    // the comparison's introducing modules and teams of each of the scan's findings (a paged scan's from its scope
    // index, an inline one's from its attributions)
    const c = await t.api.get(`/v1/scans/${scanId}/compare?suppressed=all`).set(bearer(key));
    expect(c.status).toBe(200);
    const { added, unchanged, disclosed } = c.body.findings;
    out.scopes.introducing = byContent([...added, ...unchanged, ...disclosed]).map((f: any) => ({
      finding: contentKey(f),
      modules: f.modules,
      teams: f.teams,
    }));
    // the module and team filters in both views: the same findings and counts
    for (const m of modules.items) {
      for (const view of ['affected', 'introduced']) {
        const r = await pages(
          `/v1/scans/${scanId}/findings?suppressed=all&details=summary&attribution=${view}&module=${encodeURIComponent(m.path)}`,
          'findings',
        );
        out.scopes[`${view} ${m.path}`] = {
          list: byContent(r.items.map(({ id: _i, scanId: _s, ...f }) => f)),
          counts: r.last.counts,
        };
      }
    }
    for (const team of ['web', 'platform']) {
      const r = await pages(
        `/v1/scans/${scanId}/findings?suppressed=all&details=summary&attribution=introduced&team=${team}`,
        'findings',
      );
      out.scopes[`team ${team}`] = {
        list: byContent(r.items.map(({ id: _i, scanId: _s, ...f }) => f)),
        counts: r.last.counts,
      };
    }
  }
  return out;
}

/** An inline v2 finding's own attributions, as the reads present them (without ids). */
async function embedded(scanId: string) {
  const { items } = await pages(`/v1/scans/${scanId}/findings?suppressed=all`, 'findings');
  return byContent(items).map((f: any) => f.attributions);
}

test('random graphs: inline and in parts, the same results', async () => {
  let run = 0;
  let findings = 0;
  let attributions = 0;
  let introduced = 0;
  await fc.assert(
    fc.asyncProperty(randomGraph(), fc.integer({ min: 1, max: 5 }), fc.nat(), async (graph, parts, seed) => {
      run++;
      const s = { ...graph, project: `equiv-${run}` };
      const [a, b] = await Promise.all([inline(s), paged(s, parts, seed)]);
      const [inl, pag] = await Promise.all([resultsOf(a, { scopes: true }), resultsOf(b, { scopes: true })]);
      expect(pag).toEqual(inl);
      findings += inl.list.length;
      introduced += (inl.scopes.introducing as any[]).filter((f) => f.modules.length > 0).length;
      attributions += inl.list.reduce((n: number, f: any) => n + f.attributions.length, 0);
      // the reads of an inline scan are its stored attributions
      const own = await embedded(a);
      expect(inl.list.map((f: any) => f.attributions.map(({ id: _i, ...x }: any) => x))).toEqual(own);
    }),
    { numRuns: 15 },
  );
  // the graphs were not trivial: findings and their attributions were compared (about 30 findings are expected
  // over the runs; every finding has at least one attribution)
  expect(findings).toBeGreaterThan(5);
  expect(attributions).toBeGreaterThanOrEqual(findings);
  // and the comparison named introducing modules for most of them
  expect(introduced).toBeGreaterThan(findings / 2);
}, 600_000);

test("the bench's largest single document: inline and in five parts, the same results", async () => {
  const s = syntheticSnapshot({
    schemaVersion: 2,
    nodes: 10000,
    roots: 1000,
    depsPerNode: 6,
    packagesPerRoot: 79,
    project: 'equiv-largest',
    ecosystem: 'gradle',
  });
  // The inventory of the project after each scan: the paged scan, newer, replaces the inline one
  // and lists the same packages with the same ids, paths and manifests.
  const inventory = async (scanId: string) => {
    await finished(scanId);
    const { items, last } = await pages('/v1/dependencies?project=equiv-largest', 'dependencies');
    expect(last.scans).toEqual({ gradle: scanId });
    return items;
  };
  const a = await inline(s);
  const inventoryA = await inventory(a);
  const b = await paged(s, 5, 7);
  const inventoryB = await inventory(b);
  expect(inventoryA).toHaveLength(s.nodes.length);
  expect(inventoryB).toEqual(inventoryA);
  // every finding's list entry; attributions, paths and origins of one package in 25 (HTTP round trips add up)
  const sample = (f: any) => Number(f.package.slice(-5)) % 250 === 0;
  const [inl, pag] = [await resultsOf(a, { attributionsOf: sample }), await resultsOf(b, { attributionsOf: sample })];
  expect(inl.list.length).toBeGreaterThan(100);
  expect(inl.list.filter((f: any) => f.attributions?.length > 0).length).toBeGreaterThan(10);
  expect(pag).toEqual(inl);
}, 900_000);
