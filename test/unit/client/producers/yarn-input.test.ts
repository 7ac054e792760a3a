// Malformed yarn.lock files and manifests end in an InputError that names the file (exit 2), never in a TypeError
// or a wrong snapshot.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../../../../src/client/errors';
import { yarnLockProducer } from '../../../../src/client/producers/yarn-lock';
import { validatePart, expectInputError as expectFileError } from './npm-helpers';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/yarn');
const lockText = (name: string) => fs.readFileSync(path.join(FIXTURES, name, 'yarn.lock'), 'utf8');
const run =
  (text: string, files: Record<string, string> = {}) =>
  () =>
    yarnLockProducer.produce({ path: 'app/yarn.lock', text, readFile: (p) => files[p] });

const expectInputError = (f: () => unknown, what: RegExp, file = 'app/yarn.lock') => expectFileError(f, what, file);

describe('yarn producer: bad v1 input', () => {
  it('refuses lines that are not the v1 format, naming the line', () => {
    expectInputError(run('a@^1.0.0\n  version "1.0.0"\n'), /line 1: an entry must start with its keys and a colon/);
    expectInputError(run('  version "1.0.0"\n'), /line 1: an indented line before the first entry/);
    expectInputError(run('a@^1:\n  version "1.0.0" extra\n'), /line 2: a field must be a name and one value/);
    expectInputError(run('a@^1:\n  dependencies:\n    b\n'), /line 3: a dependency must be a name and a range/);
    expectInputError(run('a@^1:\n      version "1"\n'), /line 2: unexpected indentation \(6 spaces\)/);
    expectInputError(run('"a@^1:\n  version "1"\n'), /line 1: not a yarn.lock v1 line/);
    expectInputError(run('a@^1:\n<<<<<<< HEAD\n  version "1"\n'), /line 2: an unresolved merge conflict/);
  });

  it('reads an empty lockfile (no dependencies) as a project without packages', () => {
    const p = run('# yarn lockfile v1\n\n\n', { 'app/package.json': '{"name":"x"}' })();
    expect(p.nodes).toEqual([]);
    expect(p.roots).toEqual([]);
    expect(p.modules).toEqual([{ path: 'app', manifest: 'app/package.json', dependencies: [] }]);
  });

  it('refuses a manifest that is not JSON or has malformed sections', () => {
    const text = lockText('classic');
    expectInputError(run(text, { 'app/package.json': '{' }), /not valid JSON/, 'app/package.json');
    expectInputError(run(text, { 'app/package.json': '[]' }), /top level is not an object/, 'app/package.json');
    expectInputError(
      run(text, { 'app/package.json': '{"dependencies": ["a"]}' }),
      /dependencies must be an object/,
      'app/package.json',
    );
    expectInputError(
      run(text, { 'app/package.json': '{"devDependencies": {"a": 1}}' }),
      /devDependencies\["a"\] must be a string/,
      'app/package.json',
    );
    expectInputError(
      run(text, { 'app/package.json': '{"workspaces": "packages/*"}' }),
      /workspaces must be an array/,
      'app/package.json',
    );
    expectInputError(
      run(text, { 'app/package.json': '{"workspaces": {"packages": [1]}}' }),
      /workspaces must be an array/,
      'app/package.json',
    );
  });
});

describe('yarn producer: bad berry input', () => {
  const meta = '__metadata:\n  version: 8\n\n';
  it('refuses what is not YAML, or has no metadata map', () => {
    expectInputError(run(`${meta}"a@npm:1":\n  version: [1\n`), /not valid YAML/);
    expectInputError(run(`${meta}a: 1\na: 2\n`), /not valid YAML/);
    expectInputError(run('__metadata: 8\n'), /no __metadata/);
  });

  it('refuses entries that are not maps, without a resolution, or with malformed dependency maps', () => {
    expectInputError(run(`${meta}"a@npm:1": x\n`), /"a@npm:1" must be a map/);
    expectInputError(run(`${meta}"a@npm:1":\n  version: 1.0.0\n`), /"a@npm:1".resolution must be a string/);
    expectInputError(run(`${meta}"a@npm:1":\n  resolution: [a]\n`), /"a@npm:1".resolution must be a string/);
    expectInputError(
      run(`${meta}"a@npm:1":\n  resolution: "a@npm:1.0.0"\n  dependencies: [b]\n`),
      /"a@npm:1".dependencies must be a map/,
    );
    expectInputError(
      run(`${meta}"a@npm:1":\n  resolution: "a@npm:1.0.0"\n  peerDependencies:\n    b:\n      c: 1\n`),
      /"a@npm:1".peerDependencies must be a map/,
    );
  });

  it('leaves an entry without a version out, and says so', () => {
    const p = run(
      `${meta}"r@workspace:.":\n  resolution: "r@workspace:."\n  dependencies:\n    a: "npm:1"\n  linkType: soft\n\n"a@npm:1":\n  resolution: "a@npm:1.0.0"\n`,
      { 'app/package.json': '{"dependencies": {"a": "1"}}' },
    )();
    expect(p.warnings).toEqual(['entries without a version are left out: a@npm:1']);
    expect(p.nodes).toEqual([]);
  });
});

describe('yarn producer: truncated files', () => {
  // Every prefix of a real lockfile (cut at line ends and mid-line) either produces a part the server accepts or an
  // InputError.
  for (const name of ['classic', 'berry']) {
    it(`never throws anything but an InputError on a cut ${name} lockfile`, () => {
      const text = lockText(name);
      const files = Object.fromEntries(
        ['package.json', 'packages/app/package.json', 'packages/lib/package.json', 'packages/tools/package.json'].map(
          (f) => [`app/${f}`, fs.readFileSync(path.join(FIXTURES, name, f), 'utf8')],
        ),
      );
      let errors = 0;
      for (let cut = 0; cut < text.length; cut += 7) {
        try {
          validatePart(run(text.slice(0, cut), files)());
        } catch (e) {
          expect(e).toBeInstanceOf(InputError);
          errors++;
        }
      }
      expect(errors).toBeGreaterThan(0);
    });
  }
});
