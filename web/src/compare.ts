// The compare view's pure pieces (views/compare.tsx): its URL query (the baseline chosen, which findings the lists
// hold), the scans a baseline may be chosen from, the sections and their words, and a refusal of the comparison in
// words. The response's shapes are the OpenAPI document's (GET /v1/scans/{scanId}/compare).
import type { components } from './api-types.gen';
import type { Scan } from './types';

type Schemas = components['schemas'];
export type CompareResult = Schemas['Compare'];
export type CompareFinding = Schemas['CompareFinding'];
export type CompareBaseline = Schemas['CompareBaseline'];
export type ComparePartPage = Schemas['ComparePartPage'];
export type ComparePart = ComparePartPage['part'];
export type CompareClass = keyof CompareResult['findings'];
export type CompareSuppression = CompareResult['suppressionsAdded'][number];
export type CompareDependency = CompareResult['dependencies']['added'][number];
export type CompareDependencyChange = CompareResult['dependencies']['changed'][number];

export const COMPARE_SUPPRESSED = ['false', 'true', 'all'] as const;
export type CompareSuppressed = (typeof COMPARE_SUPPRESSED)[number];

/** The view's URL query: `baseline` (absent: automatic) and `suppressed` (absent: false, the API's default). */
export interface CompareQuery {
  /** A scan id, or undefined for the automatic baseline. */
  baseline?: string;
  suppressed: CompareSuppressed;
}

export function compareQueryFromUrl(q: Record<string, string | undefined>): CompareQuery {
  const b = q.baseline?.trim();
  const s = q.suppressed as CompareSuppressed | undefined;
  return {
    baseline: b && b !== 'auto' ? b : undefined,
    suppressed: s && (COMPARE_SUPPRESSED as readonly string[]).includes(s) ? s : 'false',
  };
}

/** The URL form: defaults left out, so that the plain URL is the automatic comparison. */
export function compareQueryToUrl(q: CompareQuery): Record<string, string | undefined> {
  return { baseline: q.baseline, suppressed: q.suppressed === 'false' ? undefined : q.suppressed };
}

/** The API's query for the whole comparison (or, with part and cursor, one page of a part). */
export function compareApiQuery(q: CompareQuery): Record<string, string> {
  return { baseline: q.baseline ?? 'auto', suppressed: q.suppressed };
}

/**
 * The scans a baseline may be chosen from: completed scans of the same project and ecosystem that started before
 * this one (not this one), newest first.
 */
export function baselineCandidates(scans: readonly Scan[], head: Pick<Scan, 'id' | 'ecosystem' | 'startedAt'>): Scan[] {
  const at = Date.parse(head.startedAt);
  const seen = new Set<string>();
  return scans
    .filter((s) => {
      if (seen.has(s.id)) return false;
      seen.add(s.id);
      return (
        s.id !== head.id && s.status === 'completed' && s.ecosystem === head.ecosystem && Date.parse(s.startedAt) < at
      );
    })
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || (a.id < b.id ? 1 : -1));
}

/** "2024-05-01 12:00 UTC" */
export const utcMinute = (iso: string) => new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

/** Where a scan came from, in a few words: its ref and commit ("main @ 0123456789ab"), or "no ref". */
export function refText(ref: string | null | undefined, commit: string | null | undefined): string {
  const c = commit ? ` @ ${commit.slice(0, 12)}` : '';
  return ref ? `${ref}${c}` : commit ? `no ref${c}` : 'no ref';
}

/** A baseline choice's label: the scan id, its ref and commit, when it started. */
export function candidateLabel(s: Pick<Scan, 'id' | 'startedAt' | 'metadata'>): string {
  return `${s.id} · ${refText(s.metadata?.ref, s.metadata?.commit)} · ${utcMinute(s.startedAt)}`;
}

export interface FindingSection {
  cls: CompareClass;
  part: ComparePart;
  /** The section's heading. */
  title: string;
  /** What the class means, under the heading. */
  about: string;
  /** The words of an empty section. */
  none: string;
  /** A short name in the summary and in "more" buttons. */
  short: string;
}

export const FINDING_SECTIONS: readonly FindingSection[] = [
  {
    cls: 'added',
    part: 'findings.added',
    title: 'New findings',
    short: 'new',
    about: 'Findings this change brought: a package or version that the baseline did not have.',
    none: 'No new finding: this change brings no known vulnerability.',
  },
  {
    cls: 'disclosed',
    part: 'findings.disclosed',
    title: 'Disclosed since the baseline',
    short: 'disclosed',
    about:
      'Advisories published since the baseline on packages this change did not touch: not the change’s doing, but there now.',
    none: 'No finding disclosed since the baseline.',
  },
  {
    cls: 'removed',
    part: 'findings.removed',
    title: 'Fixed by this change',
    short: 'fixed',
    about: 'Findings of the baseline that this scan no longer has (their version and scan are the baseline’s).',
    none: 'Nothing fixed: every finding of the baseline is still there.',
  },
  {
    cls: 'unchanged',
    part: 'findings.unchanged',
    title: 'Unchanged',
    short: 'unchanged',
    about: 'Findings the baseline had already.',
    none: 'No finding that the baseline had already.',
  },
];

export interface DependencySection {
  kind: 'added' | 'removed' | 'changed';
  part: ComparePart;
  title: string;
  none: string;
}

export const DEPENDENCY_SECTIONS: readonly DependencySection[] = [
  { kind: 'added', part: 'dependencies.added', title: 'Packages added', none: 'No package added.' },
  { kind: 'removed', part: 'dependencies.removed', title: 'Packages removed', none: 'No package removed.' },
  { kind: 'changed', part: 'dependencies.changed', title: 'Versions changed', none: 'No version changed.' },
];

const n = (x: number) => x.toLocaleString('en-US');

/** A part cut in the answer: how many of its items are not shown yet ("12,000 of 14,500 shown; 2,500 more"). */
export function moreText(shown: number, count: number, noun: [string, string]): string {
  const rest = Math.max(0, count - shown);
  return `${n(shown)} of ${n(count)} ${count === 1 ? noun[0] : noun[1]} shown; ${n(rest)} more not shown yet.`;
}

/** A whole comparison's parts with a cursor (cut at 2,000 findings or 10,000 dependency changes). */
export function cutParts(r: Pick<CompareResult, 'parts'>): ComparePart[] {
  return (Object.keys(r.parts) as ComparePart[]).filter((p) => r.parts[p].nextCursor !== null);
}

/** A refusal of the comparison in words (the scan's own 404 is the view's "not found"). */
export function compareRefusal(status: number, code: string, message: string): string | undefined {
  if (status === 404)
    return 'No such scan in this organization (or not within your reach): the scan or the baseline chosen.';
  if (status === 409 && code === 'invalid_state')
    return /^baseline/.test(message)
      ? 'The baseline chosen has not completed: choose a completed scan, or Automatic.'
      : 'This scan has not completed: a comparison needs its findings. It is possible once the scan completes.';
  if (status === 422 && code === 'invalid_parameter' && /^baseline/.test(message))
    return 'The baseline chosen is not a scan of the same project and ecosystem: choose another, or Automatic.';
  return undefined;
}

/** The total of a class's counts (unsuppressed findings). */
export const countOf = (c: { critical: number; high: number; medium: number; low: number }) =>
  c.critical + c.high + c.medium + c.low;
