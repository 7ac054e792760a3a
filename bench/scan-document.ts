// `npm run bench -- scan-document`: what a scan list group costs to read, per stored form of a scan, on the local
// database (FerretDB decodes every field of every document it returns, and a projection does not spare it that).
// The earlier form packed everything but the list fields into two Binary values; today's keeps the scan's project,
// target, ecosystem, status, times, failure reason and counts as plain top-level fields for operators' queries
// (src/storage/scan-document.ts). Groups of 50 scans, 400 reads of each form, alternating.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Binary } from 'mongodb';
import { startLocalInfra } from '../src/infra/local';
import { redactUri } from '../src/infra/private';
import type { LegacyStoredScanDoc, ScanDoc } from '../src/storage/documents/scans';
import { connectStore } from '../src/storage/mongo';
import { pack, unpack } from '../src/storage/scan-document';
import { fmt, median, percentile, row } from './stats';

/** How versions before the top-level fields stored a scan. */
function earlierForm(s: ScanDoc): LegacyStoredScanDoc {
  const bin = (value: unknown) => new Binary(Buffer.from(JSON.stringify(value)));
  const { target, ecosystem, schemaVersion, nodeCount, graphSize, bodyBytes, metadata } = s;
  const { finishedAt, failureReason, failureMessage, findings, suppressed, advisoryGeneration } = s;
  const { unmatchedVersions, resultChunks, findingCount, moduleCount } = s;
  return {
    ...{ _id: s._id, orgId: s.orgId, projectId: s.projectId, status: s.status },
    ...{ orgBucket: s.orgBucket, projectBucket: s.projectBucket, startedAt: s.startedAt },
    v: bin({ target, ecosystem, schemaVersion, nodeCount, graphSize, bodyBytes, metadata }),
    r: bin({
      finishedAt,
      failureReason,
      failureMessage,
      findings,
      suppressed,
      advisoryGeneration,
      unmatchedVersions,
      resultChunks,
      findingCount,
      moduleCount,
    }),
  };
}

/** How versions before the top-level fields read a scan back: both Binary values parsed, the rest as stored. */
function earlierUnpack(d: LegacyStoredScanDoc): ScanDoc {
  const parse = (b: Binary) => JSON.parse(Buffer.from(b.buffer).toString('utf8'));
  const outcome = parse(d.r);
  return {
    ...parse(d.v),
    ...outcome,
    ...d,
    finishedAt: outcome.finishedAt ? new Date(outcome.finishedAt) : null,
  } as ScanDoc;
}

export async function scanDocumentBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-bench-docs-'));
  const infra = await startLocalInfra({
    dataDir,
    log: { info: () => undefined, warn: (m: string) => console.error(redactUri(m)) } as never,
  });
  const store = await connectStore(infra.mongoUri, 'bench_scan_document');
  try {
    const GROUPS = 20;
    const SIZE = 50;
    const scans: ScanDoc[] = [];
    for (let g = 0; g < GROUPS; g++) {
      for (let k = 0; k < SIZE; k++) {
        const i = g * SIZE + k;
        const at = 1.7e12 + i * 1000;
        scans.push({
          ...{
            _id: `scn_${String(i).padStart(8, '0')}`,
            orgId: 'org_bench',
            projectId: `prj_${i % 5}`,
            target: `project-${i % 5}`,
          },
          ...{
            ecosystem: 'javascript',
            schemaVersion: 2,
            status: 'completed',
            startedAt: new Date(at),
            finishedAt: new Date(at + 500),
          },
          ...{
            failureReason: null,
            findings: { critical: 1, high: 2, medium: 3, low: 4 },
            suppressed: 1,
            nodeCount: 100,
            graphSize: 300,
          },
          ...{
            bodyBytes: 5000,
            metadata: { commit: 'abc123', ref: 'main' },
            orgBucket: g,
            projectBucket: g,
            advisoryGeneration: 'gen_1',
          },
          ...{ unmatchedVersions: 0, resultChunks: 1, findingCount: 10, moduleCount: 3 },
        });
      }
    }
    const forms = { earlier: store.db.collection('scansEarlier'), today: store.db.collection('scansToday') };
    await forms.earlier.insertMany(scans.map(earlierForm) as never[]);
    await forms.today.insertMany(scans.map(pack) as never[]);
    const ms: Record<keyof typeof forms, number[]> = { earlier: [], today: [] };
    for (let r = 0; r < 400; r++) {
      for (const form of r % 2 ? (['earlier', 'today'] as const) : (['today', 'earlier'] as const)) {
        const t0 = performance.now();
        const docs = await forms[form].find({ orgId: 'org_bench', orgBucket: r % GROUPS }).toArray();
        if (form === 'today') docs.map((d) => unpack(d as never));
        else docs.map((d) => earlierUnpack(d as never));
        ms[form].push(performance.now() - t0);
      }
    }
    const show = (v: number[]) => `${fmt(median(v))} / ${fmt(percentile(v, 90))}`;
    row(`read of a list group of ${SIZE} scans, earlier form (v, r): median / p90`, show(ms.earlier));
    const ratio = (median(ms.today) / median(ms.earlier)).toFixed(2);
    row(
      `the same, today's form (plain fields, details, outcome): median / p90`,
      `${show(ms.today)} (${ratio}× the earlier)`,
    );
  } finally {
    await store.close();
    await infra.stop();
  }
}
