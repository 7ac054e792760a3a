// Malformed lockfiles end in an InputError that names the file (exit 2), never in a TypeError or a wrong snapshot.
import { InputError } from '../../../../src/client/errors';
import { npmLockProducer } from '../../../../src/client/producers/npm-lock';
import { lockOf, expectInputError as expectFileError } from './npm-helpers';

const run =
  (text: string, files: Record<string, string> = {}) =>
  () =>
    npmLockProducer.produce({ path: 'app/package-lock.json', text, readFile: (p) => files[p] });
const json = (v: unknown) => JSON.stringify(v, null, 2);
const v3 = (packages: unknown) => json({ name: 'x', lockfileVersion: 3, requires: true, packages });

const expectInputError = (f: () => unknown, what: RegExp, file = 'app/package-lock.json') =>
  expectFileError(f, what, file);

describe('npm producer: bad input', () => {
  it('refuses what is not JSON, or not an object', () => {
    expectInputError(run('{"lockfileVersion": 3,'), /not valid JSON/);
    expectInputError(run(''), /not valid JSON/);
    for (const v of ['null', '[]', '3', '"x"']) expectInputError(run(v), /top level is not an object/);
  });

  it('refuses an unknown or missing lockfileVersion', () => {
    expectInputError(run(json({ lockfileVersion: 4, packages: {} })), /lockfileVersion 4 is not supported/);
    expectInputError(run(json({ lockfileVersion: '3', packages: {} })), /lockfileVersion "3" is not supported/);
    expectInputError(run(json({ packages: { '': {} } })), /no lockfileVersion/);
  });

  it('refuses a v2/v3 lockfile without a packages object or without the project entry', () => {
    for (const packages of [undefined, [], 'x', null])
      expectInputError(run(v3(packages)), /"packages" object is required/);
    expectInputError(run(json({ lockfileVersion: 2, dependencies: {} })), /"packages" object is required/);
    expectInputError(run(v3({ 'node_modules/a': { version: '1.0.0' } })), /packages\[""\].*missing/);
  });

  it('refuses malformed entries, naming them', () => {
    expectInputError(
      run(v3({ '': {}, 'node_modules/a': { version: 1 } })),
      /packages\["node_modules\/a"\]\.version must be a string/,
    );
    expectInputError(run(v3({ '': {}, 'node_modules/a': null })), /packages\["node_modules\/a"\] must be an object/);
    expectInputError(run(v3({ '': {}, 'node_modules/a': [] })), /must be an object/);
    expectInputError(run(v3({ '': { dependencies: ['a'] } })), /packages\[""\]\.dependencies must be an object/);
    expectInputError(
      run(v3({ '': {}, 'node_modules/a': { version: '1.0.0', peerDependencies: null } })),
      /peerDependencies must be an object/,
    );
    expectInputError(run(v3({ '': {}, 'node_modules/a': { version: '1.0.0', name: 7 } })), /\.name must be a string/);
    expectInputError(run(v3({ '': {}, 'node_modules/a': { link: 'yes', resolved: 'a' } })), /\.link must be a boolean/);
    expectInputError(
      run(v3({ '': {}, 'node_modules/a': { link: true, resolved: {} } })),
      /\.resolved must be a string/,
    );
  });

  it('refuses a malformed v1 tree or package.json', () => {
    const v1 = (dependencies: unknown) => json({ lockfileVersion: 1, dependencies });
    expectInputError(run(v1([])), /^app\/package-lock.json: dependencies must be an object/);
    expectInputError(run(v1({ a: { version: 1 } })), /dependencies\.a\.version must be a string/);
    expectInputError(run(v1({ a: {} })), /dependencies\.a\.version is missing/);
    expectInputError(
      run(v1({ a: { version: '1.0.0', requires: ['b'] } })),
      /dependencies\.a\.requires must be an object/,
    );
    expectInputError(
      run(v1({ a: { version: '1.0.0', dependencies: { '@s/b': 'x' } } })),
      /dependencies\.a\.dependencies\["@s\/b"\] must be an object/,
    );
    expectInputError(run(v1({ a: { version: 'npm:@scope' } })), /not npm:<name>@<version>/);
    expectInputError(run(v1({}), { 'app/package.json': '{ nope' }), /not valid JSON/, 'app/package.json');
    expectInputError(
      run(v1({}), { 'app/package.json': json({ dependencies: 'a' }) }),
      /dependencies must be an object/,
      'app/package.json',
    );
  });

  it('never throws anything but InputError on mangled real lockfiles', () => {
    // Each field of each entry replaced by values of the wrong type, one at a time.
    const lock = lockOf('workspaces');
    const wrong: unknown[] = [null, 7, 'x', [], {}, true];
    let produced = 0;
    for (const key of Object.keys(lock.packages)) {
      for (const field of [...Object.keys(lock.packages[key]), 'dependencies', 'link']) {
        for (const value of wrong) {
          const copy = lockOf('workspaces');
          copy.packages[key][field] = value;
          try {
            npmLockProducer.produce({ path: 'package-lock.json', text: json(copy), readFile: () => undefined });
            produced++;
          } catch (e) {
            expect(e).toBeInstanceOf(InputError);
          }
        }
      }
    }
    expect(produced).toBeGreaterThan(0); // fields the producer does not read (integrity, license) are ignored
  });

  it('reads a v1 lockfile whose tree nests deeper than the call stack would allow recursion', () => {
    // Written as text: JSON.stringify itself recurses; JSON.parse does not.
    let open = '';
    let close = '';
    for (let i = 0; i < 20000; i++) {
      open += `{"p${i}":{"version":"1.0.0","requires":{"p${i + 1}":"1"},"dependencies":`;
      close += '}}';
    }
    const text = `{"lockfileVersion":1,"dependencies":${open}{}${close}}`;
    const part = npmLockProducer.produce({
      path: 'package-lock.json',
      text,
      readFile: (p) => (p === 'package.json' ? '{"dependencies":{"p0":"1"}}' : undefined),
    });
    expect(part.nodes).toHaveLength(20000);
  });
});
