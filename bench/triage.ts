// `npm run bench -- triage`: the figures of triage (docs/triage.md) on the local stack, beside their targets.
// - a bulk analysis of 500 alerts (POST /v1/alerts/analysis), over an organization of 100 projects × 500 alerts;
// - GET /v1/alerts filtered by analysis state, with 500 alerts analysed;
// - the preview of a rule (GET /v1/triage-rules/{id}/matches) over 50,000 open alerts;
// - upload → completed of a 10,000-package snapshot with 2,000 findings, with 50 enforce rules beside none
//   (alternating; the rules match nothing of it, so that the scans' results are the same and only the cost shows).
import { Client, Connection } from '@temporalio/client';
import { createSession } from '../src/storage/accounts';
import { triageReconcileId } from '../src/temporal/triage-reconcile-workflow-contract';
import { seedAlerts } from './alerts';
import type { Harness } from './harness';
import { namedSnapshot, quiesce, syntheticAdvisories } from './scenarios';
import { fmt, median, percentile, row } from './stats';

async function request(h: Harness, method: string, url: string, token: string, body?: unknown) {
  const t0 = performance.now();
  const r = await fetch(`${h.baseUrl}${url}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: any = r.status === 204 ? null : await r.json();
  const ms = performance.now() - t0;
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
  return { ms, json, timing: r.headers.get('server-timing') ?? '' };
}

async function uploadToCompleted(h: Harness, body: string): Promise<number> {
  await quiesce(h);
  const t0 = performance.now();
  const { id } = await h.upload(body);
  const done = await h.waitCompleted(id, 2);
  if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
  return performance.now() - t0;
}

export async function triageBench(h: Harness, reps = 5): Promise<void> {
  await h.importAdvisories([syntheticAdvisories(2000)]);
  const owner = await h.store.c.members.findOne({ role: 'owner' } as never);
  if (!owner) throw new Error('no owner');
  // A rule change starts the organization's reconciliation in the background (its alerts' histories): let it finish
  // before a figure, so that the figure is the scan's or the request's own, not the worker's tail beside it.
  const connection = await Connection.connect({ address: h.temporalAddress });
  const temporal = new Client({ connection });
  const settled = async () => {
    const handle = temporal.workflow.getHandle(triageReconcileId(owner.orgId));
    for (let i = 0; i < 600; i++) {
      const d = await handle.describe().catch(() => null);
      if (!d || d.status.name !== 'RUNNING') return;
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const t0 = performance.now();
  const progress = (what: string) => console.log(`  (${what}: ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  const session = (await createSession(h.store, owner.userId)).token;

  // Scans with 50 enforce rules beside none, alternating (before the 50,000 alerts, which every scan would not read).
  const snapshot = JSON.stringify(namedSnapshot(10_000, 'triage-scan', 'bench'));
  const rules = async () => {
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const conditions = [
        { packages: [`nothing-${i}-*`] },
        { teams: [`team-${i}`], contexts: ['devDependencies'] },
        { advisories: [`CVE-1999-${i}`] },
        { projects: ['triage-scan'], severities: ['low'], packages: [`other-${i}`] },
      ][i % 4];
      const r = await request(h, 'POST', '/v1/triage-rules', session, {
        name: `rule ${i}`,
        conditions,
        analysis: { state: 'not_affected', justification: 'code_not_present', detail: `rule ${i}` },
        mode: 'enforce',
      });
      ids.push(r.json.id);
    }
    return ids;
  };
  await uploadToCompleted(h, snapshot); // the project exists (a rule names it), and a first scan warms the worker
  const none: number[] = [];
  const fifty: number[] = [];
  let findings = -1;
  for (let i = 0; i < reps; i++) {
    none.push(await uploadToCompleted(h, snapshot));
    const ids = await rules();
    await settled();
    fifty.push(await uploadToCompleted(h, snapshot));
    for (const id of ids) await request(h, 'DELETE', `/v1/triage-rules/${id}`, session);
    await settled();
  }
  progress('scans done');
  const last = (await h.get('/v1/scans?limit=1')).body.scans[0];
  findings = Object.values(last.findings as Record<string, number>).reduce((a, b) => a + b, 0);
  console.log(`\nUpload → completed, 10,000 packages, ${findings} findings (median ms, ${reps} each, alternating)`);
  row('no triage rules', fmt(median(none)));
  row(
    '50 enforce rules',
    `${fmt(median(fifty))} (${(median(fifty) / median(none)).toFixed(2)}×)`,
    '≤ 1.1× the time with no rules',
  );

  // 100 projects × 500 alerts; 500 of them (5 per project) decided at once.
  const sample = await seedAlerts(h, 100, 500);
  progress('50,000 alerts seeded');
  await h.get('/v1/alerts?limit=50'); // the API's index, built once
  const bulk: number[] = [];
  for (let i = 0; i < reps; i++) {
    const r = await request(h, 'POST', '/v1/alerts/analysis', h.key, {
      alertIds: sample.slice(0, 500),
      analysis: { state: i % 2 ? 'exploitable' : 'in_triage', detail: `bulk ${i}` },
    });
    if (r.json.alerts.length !== 500) throw new Error(`bulk answered ${r.json.alerts.length} alerts`);
    bulk.push(r.ms);
    console.log(`  bulk ${i + 1}: ${fmt(r.ms)} (${r.timing})`);
  }
  await settled();
  console.log('\nTriage over 100 projects × 500 alerts');
  row('bulk analysis of 500 alerts (median / max ms)', `${fmt(median(bulk))} / ${fmt(Math.max(...bulk))}`, '≤ 1 s');

  const lists: Array<[string, string]> = [
    ['analysis=exploitable', '/v1/alerts?limit=50&analysis=exploitable'],
    ['analysis=none', '/v1/alerts?limit=50&analysis=none'],
    ['default, 500 alerts analysed', '/v1/alerts?limit=50'],
  ];
  for (const [label, url] of lists) {
    await h.get(url);
    const lat: number[] = [];
    for (let i = 0; i < 200; i++) lat.push((await request(h, 'GET', url, h.key)).ms);
    row(`GET /v1/alerts ${label} (p50 / p99 ms)`, `${fmt(median(lat))} / ${fmt(percentile(lat, 99))}`, 'p99 ≤ 50 ms');
  }

  const rule = await request(h, 'POST', '/v1/triage-rules', session, {
    name: 'preview',
    conditions: { severities: ['critical', 'high'] },
    analysis: { state: 'not_affected', justification: 'code_not_reachable', detail: 'preview' },
    mode: 'dry_run',
  });
  await settled();
  const preview: number[] = [];
  let count = 0;
  for (let i = 0; i < 50; i++) {
    const r = await request(h, 'GET', `/v1/triage-rules/${rule.json.id}/matches?limit=50`, session);
    count = r.json.count;
    preview.push(r.ms);
    if (i < 3 || r.ms > 200) console.log(`  preview ${i + 1}: ${fmt(r.ms)} (${r.timing})`);
  }
  row(
    `preview of a rule over 50,000 open alerts (${count} matched; p50 / p99 ms)`,
    `${fmt(median(preview))} / ${fmt(percentile(preview, 99))}`,
    '≤ 500 ms',
  );
  await connection.close();
}
