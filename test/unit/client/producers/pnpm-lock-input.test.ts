// Malformed pnpm lockfiles end in an InputError that names the file (exit 2), never in a TypeError or a wrong snapshot.
import { stringify } from 'yaml';
import { pnpmLockProducer } from '../../../../src/client/producers/pnpm-lock';
import { expectInputError as expectFileError } from './npm-helpers';

const FILE = 'app/pnpm-lock.yaml';
const run = (text: string) => () => pnpmLockProducer.produce({ path: FILE, text, readFile: () => undefined });
const v9 = (rest: Record<string, unknown>) => stringify({ lockfileVersion: '9.0', ...rest });
const importer = (deps: unknown) => ({ importers: { '.': { dependencies: deps } } });

const expectInputError = (f: () => unknown, what: RegExp) => expectFileError(f, what, FILE);

describe('pnpm producer: bad input', () => {
  it('refuses what is not YAML, or not a mapping', () => {
    expectInputError(run('lockfileVersion: [9.0\n'), /not valid YAML/);
    expectInputError(run("lockfileVersion: '9.0'\nlockfileVersion: '9.0'\n"), /not valid YAML/); // a duplicate key
    expectInputError(run('\tlockfileVersion: 9\n'), /not valid YAML/);
    for (const t of ['', '- a\n- b\n', 'just text\n', '42\n', '{"lockfileVersion": 3, "packages": {}}']) {
      expectInputError(run(t), /top level is not a mapping|lockfileVersion/);
    }
    expectInputError(run(''), /top level is not a mapping/);
  });

  it('refuses an unknown or missing lockfileVersion', () => {
    expectInputError(run('lockfileVersion: 5.4\n'), /lockfileVersion 5.4 is not supported \(6.x and 9.0 are\)/);
    expectInputError(run("lockfileVersion: '5.4'\n"), /lockfileVersion "5.4" is not supported/);
    expectInputError(run("lockfileVersion: '10.0'\n"), /lockfileVersion "10.0" is not supported/);
    expectInputError(run('lockfileVersion: 9\n'), /lockfileVersion 9 is not supported/);
    expectInputError(run('importers: {}\n'), /no lockfileVersion/);
  });

  it('refuses sections of the wrong type', () => {
    expectInputError(run(v9({ importers: ['.'] })), /lockfile\.importers must be a mapping/);
    expectInputError(run(v9({ importers: { '.': 'x' } })), /importers\["\."\] must be a mapping/);
    expectInputError(run(v9(importer(['a']))), /importers\["\."\]\.dependencies must be a mapping/);
    expectInputError(run(v9(importer({ a: '1.0.0' }))), /importers\["\."\]\.dependencies\.a\.version must be a string/);
    expectInputError(
      run(v9(importer({ a: { specifier: '^1', version: 1 } }))),
      /dependencies\.a\.version must be a string/,
    );
    expectInputError(run(v9({ packages: 'x' })), /lockfile\.packages must be a mapping/);
    expectInputError(run(v9({ snapshots: ['a@1.0.0'] })), /lockfile\.snapshots must be a mapping/);
    expectInputError(run(v9({ snapshots: { 'a@1.0.0': 'x' } })), /snapshots\["a@1\.0\.0"\] must be a mapping/);
    expectInputError(
      run(v9({ snapshots: { 'a@1.0.0': { dependencies: ['b'] } } })),
      /snapshots\["a@1\.0\.0"\]\.dependencies must be a mapping/,
    );
    expectInputError(
      run(v9({ snapshots: { 'a@1.0.0': { optionalDependencies: { b: 2 } } } })),
      /snapshots\["a@1\.0\.0"\]\.optionalDependencies\.b must be a string/,
    );
    expectInputError(
      run(stringify({ lockfileVersion: '6.0', packages: { '/a@1.0.0': { dependencies: { b: null } } } })),
      /packages\["\/a@1\.0\.0"\]\.dependencies\.b must be a string/,
    );
  });

  it('refuses package keys without a version', () => {
    expectInputError(run(v9({ packages: { a: {} } })), /packages\.a: cannot tell the package name and version/);
    expectInputError(
      run(v9({ snapshots: { '@s/a': {} } })),
      /snapshots\["@s\/a"\]: cannot tell the package name and version/,
    );
    expectInputError(
      run(stringify({ lockfileVersion: '6.0', packages: { '/a@': {} } })),
      /cannot tell the package name and version/,
    );
  });

  it('reads an empty lockfile, and empty entries, as nothing', () => {
    const p = pnpmLockProducer.produce({
      path: FILE,
      text: "lockfileVersion: '9.0'\n\nimporters:\n\n  .: {}\n",
      readFile: () => undefined,
    });
    expect(p).toMatchObject({
      modules: [{ path: 'app', manifest: 'app/package.json', dependencies: [] }],
      roots: [],
      nodes: [],
      warnings: [],
    });
    const q = pnpmLockProducer.produce({
      path: FILE,
      text: "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      a:\n        specifier: ^1\n        version: 1.0.0\npackages:\n  a@1.0.0:\nsnapshots:\n  a@1.0.0:\n",
      readFile: () => undefined,
    });
    expect(q.nodes.map((n) => n.id)).toEqual(['a@1.0.0']);
    expect(q.locations['a@1.0.0']).toEqual({ file: FILE, line: 9 });
  });
});
