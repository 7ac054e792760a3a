// package-lock.json v2/v3 → v2 part, on lockfiles the real npm wrote (tools/fixtures/make-npm-fixtures.sh).
import { npmLockProducer } from '../../../../src/client/producers/npm-lock';
import { edgesOf, fixtureInput, lockOf, nodeById, rootOf, validatePart, verticesOf } from './npm-helpers';

const produce = (name: string, opts?: Parameters<typeof fixtureInput>[1]) =>
  npmLockProducer.produce(fixtureInput(name, opts));
const produceLock = (lock: unknown, path = 'package-lock.json') =>
  npmLockProducer.produce({ path, text: JSON.stringify(lock, null, 2), readFile: () => undefined });
const contexts = (part: ReturnType<typeof produce>, module: string) =>
  part.roots.filter((r) => r.module === module).map((r) => r.context);
const lineOf = (text: string, line: number) => text.split('\n')[line - 1];

describe('npm producer: format', () => {
  it('reads package-lock.json and npm-shrinkwrap.json, nothing else', () => {
    expect(npmLockProducer.format).toBe('package-lock.json');
    expect(npmLockProducer.matches('package-lock.json')).toBe(true);
    expect(npmLockProducer.matches('npm-shrinkwrap.json')).toBe(true);
    for (const other of [
      'package.json',
      'yarn.lock',
      'pnpm-lock.yaml',
      '.package-lock.json',
      'package-lock.json.bak',
    ]) {
      expect(npmLockProducer.matches(other)).toBe(false);
    }
  });
});

describe('npm producer: workspaces (lockfileVersion 3)', () => {
  const part = produce('workspaces');

  it('is a v2 javascript part the server accepts', () => {
    expect(part).toMatchObject({
      ecosystem: 'javascript',
      schemaVersion: 2,
      projectName: 'fx-workspaces',
      warnings: [],
    });
    expect(lockOf('workspaces').lockfileVersion).toBe(3);
    validatePart(part);
  });

  it('makes a module of the project and of every workspace, with workspace links as module dependencies', () => {
    expect(part.modules).toEqual([
      { path: '.', manifest: 'package.json', dependencies: [] },
      { path: 'packages/app', manifest: 'packages/app/package.json', dependencies: ['packages/lib'] },
      { path: 'packages/lib', manifest: 'packages/lib/package.json', dependencies: [] },
      { path: 'packages/tools', manifest: 'packages/tools/package.json', dependencies: [] },
    ]);
    expect(part.manifests).toEqual([
      'package-lock.json',
      'package.json',
      'packages/app/package.json',
      'packages/lib/package.json',
      'packages/tools/package.json',
    ]);
  });

  it('gives each module the contexts of its own manifest sections', () => {
    expect(contexts(part, '.')).toEqual(['dependencies', 'devDependencies']);
    expect(contexts(part, 'packages/app')).toEqual(['dependencies', 'peerDependencies']);
    expect(contexts(part, 'packages/lib')).toEqual(['dependencies']);
    expect(contexts(part, 'packages/tools')).toEqual(['devDependencies']);
    for (const r of part.roots) expect(r.manifest).toBe(r.module === '.' ? 'package.json' : `${r.module}/package.json`);
  });

  it('keeps workspaces, links and the project out of the nodes; an alias is a node under its real name', () => {
    const ids = part.nodes.map((n) => n.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual([
      'is-buffer@1.1.6',
      'is-even@1.0.0',
      'is-number@3.0.0',
      'is-number@4.0.0',
      'is-number@6.0.0',
      'is-number@7.0.0',
      'is-odd@0.1.2',
      'is-odd@3.0.1',
      'kind-of@3.2.2',
      'kind-of@6.0.3',
      'react@19.1.0',
      'use-sync-external-store@1.5.0',
    ]);
    expect(ids.some((id) => id.startsWith('even@') || id.startsWith('@fx/'))).toBe(false);
    expect(rootOf(part, 'packages/lib', 'dependencies').dependencies).toEqual(['is-even@1.0.0', 'is-number@4.0.0']);
  });

  it("resolves each copy by Node's rules: workspace node_modules first, then the project's", () => {
    // app's is-odd@3 sits in packages/app/node_modules and finds is-number@6 there, not the project's @7.
    expect(nodeById(part, 'is-odd@3.0.1').dependencies).toEqual(['is-number@6.0.0']);
    // lib's own is-number@4 shadows the project's @7.
    expect(rootOf(part, 'packages/lib', 'dependencies').dependencies).not.toContain('is-number@7.0.0');
    expect(nodeById(part, 'is-odd@0.1.2').dependencies).toEqual(['is-number@3.0.0']);
    expect(rootOf(part, '.', 'dependencies').dependencies).toEqual(['is-number@7.0.0']);
  });

  it('follows the workspace link to a module vertex that expands with its runtime dependencies', () => {
    const app = rootOf(part, 'packages/app', 'dependencies');
    expect(app.resolution!.root).toBe('0');
    expect(app.resolution!.vertices[0]).toMatchObject({ id: '0', module: 'packages/app' });
    expect(app.dependencies).toEqual(['is-odd@3.0.1', 'use-sync-external-store@1.5.0']);
    expect(edgesOf(app)).toEqual([
      'is-even@1.0.0 -> is-odd@0.1.2',
      'is-number@3.0.0 -> kind-of@3.2.2',
      'is-odd@0.1.2 -> is-number@3.0.0',
      'is-odd@3.0.1 -> is-number@6.0.0',
      'kind-of@3.2.2 -> is-buffer@1.1.6',
      'module:packages/app -> is-odd@3.0.1',
      'module:packages/app -> module:packages/lib',
      'module:packages/app -> use-sync-external-store@1.5.0',
      'module:packages/lib -> is-even@1.0.0',
      'module:packages/lib -> is-number@4.0.0',
      'use-sync-external-store@1.5.0 -> react@19.1.0',
    ]);
    // Short vertex ids, unique, every one set to exactly one of module and node.
    const ids = app.resolution!.vertices.map((v) => v.id);
    expect(ids).toEqual(ids.map((_, i) => String(i)));
    for (const v of app.resolution!.vertices) expect((v.module == null) !== (v.node == null)).toBe(true);
  });

  it('installs peers: the peer root and the peer edge', () => {
    expect(rootOf(part, 'packages/app', 'peerDependencies').dependencies).toEqual(['react@19.1.0']);
    expect(nodeById(part, 'use-sync-external-store@1.5.0').dependencies).toEqual(['react@19.1.0']);
    expect(nodeById(part, 'react@19.1.0').relationship).toBe('direct');
    expect(nodeById(part, 'is-buffer@1.1.6').relationship).toBe('transitive');
  });

  it('works dev/prod out per workspace from its sections, not from the lockfile flags', () => {
    expect(rootOf(part, 'packages/tools', 'devDependencies').dependencies).toEqual(['kind-of@6.0.3']);
    expect(verticesOf(rootOf(part, '.', 'dependencies'))).toEqual(['is-number@7.0.0', 'module:.']);
    // Flip the flags npm wrote: nothing changes.
    const lock = lockOf('workspaces');
    lock.packages['node_modules/is-number'].dev = true;
    delete lock.packages['node_modules/kind-of'].dev;
    lock.packages['node_modules/react'].optional = true;
    const flipped = produceLock(lock);
    expect(flipped.roots).toEqual(part.roots);
    expect(flipped.nodes).toEqual(part.nodes);
  });

  it("never follows a linked workspace's devDependencies", () => {
    const lock = lockOf('workspaces');
    lock.packages['packages/lib'].devDependencies = { 'kind-of': '^6.0.3' };
    const p = produceLock(lock);
    expect(verticesOf(rootOf(p, 'packages/app', 'dependencies'))).not.toContain('kind-of@6.0.3');
    expect(rootOf(p, 'packages/lib', 'devDependencies').dependencies).toEqual(['kind-of@6.0.3']);
    validatePart(p);
  });

  it('names modules, manifests and locations from the project root when the lockfile is in a subfolder', () => {
    const web = produce('workspaces', { under: 'web' });
    expect(web.modules.map((m) => [m.path, m.manifest])).toEqual([
      ['web', 'web/package.json'],
      ['web/packages/app', 'web/packages/app/package.json'],
      ['web/packages/lib', 'web/packages/lib/package.json'],
      ['web/packages/tools', 'web/packages/tools/package.json'],
    ]);
    expect(web.modules[1].dependencies).toEqual(['web/packages/lib']);
    expect(web.manifests[0]).toBe('web/package-lock.json');
    expect(rootOf(web, 'web/packages/app', 'dependencies').resolution!.vertices[0].module).toBe('web/packages/app');
    expect(Object.values(web.locations).every((l) => l.file === 'web/package-lock.json')).toBe(true);
    validatePart(web);
  });

  it('locates every package on the line of its first entry key', () => {
    const text = fixtureInput('workspaces').text;
    expect(Object.keys(part.locations).sort()).toEqual(part.nodes.map((n) => n.id));
    expect(lineOf(text, part.locations['is-even@1.0.0'].line!)).toBe('    "node_modules/even": {');
    expect(lineOf(text, part.locations['is-number@6.0.0'].line!)).toBe('    "packages/app/node_modules/is-number": {');
    expect(part.locations['react@19.1.0']).toEqual({
      file: 'package-lock.json',
      line: text.split('\n').indexOf('    "node_modules/react": {') + 1,
    });
  });
});

describe('npm producer: nested copies (lockfileVersion 2)', () => {
  const part = produce('nested-v2');

  it('reads the packages map of a v2 lockfile', () => {
    expect(lockOf('nested-v2').lockfileVersion).toBe(2);
    expect(part.schemaVersion).toBe(2);
    expect(part.modules).toEqual([{ path: '.', manifest: 'package.json', dependencies: [] }]);
    expect(part.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['dependencies', ['is-number@7.0.0', 'is-odd@3.0.1']],
      ['devDependencies', ['is-even@1.0.0']],
      ['optionalDependencies', ['kind-of@6.0.3']],
    ]);
    validatePart(part);
  });

  it('keeps both versions of a nested package, each with its own edges', () => {
    expect(nodeById(part, 'is-odd@3.0.1').dependencies).toEqual(['is-number@6.0.0']);
    expect(nodeById(part, 'is-number@7.0.0').relationship).toBe('direct');
    expect(nodeById(part, 'is-number@6.0.0').relationship).toBe('transitive');
    // node_modules/is-even/node_modules/is-odd finds is-number in node_modules/is-even/node_modules, one level up.
    expect(nodeById(part, 'is-odd@0.1.2').dependencies).toEqual(['is-number@3.0.0']);
    expect(nodeById(part, 'kind-of@3.2.2').dependencies).toEqual(['is-buffer@1.1.6']);
    expect(edgesOf(rootOf(part, '.', 'dependencies'))).toEqual([
      'is-odd@3.0.1 -> is-number@6.0.0',
      'module:. -> is-number@7.0.0',
      'module:. -> is-odd@3.0.1',
    ]);
  });

  it('skips a declared dependency that is not installed', () => {
    const lock = lockOf('nested-v2');
    delete lock.packages['node_modules/kind-of'];
    lock.packages['node_modules/is-odd'].peerDependencies = { 'not-there': '*' };
    lock.packages[''].peerDependencies = { 'not-there': '*' };
    const p = produceLock(lock);
    expect(p.roots.map((r) => r.context)).toEqual(['dependencies', 'devDependencies', 'optionalDependencies']);
    expect(rootOf(p, '.', 'optionalDependencies').dependencies).toEqual([]);
    expect(nodeById(p, 'is-odd@3.0.1').dependencies).toEqual(['is-number@6.0.0']);
    expect(p.nodes.some((n) => n.id === 'kind-of@6.0.3')).toBe(false);
    validatePart(p);
  });

  it('leaves out entries no manifest section reaches, names them, and the server would refuse them', () => {
    const lock = lockOf('nested-v2');
    lock.packages['node_modules/left-pad'] = { version: '1.3.0', extraneous: true };
    const p = produceLock(lock);
    expect(p.nodes.some((n) => n.id === 'left-pad@1.3.0')).toBe(false);
    expect(p.warnings).toEqual([expect.stringContaining('node_modules/left-pad (left-pad@1.3.0)')]);
    validatePart(p);
    // Why: a node that no resolution holds breaks the cross-reference rule that every package occurs in one.
    const withIt = {
      ...p,
      nodes: [
        ...p.nodes,
        {
          id: 'left-pad@1.3.0',
          name: 'left-pad',
          version: '1.3.0',
          relationship: 'transitive' as const,
          dependencies: [],
        },
      ],
    };
    expect(() => validatePart(withIt)).toThrow(/occurs in no resolution/);
  });

  it('finds the entry lines in CRLF and tab-indented files, and none in a minified one', () => {
    const lock = lockOf('nested-v2');
    const crlf = npmLockProducer.produce({
      path: 'package-lock.json',
      text: JSON.stringify(lock, null, 2).replace(/\n/g, '\r\n'),
      readFile: () => undefined,
    });
    expect(crlf.locations).toEqual(part.locations);
    const tabs = JSON.stringify(lock, null, '\t');
    const tabbed = npmLockProducer.produce({ path: 'package-lock.json', text: tabs, readFile: () => undefined });
    expect(lineOf(tabs, tabbed.locations['is-number@6.0.0'].line!)).toBe(
      '\t\t"node_modules/is-odd/node_modules/is-number": {',
    );
    const minified = npmLockProducer.produce({
      path: 'package-lock.json',
      text: JSON.stringify(lock),
      readFile: () => undefined,
    });
    expect(Object.values(minified.locations)).toEqual(part.nodes.map(() => ({ file: 'package-lock.json' })));
  });
});

describe('npm producer: optional platform packages', () => {
  const part = produce('optional-platform');

  it('includes every platform build, whatever the running OS', () => {
    const builds = Object.keys(lockOf('optional-platform').packages).filter((k) =>
      k.startsWith('node_modules/@esbuild/'),
    );
    expect(builds.length).toBeGreaterThan(20);
    const expected = builds.map((k) => `${k.slice('node_modules/'.length)}@0.25.0`).sort();
    expect(nodeById(part, 'esbuild@0.25.0').dependencies).toEqual(expected);
    expect(part.nodes.map((n) => n.id).filter((id) => id.startsWith('@esbuild/'))).toEqual(expected);
    // Builds for other systems than this one are there too.
    expect(expected.some((id) => !id.includes(process.platform))).toBe(true);
    expect(expected).toContain('@esbuild/win32-x64@0.25.0');
    expect(expected).toContain('@esbuild/linux-x64@0.25.0');
    expect(rootOf(part, '.', 'dependencies').resolution!.vertices).toHaveLength(builds.length + 2);
    validatePart(part);
  });
});

describe('npm producer: local folders and odd entries', () => {
  const lock = {
    name: 'r',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': {
        name: 'r',
        version: '1.0.0',
        dependencies: { sibling: 'file:../sibling', a: '^1.0.0', gone: 'file:../gone', nov: '^1.0.0' },
      },
      '../sibling': {
        name: 'sibling',
        version: '1.0.0',
        dependencies: { b: '^1.0.0', util: 'file:../util' },
        devDependencies: { c: '^1.0.0' },
      },
      '../util': { name: 'util', version: '1.0.0', dependencies: { a: '^1.0.0' } },
      'node_modules/a': { version: '1.0.0' },
      'node_modules/b': { version: '1.0.0' },
      'node_modules/c': { version: '1.0.0', dev: true },
      'node_modules/gone': { resolved: '../gone', link: true },
      'node_modules/nov': { resolved: 'https://example.com/nov.tgz' },
      'node_modules/sibling': { resolved: '../sibling', link: true },
      'node_modules/util': { resolved: '../util', link: true },
    },
  };

  it('makes a module of a file: folder outside the project and follows its link', () => {
    const p = produceLock(lock);
    expect(p.modules).toEqual([
      { path: '.', manifest: 'package.json', dependencies: ['../sibling'] },
      { path: '../sibling', manifest: '../sibling/package.json', dependencies: ['../util'] },
      { path: '../util', manifest: '../util/package.json', dependencies: [] },
    ]);
    // A module reached through a module's link expands too (one vertex for a@1.0.0: one install path).
    expect(edgesOf(rootOf(p, '.', 'dependencies'))).toEqual([
      'module:. -> a@1.0.0',
      'module:. -> module:../sibling',
      'module:../sibling -> b@1.0.0',
      'module:../sibling -> module:../util',
      'module:../util -> a@1.0.0',
    ]);
    expect(verticesOf(rootOf(p, '.', 'dependencies'))).toEqual([
      'a@1.0.0',
      'b@1.0.0',
      'module:.',
      'module:../sibling',
      'module:../util',
    ]);
    expect(rootOf(p, '.', 'dependencies').dependencies).toEqual(['a@1.0.0']);
    expect(rootOf(p, '../sibling', 'devDependencies').dependencies).toEqual(['c@1.0.0']);
    expect(p.nodes.map((n) => [n.id, n.relationship])).toEqual([
      ['a@1.0.0', 'direct'],
      ['b@1.0.0', 'direct'],
      ['c@1.0.0', 'direct'],
    ]); // b: a direct dependency of ../sibling's own root
    validatePart(p);
    expect(produceLock(lock, 'web/package-lock.json').modules.map((m) => m.path)).toEqual(['web', 'sibling', 'util']);
  });

  it('warns about entries without a version and links to folders it does not describe', () => {
    const p = produceLock(lock);
    expect(p.warnings).toEqual([
      'entries under node_modules without a version are left out: node_modules/nov',
      'links to folders the lockfile does not describe are left out: node_modules/gone → "../gone"',
    ]);
    expect(p.nodes.some((n) => n.name === 'nov' || n.name === 'gone')).toBe(false);
  });
});
