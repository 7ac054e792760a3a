// The layers of docs/architecture.md, checked by dependency-cruiser with the project's rules (.dependency-cruiser.cjs):
// the tree passes, and each rule fails a planted offender, naming the offending import.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const LAYERS = ['src', 'activities', 'workflows', 'workers', 'web/src'];

/** Runs the check in `cwd` over `dirs`: the exit code and what it printed. */
async function cruise(cwd: string, dirs: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await run(process.execPath, [CLI, '--config', CONFIG, '--output-type', 'err', ...dirs], {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

test('the project keeps its layers: no dependency rule is broken and there is no import cycle', async () => {
  const { code, out } = await cruise(ROOT, LAYERS);
  if (code !== 0)
    throw new Error(`dependency-cruiser found imports that break the layers (docs/architecture.md):\n${out}`);
  expect(out).toContain('no dependency violations found');
}, 120_000);

describe('each rule catches its offender', () => {
  let dir: string;
  const plant = (files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    }
  };
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-'));
    plant({
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'commonjs', moduleResolution: 'node', jsx: 'preserve' },
      }),
      'src/storage/repo.ts': 'export const find = () => 1;\n',
      'src/http/route.ts': 'export const route = () => 1;\n',
      'src/shared/types.ts': 'export type Snapshot = { id: string };\n',
      'src/domain/rule.ts': "import { find } from '../storage/repo';\nexport const rule = () => find();\n",
      'src/domain/pure.ts':
        "import type { Snapshot } from '../shared/types';\nexport const ok = (s: Snapshot) => s.id;\n",
      'activities/step.ts': "import { route } from '../src/http/route';\nexport const step = () => route();\n",
      'workflows/flow.ts': "import { step } from '../activities/step';\nexport const flow = () => step();\n",
      'workflows/typed.ts': "import type { step } from '../activities/step';\nexport type Step = typeof step;\n",
      'src/client/cli.ts':
        "import { rule } from '../domain/rule';\nimport type { Snapshot } from '../shared/types';\nexport const cli = (s: Snapshot) => rule() + s.id.length;\n",
      'src/a.ts': "import { b } from './b';\nexport const a = () => b();\n",
      'src/b.ts': "import { a } from './a';\nexport const b = (): number => a();\n",
      'web/src/view.tsx': "import { find } from '../../src/storage/repo';\nexport const view = () => find();\n",
    });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('and names each offending import', async () => {
    const { code, out } = await cruise(
      dir,
      LAYERS.filter((d) => fs.existsSync(path.join(dir, d))),
    );
    expect(code).not.toBe(0);
    expect(out).toContain('domain-is-pure: src/domain/rule.ts → src/storage/repo.ts');
    expect(out).toContain('storage-and-activities-not-http: activities/step.ts → src/http/route.ts');
    expect(out).toContain('temporal-not-http: activities/step.ts → src/http/route.ts');
    expect(out).toContain('workflows-are-deterministic: workflows/flow.ts → activities/step.ts');
    expect(out).toContain('client-imports-only-shared: src/client/cli.ts → src/domain/rule.ts');
    expect(out).toContain('web-over-http-only: web/src/view.tsx → src/storage/repo.ts');
    expect(out).toMatch(/no-cycles: src\/(a|b)\.ts →/);
    // What the rules allow: the domain and the client on src/shared, workflows on types of activities.
    expect(out).not.toContain('src/domain/pure.ts');
    expect(out).not.toContain('workflows/typed.ts');
    expect(out).not.toContain('src/client/cli.ts → src/shared/types.ts');
  }, 120_000);
});
