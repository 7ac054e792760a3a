// `scanner intel sync` and the intel-refresh schedule: import each feed whose source the environment names,
// INTEL_KEV_SOURCE and INTEL_EPSS_SOURCE (an https URL or a local path; nothing else decides where a feed comes
// from). A feed that fails is reported and keeps its previous generation; the other is imported all the same.
import { sourceProblem } from '../advisories/sync';
import { INTEL_KINDS, type IntelKind } from '../domain/intel/refused';
import type { Store } from '../storage/mongo';
import {
  importIntel,
  IntelImportRefused,
  intelLimits,
  type IntelImportOptions,
  type IntelImportReport,
} from './import';

export const INTEL_SOURCE_ENV: Record<IntelKind, string> = {
  kev: 'INTEL_KEV_SOURCE',
  epss: 'INTEL_EPSS_SOURCE',
};

/** The feeds' official URLs (docs/intelligence.md): what to set INTEL_KEV_SOURCE and INTEL_EPSS_SOURCE to. */
export const OFFICIAL_INTEL_SOURCES: Record<IntelKind, string> = {
  kev: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
  epss: 'https://epss.cyentia.com/epss_scores-current.csv.gz',
};

/** The source of each feed the environment names (one each). Throws on a refused source, naming its variable. */
export function configuredIntelSources(env: NodeJS.ProcessEnv = process.env): Partial<Record<IntelKind, string>> {
  const sources: Partial<Record<IntelKind, string>> = {};
  const problems: string[] = [];
  for (const kind of INTEL_KINDS) {
    const value = (env[INTEL_SOURCE_ENV[kind]] ?? '').trim();
    if (!value) continue;
    const problem = /\s/.test(value) ? `${value}: one source only` : sourceProblem(value);
    if (problem) problems.push(`${INTEL_SOURCE_ENV[kind]}: ${problem}`);
    else sources[kind] = value;
  }
  if (problems.length) throw new Error(problems.join('; '));
  return sources;
}

export type IntelSyncFeed =
  | (IntelImportReport & { reason?: undefined })
  | { kind: IntelKind; source: string; status: 'failed'; reason: string; attempts: number };

export interface IntelSyncReport {
  feeds: IntelSyncFeed[];
}

/** Imports every feed of `sources` (default: the environment's), one after the other; a failure is the feed's alone. */
export async function syncIntel(
  store: Store,
  sources: Partial<Record<IntelKind, string>> = configuredIntelSources(),
  opts: IntelImportOptions = {},
): Promise<IntelSyncReport> {
  intelLimits(process.env, opts.limits); // a bad INTEL_MAX_* value fails the sync before anything is fetched
  const feeds: IntelSyncFeed[] = [];
  for (const kind of INTEL_KINDS) {
    const source = sources[kind];
    if (source === undefined) continue;
    try {
      feeds.push(await importIntel(store, kind, source, opts));
    } catch (err) {
      if (!(err instanceof IntelImportRefused)) throw err; // the database's: the whole sync is retried
      feeds.push({ kind, source, status: 'failed', reason: err.reason, attempts: err.attempts });
    }
  }
  return { feeds };
}
