// `npm run bench -- --against REF [--rounds N]`: the scan-path suite (bench/scan-path.ts) on commit REF, built in a
// scratch folder (bench/tree.ts), and on this tree, alternating on the same machine and the same local
// infrastructure: REF, this, this, REF, ... Each figure is printed for both (the median over the rounds) with their
// ratio, so that a loss shows before it lands. Run it for any change on the upload, scan or read paths
// (docs/benchmarks.md), and put its table in the change's note.
import { startBenchInfra, startHarness } from './harness';
import { checkDigests, prepareScanPath, scanPathFigures, type Figure } from './scan-path';
import { buildTree, thisTree, type ServiceTree } from './tree';

/** The middle value (the mean of the two middle ones for an even count). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export async function againstBench(): Promise<void> {
  const ref = arg('--against');
  if (!ref) throw new Error('--against needs a commit, branch or tag');
  const rounds = Number(arg('--rounds') ?? 2);
  const base = buildTree(ref);
  const here = thisTree();
  const setup = prepareScanPath();
  const infra = await startBenchInfra();
  const runs = new Map<ServiceTree, Figure[][]>([
    [base, []],
    [here, []],
  ]);
  const digests = new Map<ServiceTree, Record<string, string>>();
  try {
    for (let r = 0; r < rounds; r++) {
      for (const tree of r % 2 === 0 ? [base, here] : [here, base]) {
        console.log(`\n— round ${r + 1} of ${rounds}: ${tree.label}`);
        const h = await startHarness({ root: tree.root, shared: infra });
        try {
          const out = await scanPathFigures(h, setup, true);
          runs.get(tree)!.push(out.figures);
          digests.set(tree, out.digests);
        } finally {
          await h.close();
        }
      }
    }
  } finally {
    await infra.stop();
    setup.close();
  }
  printComparison(base, here, runs);
  // Both trees found the same in every scenario; this tree's digests are then kept for the next run's check.
  const [a, b] = [digests.get(base)!, digests.get(here)!];
  const differ = Object.keys(b).filter((k) => a[k] !== undefined && a[k] !== b[k]);
  for (const k of differ)
    console.log(`findings of ${k} DIFFER between the trees: ${a[k]} (${base.label}), ${b[k]} (this tree)`);
  if (!differ.length) console.log('findings: the same on both trees in every scenario');
  if (!checkDigests(b) || differ.length) process.exitCode = 1;
}

function printComparison(base: ServiceTree, here: ServiceTree, runs: Map<ServiceTree, Figure[][]>): void {
  const baseRuns = runs.get(base)!;
  const hereRuns = runs.get(here)!;
  const show = (f: Figure, v: number) => (f.unit === 'ms' ? `${v.toFixed(v < 10 ? 2 : 1)} ms` : `${v.toFixed(2)}×`);
  const header = ['figure', base.label, 'this tree', 'ratio', 'target'];
  const lines: string[][] = [];
  // Figures are matched by label: a tree may lack one (a route it did not have yet), shown as —.
  const valuesOf = (runs: Figure[][], label: string) =>
    runs.map((run) => run.find((g) => g.label === label)?.value).filter((v): v is number => v !== undefined);
  for (const f of hereRuns[0]) {
    const mine = valuesOf(hereRuns, f.label);
    const theirs = valuesOf(baseRuns, f.label);
    const a = median(theirs);
    const b = median(mine);
    const met = f.target ? `${f.target.text}: ${b <= f.target.max ? 'met' : 'not met'}` : '';
    lines.push([
      f.label.trim(),
      theirs.length ? `${show(f, a)} (${theirs.map((v) => show(f, v)).join(', ')})` : '—',
      `${show(f, b)} (${mine.map((v) => show(f, v)).join(', ')})`,
      theirs.length ? `${(b / a).toFixed(2)}` : '',
      met,
    ]);
  }
  console.log(
    `\n${base.label} against this tree, ${hereRuns.length} rounds each, alternating (medians; each round in brackets)`,
  );
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const l of lines) console.log(`| ${l.join(' | ')} |`);
}
