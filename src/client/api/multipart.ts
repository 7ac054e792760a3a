// Snapshots above the single-document limits go up as a multipart upload: a create body (the
// snapshot without its graph), the graph's items in parts of at most 10 MB, sent a few at a time, then the
// completion, which answers the scan. Only v2 snapshots: a v1 snapshot above the limits stays an input error.
// The limits are copied here, not imported: the client depends on the published contract, not on server code.
import { nodeCrypto } from '../builtins';
import { InputError, ServiceError } from '../errors';
import type { Snapshot } from '../../shared/types';
import type { Http } from './http';
import type { ApiScan } from './types';

/** The single-document limits (the server checks them in src/domain/snapshot/limits.ts and graph-checks.ts). */
export const SINGLE_LIMITS = {
  bodyBytes: 10 * 1024 * 1024,
  nodes: 10_000,
  modules: 1_000,
  roots: 1_000,
  vertices: 100_000,
  edges: 500_000,
  attributionWork: 50_000_000,
} as const;

/** What one multipart upload may hold. */
export const MULTIPART_BUDGETS = {
  nodes: 100_000,
  modules: 10_000,
  roots: 10_000,
  vertices: 1_000_000,
  edges: 5_000_000,
  parts: 1_000,
  partBytes: 10 * 1024 * 1024,
} as const;

/** Parts sent at once. */
export const PART_CONCURRENCY = 4;

export const UPLOADS_PATH = '/v1/scans/dependency-snapshots/uploads';

export interface Sizes {
  nodes: number;
  modules: number;
  roots: number;
  vertices: number;
  edges: number;
  /** v2: sum over roots of (vertices + edges) × distinct packages. */
  attributionWork: number;
}

/** Counted sizes as the service counts them: edges are v1's flat dependencies, v2's resolution vertex dependencies. */
export function sizesOf(s: Snapshot): Sizes {
  const out: Sizes = {
    nodes: s.nodes.length,
    modules: s.modules?.length ?? 0,
    roots: s.roots.length,
    vertices: 0,
    edges: 0,
    attributionWork: 0,
  };
  if (s.schemaVersion === 1) {
    for (const r of s.roots) out.edges += r.dependencies.length;
    for (const n of s.nodes) out.edges += n.dependencies.length;
    return out;
  }
  for (const r of s.roots) {
    const vertices = r.resolution?.vertices ?? [];
    let edges = 0;
    const packages = new Set<string>();
    for (const v of vertices) {
      edges += v.dependencies.length;
      if (v.node != null) packages.add(v.node);
    }
    out.vertices += vertices.length;
    out.edges += edges;
    out.attributionWork += (vertices.length + edges) * packages.size;
  }
  return out;
}

/**
 * Why a snapshot cannot go as one document, or null when it can. `bodyBytes` is its serialized size. Hops are left
 * out: their limit is the same for both ways of uploading.
 */
export function overSingleLimits(
  s: Snapshot,
  bodyBytes: number,
  limits: typeof SINGLE_LIMITS = SINGLE_LIMITS,
): string | null {
  const z = sizesOf(s);
  const over: string[] = [];
  if (bodyBytes > limits.bodyBytes) over.push(`${bodyBytes} bytes (limit ${limits.bodyBytes})`);
  if (z.nodes > limits.nodes) over.push(`${z.nodes} packages (limit ${limits.nodes})`);
  if (z.modules > limits.modules) over.push(`${z.modules} modules (limit ${limits.modules})`);
  if (z.roots > limits.roots) over.push(`${z.roots} roots (limit ${limits.roots})`);
  // (one resolution's 100,000 vertices are within the total's 100,000: never the only limit crossed)
  if (z.vertices > limits.vertices) over.push(`${z.vertices} vertices (limit ${limits.vertices})`);
  if (z.edges > limits.edges) over.push(`${z.edges} edges (limit ${limits.edges})`);
  if (s.schemaVersion === 2 && z.attributionWork > limits.attributionWork)
    over.push(`attribution work ${z.attributionWork} (limit ${limits.attributionWork})`);
  return over.length ? over.join(', ') : null;
}

export interface Split {
  /** The create body: the snapshot's fields but its graph, and the number of parts. */
  create: string;
  /** Part bodies `{modules?, nodes?, roots?}`, in order: together, the graph's items in document order. */
  parts: string[];
}

const KINDS = ['modules', 'nodes', 'roots'] as const;

/**
 * Cuts a v2 snapshot into a create body and parts of at most `maxPartBytes` (UTF-8) each, items in document order
 * (modules, then nodes, then roots), filling each part as far as it goes. Each item is serialized once. An item that
 * cannot fit in a part by itself (a root whose resolution is over 10 MB of JSON) cannot be sent: InputError, as is
 * a snapshot over the multipart budgets.
 */
export function splitSnapshot(s: Snapshot, maxPartBytes: number = MULTIPART_BUDGETS.partBytes): Split {
  if (s.schemaVersion !== 2) throw new InputError('only a snapshot v2 can be sent as a multipart upload');
  const z = sizesOf(s);
  const over = (['nodes', 'modules', 'roots', 'vertices', 'edges'] as const).filter((k) => z[k] > MULTIPART_BUDGETS[k]);
  if (over.length)
    throw new InputError(
      `the snapshot is over the multipart upload's budgets: ${over.map((k) => `${z[k]} ${k} (budget ${MULTIPART_BUDGETS[k]})`).join(', ')}`,
    );
  const parts: string[] = [];
  let current: Partial<Record<(typeof KINDS)[number], string[]>> = {};
  let bytes = 2; // {}
  const flush = () => {
    parts.push(
      `{${KINDS.filter((k) => current[k])
        .map((k) => `"${k}":[${current[k]!.join(',')}]`)
        .join(',')}}`,
    );
    current = {};
    bytes = 2;
  };
  for (const kind of KINDS) {
    const items = (s[kind] ?? []) as unknown[];
    for (let i = 0; i < items.length; i++) {
      const json = JSON.stringify(items[i]);
      const size = Buffer.byteLength(json, 'utf8');
      // What adding it costs: the item, plus a comma after an item of its kind or the kind's own `"kind":[]` (and a
      // comma after another kind).
      const cost = (list: string[] | undefined, partBytes: number) =>
        size + (list ? 1 : Buffer.byteLength(`"${kind}":[]`) + (partBytes > 2 ? 1 : 0));
      if (bytes + cost(current[kind], bytes) > maxPartBytes && bytes > 2) flush();
      if (bytes + cost(current[kind], bytes) > maxPartBytes) {
        throw new InputError(
          `/${kind}/${i} alone is ${size} bytes of JSON: more than a part of a multipart upload may hold (${maxPartBytes} bytes)`,
        );
      }
      bytes += cost(current[kind], bytes);
      (current[kind] ??= []).push(json);
    }
  }
  if (bytes > 2 || parts.length === 0) flush();
  if (parts.length > MULTIPART_BUDGETS.parts)
    throw new InputError(
      `the snapshot needs ${parts.length} parts, over the multipart upload's budget of ${MULTIPART_BUDGETS.parts}`,
    );
  const { modules: _m, nodes: _n, roots: _r, ...rest } = s;
  return { create: JSON.stringify({ ...rest, parts: parts.length }), parts };
}

/**
 * The first-party client's key is the SHA-256 hex of the create body followed by every part body in
 * order, so that two snapshots with the same create body (their graphs differ) never share a key. --rescan adds the
 * time, as for a single upload.
 */
export function multipartKey(split: Split, rescanAt?: Date): string {
  const h = nodeCrypto().createHash('sha256').update(split.create, 'utf8');
  for (const p of split.parts) h.update(p, 'utf8');
  if (rescanAt) h.update(`\nrescan ${rescanAt.toISOString()}`);
  return h.digest('hex');
}

export interface ApiUpload {
  id: string;
  project: string;
  status: 'open' | 'completed' | 'rejected' | 'expired';
  parts: number;
  received: number[];
  expiresAt: string;
  scanId?: string | null;
}

/** Runs `task` over `items`, `limit` at a time; the first failure stops new tasks and is rethrown once all settled. */
async function pool<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (!failed && next < items.length) {
        const item = items[next++];
        try {
          await task(item);
        } catch (err) {
          failed ??= { err };
        }
      }
    }),
  );
  if (failed) throw failed.err;
}

export interface MultipartOptions {
  concurrency?: number;
  /** Told after each part (the command shows progress on a terminal). */
  onPart?: (sent: number, total: number) => void;
}

/**
 * Create (idempotent), the parts the upload does not hold yet (a replayed key may find some or all received), then
 * the completion. Refusals of the snapshot (413, 422) are input errors (exit 2), as for a single upload.
 */
export async function uploadMultipart(
  http: Http,
  split: Split,
  key: string,
  opts: MultipartOptions = {},
): Promise<{ scan: ApiScan; replay: boolean; upload: ApiUpload }> {
  const inputErrorStatuses = [413, 422];
  const created = await http.request<{ upload: ApiUpload }>('POST', UPLOADS_PATH, {
    body: split.create,
    headers: { 'idempotency-key': key },
    attemptTimeoutMs: 120_000,
    inputErrorStatuses,
  });
  const upload = created.body.upload;
  if (!upload || typeof upload.id !== 'string')
    throw new ServiceError(`POST ${UPLOADS_PATH}: answered without an upload`);
  const base = `${UPLOADS_PATH}/${encodeURIComponent(upload.id)}`;
  if (upload.status === 'open') {
    const have = new Set(upload.received ?? []);
    const todo = split.parts.map((_, i) => i + 1).filter((n) => !have.has(n));
    let sent = split.parts.length - todo.length;
    await pool(todo, opts.concurrency ?? PART_CONCURRENCY, async (n) => {
      // 200 (the same bytes already there, from a retried attempt) and 201 alike
      await http.request('PUT', `${base}/parts/${n}`, {
        body: split.parts[n - 1],
        attemptTimeoutMs: 120_000,
        inputErrorStatuses,
      });
      opts.onPart?.(++sent, split.parts.length);
    });
  }
  // A rejected upload (a replayed key) gets its refusal again from the completion: an input error.
  const done = await http.request<ApiScan>('POST', `${base}/completion`, {
    attemptTimeoutMs: 300_000,
    inputErrorStatuses,
  });
  // A replay: the key found an earlier upload, and its completion had been made (a retried completion alone is not).
  return { scan: done.body, replay: created.status === 200 && done.status === 200, upload };
}
