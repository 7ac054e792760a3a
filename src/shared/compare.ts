// The wire shape of `GET /v1/scans/{scanId}/compare` (docs/pr-gate.md): a completed scan's findings classified
// against a baseline scan of the same project and ecosystem, the suppressions the scan's snapshot added, and the
// dependency changes. Shared by the service (which builds it), the CI client (which gates and reports on it) and the
// web app (which shows it). No behaviour here.
import type { Cvss, Finding, FindingAttribution, SeverityCounts, SnapshotSuppression } from './types';

/** The four classes of a head finding (removed: a baseline finding the head no longer has). */
export const COMPARE_CLASSES = ['added', 'unchanged', 'disclosed', 'removed'] as const;
export type CompareClass = (typeof COMPARE_CLASSES)[number];

/** The parts a large comparison is paged by (`?part=`). */
export const COMPARE_PARTS = [
  'findings.added',
  'findings.unchanged',
  'findings.disclosed',
  'findings.removed',
  'dependencies.added',
  'dependencies.removed',
  'dependencies.changed',
] as const;
export type ComparePart = (typeof COMPARE_PARTS)[number];

/** Above these, a part is cut in the whole answer and read on with `?part=` and its cursor. */
export const COMPARE_FINDINGS_INLINE = 2000;
export const COMPARE_DEPENDENCIES_INLINE = 10_000;

/**
 * A finding as the findings list serves it in its light shape (no attributions, their count given), plus the
 * modules that introduce it (v2; [] for v1) and their teams, so that a report can name who added it. A removed
 * finding is the baseline's (its id and scanId are the baseline's).
 */
export type CompareFinding = Finding & {
  /** Always [] (the light shape): attributionCount says how many there are. */
  attributions: FindingAttribution[];
  cvss: Cvss | null;
  alertId: string | null;
  firstSeenAt: string | null;
  attributionCount: number;
  /** Introducing modules (the origins' modules of the finding's attributions), sorted. */
  modules: string[];
  /** The teams of those modules (their teamName), sorted, without repeats; modules without a team add none. */
  teams: string[];
  /** Unchanged findings only: the baseline's installed versions of the package for the advisory, sorted. */
  baselineVersions?: string[];
  /** Unchanged findings only: true when the installed version is not one of baselineVersions. */
  versionsChanged?: boolean;
};

export interface CompareDependency {
  name: string;
  version: string;
}

export interface CompareDependencyChange {
  name: string;
  from: string[];
  to: string[];
}

export interface CompareBaseline {
  id: string;
  ref: string | null;
  commit: string | null;
  startedAt: string;
}

/** Each part's size, and the cursor to read on when the whole answer carries only its first items. */
export type CompareParts = Record<ComparePart, { count: number; nextCursor: string | null }>;

export interface CompareResult {
  scanId: string;
  baseline: CompareBaseline | null;
  /** Why there is no baseline: the project has no completed tracked scan of the ecosystem before this one. */
  baselineMissing: null | 'no_tracked_scan';
  /** Unsuppressed findings of each class by severity. */
  counts: Record<CompareClass, SeverityCounts>;
  findings: Record<CompareClass, CompareFinding[]>;
  suppressionsAdded: SnapshotSuppression[];
  dependencies: {
    added: CompareDependency[];
    removed: CompareDependency[];
    changed: CompareDependencyChange[];
  };
  parts: CompareParts;
}

/** `?part=P`: one page of one part. */
export interface ComparePartPage {
  scanId: string;
  baseline: CompareBaseline | null;
  part: ComparePart;
  items: Array<CompareFinding | CompareDependency | CompareDependencyChange>;
  nextCursor: string | null;
}
