// Workloads shared by the benchmarks: synthetic advisories and snapshots, and the timed upload loops.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { syntheticSnapshot } from '../src/domain/snapshot';
import type { Harness } from './harness';
import { median, timed } from './stats';

/**
 * Synthetic OSV advisories: one per package bench-<i>, affecting 1.0.0, fixed in 1.0.1. In one file, or one file per
 * advisory (`<ID>.json`, as OSV-Scanner's offline database holds them).
 */
export function syntheticAdvisories(count: number, layout: 'one-file' | 'per-advisory' = 'one-file'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-adv-'));
  const severities = [
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
    'CVSS:3.1/AV:N/AC:H/PR:L/UI:R/S:U/C:L/I:N/A:N',
  ];
  const advisories = Array.from({ length: count }, (_, i) => ({
    id: `GHSA-bnch-${String(i).padStart(4, '0')}-xxxx`,
    modified: '2024-01-01T00:00:00Z',
    published: '2024-01-01T00:00:00Z',
    summary: `synthetic advisory ${i}`,
    severity: [{ type: 'CVSS_V3', score: severities[i % severities.length] }],
    affected: [
      {
        package: { ecosystem: 'npm', name: `bench-${i}` },
        ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '1.0.1' }] }],
      },
    ],
  }));
  if (layout === 'one-file') fs.writeFileSync(path.join(dir, 'synthetic.json'), JSON.stringify(advisories));
  else for (const a of advisories) fs.writeFileSync(path.join(dir, `${a.id}.json`), JSON.stringify(a));
  return dir;
}

/** A v1 snapshot of `nodes` packages named <prefix>-<i>@1.0.0, each depending on up to 3 others. */
export function namedSnapshot(nodes: number, project: string, prefix: string) {
  const s = syntheticSnapshot({
    schemaVersion: 1,
    nodes,
    roots: Math.max(1, Math.round(nodes / 500)),
    depsPerNode: 3,
    project,
    ecosystem: 'javascript',
  });
  const rename = new Map(s.nodes.map((n, i) => [n.id, `${prefix}-${i}@1.0.0`]));
  s.nodes = s.nodes.map((n, i) => ({
    ...n,
    id: `${prefix}-${i}@1.0.0`,
    name: `${prefix}-${i}`,
    version: '1.0.0',
    dependencies: n.dependencies.map((d) => rename.get(d)!),
  }));
  s.nodes.sort((a, b) => (a.id < b.id ? -1 : 1));
  s.roots = s.roots.map((r) => ({ ...r, dependencies: r.dependencies.map((d) => rename.get(d)!) }));
  return s;
}

/** The same named bench-<i>@1.0.0 (each with its synthetic advisory when i < the advisories' count), as JSON. */
export function benchSnapshot(nodes: number, project: string): string {
  return JSON.stringify(namedSnapshot(nodes, project, 'bench'));
}

/** A snapshot with no package at all: the cheapest scan, for building a history of scans. */
export const TINY = JSON.stringify({
  schemaVersion: 1,
  project: 'history',
  ecosystem: 'javascript',
  roots: [{ module: 'a', context: 'dependencies', dependencies: [] }],
  nodes: [],
});

/** Sequential uploads; prints the median of each Server-Timing phase of the upload route. */
export async function uploadLatency(h: Harness, body: string, n: number, label: string, paceMs = 0) {
  const lat: number[] = [];
  const phases = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const [r, ms] = await timed(() => h.upload(body));
    lat.push(ms);
    if (paceMs > ms) await new Promise((res) => setTimeout(res, paceMs - ms));
    for (const part of r.timing.split(', ')) {
      const [name, dur] = part.split(';dur=');
      if (dur) phases.set(name, [...(phases.get(name) ?? []), Number(dur)]);
    }
  }
  console.log(
    `  ${label} phases (median ms): ${[...phases].map(([k, v]) => `${k} ${median(v).toFixed(1)}`).join(', ')}`,
  );
  return lat;
}

/** Waits until the worker has no backlog, so that a timing measures one scan, not the queue before it. */
export async function quiesce(h: Harness) {
  for (let i = 0; i < 6000; i++) {
    const busy =
      (await h.store.c.scans.countDocuments({ status: 'queued' })) +
      (await h.store.c.scans.countDocuments({ status: 'running' }));
    if (busy === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `n` uploads one after another, each waited for until completed (polled every `pollMs`): their times. */
export async function uploadToCompleted(h: Harness, body: string, n: number, pollMs = 2) {
  await quiesce(h);
  const total: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const { id } = await h.upload(body);
    const done = await h.waitCompleted(id, pollMs);
    if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
    total.push(performance.now() - t0);
  }
  return total;
}
