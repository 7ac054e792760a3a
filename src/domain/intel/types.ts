// The intelligence feeds as the rest of the service reads them (docs/intelligence.md): CISA's Known Exploited
// Vulnerabilities catalog and FIRST's EPSS scores, each one imported generation, keyed by CVE id (upper case). Pure
// types and the join of a finding's or alert's alias group against them.

import type { EpssEntry, KevEntry } from '../../shared/types';

export type { EpssEntry, KevEntry };

export interface KevCatalog {
  /** The generation id this process loaded. */
  generation: string;
  catalogVersion: string;
  dateReleased: string;
  /** By CVE id, upper case. */
  entries: ReadonlyMap<string, KevEntry>;
}

export interface EpssScores {
  generation: string;
  /** The file's `#model_version` (null when the file had no such line). */
  modelVersion: string | null;
  /** YYYY-MM-DD: the file's score_date. */
  scoreDate: string;
  /** By CVE id, upper case: [score, percentile]. */
  scores: ReadonlyMap<string, readonly [number, number]>;
}

/** Both feeds as this process holds them (null: never imported). */
export interface Intel {
  kev: KevCatalog | null;
  epss: EpssScores | null;
  /** Changes whenever either generation changes: caches of joined views key on it. */
  version: string;
}

export const NO_INTEL: Intel = { kev: null, epss: null, version: 'none' };

/** The KEV and EPSS of an alias group: KEV of any CVE in it (the earliest added), EPSS the highest over its CVEs. */
export function intelOf(aliases: readonly string[], intel: Intel): { kev: KevEntry | null; epss: EpssEntry | null } {
  let kev: KevEntry | null = null;
  let epss: EpssEntry | null = null;
  if (!intel.kev && !intel.epss) return { kev, epss };
  for (const raw of aliases) {
    if (raw.length < 8 || (raw.charCodeAt(0) | 32) !== 99) continue; // only CVE-… ids are in either feed
    const id = raw.toUpperCase();
    if (!id.startsWith('CVE-')) continue;
    const k = intel.kev?.entries.get(id);
    if (k && (kev === null || k.dateAdded < kev.dateAdded)) kev = k;
    const e = intel.epss?.scores.get(id);
    if (e && (epss === null || e[0] > epss.score))
      epss = { score: e[0], percentile: e[1], date: intel.epss!.scoreDate };
  }
  return { kev, epss };
}
