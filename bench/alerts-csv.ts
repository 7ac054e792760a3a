// The alerts CSV export (GET /v1/alerts/export.csv, docs/alerts.md "CSV export") on the local stack, beside its
// targets: an organization of 100 projects × 500 open alerts (50,000, as the alerts bench seeds them) exported with
// 12,500, 25,000 and 50,000 records, times to the first and to the last byte; the API process's resident memory
// sampled every 10 ms while it streams, against its level before (the growth holds the garbage of the records made,
// which V8 collects lazily on a heap holding the organization's index; it is not kept: measured apart, with the API's
// old space capped at 300 MB, thirty 50,000-record exports in a row kept it between 331 and 374 MB); a reader that
// pauses 3 s after 1 MB (the service stops writing: the memory stays put); then 101 projects more (100,500 alerts):
// the file holds 100,000 records and says X-Truncated: true. Every answer is checked (status, header row, record
// count), so that a figure cannot come from an export that did nothing.
// Runs on its own: `npm run -s build && node dist/bench/alerts-csv.js` (a few minutes).
import fs from 'node:fs';
import { seedAlerts } from './alerts';
import { startHarness, type Harness } from './harness';
import { fmt, median, row } from './stats';

const MB = 1024 * 1024;

function apiPid(h: Harness): number {
  const pid = [...h.roles].find(([, role]) => role === 'api')?.[0];
  if (pid === undefined) throw new Error('no API process');
  return pid;
}

const rss = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

interface Export {
  /** To the first byte of the body, and to the last. */
  firstMs: number;
  ms: number;
  bytes: number;
  records: number;
  truncated: string | null;
  rssBefore: number;
  rssPeak: number;
  /** With a pause: the API's memory when the reader stopped, and its largest growth while the reader waited. */
  paused?: { at: number; growth: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One export read to its end without keeping it: times, size, records (CRLFs less the header row), API memory. With
 * `pause`: the reader stops for `pause.ms` once it has `pause.afterBytes` (the service should then stop writing).
 */
async function exportOnce(h: Harness, query: string, pause?: { afterBytes: number; ms: number }): Promise<Export> {
  const pid = apiPid(h);
  const rssBefore = rss(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rss(pid))), 10);
  try {
    const t0 = performance.now();
    const res = await fetch(`${h.baseUrl}/v1/alerts/export.csv${query ? `?${query}` : ''}`, {
      headers: { Authorization: `Bearer ${h.key}` },
    });
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    if (res.headers.get('content-type') !== 'text/csv; charset=utf-8') throw new Error('not text/csv');
    let firstMs = 0;
    let bytes = 0;
    let crlf = 0;
    let lastCr = false;
    let head = '';
    let paused: Export['paused'];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (!bytes) firstMs = performance.now() - t0;
      if (head.length < 16) head += Buffer.from(chunk.subarray(0, 16)).toString();
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) {
        if (lastCr && chunk[i] === 10) crlf++;
        lastCr = chunk[i] === 13;
      }
      if (pause && !paused && bytes >= pause.afterBytes) {
        const at = rss(pid);
        let top = at;
        for (let waited = 0; waited < pause.ms; waited += 10) {
          await sleep(10);
          top = Math.max(top, rss(pid));
        }
        paused = { at, growth: top - at };
      }
    }
    const ms = performance.now() - t0;
    rssPeak = Math.max(rssPeak, rss(pid));
    if (!head.startsWith('id,project,')) throw new Error(`no header row: ${JSON.stringify(head)}`);
    // the synthetic alerts hold no CR or LF in any cell: every CRLF ends a record
    return {
      firstMs,
      ms,
      bytes,
      records: crlf - 1,
      truncated: res.headers.get('x-truncated'),
      rssBefore,
      rssPeak,
      paused,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** The API's resident memory before each run and its growth while streaming (median, largest). */
function memory(runs: Export[]): void {
  const growth = runs.map((r) => r.rssPeak - r.rssBefore);
  row(
    '  API resident memory before; growth while streaming (median, max)',
    `${(median(runs.map((r) => r.rssBefore)) / MB).toFixed(0)} MB; +${(median(growth) / MB).toFixed(1)}, +${(Math.max(...growth) / MB).toFixed(1)} MB`,
  );
}

export async function csvFigures(
  h: Harness,
  label: string,
  query: string,
  want: number,
  reps: number,
): Promise<Export[]> {
  const runs: Export[] = [];
  for (let i = 0; i < reps; i++) {
    const r = await exportOnce(h, query);
    if (r.records !== want) throw new Error(`${label}: ${r.records} records, expected ${want}`);
    if (r.truncated !== 'false') throw new Error(`${label}: X-Truncated ${r.truncated}`);
    runs.push(r);
  }
  row(
    `${label}: ${want.toLocaleString('en')} records, ${(runs[0].bytes / MB).toFixed(1)} MB`,
    `${fmt(median(runs.map((r) => r.firstMs)))} / ${fmt(median(runs.map((r) => r.ms)))}`,
    want >= 50_000 ? '≤ 5 s' : undefined,
  );
  memory(runs);
  return runs;
}

export async function alertsCsvBench(h: Harness, reps = 5): Promise<void> {
  await seedAlerts(h, 100, 500);
  await h.get('/v1/alerts?limit=1'); // the API's index of the organization's alerts, built once
  await exportOnce(h, ''); // and warm
  console.log(
    '\nGET /v1/alerts/export.csv over 100 projects × 500 open alerts (median of 5: to the first byte / to the last)',
  );
  await csvFigures(h, 'severity=critical (exact)', 'severity=critical&severityMode=exact', 12_500, reps);
  await csvFigures(h, 'severity=high (at least)', 'severity=high', 25_000, reps);
  await csvFigures(h, 'every alert (default query, sort=risk)', '', 50_000, reps);
  await csvFigures(h, 'every alert, sort=firstSeen', 'sort=firstSeen', 50_000, reps);
  // A reader that stops after 1 MB for 3 s: the service stops writing (the socket's buffers full, the stream no
  // longer pulls records), so its memory does not grow while it waits.
  const slow = await exportOnce(h, '', { afterBytes: MB, ms: 3000 });
  if (slow.records !== 50_000 || !slow.paused) throw new Error(`paused reader: ${slow.records} records`);
  row(
    '  a reader pausing 3 s after 1 MB: API memory then; growth in the pause',
    `${(slow.paused.at / MB).toFixed(0)} MB; +${(slow.paused.growth / MB).toFixed(1)} MB`,
  );

  await seedAlerts(h, 101, 500, 100); // 100,500 alerts
  await h.get('/v1/alerts?limit=1'); // the index built again, with them
  await exportOnce(h, '');
  const cuts: Export[] = [];
  for (let i = 0; i < reps; i++) {
    const cut = await exportOnce(h, '');
    if (cut.records !== 100_000 || cut.truncated !== 'true')
      throw new Error(`over the cap: ${cut.records} records, X-Truncated ${cut.truncated}`);
    cuts.push(cut);
  }
  console.log('\n101 projects more (100,500 alerts): the cap');
  row(
    `every alert: 100,000 records, X-Truncated: true, ${(cuts[0].bytes / MB).toFixed(1)} MB`,
    `${fmt(median(cuts.map((r) => r.firstMs)))} / ${fmt(median(cuts.map((r) => r.ms)))}`,
  );
  memory(cuts);
}

async function main(): Promise<void> {
  const h = await startHarness({ nodeArgs: process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) });
  try {
    await alertsCsvBench(h);
  } finally {
    await h.close();
  }
}

if (require.main === module)
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
