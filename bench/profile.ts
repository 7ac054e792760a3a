// `npm run bench -- profile [N] [largest]`: N (default 40) typical 1,000-node scans (or with `largest`, N (default 3)
// of the largest document, 9.5 MB), one after another, with the API and the worker under V8's CPU profiler
// (node --cpu-prof); then where each process spent its time: self time by module (this project's files, each
// dependency, node internals) and the heaviest functions. The .cpuprofile files stay in
// the folder printed at the end, to open in Chrome's DevTools (Performance panel) or speedscope.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHarness } from './harness';
import { buildTree } from './tree';
import { largestV2, largestV2Advisories } from './attribution';
import { benchSnapshot, quiesce, syntheticAdvisories } from './scenarios';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a dependency by package name, a file of this project, node's internals, or V8. */
function moduleOf(url: string): string {
  if (!url) return '(v8: gc, program, idle)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const dist = url.indexOf('/dist/');
  return dist >= 0 ? url.slice(dist + '/dist/'.length) : url;
}

export function summarize(file: string, top = 20): void {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    const mod = moduleOf(f.url);
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
    const key = `${f.functionName || '(anonymous)'}  ${mod}:${f.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
  const busy = [...byModule.values()].reduce((a, b) => a + b, 0);
  const show = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([k, us]) =>
          `    ${(us / 1000).toFixed(0).padStart(7)} ms  ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${k}`,
      )
      .join('\n');
  console.log(`  busy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms profiled`);
  console.log(`  self time by module:\n${show(byModule)}`);
  console.log(`  heaviest functions (self time):\n${show(byFunction)}`);
}

export async function profileBench(): Promise<void> {
  const largest = process.argv.includes('largest');
  const n = Number(process.argv[process.argv.indexOf('profile') + 1]) || (largest ? 3 : 40);
  const what = largest ? 'of the largest document' : 'of 1,000 nodes';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-profile-'));
  const doc = largest ? largestV2('profiled') : undefined;
  const advisories = doc ? largestV2Advisories(doc) : syntheticAdvisories(2000);
  const body = doc ? JSON.stringify(doc) : benchSnapshot(1000, 'profiled');
  // `--tree REF`: profile that commit's service instead (built as --against builds it).
  const ref = process.argv.includes('--tree') ? process.argv[process.argv.indexOf('--tree') + 1] : undefined;
  const root = ref ? buildTree(ref).root : undefined;
  const h = await startHarness({ root, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
  try {
    await h.importAdvisories([advisories]);
    for (let i = 0; i < n; i++) {
      const { id } = await h.upload(body);
      const done = await h.waitCompleted(id, 10);
      if (done.status !== 'completed') throw new Error(`scan ${id} ${done.status}`);
    }
    await quiesce(h);
  } finally {
    await h.close(); // the processes write their profiles as they exit
    fs.rmSync(advisories, { recursive: true, force: true });
  }
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.cpuprofile'))) {
    const pid = Number(/^CPU\.\d+\.\d+\.(\d+)\./.exec(f)?.[1]); // CPU.<date>.<time>.<pid>.<thread>.<seq>
    console.log(`\n${f}${h.roles.get(pid) ? ` (${h.roles.get(pid)})` : ''}, ${n} scans ${what}:`);
    summarize(path.join(dir, f));
  }
  console.log(`\nprofiles: ${dir}`);
}
