// The scan endpoints as the client uses them: upload (idempotent), wait for a terminal status with ?wait= (falling
// back to polling every 5 s when the server does not hold the answer), and read every page of findings.
import { nodeCrypto } from '../builtins';
import { ServiceError } from '../errors';
import type { Http } from './http';
import type { CompareResult, ComparePart, ComparePartPage } from '../../shared/compare';
import type { ApiFinding, ApiScan } from './types';

/** The key is the SHA-256 hex of the exact body bytes; --rescan adds the time for a new scan. */
export function idempotencyKey(body: string, rescanAt?: Date): string {
  const h = nodeCrypto().createHash('sha256').update(body, 'utf8');
  if (rescanAt) h.update(`\nrescan ${rescanAt.toISOString()}`);
  return h.digest('hex');
}

export async function uploadSnapshot(
  http: Http,
  body: string,
  key: string,
): Promise<{ scan: ApiScan; replay: boolean }> {
  const res = await http.request<ApiScan>('POST', '/v1/scans/dependency-snapshots', {
    body,
    headers: { 'idempotency-key': key },
    // An upload of up to 10 MB over a slow link gets longer than a read.
    attemptTimeoutMs: 120_000,
    inputErrorStatuses: [413, 422],
  });
  return { scan: res.body, replay: res.status === 200 };
}

const terminal = (s: ApiScan) => s.status === 'completed' || s.status === 'failed';
/** The longest hold the API grants (wait is 0..60). */
export const MAX_WAIT_S = 60;
/** The API's polling guidance, used when the server answers at once. */
export const POLL_INTERVAL_MS = 5000;

export interface WaitOptions {
  onProgress?: (scan: ApiScan, elapsedMs: number) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Holds on GET /v1/scans/{id}?wait=S until the scan is terminal. A server that answers a non-terminal scan well
 * before S (one without ?wait=, or a proxy that cuts long requests) is polled every 5 s from then on.
 */
export async function waitForScan(http: Http, id: string, opts: WaitOptions = {}): Promise<ApiScan> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const started = now();
  let polling = false;
  for (;;) {
    const left = http.remaining();
    if (left <= 0) throw new ServiceError(`scan ${id}: not finished before the timeout`);
    const wait = polling ? 0 : Math.min(MAX_WAIT_S, Math.floor(left / 1000));
    const asked = now();
    const res = await http.request<ApiScan>(
      'GET',
      `/v1/scans/${encodeURIComponent(id)}${wait > 0 ? `?wait=${wait}` : ''}`,
      {
        attemptTimeoutMs: (wait + 30) * 1000,
      },
    );
    const scan = res.body;
    opts.onProgress?.(scan, now() - started);
    if (terminal(scan)) return scan;
    // Held for less than half of what was asked: the server did not hold it, so poll instead of hammering it.
    if (!polling && now() - asked < (wait * 1000) / 2) polling = true;
    if (polling || wait === 0) {
      const pause = Math.min(POLL_INTERVAL_MS, http.remaining());
      if (pause <= 0) throw new ServiceError(`scan ${id}: not finished before the timeout`);
      await sleep(pause);
    }
  }
}

/** Every unsuppressed finding of a scan (or those `more` query parameters choose), all pages, in the API's order. */
export async function allFindings(
  http: Http,
  id: string,
  view: 'introduced' | 'affected',
  more: Record<string, string> = {},
): Promise<ApiFinding[]> {
  const out: ApiFinding[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ limit: '200', attribution: view, ...more });
    if (cursor) q.set('cursor', cursor);
    const res: { body: { findings: ApiFinding[]; nextCursor: string | null } } = await http.request(
      'GET',
      `/v1/scans/${encodeURIComponent(id)}/findings?${q}`,
    );
    out.push(...res.body.findings);
    cursor = res.body.nextCursor;
  } while (cursor);
  return out;
}

/**
 * GET /v1/scans/{id}/compare, every part read whole: the answer carries each part's first items, and a part cut there
 * (above 2,000 findings or 10,000 dependency changes) is read on page by page.
 */
export async function compareScan(http: Http, id: string, baseline: string): Promise<CompareResult> {
  const path = `/v1/scans/${encodeURIComponent(id)}/compare`;
  const res: { body: CompareResult } = await http.request('GET', `${path}?${new URLSearchParams({ baseline })}`);
  const out = res.body;
  for (const part of Object.keys(out.parts) as ComparePart[]) {
    let cursor = out.parts[part].nextCursor;
    const [kind, name] = part.split('.') as ['findings' | 'dependencies', string];
    const list = (kind === 'findings' ? out.findings : out.dependencies)[name as never] as unknown[];
    while (cursor) {
      // The baseline the answer chose: the cursor is bound to it (an auto baseline may move meanwhile).
      const q = new URLSearchParams({ baseline: out.baseline?.id ?? baseline, part, limit: '200', cursor });
      const page: { body: ComparePartPage } = await http.request('GET', `${path}?${q}`);
      list.push(...page.body.items);
      cursor = page.body.nextCursor;
    }
  }
  return out;
}
