// `npm run bench -- --against REF [--reps N]`: the scan-path suite (bench/scan-path.ts) on commit REF, built in a
// scratch folder (bench/tree.ts), and on this tree: both services up at once on the same local infrastructure, each
// repetition measured on one then the other (the order flipping each time), so that the machine's drift falls on
// both alike. Each figure is printed for both with their ratio, so that a loss shows before it lands. Run it for any
// change on the upload, scan or read paths (docs/benchmarks.md), and put its table in the change's note.
import { startBenchInfra, startHarness } from './harness';
import { checkDigests, prepareScanPath, scanPathFigures, type Figure, type ScanPathResult } from './scan-path';
import { buildTree, thisTree, type ServiceTree } from './tree';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export async function againstBench(): Promise<void> {
  const ref = arg('--against');
  if (!ref) throw new Error('--against needs a commit, branch or tag');
  const reps = Number(arg('--reps') ?? 10);
  const base = buildTree(ref);
  const here = thisTree();
  const setup = prepareScanPath();
  const infra = await startBenchInfra();
  let results: ScanPathResult[] = [];
  try {
    const hs = [await startHarness({ root: base.root, shared: infra }), await startHarness({ shared: infra })];
    try {
      console.log(`bench: ${base.label} and this tree, ${reps} repetitions each, interleaved`);
      results = await scanPathFigures(hs, setup, reps);
    } finally {
      for (const h of hs) await h.close();
    }
  } finally {
    await infra.stop();
    setup.close();
  }
  const [a, b] = results;
  printComparison(base, a.figures, b.figures);
  // Both trees found the same in every scenario; this tree's digests are then kept for the next run's check.
  const differ = Object.keys(b.digests).filter((k) => a.digests[k] !== undefined && a.digests[k] !== b.digests[k]);
  for (const k of differ)
    console.log(
      `findings of ${k} DIFFER between the trees: ${a.digests[k]} (${base.label}), ${b.digests[k]} (this tree)`,
    );
  if (!differ.length) console.log('findings: the same on both trees in every scenario');
  if (!checkDigests(b.digests) || differ.length) process.exitCode = 1;
}

function printComparison(base: ServiceTree, theirs: Figure[], mine: Figure[]): void {
  const show = (f: Figure, v: number) => (f.unit === 'ms' ? `${v.toFixed(v < 10 ? 2 : 1)} ms` : `${v.toFixed(2)}×`);
  const header = ['figure', base.label, 'this tree', 'ratio', 'target'];
  console.log(`\n${base.label} against this tree (each figure a median over the repetitions)`);
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  // Matched by label: a tree may lack a figure (a route it did not have yet), shown as —.
  for (const f of mine) {
    const t = theirs.find((g) => g.label === f.label);
    const met = f.target ? `${f.target.text}: ${f.value <= f.target.max ? 'met' : 'not met'}` : '';
    const cells = [
      f.label.trim(),
      t ? show(f, t.value) : '—',
      show(f, f.value),
      t ? (f.value / t.value).toFixed(2) : '',
      met,
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}
