// `npm run bench -- vex`: VEX import and export (issue 35 point 6) on the local stack, beside their targets.
// - POST /v1/projects/{id}/vex of a document of 10,000 statements against a project of 2,000 open alerts (a
//   10,000-package lockfile, 2,000 findings from synthetic advisories): OpenVEX 0.2.0 and CycloneDX 1.6, alternating,
//   each run's details different from the one before, so that every run writes 2,000 analyses. Per alert the
//   document holds the statement that decides it (advisory id and purl), an earlier one about it (the same decision
//   for half of them, which adds nothing; another for the other half, reported superseded), one naming a version the
//   project does not have, and two about advisories it has no alert for: 2,000 apply, 8,000 do not.
// - GET /v1/scans/{id}/vex (CycloneDX 1.6) and ?format=openvex once the 2,000 alerts have analyses: p50 / p99 of 100
//   requests each, after a first one (printed apart).
// Every answer is checked (2,000 applied and changed; 2,000 vulnerabilities or statements, each with an analysis), so
// that a figure cannot come from an import or export that did nothing.
import { purlOf } from '../src/shared/cyclonedx/purl';
import { uploadToMoved } from './alerts';
import type { Harness } from './harness';
import { namedSnapshot, quiesce, syntheticAdvisories } from './scenarios';
import { fmt, median, percentile, row } from './stats';

const ALERTS = 2000;
const N = ALERTS.toLocaleString('en-US');
const PACKAGES = 10_000;
/** The import route's limits (src/http/vex/routes.ts): the documents are built to be within them. */
const MAX_BYTES = 5 * 1024 * 1024;
const MAX_STATEMENTS = 10_000;

/** The synthetic advisory of bench-<i> (scenarios.ts syntheticAdvisories). */
const advisory = (i: number) => `GHSA-bnch-${String(i).padStart(4, '0')}-xxxx`;
const purl = (i: number, version: string) => purlOf('javascript', `bench-${i}`, version)!;

/** Earlier and later statement times: the deciding statement is the later one. */
const EARLIER = '2026-11-01T00:00:00Z';
const LATER = '2026-11-02T00:00:00Z';

/** An OpenVEX decision, one of four by `k`; `run` makes its words differ from one run to the next. */
function openvexDecision(k: number, i: number, run: number): Record<string, unknown> {
  switch (k % 4) {
    case 0:
      return {
        status: 'not_affected',
        justification: 'vulnerable_code_not_in_execute_path',
        impact_statement: `run ${run}: bench-${i} is bundled, its vulnerable function never called`,
      };
    case 1:
      return { status: 'affected', action_statement: `run ${run}: upgrade bench-${i} to 1.0.1` };
    case 2:
      return { status: 'fixed', status_notes: `run ${run}: patched in our build of bench-${i}` };
    default:
      return { status: 'under_investigation', status_notes: `run ${run}: being looked into` };
  }
}

/** The OpenVEX 0.2.0 document of run `run`: five statements per alert (see the file's head). */
export function openvexDocument(run: number): string {
  const statements: unknown[] = [];
  for (let i = 0; i < ALERTS; i++) {
    const product = (version: string) => [{ '@id': purl(i, version) }];
    statements.push(
      {
        vulnerability: { name: advisory(i) },
        timestamp: LATER,
        products: product('1.0.0'),
        ...openvexDecision(i, i, run),
      },
      {
        vulnerability: { name: advisory(i) },
        timestamp: EARLIER,
        products: product('1.0.0'),
        ...openvexDecision(i % 2 ? i + 1 : i, i, run),
      },
      { vulnerability: { name: advisory(i) }, products: product('0.9.0'), ...openvexDecision(i, i, run) },
      {
        vulnerability: { name: advisory(ALERTS + 2 * i) },
        products: [{ '@id': purl(ALERTS + 2 * i, '1.0.0') }],
        ...openvexDecision(i, i, run),
      },
      {
        vulnerability: { name: `CVE-2026-${String(10_000 + i)}`, aliases: [advisory(ALERTS + 2 * i + 1)] },
        products: [{ '@id': 'pkg:oci/acme-app', subcomponents: [{ '@id': purl(ALERTS + 2 * i + 1, '1.0.0') }] }],
        ...openvexDecision(i, i, run),
      },
    );
  }
  return JSON.stringify({
    '@context': 'https://openvex.dev/ns/v0.2.0',
    '@id': `https://example.test/vex/bench-${run}`,
    author: 'Bench Security',
    timestamp: LATER,
    version: run + 1,
    statements,
  });
}

/** A CycloneDX analysis, one of five by `k`. */
function cyclonedxAnalysis(k: number, i: number, run: number, at: string): Record<string, unknown> {
  const detail = `run ${run}: bench-${i}`;
  switch (k % 5) {
    case 0:
      return { state: 'not_affected', justification: 'code_not_reachable', detail, lastUpdated: at };
    case 1:
      return { state: 'exploitable', response: ['update'], detail, lastUpdated: at };
    case 2:
      return { state: 'resolved', detail, lastUpdated: at };
    case 3:
      return { state: 'false_positive', detail, lastUpdated: at };
    default:
      return { state: 'in_triage', detail, lastUpdated: at };
  }
}

/** The CycloneDX 1.6 VEX of run `run`: the same five statements per alert, refs by bom-ref or by purl. */
export function cyclonedxDocument(run: number): string {
  const components: unknown[] = [];
  const vulnerabilities: unknown[] = [];
  const ref = (i: number) => `bench-${i}@1.0.0`;
  for (let i = 0; i < ALERTS; i++) {
    components.push({
      type: 'library',
      'bom-ref': ref(i),
      name: `bench-${i}`,
      version: '1.0.0',
      purl: purl(i, '1.0.0'),
    });
    vulnerabilities.push(
      { id: advisory(i), analysis: cyclonedxAnalysis(i, i, run, LATER), affects: [{ ref: ref(i) }] },
      {
        id: advisory(i),
        analysis: cyclonedxAnalysis(i % 2 ? i + 1 : i, i, run, EARLIER),
        affects: [{ ref: ref(i) }],
      },
      { id: advisory(i), analysis: cyclonedxAnalysis(i, i, run, LATER), affects: [{ ref: purl(i, '0.9.0') }] },
      {
        id: advisory(ALERTS + 2 * i),
        analysis: cyclonedxAnalysis(i, i, run, LATER),
        affects: [{ ref: purl(ALERTS + 2 * i, '1.0.0') }],
      },
      {
        id: `CVE-2026-${String(10_000 + i)}`,
        references: [{ id: advisory(ALERTS + 2 * i + 1), source: { name: 'GitHub' } }],
        analysis: cyclonedxAnalysis(i, i, run, LATER),
        affects: [{ ref: purl(ALERTS + 2 * i + 1, '1.0.0') }],
      },
    );
  }
  return JSON.stringify({
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:00000000-0000-4000-8000-${String(run).padStart(12, '0')}`,
    version: 1,
    metadata: { timestamp: LATER },
    components,
    vulnerabilities,
  });
}

interface ImportAnswer {
  statements: number;
  applied: number;
  changed: number;
  unmatched: Array<{ code: string }>;
}

/** One import: its wall time (the body sent, the answer read whole), its answer and its Server-Timing phases. */
async function importVex(h: Harness, projectId: string, body: string) {
  const t0 = performance.now();
  const r = await fetch(`${h.baseUrl}/v1/projects/${projectId}/vex`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${h.key}`, 'Content-Type': 'application/json' },
    body,
  });
  const text = await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`VEX import answered ${r.status}: ${text.slice(0, 500)}`);
  const answer = JSON.parse(text) as ImportAnswer;
  const phases = new Map<string, number>();
  for (const part of (r.headers.get('server-timing') ?? '').split(', ')) {
    const [name, dur] = part.split(';dur=');
    if (dur) phases.set(name, Number(dur));
  }
  return { ms, answer, phases, bytes: text.length };
}

/** The answer's counts checked: every run applies and changes the 2,000 alerts' analyses, and reports the 8,000. */
function checkImport(answer: ImportAnswer, label: string): void {
  const codes = new Map<string, number>();
  for (const u of answer.unmatched) codes.set(u.code, (codes.get(u.code) ?? 0) + 1);
  const want: Record<string, number> = { superseded: ALERTS / 2, version_not_installed: ALERTS, no_alert: 2 * ALERTS };
  const bad =
    answer.statements !== MAX_STATEMENTS ||
    answer.applied !== ALERTS ||
    answer.changed !== ALERTS ||
    Object.entries(want).some(([code, n]) => codes.get(code) !== n) ||
    answer.unmatched.length !== ALERTS / 2 + ALERTS + 2 * ALERTS;
  if (bad)
    throw new Error(
      `${label}: ${answer.statements} statements, ${answer.applied} applied, ${answer.changed} changed, unmatched ${JSON.stringify(Object.fromEntries(codes))}`,
    );
}

/** One export: its wall time (the document read whole) and the document, parsed after the clock stops. */
async function exportVex(h: Harness, url: string) {
  const t0 = performance.now();
  const r = await fetch(`${h.baseUrl}${url}`, { headers: { Authorization: `Bearer ${h.key}` } });
  const text = await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${text.slice(0, 500)}`);
  return {
    ms,
    doc: JSON.parse(text) as Record<string, unknown>,
    bytes: text.length,
    timing: r.headers.get('server-timing'),
  };
}

/** Each export holds the 2,000 findings, each with the analysis the imports gave its alert. */
function checkExport(doc: Record<string, unknown>, format: 'cyclonedx' | 'openvex'): void {
  if (format === 'cyclonedx') {
    const vulns = (doc.vulnerabilities ?? []) as Array<{ analysis?: { state?: string } }>;
    const analysed = vulns.filter((v) => v.analysis?.state).length;
    if (vulns.length !== ALERTS || analysed !== ALERTS)
      throw new Error(`CycloneDX VEX: ${vulns.length} vulnerabilities, ${analysed} with an analysis`);
  } else {
    const statements = (doc.statements ?? []) as unknown[];
    if (statements.length !== ALERTS) throw new Error(`OpenVEX: ${statements.length} statements`);
  }
}

/** One request's Server-Timing phases. */
const phasesOf = (p: Map<string, number>) => [...p].map(([k, v]) => `${k} ${fmt(v)}`).join(', ');

/** The phases of several requests: median (min-max) of each. */
const phaseLine = (runs: Array<Map<string, number>>) =>
  [...new Set(runs.flatMap((p) => [...p.keys()]))]
    .map((k) => {
      const v = runs.map((p) => p.get(k) ?? 0);
      return `${k} ${fmt(median(v))} (${fmt(Math.min(...v))}-${fmt(Math.max(...v))})`;
    })
    .join(', ');

export async function vexBench(h: Harness, reps = 5, exports = 100): Promise<void> {
  await h.importAdvisories([syntheticAdvisories(ALERTS)]);
  // A tracked scan (default branch) of bench-0 … bench-9999 at 1.0.0: 2,000 findings, 2,000 open alerts.
  await uploadToMoved(h, JSON.stringify(namedSnapshot(PACKAGES, 'vex-bench', 'bench')), true);
  const scan = await h.store.c.scans.findOne({}, { sort: { startedAt: -1 } });
  if (!scan?.findings) throw new Error('no completed scan');
  const { _id: scanId, projectId } = scan;
  const findings = Object.values(scan.findings).reduce((a, b) => a + b, 0);
  if (findings !== ALERTS) throw new Error(`scan ${scanId}: ${findings} findings, not ${ALERTS}`);

  const docs = { openvex: openvexDocument, cyclonedx: cyclonedxDocument } as const;
  const sizes = new Map<string, number>();
  for (const [format, make] of Object.entries(docs)) {
    const body = make(0);
    sizes.set(format, body.length);
    if (body.length > MAX_BYTES) throw new Error(`the ${format} document is ${body.length} bytes, over the limit`);
  }

  // The first import of each format: the first writes 2,000 new analyses; each compiles its format's schema.
  await quiesce(h);
  let run = 0;
  const first = new Map<string, { ms: number; phases: Map<string, number> }>();
  for (const format of ['openvex', 'cyclonedx'] as const) {
    const r = await importVex(h, projectId, docs[format](++run));
    checkImport(r.answer, `first ${format} import`);
    first.set(format, r);
    console.log(
      `  first ${format} import: ${fmt(r.ms)} (${phasesOf(r.phases)}; answer ${(r.bytes / 1e6).toFixed(2)} MB)`,
    );
  }
  const times = { openvex: [] as number[], cyclonedx: [] as number[] };
  const phases = { openvex: [] as Array<Map<string, number>>, cyclonedx: [] as Array<Map<string, number>> };
  for (let i = 0; i < reps; i++)
    for (const format of ['openvex', 'cyclonedx'] as const) {
      const body = docs[format](++run); // built before the clock starts
      const r = await importVex(h, projectId, body);
      checkImport(r.answer, `${format} import ${i + 1}`);
      times[format].push(r.ms);
      phases[format].push(r.phases);
      const total = [...r.phases.values()].reduce((a, b) => a + b, 0);
      console.log(
        `  ${format} import ${i + 1}: ${fmt(r.ms)} (${phasesOf(r.phases)}; after the marks ${fmt(r.ms - total)})`,
      );
    }

  console.log(
    `\nVEX import, 10,000 statements against ${N} alerts (${N} applied and changed each run; ${reps} runs each, alternating)`,
  );
  for (const format of ['openvex', 'cyclonedx'] as const) {
    const label = format === 'openvex' ? 'OpenVEX 0.2.0' : 'CycloneDX 1.6';
    const mb = ((sizes.get(format) ?? 0) / 1e6).toFixed(1);
    row(
      `${label} (${mb} MB): median / max`,
      `${fmt(median(times[format]))} / ${fmt(Math.max(...times[format]))}`,
      '≤ 5 s',
    );
    row(
      format === 'openvex'
        ? '  the first import (2,000 new analyses; schema compiled)'
        : '  the first CycloneDX import (schema compiled)',
      fmt(first.get(format)!.ms),
    );
    console.log(`  Server-Timing, median (min-max): ${phaseLine(phases[format])}`);
  }

  // Exports, the 2,000 alerts analysed by the last import.
  await quiesce(h);
  console.log('');
  for (const [format, url] of [
    ['cyclonedx', `/v1/scans/${scanId}/vex`],
    ['openvex', `/v1/scans/${scanId}/vex?format=openvex`],
  ] as const) {
    const warm = await exportVex(h, url);
    checkExport(warm.doc, format);
    const lat: number[] = [];
    for (let i = 0; i < exports; i++) {
      const r = await exportVex(h, url);
      checkExport(r.doc, format);
      lat.push(r.ms);
    }
    const label = format === 'openvex' ? '?format=openvex' : '(CycloneDX 1.6)';
    row(
      `GET /v1/scans/{id}/vex ${label}, ${N} findings: p50 / p99`,
      `${fmt(median(lat))} / ${fmt(percentile(lat, 99))}`,
      'p99 ≤ 300 ms',
    );
    console.log(
      `  (${exports} requests after a first one of ${fmt(warm.ms)}; ${(warm.bytes / 1e6).toFixed(2)} MB${warm.timing ? `; Server-Timing ${warm.timing}` : ''})`,
    );
  }
}
