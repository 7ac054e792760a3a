// Package → affected advisories, pure (google/osv-scanner's habit): one finding per alias group, package name and
// installed version, with its fixed version (docs/scanning.md, "Matching").
import { packageKey, type AdvisoryIndex } from '../advisories/build-index';
import { rulesFor } from '../advisories/ecosystems';
import type { AdvisoryGroup } from '../advisories/groups';
import type { Snapshot } from '../../shared/types';
import { evaluateEntry, type EntryVerdict } from './ranges';

export { evaluateRange, evaluateEntry } from './ranges';

export interface Match {
  nodeId: string;
  name: string;
  version: string;
  group: AdvisoryGroup;
  fixedVersion: string | null;
}

export interface MatchResult {
  matches: Match[];
  unmatchedVersions: number;
  unmatched: Array<{ name: string; version: string }>;
}

/** The finding's fixedVersion: the highest of the matched ranges' fixes, or null when any of them has none. */
function fixedVersion(verdicts: EntryVerdict[], compare: (a: unknown, b: unknown) => number): string | null {
  let best: { raw: string; v: unknown } | null = null;
  for (const verdict of verdicts) {
    for (const fix of verdict.fixes) {
      if (fix === null) return null;
      if (!best || compare(fix.v, best.v) > 0) best = fix;
    }
  }
  return best ? best.raw : null;
}

export function matchSnapshot(snapshot: Snapshot, index: AdvisoryIndex): MatchResult {
  const rules = rulesFor(snapshot.ecosystem);
  if (!rules) throw new Error(`ecosystem ${snapshot.ecosystem} has no version rules`);
  const matches: Match[] = [];
  const unmatched: MatchResult['unmatched'] = [];
  for (const node of snapshot.nodes) {
    const v = rules.parse(node.version);
    if (v === null) {
      unmatched.push({ name: node.name, version: node.version });
      continue;
    }
    const entries = index.byPackage.get(packageKey(rules.osvEcosystem, rules.normalizeName(node.name)));
    if (!entries) continue;
    const byGroup = new Map<number, EntryVerdict[]>();
    for (const entry of entries) {
      const verdict = evaluateEntry(entry, node.version, v, rules);
      if (!verdict.affected) continue;
      const list = byGroup.get(entry.group);
      if (list) list.push(verdict);
      else byGroup.set(entry.group, [verdict]);
    }
    for (const [g, verdicts] of byGroup) {
      matches.push({
        nodeId: node.id,
        name: node.name,
        version: node.version,
        group: index.groups[g],
        fixedVersion: fixedVersion(verdicts, rules.compare),
      });
    }
  }
  return { matches, unmatchedVersions: unmatched.length, unmatched };
}
