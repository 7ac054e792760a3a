// Waiting for a scan: held answers with ?wait=, the 5 s polling fallback for a server that answers
// at once, the deadline; the idempotency key; every page of findings.
import { createHash } from 'node:crypto';
import type { Http } from '../../../src/client/api/http';
import { allFindings, idempotencyKey, waitForScan } from '../../../src/client/api/scans';
import { ServiceError } from '../../../src/client/errors';

interface Call {
  path: string;
  at: number;
}

/** A fake service on a fake clock: each GET answers the next status after `holdMs` of simulated time. */
function fakeService(statuses: string[], holdMs: (wait: number) => number, deadlineMs = 600_000) {
  let clock = 0;
  const calls: Call[] = [];
  const sleeps: number[] = [];
  const http = {
    remaining: () => Math.max(0, deadlineMs - clock),
    request: async (_method: string, path: string) => {
      calls.push({ path, at: clock });
      const wait = Number(/wait=(\d+)/.exec(path)?.[1] ?? 0);
      clock += holdMs(wait);
      const status = statuses.length > 1 ? statuses.shift()! : statuses[0];
      return { status: 200, headers: new Headers(), body: { id: 'scn_1', status } };
    },
  } as unknown as Http;
  const opts = { now: () => clock, sleep: async (ms: number) => void (sleeps.push(ms), (clock += ms)) };
  return { http, calls, sleeps, opts };
}

test('a server that holds the answer: one long wait per round, no sleeping between them', async () => {
  const s = fakeService(['queued', 'running', 'completed'], (wait) => wait * 1000);
  const scan = await waitForScan(s.http, 'scn_1', s.opts);
  expect(scan.status).toBe('completed');
  expect(s.calls.map((c) => c.path)).toEqual([
    '/v1/scans/scn_1?wait=60',
    '/v1/scans/scn_1?wait=60',
    '/v1/scans/scn_1?wait=60',
  ]);
  expect(s.sleeps).toEqual([]);
});

test('a held answer that ends early because the scan finished is not mistaken for a server ignoring wait', async () => {
  const s = fakeService(['completed'], () => 1200);
  expect((await waitForScan(s.http, 'scn_1', s.opts)).status).toBe('completed');
  expect(s.calls).toHaveLength(1);
});

test('a server that ignores ?wait= is polled every 5 s from then on', async () => {
  const s = fakeService(['queued', 'running', 'running', 'completed'], () => 20);
  const scan = await waitForScan(s.http, 'scn_1', s.opts);
  expect(scan.status).toBe('completed');
  expect(s.calls.map((c) => c.path)).toEqual([
    '/v1/scans/scn_1?wait=60',
    '/v1/scans/scn_1',
    '/v1/scans/scn_1',
    '/v1/scans/scn_1',
  ]);
  expect(s.sleeps).toEqual([5000, 5000, 5000]);
});

test('the wait asked never exceeds what is left of the timeout, and the timeout ends the wait (exit 3)', async () => {
  const s = fakeService(['running'], (wait) => wait * 1000, 90_000);
  const e = await waitForScan(s.http, 'scn_1', s.opts).catch((x) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect(e.message).toMatch(/scan scn_1: not finished before the timeout/);
  expect(s.calls.map((c) => c.path)).toEqual(['/v1/scans/scn_1?wait=60', '/v1/scans/scn_1?wait=30']);
});

test('progress is reported after each answer with the elapsed time', async () => {
  const s = fakeService(['queued', 'completed'], (wait) => wait * 1000);
  const seen: string[] = [];
  await waitForScan(s.http, 'scn_1', { ...s.opts, onProgress: (scan, ms) => seen.push(`${scan.status}@${ms}`) });
  expect(seen).toEqual(['queued@60000', 'completed@120000']);
});

test('idempotency key: SHA-256 hex of the exact body bytes; --rescan makes a new key for the same body', () => {
  const body = '{"schemaVersion":1,"project":"p","ü":"é"}';
  expect(idempotencyKey(body)).toBe(createHash('sha256').update(Buffer.from(body, 'utf8')).digest('hex'));
  const a = idempotencyKey(body, new Date('2026-11-23T10:00:00Z'));
  const b = idempotencyKey(body, new Date('2026-11-23T10:00:01Z'));
  expect(a).toMatch(/^[0-9a-f]{64}$/);
  expect(new Set([idempotencyKey(body), a, b]).size).toBe(3);
});

test('every page of findings is read, in order, with the view and the cursor', async () => {
  const paths: string[] = [];
  const pages: Record<string, { findings: Array<{ id: string }>; nextCursor: string | null }> = {
    '': { findings: [{ id: 'fnd_1' }, { id: 'fnd_2' }], nextCursor: 'c1' },
    c1: { findings: [{ id: 'fnd_3' }], nextCursor: 'c2' },
    c2: { findings: [], nextCursor: null },
  };
  const http = {
    request: async (_m: string, path: string) => {
      paths.push(path);
      const cursor = new URL(path, 'http://x').searchParams.get('cursor') ?? '';
      return { status: 200, headers: new Headers(), body: pages[cursor] };
    },
  } as unknown as Http;
  const found = await allFindings(http, 'scn_1', 'affected');
  expect(found.map((f) => f.id)).toEqual(['fnd_1', 'fnd_2', 'fnd_3']);
  expect(paths).toEqual([
    '/v1/scans/scn_1/findings?limit=200&attribution=affected',
    '/v1/scans/scn_1/findings?limit=200&attribution=affected&cursor=c1',
    '/v1/scans/scn_1/findings?limit=200&attribution=affected&cursor=c2',
  ]);
});

test('with less than a second left the scan is read without wait and the run sleeps out the rest, never spinning', async () => {
  const s = fakeService(['running'], () => 10, 800);
  const e = await waitForScan(s.http, 'scn_1', s.opts).catch((x) => x);
  expect(e).toBeInstanceOf(ServiceError);
  expect(s.calls.map((c) => c.path)).toEqual(['/v1/scans/scn_1']);
  expect(s.sleeps).toEqual([790]);
});
