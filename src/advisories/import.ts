// `scanner advisories import`: reads OSV files, directories and zip archives and writes them as a new advisory
// generation on top of the current one. One bad file is reported and skipped, never fatal to the import.
import type { OsvAdvisory } from '../domain/types';
import type { Store } from '../storage/mongo';
import { currentGeneration, loadGeneration, writeGeneration } from '../storage/advisories';
import { readOsvSources } from './reader';

/** OSV ecosystems of the snapshot ecosystems the service scans (gradle → Maven, python → PyPI, js/ts → npm). */
const SCANNED_OSV_ECOSYSTEMS = new Set(['npm', 'PyPI', 'Maven']);

export interface ImportReport {
  generation: string | null;
  previous: string | null;
  new: number;
  updated: number;
  unchanged: number;
  withdrawn: number;
  skipped: number;
  rejected: Array<{ source: string; reason: string }>;
  /** Sources not applied at all (an archive that could not be read whole). */
  failedSources: Array<{ source: string; reason: string }>;
  total: number;
}

function scanned(a: OsvAdvisory): boolean {
  return (a.affected ?? []).some((x) => x.package && SCANNED_OSV_ECOSYSTEMS.has(x.package.ecosystem.split(':')[0]));
}

function shapeProblem(a: unknown): string | null {
  if (!a || typeof a !== 'object' || Array.isArray(a)) return 'not a JSON object';
  const o = a as Record<string, unknown>;
  if (typeof o.id !== 'string' || o.id === '') return 'missing id';
  if (o.affected !== undefined && !Array.isArray(o.affected)) return 'affected is not an array';
  if (o.aliases !== undefined && !Array.isArray(o.aliases)) return 'aliases is not an array';
  return null;
}

export async function importAdvisories(store: Store, paths: string[]): Promise<ImportReport> {
  const previous = await currentGeneration(store);
  const byId = new Map<string, OsvAdvisory>();
  if (previous) for (const a of await loadGeneration(store, previous)) byId.set(a.id, a);
  const report: ImportReport = { generation: null, previous, new: 0, updated: 0, unchanged: 0, withdrawn: 0, skipped: 0, rejected: [], failedSources: [], total: 0 };
  const seen = new Set<string>();

  for (const source of paths) {
    // A source is applied whole or not at all: an archive that breaks halfway (a truncated download) contributes
    // nothing, and the advisories it held before stay as they were. A bad file inside a source is only rejected.
    const batch: OsvAdvisory[] = [];
    let broken: string | null = null;
    for await (const item of readOsvSources([source])) {
      if ('error' in item) {
        if (item.source === source && /\.zip$/i.test(source)) broken = item.error;
        else report.rejected.push({ source: item.source, reason: item.error });
        continue;
      }
      const problem = shapeProblem(item.advisory);
      if (problem) report.rejected.push({ source: item.source, reason: problem });
      else batch.push(item.advisory);
    }
    if (broken) {
      report.failedSources.push({ source, reason: broken });
      continue;
    }
    for (const adv of batch) {
      if (!scanned(adv)) {
        report.skipped++;
        continue;
      }
      if (seen.has(adv.id)) continue; // the same advisory twice in one import: first one wins
      seen.add(adv.id);
      if (adv.withdrawn) report.withdrawn++;
      const old = byId.get(adv.id);
      if (!old) report.new++;
      else if (JSON.stringify(old) === JSON.stringify(adv)) report.unchanged++;
      else report.updated++;
      byId.set(adv.id, adv);
    }
  }

  report.total = byId.size;
  if (report.new + report.updated > 0 || !previous) {
    const gen = await writeGeneration(store, [...byId.values()], {
      previous,
      counts: { new: report.new, updated: report.updated, unchanged: report.unchanged, withdrawn: report.withdrawn, skipped: report.skipped, rejected: report.rejected.length, failedSources: report.failedSources.length },
      sources: paths,
    });
    report.generation = gen._id;
  } else {
    report.generation = previous; // nothing changed: the current generation stays
  }
  return report;
}
