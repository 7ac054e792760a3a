// Matching speed, in process: every advisory of the third-party data (src/infra/shared-data.ts) indexed once, then
// 10,000-package snapshots matched per scanned ecosystem (names drawn from the advisories' own packages, so that most
// lookups hit ranges). The caller checks that the data is there.
import { readOsvSources } from '../src/advisories/reader';
import { buildAdvisoryIndex, rulesFor } from '../src/domain/advisories';
import { matchSnapshot } from '../src/domain/matching';
import type { Ecosystem, OsvAdvisory, Snapshot } from '../src/shared/types';
import { sharedDataPath } from '../src/infra/shared-data';
import { fmt, median, row, timed } from './stats';

const OSV_OF: Record<string, Ecosystem> = { npm: 'javascript', PyPI: 'python', Maven: 'gradle' };
const VERSIONS: Record<string, string[]> = {
  javascript: ['0.1.0', '1.0.0', '1.2.3', '2.0.0', '4.17.20', '7.5.9'],
  python: ['0.1', '1.0', '1.2.3', '2.0.0', '2.28.1', '3.1'],
  gradle: ['1.0', '1.30', '2.13.3', '31.1-jre', '5.3.20', '9.0.0'],
};

export async function matchingBench(): Promise<void> {
  const advisories: OsvAdvisory[] = [];
  const [, readMs] = await timed(async () => {
    for await (const item of readOsvSources([
      sharedDataPath('advisories', 'npm'),
      sharedDataPath('advisories', 'maven'),
      sharedDataPath('advisories', 'pypi'),
    ])) {
      if ('advisory' in item) advisories.push(item.advisory);
    }
  });
  const [index, indexMs] = await timed(async () => buildAdvisoryIndex(advisories));
  row(`advisory index of ${advisories.length} advisories (read ${fmt(readMs)})`, fmt(indexMs));
  for (const [osv, ecosystem] of Object.entries(OSV_OF)) {
    if (!rulesFor(ecosystem)) {
      row(`matching 10,000 ${ecosystem} packages`, 'not scanned yet');
      continue;
    }
    const names = [
      ...new Set(
        advisories.flatMap((a) =>
          (a.affected ?? []).filter((x) => x.package?.ecosystem === osv).map((x) => x.package!.name),
        ),
      ),
    ];
    const nodes = Array.from({ length: 10_000 }, (_, i) => {
      const name = i < names.length * 6 ? names[i % names.length] : `${osv.toLowerCase()}-filler-${i}`;
      const version = VERSIONS[ecosystem][Math.floor(i / Math.max(1, names.length)) % VERSIONS[ecosystem].length];
      return { id: `${name}@${version}#${i}`, name, version, relationship: 'direct' as const, dependencies: [] };
    });
    const snapshot: Snapshot = { schemaVersion: 1, project: 'bench', ecosystem, roots: [], nodes };
    const times: number[] = [];
    let matches = 0;
    for (let i = 0; i < 7; i++) {
      const [r, ms] = await timed(async () => matchSnapshot(snapshot, index));
      times.push(ms);
      matches = r.matches.length;
    }
    row(`matching 10,000 ${ecosystem} packages (${matches} matches), median of 7`, fmt(median(times)), '≤ 100 ms');
  }
}
