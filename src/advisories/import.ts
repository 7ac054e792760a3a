// `scanner advisories import`: reads OSV files, directories and zip archives and writes them as a new advisory
// generation on top of the current one. A file that is not valid JSON/YAML is reported and skipped; a source that
// cannot be read whole (a corrupt archive, a size limit passed) is reported and contributes nothing.
import type { OsvAdvisory } from '../shared/types';
import type { Store } from '../storage/mongo';
import { currentGeneration, loadGeneration, writeGeneration } from '../storage/advisories';
import { readOsvSources, type ReadLimits } from './reader';

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
  /** Records that are not OSV advisories (not an object, no id...): skipped, the import still succeeds. */
  rejected: Array<{ source: string; reason: string }>;
  /** Files or zip entries that are not valid JSON/YAML: skipped, the rest of their source is applied. A failure. */
  failedFiles: Array<{ source: string; reason: string }>;
  /** Sources not applied at all (unreadable, a corrupt archive, a size limit passed). A failure. */
  failedSources: Array<{ source: string; reason: string }>;
  total: number;
}

export interface ImportOptions {
  /** Size limits per source; unset ones come from the environment (ADVISORY_MAX_*). */
  limits?: Partial<ReadLimits>;
}

/** An import with a failed file or source: the CLI exits non-zero. Rejected records alone are not one. */
export const importFailed = (r: Pick<ImportReport, 'failedFiles' | 'failedSources'>) =>
  r.failedFiles.length + r.failedSources.length > 0;

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

export async function importAdvisories(store: Store, paths: string[], opts: ImportOptions = {}): Promise<ImportReport> {
  const previous = await currentGeneration(store);
  const byId = new Map<string, OsvAdvisory>();
  if (previous) for (const a of await loadGeneration(store, previous)) byId.set(a.id, a);
  const report: ImportReport = {
    generation: null,
    previous,
    new: 0,
    updated: 0,
    unchanged: 0,
    withdrawn: 0,
    skipped: 0,
    rejected: [],
    failedFiles: [],
    failedSources: [],
    total: 0,
  };
  const seen = new Set<string>();

  for (const source of paths) {
    // A source is applied whole or not at all: an archive that breaks halfway (a truncated download) or passes a size
    // limit contributes nothing, and the advisories it held before stay as they were. A file that does not parse is
    // only skipped, and a record that is not an advisory only rejected.
    const batch: OsvAdvisory[] = [];
    const rejected: ImportReport['rejected'] = [];
    const failedFiles: ImportReport['failedFiles'] = [];
    let broken: string | null = null;
    for await (const item of readOsvSources([source], opts.limits)) {
      if ('error' in item) {
        if (item.kind === 'source') {
          broken = item.source === source ? item.error : `${item.source}: ${item.error}`;
          break; // leaving the loop closes the reader and its archive
        }
        (item.kind === 'file' ? failedFiles : rejected).push({ source: item.source, reason: item.error });
        continue;
      }
      const problem = shapeProblem(item.advisory);
      if (problem) rejected.push({ source: item.source, reason: problem });
      else batch.push(item.advisory);
    }
    if (broken) {
      report.failedSources.push({ source, reason: broken });
      continue;
    }
    report.rejected.push(...rejected);
    report.failedFiles.push(...failedFiles);
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
      counts: {
        new: report.new,
        updated: report.updated,
        unchanged: report.unchanged,
        withdrawn: report.withdrawn,
        skipped: report.skipped,
        rejected: report.rejected.length,
        failedFiles: report.failedFiles.length,
        failedSources: report.failedSources.length,
      },
      sources: paths,
    });
    report.generation = gen._id;
  } else {
    report.generation = previous; // nothing changed: the current generation stays
  }
  return report;
}
