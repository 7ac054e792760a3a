// OSV range semantics over parsed versions (https://ossf.github.io/osv-schema/#affectedranges-field): events sorted
// by version open ([introduced) and close (fixed) or [last_affected]) intervals; `limit` caps the whole range.
import type { EcosystemRules } from '../advisories/ecosystems';
import type { AffectedEntry, ParsedRange } from '../advisories/build-index';

export interface RangeVerdict {
  affected: boolean;
  /** The lowest `fixed` above the installed version in this range, or null when there is none. */
  fix: { raw: string; v: unknown } | null;
}

function cmp(rules: EcosystemRules, a: unknown | null, b: unknown | null): number {
  if (a === null) return b === null ? 0 : -1; // null = the beginning (introduced "0")
  if (b === null) return 1;
  return rules.compare(a, b);
}

/**
 * Whether `v` lies in the range. Unreadable event values are handled conservatively and deliberately: an
 * unreadable `introduced` opens the range from the beginning, an unreadable `fixed` or `last_affected` leaves it
 * open (flagged, no fix offered), an unreadable `limit` is ignored. A scanner that misses a vulnerable version is
 * worse than one that asks a human to look.
 */
export function evaluateRange(range: ParsedRange, v: unknown, rules: EcosystemRules): RangeVerdict {
  const events = range.events.filter((e) => e.kind !== 'limit');
  // Below any limit is enough; an unreadable limit ("*" in OSV means infinity) limits nothing.
  const limits = range.events.filter((e) => e.kind === 'limit');
  if (limits.length && !limits.some((l) => l.v === null || rules.compare(v, l.v) < 0))
    return { affected: false, fix: null };
  // Sort by version (a stable sort: equal versions keep the advisory's own order, which is what tells
  // [introduced X, fixed X] (empty) from [fixed X, introduced X] (reopened)); unreadable closers sort last so that
  // they close nothing before readable events.
  const sorted = [...events].sort((x, y) => {
    const xu = x.v === null && x.kind !== 'introduced';
    const yu = y.v === null && y.kind !== 'introduced';
    if (xu || yu) return xu === yu ? 0 : xu ? 1 : -1;
    return cmp(rules, x.v, y.v);
  });
  let affected = false;
  for (const e of sorted) {
    if (e.kind === 'introduced') {
      if (e.v === null || rules.compare(v, e.v) >= 0) affected = true;
    } else if (e.v === null) {
      continue; // unreadable closer: the interval stays open
    } else if (e.kind === 'fixed') {
      if (rules.compare(v, e.v) >= 0) affected = false;
    } else if (e.kind === 'last_affected') {
      if (rules.compare(v, e.v) > 0) affected = false;
    }
  }
  if (!affected) return { affected: false, fix: null };
  let fix: RangeVerdict['fix'] = null;
  for (const e of range.events) {
    if (e.kind !== 'fixed' || e.v === null) continue;
    for (const f of e.fixes ?? [{ raw: e.raw, v: e.v }]) {
      if (rules.compare(f.v, v) > 0 && (!fix || rules.compare(f.v, fix.v) < 0)) fix = f;
    }
  }
  return { affected, fix };
}

export interface EntryVerdict {
  affected: boolean;
  /** Fixes of the matched ranges; a null member means a matched range offers no fix. */
  fixes: Array<RangeVerdict['fix']>;
}

/**
 * One affected entry: its ranges, else its explicit version list. The list counts only when no range matched:
 * databases such as PyPA enumerate the versions of their ranges too, and that enumeration must not erase the fix.
 */
export function evaluateEntry(entry: AffectedEntry, raw: string, v: unknown, rules: EcosystemRules): EntryVerdict {
  const fixes: EntryVerdict['fixes'] = [];
  for (const r of entry.ranges) {
    const verdict = evaluateRange(r, v, rules);
    if (verdict.affected) fixes.push(verdict.fix);
  }
  if (fixes.length) return { affected: true, fixes };
  if (entry.versions.has(raw)) return { affected: true, fixes: [null] };
  return { affected: false, fixes: [] };
}
