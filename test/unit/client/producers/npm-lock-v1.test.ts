// package-lock.json lockfileVersion 1 (npm 6) → flat v1 part, on the lockfile npm 6 wrote for test/fixtures/npm/v1.
import { npmLockProducer } from '../../../../src/client/producers/npm-lock';
import { fixtureInput, lockOf, nodeById, rootOf, validatePart } from './npm-helpers';

const part = npmLockProducer.produce(fixtureInput('v1'));
const v1Lock = (dependencies: unknown, pkg?: unknown) =>
  npmLockProducer.produce({
    path: 'package-lock.json',
    text: JSON.stringify({ name: 'x', lockfileVersion: 1, requires: true, dependencies }, null, 2),
    readFile: (p) => (p === 'package.json' && pkg !== undefined ? JSON.stringify(pkg) : undefined),
  });

describe('npm producer: lockfileVersion 1', () => {
  it('is a flat javascript part the server accepts', () => {
    expect(lockOf('v1').lockfileVersion).toBe(1);
    expect(part).toMatchObject({
      ecosystem: 'javascript',
      schemaVersion: 1,
      projectName: 'fx-v1',
      warnings: [],
      manifests: ['package-lock.json', 'package.json'],
    });
    expect(part.modules).toEqual([{ path: '.', manifest: 'package.json', dependencies: [] }]);
    for (const r of part.roots) expect(r.resolution).toBeUndefined();
    validatePart(part);
  });

  it('takes the direct dependencies of each section from package.json, aliases under the real name', () => {
    expect(part.roots).toEqual([
      {
        module: '.',
        manifest: 'package.json',
        context: 'dependencies',
        dependencies: ['is-even@1.0.0', 'is-number@7.0.0', 'is-odd@3.0.1'],
      },
      { module: '.', manifest: 'package.json', context: 'devDependencies', dependencies: ['is-buffer@2.0.5'] },
      { module: '.', manifest: 'package.json', context: 'optionalDependencies', dependencies: ['kind-of@6.0.3'] },
    ]);
    expect(part.nodes.some((n) => n.name === 'even')).toBe(false);
  });

  it('resolves requires through the nested scopes, walking up', () => {
    expect(part.nodes.map((n) => n.id)).toEqual([
      'is-buffer@1.1.6',
      'is-buffer@2.0.5',
      'is-even@1.0.0',
      'is-number@3.0.0',
      'is-number@6.0.0',
      'is-number@7.0.0',
      'is-odd@0.1.2',
      'is-odd@3.0.1',
      'kind-of@3.2.2',
      'kind-of@6.0.3',
    ]);
    expect(nodeById(part, 'is-odd@3.0.1').dependencies).toEqual(['is-number@6.0.0']);
    expect(nodeById(part, 'is-even@1.0.0').dependencies).toEqual(['is-odd@0.1.2']);
    // kind-of@3 sits in even's scope and finds is-buffer@1 there, not the project's is-buffer@2.
    expect(nodeById(part, 'kind-of@3.2.2').dependencies).toEqual(['is-buffer@1.1.6']);
    expect(nodeById(part, 'is-number@7.0.0').relationship).toBe('direct');
    expect(nodeById(part, 'is-number@6.0.0').relationship).toBe('transitive');
  });

  it('locates each package on the line of its entry key', () => {
    const lines = fixtureInput('v1').text.split('\n');
    expect(Object.keys(part.locations).sort()).toEqual(part.nodes.map((n) => n.id));
    expect(lines[part.locations['is-even@1.0.0'].line! - 1]).toBe('    "even": {');
    expect(lines[part.locations['is-buffer@2.0.5'].line! - 1]).toBe('    "is-buffer": {');
    expect(lines[part.locations['is-buffer@1.1.6'].line! - 1]).toBe('        "is-buffer": {');
    expect(part.locations['is-number@6.0.0'].line).toBeGreaterThan(part.locations['is-odd@3.0.1'].line!);
  });

  it('falls back to the top-level entries and their flags without a package.json, and says so', () => {
    const bare = npmLockProducer.produce(fixtureInput('v1', { files: { 'package.json': undefined } }));
    expect(bare.warnings).toEqual([expect.stringContaining('package.json not found')]);
    expect(bare.manifests).toEqual(['package-lock.json']);
    expect(bare.roots.map((r) => [r.context, r.dependencies])).toEqual(
      part.roots.map((r) => [r.context, r.dependencies]),
    );
    expect(bare.projectName).toBe('fx-v1');
    validatePart(bare);
    // A hoisted transitive package counts as direct then: the lockfile cannot tell.
    const hoisted = v1Lock({ a: { version: '1.0.0', requires: { b: '^1' } }, b: { version: '1.0.0', dev: true } });
    expect(hoisted.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['dependencies', ['a@1.0.0']],
      ['devDependencies', ['b@1.0.0']],
    ]);
  });

  it('reads package.json next to a lockfile in a subfolder', () => {
    const web = npmLockProducer.produce(fixtureInput('v1', { under: 'web' }));
    expect(web.modules).toEqual([{ path: 'web', manifest: 'web/package.json', dependencies: [] }]);
    expect(web.roots.every((r) => r.module === 'web' && r.manifest === 'web/package.json')).toBe(true);
    expect(web.warnings).toEqual([]);
    expect(web.roots).toHaveLength(3);
  });

  it('skips what is not installed, leaves out and names what nothing needs, and keeps local folders out', () => {
    const p = v1Lock(
      {
        a: { version: '1.0.0', requires: { missing: '^1', b: '^1', local: 'file:../local' } },
        b: { version: '2.0.0', dependencies: { c: { version: '1.0.0' } } },
        local: { version: 'file:../local' },
        stray: { version: '3.0.0', extraneous: true },
        tarball: { version: 'file:vendor/tarball-1.0.0.tgz' },
      },
      { dependencies: { a: '^1', gone: '^1', local: 'file:../local', tarball: 'file:vendor/tarball-1.0.0.tgz' } },
    );
    expect(p.roots).toEqual([
      {
        module: '.',
        manifest: 'package.json',
        context: 'dependencies',
        dependencies: ['a@1.0.0', 'tarball@file:vendor/tarball-1.0.0.tgz'],
      },
    ]);
    expect(nodeById(p, 'a@1.0.0').dependencies).toEqual(['b@2.0.0']);
    expect(p.nodes.map((n) => n.id)).toEqual(['a@1.0.0', 'b@2.0.0', 'tarball@file:vendor/tarball-1.0.0.tgz']);
    expect(p.warnings).toEqual([
      expect.stringContaining('local folders (file:) are first-party code'),
      expect.stringMatching(/2 installed entries .* b > c \(c@1\.0\.0\), stray \(stray@3\.0\.0\)/),
    ]);
    validatePart(p);
  });

  it('names a scoped alias by its real scoped name', () => {
    const p = v1Lock({ x: { version: 'npm:@scope/real@2.1.0' } }, { dependencies: { x: 'npm:@scope/real@^2' } });
    expect(p.nodes).toEqual([
      { id: '@scope/real@2.1.0', name: '@scope/real', version: '2.1.0', relationship: 'direct', dependencies: [] },
    ]);
  });
});
