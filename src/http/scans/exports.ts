// Exports of a scan: the CycloneDX 1.6 SBOM of its snapshot (GET /v1/scans/{id}/sbom, deps:read) and the VEX of
// its findings (GET /v1/scans/{id}/vex, findings:read): CycloneDX 1.6 by default (format=cyclonedx), OpenVEX 0.2.0
// with format=openvex (anything else: 422 invalid_parameter naming format). Built by src/shared/cyclonedx,
// src/domain/cyclonedx and src/domain/openvex, for v1, inline v2 and paged scans alike (readScanSnapshot merges a
// multipart upload's parts).
//
// - The SBOM answers whatever the scan's status: the snapshot is stored at upload. The VEX needs the findings: a scan
//   not completed is 409 invalid_state, since an empty VEX would read as "no vulnerabilities".
// - The VEX carries the current triage analyses of the findings' alerts (docs/integrations.md#vex): read as the
//   findings list reads them (pairAnalysesCached: one read by _id while this process's copy is current). An OpenVEX
//   document holds only statements made by analyses, and at least one: a scan none of whose findings has an analysis
//   in force is 409 invalid_state for format=openvex.
// - An export holds a whole parsed snapshot (up to a paged scan's 1,000,000 vertices) and the document it builds, so
//   at most EXPORTS_MAX_IN_FLIGHT (default 2) run at once per API process; past it 503 service_unavailable with
//   Retry-After, at once, never queued.
// - ETag: a hash of what the bytes depend on besides the immutable snapshot and results (kind, format, scan id,
//   status, project slug, this service's version; for the VEX the pair's analyses and which of them have expired, and
//   for OpenVEX the organization's name); If-None-Match that matches answers 304 before the snapshot and findings are
//   read.
// - A VEX built is kept by its ETag (EXPORTS_CACHE_BYTES, default 64 MB per process): the same ETag, the same bytes.
// - Content-Disposition names the file as the web app saves it: <scan id>.sbom.cdx.json, <scan id>.vex.cdx.json,
//   <scan id>.openvex.json.
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
import {
  buildVex,
  type AdvisorySeverities,
  type AlertAnalyses,
  type ScoreCvss,
  type VexFinding,
} from '../../domain/cyclonedx/vex';
import { buildOpenVex, OPENVEX_MEDIA_TYPE, VEX_FORMATS, type VexFormat } from '../../domain/openvex/openvex';
import { ApiError } from '../../domain/errors';
import { isExpired } from '../../domain/triage/analysis';
import type { OsvAdvisory } from '../../shared/types';
import { envInt } from '../../config';
import { unpackJson } from '../../storage/codec';
import type { ScanDoc } from '../../storage/documents/scans';
import type { Store } from '../../storage/mongo';
import { findOrg } from '../../storage/accounts';
import { readScanSnapshot } from '../../storage/scan-snapshot';
import { recheck } from '../auth/authenticate';
import { principalOf } from '../auth/authorize';
import { access } from '../auth/matrix';
import type { AppDeps } from '../deps';
import { pairAnalysesCached } from '../findings/analyses-cache';
import { findingsOf } from '../findings/scope';
import { enumQuery } from '../pagination';
import { pathId } from '../params';
import { reachableScan } from './routes';

export const DEFAULT_EXPORTS_MAX_IN_FLIGHT = 2;

/** The file name a download of the export is saved under. */
const FILE_SUFFIX = { sbom: 'sbom.cdx.json', cyclonedx: 'vex.cdx.json', openvex: 'openvex.json' } as const;

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

/** The scan's severity rules (src/domain/advisories/severity.ts) for the VEX's CVSS ratings; a vector scored once. */
const scored = new LRUCache<string, { v: ReturnType<ScoreCvss> }>({ max: 50_000 });
const scoreCvss: ScoreCvss = (type, vector) => {
  const key = `${type}\0${vector}`;
  const hit = scored.get(key);
  if (hit) return hit.v;
  const s = scoreVector(type, vector);
  const v = s && Number.isFinite(s[1]) ? { score: s[1], severity: band(s[1]) } : null;
  scored.set(key, { v });
  return v;
};

/**
 * Documents built, by ETag: the ETag hashes everything the bytes depend on (above), so a document built once is the
 * answer to every later request with the same ETag (the web app and CI download the same VEX again and again). Bounded
 * by size; an export of a large scan does not push out more than its share.
 */
const built = new LRUCache<string, string>({
  maxSize: envInt('EXPORTS_CACHE_BYTES', 64 * 1024 * 1024, { min: 0 }) || 1,
  sizeCalculation: (body) => Math.max(1, body.length),
});

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

  /**
   * The ETag of an export. The VEX's also hashes the analyses it may carry (every analysis of the pair, with whether
   * it has expired at `now`: which finding an analysis applies to is decided by immutable results) and, for OpenVEX,
   * the author (the organization's name).
   */
  function etagOf(
    kind: 'sbom' | 'vex',
    scan: ScanDoc,
    vex?: { format: VexFormat; analyses: AlertAnalyses; now: Date; author: string | null },
  ): string {
    const h = createHash('sha256').update(JSON.stringify([kind, scan._id, scan.status, scan.target, tool.version]));
    if (vex) {
      h.update(JSON.stringify([vex.format, vex.author]));
      for (const id of [...vex.analyses.keys()].sort()) {
        const a = vex.analyses.get(id)!;
        h.update(
          JSON.stringify([
            id,
            a.state,
            a.justification,
            a.response,
            a.detail,
            a.versions,
            a.updatedAt,
            isExpired(a, vex.now),
          ]),
        );
      }
    }
    return `"${kind}-${h.digest('hex').slice(0, 32)}"`;
  }

  /**
   * 304 when If-None-Match names this answer's ETag (after the credential's recheck), before the snapshot and findings
   * are read.
   */
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

  function send(ctx: Context, body: string, etag: string, file: keyof typeof FILE_SUFFIX, scanId: string): void {
    ctx.body = body;
    ctx.set('Content-Type', file === 'openvex' ? OPENVEX_MEDIA_TYPE : CYCLONEDX_MEDIA_TYPE);
    ctx.set('Content-Disposition', `attachment; filename="${scanId}.${FILE_SUFFIX[file]}"`);
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
      send(ctx, body, etag, 'sbom', scan._id);
    } finally {
      release();
    }
  });

  r.get('/v1/scans/:scanId/vex', access(deps, 'GET /v1/scans/:scanId/vex'), async (ctx) => {
    const format: VexFormat = enumQuery(ctx, 'format', VEX_FORMATS) ?? 'cyclonedx';
    const scan = await reachableScan(deps, ctx, pathId(ctx, 'scanId', 'scan'));
    if (scan.status !== 'completed') {
      throw new ApiError(
        409,
        'invalid_state',
        `scan ${scan._id} is ${scan.status}: its VEX exists once it has completed (an empty one would say "no vulnerabilities")`,
      );
    }
    // One time for the whole answer: whether an analysis has expired is decided at it, in the ETag and the document.
    const now = new Date();
    const [analyses, author] = await Promise.all([
      pairAnalysesCached(deps.store, scan),
      format === 'openvex' ? findOrg(deps.store, scan.orgId).then((o) => o?.name ?? tool.name) : null,
    ]);
    const etag = etagOf('vex', scan, { format, analyses, now, author });
    if (await notModified(ctx, etag)) return;
    const kept = built.get(etag);
    if (kept !== undefined) {
      await recheck(deps, principalOf(ctx));
      send(ctx, kept, etag, format, scan._id);
      return;
    }
    const release = slots.take();
    try {
      const finishedAt = (scan.finishedAt ?? scan.startedAt).toISOString();
      const of = (stored: Awaited<ReturnType<typeof findingsOf>>): VexFinding[] =>
        stored.map((f) => ({ ...f, aliases: f.aliases ?? [f.cve] }));
      let body: string;
      if (format === 'openvex') {
        // the findings alone: the purls come from their names and versions, the ecosystem from the scan
        const doc = buildOpenVex({
          scan: { ...bomScan(scan), finishedAt },
          ecosystem: scan.ecosystem,
          author: author ?? tool.name,
          tool,
          findings: of(await findingsOf(deps.store, scan)),
          analyses,
          now,
        });
        if (doc.statements.length === 0) {
          await recheck(deps, principalOf(ctx)); // the refusal is an answer about the scan too
          throw new ApiError(
            409,
            'invalid_state',
            `scan ${scan._id} has no finding whose alert has an analysis in force: an OpenVEX document holds at least one statement (the CycloneDX VEX lists every finding)`,
          );
        }
        body = `${JSON.stringify(doc)}\n`;
      } else {
        const [{ snapshot }, stored, advisories] = await Promise.all([
          readScanSnapshot(deps.store, scan._id),
          findingsOf(deps.store, scan),
          severitiesOf(scan.advisoryGeneration),
        ]);
        const doc = buildVex({
          scan: { ...bomScan(scan), finishedAt },
          snapshot,
          tool,
          findings: of(stored),
          advisories,
          score: scoreCvss,
          analyses,
          now,
        });
        body = `${JSON.stringify(doc)}\n`; // as serializeBom writes the SBOM
      }
      built.set(etag, body);
      await recheck(deps, principalOf(ctx)); // after the load, just before the answer
      send(ctx, body, etag, format, scan._id);
    } finally {
      release();
    }
  });

  return r;
}
