// The CI client's multipart upload: which snapshots go in parts (the single-document limits, counted as the service
// counts them), the cut into parts (within the part size, items in document order, accepted and merged back by the
// service's own checks), the idempotency key, and the exchange against a fake service: parts a few at a time,
// retried, those already received skipped, refusals as input errors.
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Http } from '../../../src/client/api/http';
import {
  MULTIPART_BUDGETS,
  SINGLE_LIMITS,
  multipartKey,
  overSingleLimits,
  sizesOf,
  splitSnapshot,
  uploadMultipart,
} from '../../../src/client/api/multipart';
import { InputError, ServiceError } from '../../../src/client/errors';
import { checkPart, checkUploadHeader } from '../../../src/domain/snapshot/parts';
import { mergeUpload } from '../../../src/domain/snapshot/parts-merge';
import { syntheticSnapshot } from '../../../src/domain/snapshot/synthetic';
import type { Snapshot } from '../../../src/shared/types';
import { v2Snapshot } from '../../helpers/v2';
import { prng } from '../domain/parts-helpers';

const bytes = (s: Snapshot) => Buffer.byteLength(JSON.stringify(s));
const v2 = (nodes: number, roots: number, extra: Partial<Parameters<typeof syntheticSnapshot>[0]> = {}) =>
  syntheticSnapshot({ schemaVersion: 2, nodes, roots, depsPerNode: 2, ...extra });

describe('which snapshots go in parts', () => {
  test('within every limit: none', () => {
    const s = v2(200, 5);
    expect(overSingleLimits(s, bytes(s))).toBeNull();
  });

  test.each([
    ['packages', () => v2(10_001, 10), /^10001 packages \(limit 10000\)$/],
    ['modules', () => v2(1_001, 1_001, { modules: 1_001 }), /1001 modules \(limit 1000\), 1001 roots \(limit 1000\)/],
    [
      'vertices (variants of one package)',
      () =>
        v2Snapshot([
          {
            module: ':a',
            context: 'c',
            vertices: [
              ['r', ':a', ...Array.from({ length: 100_000 }, (_, i) => `v${i}`)],
              ...Array.from({ length: 100_000 }, (_, i): [string, string] => [`v${i}`, 'p@1']),
            ],
          },
        ]),
      /^100001 vertices \(limit 100000\)$/,
    ],
  ])('over the %s', (_, make, reason) => {
    const s = make();
    expect(overSingleLimits(s, bytes(s))).toMatch(reason);
  });

  test('vertices, edges, body bytes and attribution work are counted as the service counts them', () => {
    const s = v2(2_000, 2, { packagesPerRoot: 2_000 });
    const z = sizesOf(s);
    let vertices = 0;
    let edges = 0;
    for (const r of s.roots) for (const v of r.resolution!.vertices) (vertices++, (edges += v.dependencies.length));
    expect([z.vertices, z.edges]).toEqual([vertices, edges]);
    const limits = { ...SINGLE_LIMITS, vertices: vertices - 1 };
    expect(overSingleLimits(s, bytes(s), limits)).toBe(`${vertices} vertices (limit ${vertices - 1})`);
    expect(overSingleLimits(s, bytes(s), { ...SINGLE_LIMITS, edges: edges - 1 })).toBe(
      `${edges} edges (limit ${edges - 1})`,
    );
    expect(overSingleLimits(s, SINGLE_LIMITS.bodyBytes + 1)).toBe(
      `${SINGLE_LIMITS.bodyBytes + 1} bytes (limit ${SINGLE_LIMITS.bodyBytes})`,
    );
    // attribution work: per root (vertices + edges) × distinct packages of its resolution
    const work = s.roots.reduce((w, r) => {
      const vs = r.resolution!.vertices;
      return (
        w +
        (vs.length + vs.reduce((e, v) => e + v.dependencies.length, 0)) *
          new Set(vs.filter((v) => v.node).map((v) => v.node)).size
      );
    }, 0);
    expect(z.attributionWork).toBe(work);
    expect(overSingleLimits(s, bytes(s), { ...SINGLE_LIMITS, attributionWork: work - 1 })).toBe(
      `attribution work ${work} (limit ${work - 1})`,
    );
  });

  test('v1 edges are the flat dependencies; v1 has no attribution work', () => {
    const s = syntheticSnapshot({ schemaVersion: 1, nodes: 300, roots: 3, depsPerNode: 2 });
    const z = sizesOf(s);
    expect(z.edges).toBe(
      s.roots.reduce((n, r) => n + r.dependencies.length, 0) + s.nodes.reduce((n, x) => n + x.dependencies.length, 0),
    );
    expect(z.attributionWork).toBe(0);
  });
});

/** What the service does with a split: checks the create body and each part, and merges them back. */
function serverView(split: { create: string; parts: string[] }): Snapshot {
  const header = checkUploadHeader(JSON.parse(split.create));
  expect(header.parts).toBe(split.parts.length);
  const parts = split.parts.map((p, i) => checkPart(i + 1, JSON.parse(p)).part);
  return mergeUpload(header, parts).snapshot;
}

describe('the cut into parts', () => {
  test('parts within the size, items in document order: the service accepts each and merges them back (property)', () => {
    const random = prng(21);
    for (let round = 0; round < 25; round++) {
      const s: Snapshot = {
        ...v2(50 + Math.floor(random() * 400), 1 + Math.floor(random() * 20), {
          modules: 1 + Math.floor(random() * 8),
          seed: round,
        }),
        suppressions: [{ cve: 'CVE-2021-1', reason: 'ré — sûr ✓' }], // multi-byte characters: sizes are UTF-8 bytes
        metadata: { commit: 'abc' },
      };
      const largest = Math.max(
        ...[...(s.modules ?? []), ...s.nodes, ...s.roots].map((x) => Buffer.byteLength(JSON.stringify(x))),
      );
      const max = largest + 20 + Math.floor(random() * 30_000);
      const split = splitSnapshot(s, max);
      for (const p of split.parts) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(max);
      expect(serverView(split)).toEqual(s);
    }
  });

  test('parts are filled as far as they go: no two neighbours would fit in one', () => {
    const s = v2(3_000, 30);
    const max = 40_000;
    const split = splitSnapshot(s, max);
    expect(split.parts.length).toBeGreaterThan(3);
    for (let i = 0; i + 1 < split.parts.length; i++) {
      // the first item of the next part did not fit in this one
      const next = JSON.parse(split.parts[i + 1]);
      const first = JSON.stringify((next.modules ?? next.nodes ?? next.roots)[0]);
      expect(Buffer.byteLength(split.parts[i]) + Buffer.byteLength(first) + 1).toBeGreaterThan(max - 12);
    }
  });

  test('the create body is the snapshot without its graph, with the number of parts', () => {
    const s = { ...v2(20, 2), manifests: ['settings.gradle'], suppressions: [{ cve: 'CVE-1', reason: 'r' }] };
    const split = splitSnapshot(s, 1_000);
    const { modules: _m, nodes: _n, roots: _r, ...rest } = s;
    expect(JSON.parse(split.create)).toEqual({ ...rest, parts: split.parts.length });
  });

  test('an empty graph is one part {}; the default part size is 10 MB', () => {
    const s = v2Snapshot([]);
    expect(splitSnapshot(s).parts).toEqual(['{}']);
    expect(MULTIPART_BUDGETS.partBytes).toBe(10 * 1024 * 1024);
  });

  test('what cannot be sent in parts is an input error', () => {
    expect(() => splitSnapshot(syntheticSnapshot({ schemaVersion: 1, nodes: 10, roots: 1, depsPerNode: 1 }))).toThrow(
      InputError,
    );
    const s = v2(500, 1, { packagesPerRoot: 500 });
    expect(() => splitSnapshot(s, 5_000)).toThrow(
      /^\/roots\/0 alone is \d+ bytes of JSON: more than a part of a multipart upload may hold \(5000 bytes\)$/,
    );
    const huge = {
      ...v2(10, 1),
      nodes: Array.from({ length: 100_001 }, (_, i) => ({
        id: `p@${i}`,
        name: 'p',
        version: String(i),
        relationship: 'transitive' as const,
        dependencies: [],
      })),
    };
    expect(() => splitSnapshot(huge)).toThrow(/over the multipart upload's budgets: 100001 nodes \(budget 100000\)/);
    expect(() => splitSnapshot({ ...v2(30_000, 1), roots: [] }, 1_024)).toThrow(
      /needs \d+ parts, over the multipart upload's budget of 1000/,
    );
  });

  test('the key is the SHA-256 hex of the create body followed by every part; --rescan changes it', () => {
    const split = splitSnapshot(v2(100, 3), 3_000);
    expect(multipartKey(split)).toBe(
      createHash('sha256')
        .update(split.create + split.parts.join(''))
        .digest('hex'),
    );
    expect(multipartKey(split, new Date(0))).not.toBe(multipartKey(split));
    const other = splitSnapshot({ ...v2(100, 3), nodes: v2(100, 3).nodes.slice().reverse() }, 3_000);
    expect(other.create).toBe(split.create);
    expect(multipartKey(other)).not.toBe(multipartKey(split));
  });
});

describe('the exchange', () => {
  type Handler = (req: {
    method: string;
    url: string;
    body: string;
    headers: http.IncomingHttpHeaders;
  }) => { status: number; body?: unknown } | Promise<{ status: number; body?: unknown }>;
  let server: http.Server;
  let base: string;
  let handler: Handler;
  let inFlight = 0;
  let maxInFlight = 0;
  const seen: Array<{ method: string; url: string; body: string; headers: http.IncomingHttpHeaders }> = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const r = { method: req.method!, url: req.url!, body, headers: req.headers };
        seen.push(r);
        const a = await handler(r);
        inFlight--;
        res.writeHead(a.status, { 'content-type': 'application/json' });
        res.end(a.body === undefined ? '' : JSON.stringify(a.body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    seen.length = 0;
    maxInFlight = 0;
  });

  const client = () =>
    new Http({
      server: base,
      token: 'svc_key_test',
      userAgent: 'scanner/test',
      deadline: Date.now() + 30_000,
      random: () => 0,
      sleep: async () => undefined,
    });
  const upload = (received: number[] = [], status = 'open') => ({
    upload: { id: 'upl_1', project: 'prj_1', status, parts: 9, received, expiresAt: '2030-01-01T00:00:00.000Z' },
  });
  const scan = { id: 'scn_1', status: 'queued', attributionMode: 'paged', moduleCount: 3, modules: [] };
  const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

  test('create with the key, every part a few at a time (each retried on 5xx), then the completion', async () => {
    const split = splitSnapshot(v2(600, 12), 8_000);
    expect(split.parts.length).toBeGreaterThanOrEqual(8);
    const failedOnce = new Set<string>();
    handler = async (r) => {
      if (r.method === 'POST' && r.url.endsWith('/uploads')) return { status: 201, body: upload() };
      if (r.method === 'PUT') {
        await delay(20);
        if (r.url.endsWith('/parts/2') && !failedOnce.has(r.url))
          return (
            failedOnce.add(r.url),
            { status: 503, body: { error: { code: 'service_unavailable', message: 'busy' } } }
          );
        return { status: 201, body: { part: {} } };
      }
      return { status: 201, body: scan };
    };
    const sent: number[] = [];
    const got = await uploadMultipart(client(), split, 'k'.repeat(64), { onPart: (n) => sent.push(n) });
    expect(got).toEqual({ scan, replay: false, upload: upload().upload });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/scans/dependency-snapshots/uploads',
      body: split.create,
    });
    expect(seen[0].headers['idempotency-key']).toBe('k'.repeat(64));
    const puts = seen.filter((r) => r.method === 'PUT');
    expect(puts).toHaveLength(split.parts.length + 1); // part 2 twice
    for (const p of puts) expect(p.body).toBe(split.parts[Number(p.url.split('/').pop()) - 1]);
    expect(new Set(puts.map((p) => p.url)).size).toBe(split.parts.length);
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
    expect(sent).toEqual(split.parts.map((_, i) => i + 1));
    expect(seen[seen.length - 1]).toMatchObject({
      method: 'POST',
      url: '/v1/scans/dependency-snapshots/uploads/upl_1/completion',
      body: '',
    });
  });

  test('a replayed upload: the parts it holds are not sent again; a completed one goes straight to its scan (200)', async () => {
    const split = splitSnapshot(v2(300, 6), 8_000);
    handler = (r) =>
      r.method === 'POST' && r.url.endsWith('/uploads')
        ? { status: 200, body: upload([1, 3]) }
        : r.method === 'PUT'
          ? { status: 201, body: {} }
          : { status: 200, body: scan };
    await uploadMultipart(client(), split, 'k');
    const puts = seen
      .filter((r) => r.method === 'PUT')
      .map((r) => Number(r.url.split('/').pop()))
      .sort((a, b) => a - b);
    expect(puts).toEqual(split.parts.map((_, i) => i + 1).filter((n) => n !== 1 && n !== 3));
    seen.length = 0;
    handler = (r) =>
      r.method === 'POST' && r.url.endsWith('/uploads')
        ? { status: 200, body: upload([1, 2], 'completed') }
        : { status: 200, body: scan };
    expect((await uploadMultipart(client(), split, 'k')).replay).toBe(true);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST']);
    // a completion answered 200 after a new upload (its first answer lost on the way) is no replay
    handler = (r) =>
      r.method === 'POST' && r.url.endsWith('/uploads')
        ? { status: 201, body: upload() }
        : r.method === 'PUT'
          ? { status: 201, body: {} }
          : { status: 200, body: scan };
    expect((await uploadMultipart(client(), split, 'k')).replay).toBe(false);
  });

  test('refusals: a part or completion refused with 413/422 is an input error (exit 2); a part conflict stops the upload (exit 3)', async () => {
    const split = splitSnapshot(v2(600, 12), 8_000);
    handler = (r) =>
      r.method === 'POST' && r.url.endsWith('/uploads')
        ? { status: 201, body: upload() }
        : r.url.endsWith('/parts/5')
          ? { status: 413, body: { error: { code: 'snapshot_too_large', message: 'part 5: /modules: over' } } }
          : { status: 201, body: {} };
    const e = await uploadMultipart(client(), split, 'k', { concurrency: 1 }).catch((x) => x);
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toContain('413 snapshot_too_large: part 5: /modules: over');
    // with one at a time, nothing after part 5 was sent, and no completion
    expect(seen.filter((r) => r.method === 'PUT').map((r) => r.url.split('/').pop())).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);

    handler = (r) =>
      r.method === 'POST' && r.url.endsWith('/completion')
        ? { status: 422, body: { error: { code: 'invalid_snapshot', message: 'part 2: /nodes/0/id: duplicate' } } }
        : r.method === 'POST'
          ? { status: 201, body: upload() }
          : { status: 201, body: {} };
    const e2 = await uploadMultipart(client(), split, 'k').catch((x) => x);
    expect(e2).toBeInstanceOf(InputError);
    expect(e2.message).toContain('422 invalid_snapshot: part 2: /nodes/0/id: duplicate');

    seen.length = 0;
    handler = (r) =>
      r.method === 'POST'
        ? { status: 201, body: upload() }
        : { status: 409, body: { error: { code: 'upload_not_open', message: 'expired' } } };
    const e3 = await uploadMultipart(client(), split, 'k').catch((x) => x);
    expect(e3).toBeInstanceOf(ServiceError);
    expect(seen.some((r) => r.url.endsWith('/completion'))).toBe(false);
  });
});
