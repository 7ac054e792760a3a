// package-lock.json (v2/v3) → v1 javascript snapshot: Node's resolution, first-party handling, dev/prod views, and
// a real lockfile (piscina) end to end through validateSnapshot.
import fs from 'node:fs';
import { snapshotFromNpmLock, validateSnapshot } from '../../../src/domain/snapshot';
import type { Snapshot } from '../../../src/shared/types';
import { describeWithSharedData, sharedDataPath } from '../../helpers/shared-data';
import { bytesOf } from './fixtures';

const PISCINA = sharedDataPath('lockfiles', 'npm', 'piscinajs__piscina__package-lock.json');
const lockfile = (packages: Record<string, unknown>) => ({ name: 'app', lockfileVersion: 3, requires: true, packages });
const depsOf = (s: Snapshot, id: string) => s.nodes.find((n) => n.id === id)?.dependencies;
const valid = (s: Snapshot) => expect(() => validateSnapshot(s, bytesOf(s))).not.toThrow();

describe('snapshotFromNpmLock: resolution', () => {
  test('a dependency resolves to the nearest node_modules, walking up from the dependent', () => {
    const s = snapshotFromNpmLock(
      lockfile({
        '': { name: 'app', version: '0.1.0', dependencies: { a: '^1', b: '^1' } },
        'node_modules/a': { version: '1.0.0', dependencies: { c: '^2', d: '^1' } },
        'node_modules/a/node_modules/c': { version: '2.0.0' },
        'node_modules/a/node_modules/d': { version: '1.0.0', dependencies: { c: '^2' } },
        'node_modules/b': { version: '1.1.0', dependencies: { c: '^1' } },
        'node_modules/c': { version: '1.0.0' },
      }),
      { project: 'app' },
    );
    valid(s);
    expect(s.roots).toEqual([
      { module: 'app', manifest: 'package.json', context: 'dependencies', dependencies: ['a@1.0.0', 'b@1.1.0'] },
    ]);
    expect(depsOf(s, 'a@1.0.0')).toEqual(['c@2.0.0', 'd@1.0.0']);
    expect(depsOf(s, 'd@1.0.0')).toEqual(['c@2.0.0']); // from a/node_modules/d up to a/node_modules
    expect(depsOf(s, 'b@1.1.0')).toEqual(['c@1.0.0']);
    expect(s.nodes.map((n) => `${n.id} ${n.relationship}`)).toEqual([
      'a@1.0.0 direct',
      'b@1.1.0 direct',
      'c@1.0.0 transitive',
      'c@2.0.0 transitive',
      'd@1.0.0 transitive',
    ]);
  });

  test('scoped packages nest and resolve like the others', () => {
    const s = snapshotFromNpmLock(
      lockfile({
        '': { dependencies: { '@s/x': '^1', y: '^1' } },
        'node_modules/@s/x': { version: '1.0.0', dependencies: { y: '^2', '@s/z': '*' } },
        'node_modules/@s/x/node_modules/y': { version: '2.0.0', dependencies: { '@s/z': '*' } },
        'node_modules/@s/z': { version: '0.3.0' },
        'node_modules/y': { version: '1.0.0' },
      }),
      { project: 'app' },
    );
    valid(s);
    expect(s.roots[0].module).toBe('.'); // an unnamed top-level package
    expect(depsOf(s, '@s/x@1.0.0')).toEqual(['@s/z@0.3.0', 'y@2.0.0']);
    expect(depsOf(s, 'y@2.0.0')).toEqual(['@s/z@0.3.0']);
    expect(s.nodes.find((n) => n.id === '@s/x@1.0.0')).toMatchObject({ name: '@s/x', version: '1.0.0' });
  });

  test('an aliased install is named by its real package name', () => {
    const s = snapshotFromNpmLock(
      lockfile({
        '': { dependencies: { 'string-width-cjs': 'npm:string-width@^4' } },
        'node_modules/string-width-cjs': { name: 'string-width', version: '4.2.3' },
      }),
      { project: 'app' },
    );
    expect(s.nodes).toEqual([
      { id: 'string-width@4.2.3', name: 'string-width', version: '4.2.3', relationship: 'direct', dependencies: [] },
    ]);
  });

  test('optional and peer dependencies are followed when installed and skipped when not', () => {
    const s = snapshotFromNpmLock(
      lockfile({
        '': { dependencies: { a: '1' }, optionalDependencies: { fsevents: '2', b: '1' } },
        'node_modules/a': { version: '1.0.0', peerDependencies: { react: '18', vue: '3' } },
        'node_modules/b': { version: '1.0.0', optional: true },
        'node_modules/react': { version: '18.3.1', peer: true },
      }),
      { project: 'app' },
    );
    valid(s);
    expect(s.roots[0].dependencies).toEqual(['a@1.0.0', 'b@1.0.0']);
    expect(depsOf(s, 'a@1.0.0')).toEqual(['react@18.3.1']);
  });

  test('copies of one name@version at several paths are one node with the union of their dependencies', () => {
    const s = snapshotFromNpmLock(
      lockfile({
        '': { dependencies: { a: '1', b: '1' } },
        'node_modules/a': { version: '1.0.0', dependencies: { x: '1' } },
        'node_modules/a/node_modules/x': { version: '1.0.0', dependencies: { y: '*' } },
        'node_modules/a/node_modules/y': { version: '2.0.0' },
        'node_modules/b': { version: '1.0.0', dependencies: { x: '1' } },
        'node_modules/b/node_modules/x': { version: '1.0.0', dependencies: { y: '*' } },
        'node_modules/y': { version: '1.0.0' },
      }),
      { project: 'app' },
    );
    valid(s);
    expect(s.nodes.filter((n) => n.name === 'x')).toHaveLength(1);
    expect(depsOf(s, 'x@1.0.0')).toEqual(['y@1.0.0', 'y@2.0.0']);
  });
});

describe('snapshotFromNpmLock: roots', () => {
  const mono = lockfile({
    '': { name: 'mono', workspaces: ['packages/*'], dependencies: { w: '*', a: '1' }, devDependencies: { d: '1' } },
    'node_modules/w': { resolved: 'packages/w', link: true },
    'node_modules/a': { version: '1.0.0' },
    'node_modules/d': { version: '1.0.0', dev: true, dependencies: { e: '1' } },
    'node_modules/e': { version: '1.0.0', dev: true },
    'packages/w': { name: 'w', version: '0.0.0', dependencies: { a: '1', f: '1' } },
    'packages/w/node_modules/f': { version: '3.0.0' },
  });

  test('workspaces are first-party: roots of their own, never nodes; dev-only packages are left out by default', () => {
    const s = snapshotFromNpmLock(mono, { project: 'mono' });
    valid(s);
    expect(s.roots).toEqual([
      { module: 'mono', manifest: 'package.json', context: 'dependencies', dependencies: ['a@1.0.0'] },
      {
        module: 'w',
        manifest: 'packages/w/package.json',
        context: 'dependencies',
        dependencies: ['a@1.0.0', 'f@3.0.0'],
      },
    ]);
    expect(s.nodes.map((n) => n.id)).toEqual(['a@1.0.0', 'f@3.0.0']);
    expect(s.manifests).toEqual(['package.json', 'packages/w/package.json']);
  });

  test('includeDev adds a devDependencies root where dev dependencies are declared; manifests follow the given path', () => {
    const s = snapshotFromNpmLock(mono, { project: 'mono', includeDev: true, manifest: 'web/package.json' });
    valid(s);
    expect(s.roots.map((r) => [r.module, r.context, r.manifest, r.dependencies.join(',')])).toEqual([
      ['mono', 'dependencies', 'web/package.json', 'a@1.0.0'],
      ['mono', 'devDependencies', 'web/package.json', 'd@1.0.0'],
      ['w', 'dependencies', 'web/packages/w/package.json', 'a@1.0.0,f@3.0.0'],
    ]);
    expect(s.nodes.map((n) => `${n.id} ${n.relationship}`)).toEqual([
      'a@1.0.0 direct',
      'd@1.0.0 direct',
      'e@1.0.0 transitive',
      'f@3.0.0 direct',
    ]);
  });

  test('a lockfile without a packages map (lockfileVersion 1) is refused', () => {
    expect(() => snapshotFromNpmLock({ lockfileVersion: 1, dependencies: {} }, { project: 'x' })).toThrow(
      /"packages" map is required/,
    );
    expect(() => snapshotFromNpmLock(null, { project: 'x' })).toThrow(/"packages" map is required/);
  });
});

describeWithSharedData('snapshotFromNpmLock: piscina', () => {
  const lock = JSON.parse(fs.readFileSync(PISCINA, 'utf8'));
  const withDev = snapshotFromNpmLock(lock, { project: 'piscina', includeDev: true });
  const prod = snapshotFromNpmLock(lock, { project: 'piscina' });

  test('both views pass validateSnapshot', () => {
    expect(validateSnapshot(withDev, bytesOf(withDev)).stats).toMatchObject({ nodes: 592, roots: 2 });
    expect(validateSnapshot(prod, bytesOf(prod)).stats).toMatchObject({ nodes: 17, roots: 1 });
  });

  test('with dev dependencies every installed package is a node, deduplicated by name@version and sorted', () => {
    const keys = Object.keys(lock.packages).filter((k) => k !== '');
    const distinct = new Set(
      keys.map(
        (k) => `${lock.packages[k].name ?? k.slice(k.lastIndexOf('node_modules/') + 13)}@${lock.packages[k].version}`,
      ),
    );
    expect(withDev.nodes.map((n) => n.id)).toEqual([...distinct].sort());
  });

  test('the roots are piscina dependencies (one optional dependency) and devDependencies (13)', () => {
    expect(withDev.roots[0]).toEqual({
      module: 'piscina',
      manifest: 'package.json',
      context: 'dependencies',
      dependencies: ['@napi-rs/nice@1.0.1'],
    });
    expect(withDev.roots[1].context).toBe('devDependencies');
    expect(withDev.roots[1].dependencies).toHaveLength(13);
    expect(withDev.roots[1].dependencies).toEqual(
      expect.arrayContaining(['typescript@5.6.2', 'tap@16.3.10', 'c8@10.1.2', 'ts-node@10.9.2']),
    );
    const direct = withDev.nodes.filter((n) => n.relationship === 'direct').map((n) => n.id);
    expect(direct.sort()).toEqual([...withDev.roots[0].dependencies, ...withDev.roots[1].dependencies].sort());
  });

  test('nested installs win over the top-level copy for their dependents', () => {
    expect(depsOf(withDev, '@babel/core@7.24.9')).toEqual(
      expect.arrayContaining(['semver@6.3.1', 'convert-source-map@2.0.0']),
    );
    expect(depsOf(withDev, '@babel/core@7.24.9')).not.toContain('semver@7.6.3');
    expect(withDev.nodes.filter((n) => n.name === 'semver').map((n) => n.version)).toEqual(
      expect.arrayContaining(['6.3.1', '7.6.3']),
    );
    expect(depsOf(withDev, 'string-width@4.2.3')).toEqual([
      'emoji-regex@8.0.0',
      'is-fullwidth-code-point@3.0.0',
      'strip-ansi@6.0.1',
    ]);
  });

  test('without dev dependencies only @napi-rs/nice and its platform packages remain', () => {
    expect(prod.roots).toHaveLength(1);
    expect(prod.roots[0].dependencies).toEqual(['@napi-rs/nice@1.0.1']);
    expect(depsOf(prod, '@napi-rs/nice@1.0.1')).toHaveLength(16);
    expect(prod.nodes.every((n) => n.name.startsWith('@napi-rs/nice'))).toBe(true);
  });
});
