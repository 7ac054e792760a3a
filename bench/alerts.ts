// `npm run bench -- alerts`: the figures of project alerts (docs/alerts.md) on the local stack, beside their targets.
// - upload → alerts moved, a 10,000-package lockfile with 2,000 findings: the first tracked scan of a project and a
//   repeat, each beside the same scan untracked (a branch scan, which moves nothing);
// - GET /v1/alerts, a page of 50 over 100 projects × 500 open alerts: the default sort and each single filter;
// - GET /v1/alerts/{id}/history; a scan's findings page with alertId and firstSeenAt;
// - re-matching 100 projects after an advisory import.
import { Client, Connection } from '@temporalio/client';
import { moveAlerts, type MoveFinding } from '../src/domain/alerts/move';
import { currentGeneration } from '../src/storage/advisories';
import { advanceHead, insertState, pairIdOf, writeAlertEvents } from '../src/storage/alerts';
import { alertRematchId, startAlertRematch } from '../src/temporal/alert-rematch';
import type { Harness } from './harness';
import { namedSnapshot, quiesce, syntheticAdvisories } from './scenarios';
import { fmt, median, percentile, row } from './stats';

const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

/** Upload → the project's alerts moved by this scan (the head names it), or → completed for a branch scan. */
export async function uploadToMoved(h: Harness, body: string, tracked: boolean): Promise<number> {
  await quiesce(h);
  const t0 = performance.now();
  const { id } = await h.upload(body);
  const done = await h.waitCompleted(id, 2);
  if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
  if (!tracked) return performance.now() - t0;
  for (let i = 0; i < 20_000; i++) {
    const head = await h.store.c.alertSets.findOne({ scanId: id } as never, { projection: { _id: 1 } });
    if (head) return performance.now() - t0;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`the alerts of scan ${id} did not move`);
}

async function movedFigures(h: Harness, reps: number) {
  const snapshot = (project: string, ref?: string) =>
    JSON.stringify({ ...namedSnapshot(10_000, project, 'bench'), ...(ref ? { metadata: { ref } } : {}) });
  const untracked: number[] = [];
  const first: number[] = [];
  const repeat: number[] = [];
  // Alternating, so that drift of the machine touches all three alike.
  for (let i = 0; i < reps; i++) {
    untracked.push(await uploadToMoved(h, snapshot('alerts-branch', 'feature/bench'), false));
    first.push(await uploadToMoved(h, snapshot(`alerts-first-${i}`), true));
    repeat.push(await uploadToMoved(h, snapshot('alerts-repeat'), true));
  }
  repeat.shift(); // the repeat project's first scan was a first tracked scan
  const u = median(untracked);
  console.log('\nUpload → alerts moved, 10,000-package lockfile with 2,000 findings (median ms)');
  row('same scan untracked (branch), → completed', fmt(u));
  row('first tracked scan, → alerts moved', `${fmt(median(first))} (${(median(first) / u).toFixed(2)}×)`, '≤ 1.3×');
  row('repeat tracked scan, → alerts moved', `${fmt(median(repeat))} (${(median(repeat) / u).toFixed(2)}×)`, '≤ 1.15×');
  return { scanId: (await h.get('/v1/scans?limit=1')).body.scans[0].id as string };
}

/**
 * 100 projects × 500 open alerts stored as tracked scans' moves would store them, with some history. `first`: the
 * number of the first project (seeding more projects beside those of an earlier call).
 */
export async function seedAlerts(h: Harness, projects: number, perProject: number, first = 0, teams = 0) {
  // with `teams`: each alert introduced by module mod-<i mod teams>, owned by team-<i mod teams>
  const teamOf = (module: string) => (teams ? `team-${module.slice(4)}` : null);
  const orgId = (await h.store.c.orgs.findOne({}))!._id;
  const ids: string[] = [];
  for (let p = first; p < first + projects; p++) {
    const projectId = `prj_bench${String(p).padStart(4, '0')}`;
    const findings = (n: number, version: string): MoveFinding[] =>
      Array.from({ length: n }, (_, i) => ({
        id: `fnd_${p}_${i}_${version}`,
        package: `pkg-${i}`,
        installedVersion: version,
        fixedVersion: i % 3 ? '9.0.0' : null,
        severity: SEVERITIES[i % 4],
        // synthetic advisory ids shaped like GHSA ids (as scenarios.ts syntheticAdvisories makes them): one per alert
        cve: `GHSA-b${String(p).padStart(3, '0')}-${String(i).padStart(4, '0')}-xxxx`,
        aliases: [`CVE-2024-${p * 1000 + i}`],
        summary: `synthetic ${i}`,
        publishedAt: null,
        suppressed: false,
        attributions: (teams
          ? [{ module: `mod-${i % teams}`, context: 'runtime', relationship: 'direct' }]
          : []) as never,
        cvss: { version: '3.1', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', score: (i % 100) / 10 },
      }));
    const source = (scanId: string, day: number) => ({
      projectId,
      ecosystem: 'javascript',
      scanId,
      startedAt: `2026-10-${String(day).padStart(2, '0')}T00:00:00.000Z`,
      at: `2026-10-${String(day).padStart(2, '0')}T00:00:01.000Z`,
      generation: 'adv_bench',
      seq: day,
    });
    const one = moveAlerts([], findings(perProject, '1.0.0'), source(`scn_b${p}a`, 1), teamOf, true);
    const two = moveAlerts(one.alerts, findings(perProject, '1.0.1'), source(`scn_b${p}b`, 2), teamOf, false);
    const pairId = pairIdOf(projectId, 'javascript');
    for (const [seq, m, scanId] of [
      [1, one, `scn_b${p}a`],
      [2, two, `scn_b${p}b`],
    ] as const) {
      await insertState(h.store, {
        pairId,
        orgId,
        projectId,
        ecosystem: 'javascript',
        seq,
        scanId,
        startedAt: new Date(`2026-10-0${seq}T00:00:00.000Z`),
        at: new Date(),
        generation: 'adv_bench',
        rematch: false,
        alerts: m.alerts,
        move: { events: m.events, opened: m.opened, fixed: m.fixed, reopened: m.reopened, announce: seq > 1 },
      });
      await writeAlertEvents(h.store, orgId, seq, m.events);
    }
    await advanceHead(h.store, {
      pairId,
      orgId,
      projectId,
      ecosystem: 'javascript',
      seq: 2,
      scanId: `scn_b${p}b`,
      startedAt: new Date('2026-10-02T00:00:00.000Z'),
      at: new Date(),
      open: perProject,
    });
    await h.store.c.projects.updateOne(
      { _id: projectId },
      { $setOnInsert: { orgId, slug: `bench-${p}`, createdAt: new Date() } },
      { upsert: true },
    );
    ids.push(...two.alerts.slice(0, 5).map((a) => a.id));
  }
  return ids;
}

async function latency(h: Harness, url: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await h.get(url);
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
    out.push(performance.now() - t0);
  }
  return out;
}

async function readFigures(h: Harness, scanId: string) {
  const sample = await seedAlerts(h, 100, 500);
  await h.get('/v1/alerts?limit=50'); // the API's index of the organization's alerts, built once
  console.log('\nReads over 100 projects × 500 open alerts (p50 / p99 ms, 200 requests each)');
  const cases: Array<[string, string]> = [
    ['default sort (severity)', '/v1/alerts?limit=50'],
    ['sort=firstSeen', '/v1/alerts?limit=50&sort=firstSeen'],
    ['project=bench-42', '/v1/alerts?limit=50&project=bench-42'],
    ['severity=critical', '/v1/alerts?limit=50&severity=critical'],
    ['status=fixed', '/v1/alerts?limit=50&status=fixed'],
    ['package=pkg-7', '/v1/alerts?limit=50&package=pkg-7'],
    ['advisory=CVE-2024-42007', '/v1/alerts?limit=50&advisory=CVE-2024-42007'],
    ['fixable=false', '/v1/alerts?limit=50&fixable=false'],
    ['q=pkg-1', '/v1/alerts?limit=50&q=pkg-1'],
    ['team=platform', '/v1/alerts?limit=50&team=platform'],
    ['ecosystem=javascript', '/v1/alerts?limit=50&ecosystem=javascript'],
  ];
  for (const [label, url] of cases) {
    const lat = await latency(h, url, 200);
    row(`GET /v1/alerts ${label}`, `${fmt(median(lat))} / ${fmt(percentile(lat, 99))}`, 'p99 ≤ 50 ms');
  }
  const history: number[] = [];
  for (let i = 0; i < 200; i++)
    history.push(...(await latency(h, `/v1/alerts/${sample[i % sample.length]}/history`, 1)));
  row('GET /v1/alerts/{id}/history', `${fmt(median(history))} / ${fmt(percentile(history, 99))}`, 'p99 ≤ 30 ms');
  const findings = await latency(h, `/v1/scans/${scanId}/findings?limit=50`, 200);
  row(
    "a scan's findings page (2,000 findings, alertId and firstSeenAt)",
    `${fmt(median(findings))} / ${fmt(percentile(findings, 99))}`,
    'p99 ≤ 30 ms',
  );
}

async function rematchFigure(h: Harness, projects: number) {
  // 100 projects with a tracked scan each (1,000 packages, 200 findings), then one new advisory.
  for (let p = 0; p < projects; p++) {
    const { id } = await h.upload(JSON.stringify(namedSnapshot(1000, `rematch-${p}`, 'bench')));
    await h.waitCompleted(id, 5);
  }
  await quiesce(h);
  const dir = syntheticAdvisories(2001); // one more advisory: bench-2000 has none in 1,000-package snapshots either
  await h.importAdvisories([dir]);
  const generation = (await currentGeneration(h.store))!;
  const connection = await Connection.connect({ address: h.temporalAddress });
  try {
    const client = new Client({ connection });
    const t0 = performance.now();
    await startAlertRematch(client, h.taskQueue, generation);
    const r = await client.workflow.getHandle(alertRematchId(generation)).result();
    const ms = performance.now() - t0;
    console.log(`\nRe-match after an advisory import (${r.pairs} (project, ecosystem) pairs, ${r.moved} moved)`);
    row(`re-matching ${projects} projects`, fmt(ms), '≤ 30 s');
  } finally {
    await connection.close();
  }
}

export async function alertsBench(h: Harness, reps = 5): Promise<void> {
  await h.importAdvisories([syntheticAdvisories(2000)]);
  const { scanId } = await movedFigures(h, reps);
  await readFigures(h, scanId);
  await rematchFigure(h, 100);
}
