// The advisory index: (OSV ecosystem, normalised package name) → the affected entries of every live advisory, with
// their range events parsed once by the ecosystem's rules. Matching a package is a map lookup plus range checks.
import type { OsvAdvisory, OsvRange } from '../../shared/types';
import { rulesForOsv, type EcosystemRules } from './ecosystems';
import { buildGroups, type AdvisoryGroup } from './groups';

export type EventKind = 'introduced' | 'fixed' | 'last_affected' | 'limit';

export interface ParsedEvent {
  kind: EventKind;
  raw: string;
  /** Parsed version; null for introduced "0" (the beginning) or for a value the rules cannot read. */
  v: unknown | null;
  /** A `fixed` that lists several releases ("7.2.4, 6.11.4"): each one, as a fix to offer. */
  fixes?: Array<{ raw: string; v: unknown }>;
}

/**
 * Real advisories sometimes put several releases in one `fixed` ("7.2.4, 6.11.4": one per maintained line). Such a
 * range closes at the highest of them, so no affected version of any line is missed, and the finding offers the
 * lowest listed release above the installed version. Values that are not lists parse as one version.
 */
function parseEvent(kind: EventKind, raw: string, rules: EcosystemRules): ParsedEvent {
  if (kind === 'introduced' && raw === '0') return { kind, raw, v: null };
  const parts = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (kind !== 'fixed' || parts.length < 2) return { kind, raw, v: rules.parseBound(raw) };
  const fixes = parts
    .map((p) => ({ raw: p, v: rules.parseBound(p) }))
    .filter((f): f is { raw: string; v: unknown } => f.v !== null);
  if (fixes.length !== parts.length) return { kind, raw, v: null }; // not a list of releases: unreadable
  const highest = fixes.reduce((a, b) => (rules.compare(a.v, b.v) >= 0 ? a : b));
  return { kind, raw, v: highest.v, fixes };
}

export interface ParsedRange {
  events: ParsedEvent[];
}

export interface AffectedEntry {
  group: number;
  advisoryId: string;
  ranges: ParsedRange[];
  /** Explicit affected versions, as written. */
  versions: Set<string>;
}

export interface AdvisoryIndex {
  groups: AdvisoryGroup[];
  byPackage: Map<string, AffectedEntry[]>;
  advisoryCount: number;
}

export const packageKey = (osvEcosystem: string, normalizedName: string) => `${osvEcosystem}\u0000${normalizedName}`;

const KINDS: EventKind[] = ['introduced', 'fixed', 'last_affected', 'limit'];

function parseRange(range: OsvRange, rules: EcosystemRules): ParsedRange | null {
  // GIT ranges name commits, not releases: they cannot be evaluated against an installed version.
  if (range?.type !== 'ECOSYSTEM' && range?.type !== 'SEMVER') return null;
  const events: ParsedEvent[] = [];
  for (const e of Array.isArray(range.events) ? range.events : []) {
    for (const kind of KINDS) {
      const raw = (e as Record<string, unknown>)?.[kind];
      if (typeof raw !== 'string') continue;
      events.push(parseEvent(kind, raw, rules));
    }
  }
  return events.length ? { events } : null;
}

export function buildAdvisoryIndex(advisories: OsvAdvisory[]): AdvisoryIndex {
  const { groups, groupOf } = buildGroups(advisories);
  const byPackage = new Map<string, AffectedEntry[]>();
  for (const a of advisories) {
    const group = groupOf.get(a.id);
    if (group === undefined) continue; // withdrawn
    for (const affected of Array.isArray(a.affected) ? a.affected : []) {
      const pkg = affected?.package;
      if (!pkg || typeof pkg.name !== 'string' || typeof pkg.ecosystem !== 'string') continue;
      // "Debian:11" style suffixes are releases of an ecosystem; none of ours has them, but keep the base name.
      const osvEcosystem = pkg.ecosystem.split(':')[0];
      const rules = rulesForOsv(osvEcosystem);
      if (!rules) continue; // another ecosystem's package in the same advisory: not ours to match
      const ranges = (Array.isArray(affected.ranges) ? affected.ranges : [])
        .map((r) => parseRange(r, rules))
        .filter((r): r is ParsedRange => !!r);
      const versions = new Set(
        (Array.isArray(affected.versions) ? affected.versions : []).filter((v): v is string => typeof v === 'string'),
      );
      if (ranges.length === 0 && versions.size === 0) continue;
      const key = packageKey(osvEcosystem, rules.normalizeName(pkg.name));
      let list = byPackage.get(key);
      if (!list) byPackage.set(key, (list = []));
      list.push({ group, advisoryId: a.id, ranges, versions });
    }
  }
  return { groups, byPackage, advisoryCount: advisories.length };
}
