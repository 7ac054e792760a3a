// Threat intelligence as the app says it (docs/intelligence.md): a KEV entry and an EPSS score in words, an advisory's
// affected ranges and which of its references are web addresses, and the where-used search as it lives in the URL.
// Pure: tested in test/browser/intel-logic.test.ts.
import type { Alert, Checked, Ecosystem, ListsEvery } from './types';

export type Kev = NonNullable<Alert['kev']>;
export type Epss = NonNullable<Alert['epss']>;

/** CISA writes "Known" or "Unknown": anything else is shown as written. */
function ransomwareWords(use: string): string {
  if (use === 'Known') return 'known ransomware campaign use';
  if (use === 'Unknown') return 'no known ransomware campaign use';
  return `ransomware campaign use: ${use}`;
}

/**
 * A KEV entry in words (the badge's accessible text and its tooltip): "Known exploited: in CISA's KEV catalog since
 * 2021-12-10, action due 2021-12-24, known ransomware campaign use".
 */
export function kevText(kev: Kev): string {
  return `Known exploited: in CISA's KEV catalog since ${kev.dateAdded}, action due ${kev.dueDate}, ${ransomwareWords(kev.knownRansomwareCampaignUse)}`;
}

/** A probability as a percentage: one decimal ("94.3%"), two below 0.1% ("0.04%"), "<0.01%" below that. */
export function percentText(p: number): string {
  const pct = p * 100;
  if (pct > 0 && pct < 0.01) return '<0.01%';
  return `${pct < 0.1 ? pct.toFixed(2) : pct.toFixed(1)}%`;
}

/** "EPSS 94.3%": the badge's visible text. */
export function epssLabel(epss: Epss): string {
  return `EPSS ${percentText(epss.score)}`;
}

/** The percentile in words: "higher than 99.9% of scored CVEs" (one decimal at the top, where it tells CVEs apart). */
export function percentileWords(percentile: number): string {
  const pct = percentile * 100;
  // the top score's percentile is 1: it is "higher than 99.9%", never than every CVE (itself among them)
  const shown = pct >= 99 ? Math.min(99.9, Math.floor(pct * 10) / 10) : Math.floor(pct);
  return `higher than ${shown}% of scored CVEs`;
}

/**
 * An EPSS score in words (the figure's accessible text and tooltip): "EPSS 94.3%: a 94.3% probability of exploitation
 * in the next 30 days, higher than 99.9% of scored CVEs (scores of 2025-08-25)".
 */
export function epssText(epss: Epss): string {
  return `${epssLabel(epss)}: a ${percentText(epss.score)} probability of exploitation in the next 30 days, ${percentileWords(epss.percentile)} (scores of ${epss.date})`;
}

/** An advisory's affected range as text: "ECOSYSTEM: introduced 0, fixed 2.15.0" (events in the advisory's order). */
export function rangeText(range: {
  type: string;
  repo?: string;
  events: { introduced?: string; fixed?: string; last_affected?: string; limit?: string }[];
}): string {
  const events = range.events
    .flatMap((e) =>
      (['introduced', 'fixed', 'last_affected', 'limit'] as const)
        .filter((k) => e[k] !== undefined)
        .map((k) => `${k.replace('_', ' ')} ${e[k]}`),
    )
    .join(', ');
  return `${range.type}${range.repo ? ` (${range.repo})` : ''}: ${events || 'no events'}`;
}

/** A reference's URL when it is an http(s) address (the only ones the page links); null otherwise. */
export function webUrl(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.href : null;
  } catch {
    return null;
  }
}

export const ECOSYSTEMS = ['gradle', 'python', 'javascript', 'typescript'] as const satisfies readonly Ecosystem[];
export type EcosystemsListed = Checked<ListsEvery<Ecosystem, typeof ECOSYSTEMS>>;

/** The where-used search as it lives in the URL: a package name, and optionally a version and an ecosystem. */
export interface UsageSearch {
  name?: string;
  version?: string;
  ecosystem?: Ecosystem;
}

export function usageSearchFromQuery(q: Record<string, string | undefined>): UsageSearch {
  return {
    name: q.name?.trim() || undefined,
    version: q.version?.trim() || undefined,
    ecosystem: (ECOSYSTEMS as readonly string[]).includes(q.ecosystem ?? '') ? (q.ecosystem as Ecosystem) : undefined,
  };
}

export function usageSearchToQuery(s: UsageSearch): Record<string, string | undefined> {
  return { name: s.name, version: s.version, ecosystem: s.ecosystem };
}

/**
 * The where-used search for a package a project installs: its name and version, and its ecosystem only where that is
 * one registry of its own (gradle: Maven, python: PyPI). The javascript and typescript ecosystems both install from
 * npm, so the search for an npm package keeps both.
 */
export function usageSearchOf(name: string, version?: string, ecosystem?: Ecosystem): UsageSearch {
  return {
    name,
    version: version || undefined,
    ecosystem: ecosystem === 'gradle' || ecosystem === 'python' ? ecosystem : undefined,
  };
}

/** "lodash", "lodash@4.17.21", "lodash@4.17.21 (javascript)": what is searched, in words. */
export function usageSearchText(s: UsageSearch): string {
  return `${s.name ?? ''}${s.version ? `@${s.version}` : ''}${s.ecosystem ? ` (${s.ecosystem})` : ''}`;
}

/** "3 usages in 2 projects" (and "loaded so far" while pages remain): what the results count, in words. */
export function usagesCountText(usages: readonly { project: string }[], complete: boolean): string {
  const projects = new Set(usages.map((u) => u.project)).size;
  const n = usages.length;
  return `${n} ${n === 1 ? 'usage' : 'usages'} in ${projects} ${projects === 1 ? 'project' : 'projects'}${complete ? '' : ' loaded so far'}`;
}
