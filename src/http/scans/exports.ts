// CycloneDX 1.6 exports of a scan: the SBOM of its snapshot (GET /v1/scans/{id}/sbom, deps:read) and
// the VEX of its findings (GET /v1/scans/{id}/vex, findings:read), built by src/shared/cyclonedx, for v1, inline v2
// and paged scans alike (readScanSnapshot merges a multipart upload's parts).
//
// - The SBOM answers whatever the scan's status: the snapshot is stored at upload. The VEX needs the findings: a scan
//   not completed is 409 invalid_state, since an empty VEX would read as "no vulnerabilities".
// - An export holds a whole parsed snapshot (up to a paged scan's 1,000,000 vertices) and the document it builds, so
//   at most EXPORTS_MAX_IN_FLIGHT (default 2) run at once per API process; past it 503 service_unavailable with
//   Retry-After, at once, never queued.
// - ETag: a hash of what the bytes depend on besides the immutable snapshot and results (kind, scan id, status,
//   project slug, this service's version); If-None-Match that matches answers 304 before anything is read.
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import { band, scoreVector } from '../../domain/advisories/severity';
import { serializeBom } from '../../shared/cyclonedx/common';
import { buildSbom } from '../../shared/cyclonedx/sbom';
import { CYCLONEDX_MEDIA_TYPE, TOOL_NAME, type BomScan, type BomTool } from '../../shared/cyclonedx/types';
import { buildVex, type AdvisorySeverities, type ScoreCvss } from '../../domain/cyclonedx/vex';
import { ApiError } from '../../domain/errors';
import type { OsvAdvisory } from '../../shared/types';
import { envInt } from '../../config';
import { unpackJson } from '../../storage/codec';
import type { ScanDoc } from '../../storage/documents/scans';
import type { Store } from '../../storage/mongo';
import { readScanSnapshot } from '../../storage/scan-snapshot';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { findingsOf } from '../findings/scope';
import { pathId } from '../params';
import { reachableScan } from './routes';

export const DEFAULT_EXPORTS_MAX_IN_FLIGHT = 2;

/** Exports being built, counted without waiting: a full count refuses at once (503, Retry-After). */
export class ExportSlots {
  private used = 0;
  constructor(readonly max: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Takes a slot or throws 503 service_unavailable; the function returned gives it back (once). */
  take(): () => void {
    if (this.used >= this.max)
      throw new ApiError(503, 'service_unavailable', `${this.max} exports are being built by this server; retry later`);
    this.used++;
    let held = true;
    return () => {
      if (held) this.used--;
      held = false;
    };
  }
}

function serviceVersion(from = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) return String(JSON.parse(fs.readFileSync(file, 'utf8')).version);
    if (dir === path.dirname(dir)) return '0.0.0';
  }
}

const bomScan = (scan: ScanDoc): BomScan => ({
  id: scan._id,
  projectId: scan.projectId,
  project: scan.target,
  startedAt: scan.startedAt.toISOString(),
});

/** The scan's severity rules (src/domain/advisories/severity.ts) for the VEX's CVSS ratings. */
const scoreCvss: ScoreCvss = (type, vector) => {
  const scored = scoreVector(type, vector);
  return scored && Number.isFinite(scored[1]) ? { score: scored[1], severity: band(scored[1]) } : null;
};

/**
 * The CVSS entries of every advisory of a generation that has some (generations are immutable). Findings do not store
 * vectors, so the generation's chunks are read once per API process, one at a time: memory is one chunk plus the
 * severity entries kept (tens of thousands of short vectors for a whole OSV feed; most advisories, e.g. malicious
 * package reports, carry none).
 */
async function generationSeverities(store: Store, generation: string): Promise<AdvisorySeverities> {
  const out = new Map<string, OsvAdvisory['severity'] & object>();
  const gen = await store.c.advisoryGenerations.findOne({ _id: generation });
  if (!gen) return out; // a generation removed since: the ratings keep the finding's own severity
  for (let n = 0; n < gen.chunks; n++) {
    const doc = await store.c.advisoryChunks.findOne({ _id: `${generation}:${n}` });
    if (!doc) continue;
    for (const a of await unpackJson<OsvAdvisory[]>(doc.data)) {
      if (!a.withdrawn && Array.isArray(a.severity) && a.severity.length) out.set(a.id, a.severity);
    }
  }
  return out;
}

export function exportRoutes(deps: AppDeps): Router {
  const r = new Router();
  const slots = new ExportSlots(envInt('EXPORTS_MAX_IN_FLIGHT', DEFAULT_EXPORTS_MAX_IN_FLIGHT, { min: 1 }));
  const tool: BomTool = { name: TOOL_NAME, version: serviceVersion() };
  // A scan's generation is pinned and immutable: its severity entries are read once and shared by the scans matched
  // against it (the current generation and the one before, typically). A failed read is not kept.
  const ratingsOf = new LRUCache<string, Promise<AdvisorySeverities>>({ max: 2 });
  const severitiesOf = (generation: string | null | undefined): Promise<AdvisorySeverities> => {
    if (!generation) return Promise.resolve(new Map());
    let p = ratingsOf.get(generation);
    if (!p) {
      p = generationSeverities(deps.store, generation);
      ratingsOf.set(generation, p);
      p.catch(() => ratingsOf.delete(generation));
    }
    return p;
  };

  const etagOf = (kind: 'sbom' | 'vex', scan: ScanDoc) =>
    `"${kind}-${createHash('sha256')
      .update(JSON.stringify([kind, scan._id, scan.status, scan.target, tool.version]))
      .digest('hex')
      .slice(0, 32)}"`;

  /** 304 when If-None-Match names this answer's ETag (after the credential's recheck), before anything is read. */
  async function notModified(ctx: Context, etag: string): Promise<boolean> {
    ctx.set('ETag', etag);
    ctx.status = 200;
    const fresh = ctx.fresh;
    ctx.remove('ETag'); // set again with the document: an error answered meanwhile carries none
    if (!fresh) return false;
    await recheck(deps, principalOf(ctx));
    ctx.set('ETag', etag);
    ctx.status = 304;
    return true;
  }

  function send(ctx: Context, body: string, etag: string): void {
    ctx.body = body;
    ctx.set('Content-Type', CYCLONEDX_MEDIA_TYPE);
    ctx.set('ETag', etag);
  }

  r.get('/v1/scans/:scanId/sbom', access(deps, 'GET /v1/scans/:scanId/sbom'), async (ctx) => {
    const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    const etag = etagOf('sbom', scan);
    if (await notModified(ctx, etag)) return;
    const release = slots.take();
    try {
      const { snapshot } = await readScanSnapshot(deps.store, scan._id);
      const body = serializeBom(buildSbom({ scan: bomScan(scan), snapshot, tool }));
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      send(ctx, body, etag);
    } finally {
      release();
    }
  });

  r.get('/v1/scans/:scanId/vex', access(deps, 'GET /v1/scans/:scanId/vex'), async (ctx) => {
    const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    if (scan.status !== 'completed') {
      throw new ApiError(
        409,
        'invalid_state',
        `scan ${scan._id} is ${scan.status}: its VEX exists once it has completed (an empty one would say "no vulnerabilities")`,
      );
    }
    const etag = etagOf('vex', scan);
    if (await notModified(ctx, etag)) return;
    const release = slots.take();
    try {
      const [{ snapshot }, findings, advisories] = await Promise.all([
        readScanSnapshot(deps.store, scan._id),
        findingsOf(deps.store, scan),
        severitiesOf(scan.advisoryGeneration),
      ]);
      const body = serializeBom(
        buildVex({
          scan: { ...bomScan(scan), finishedAt: (scan.finishedAt ?? scan.startedAt).toISOString() },
          snapshot,
          tool,
          findings: findings.map((f) => ({ ...f, aliases: f.aliases ?? [f.cve] })),
          advisories,
          score: scoreCvss,
        }),
      );
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      send(ctx, body, etag);
    } finally {
      release();
    }
  });

  return r;
}
