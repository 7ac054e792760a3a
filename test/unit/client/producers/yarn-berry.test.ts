// yarn.lock of yarn 2+ (berry) → v2 part, on a lockfile the real yarn 4 wrote (tools/fixtures/make-yarn-fixtures.sh),
// plus small hand-written ones for what a small real project does not produce (virtual entries, peer variants,
// links). Expected nodes and edges are computed here from the fixture with the yaml package.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { yarnLockProducer } from '../../../../src/client/producers/yarn-lock';
import { edgesOf, nodeById, rootOf, validatePart, verticesOf } from './npm-helpers';

const DIR = path.resolve(__dirname, '../../../fixtures/yarn/berry');
const TEXT = fs.readFileSync(path.join(DIR, 'yarn.lock'), 'utf8');
const fromFixture = (p: string) =>
  fs.existsSync(path.join(DIR, p)) ? fs.readFileSync(path.join(DIR, p), 'utf8') : undefined;

const produce = (text = TEXT, files: Record<string, string | undefined> = {}, lockPath = 'yarn.lock') =>
  yarnLockProducer.produce({
    path: lockPath,
    text,
    readFile: (p) => (Object.hasOwn(files, p) ? files[p] : fromFixture(p)),
  });

/** Node ids and their dependency ids as the lockfile states them (peers aside), read with the yaml package. */
function expected(text: string): { ids: string[]; deps: Map<string, string[]> } {
  const lock = parse(text) as Record<string, any>;
  const byDescriptor = new Map<string, { id: string; hard: boolean }>();
  for (const [key, e] of Object.entries(lock)) {
    if (key === '__metadata') continue;
    const name = e.resolution.slice(0, e.resolution.indexOf('@', 1));
    for (const d of key.split(', '))
      byDescriptor.set(d.replace(/::.*$/, ''), { id: `${name}@${e.version}`, hard: e.linkType === 'hard' });
  }
  const deps = new Map<string, string[]>();
  for (const [key, e] of Object.entries(lock)) {
    if (key === '__metadata' || e.linkType !== 'hard') continue;
    const own = byDescriptor.get(key.split(', ')[0].replace(/::.*$/, ''))!;
    const ds = Object.entries(e.dependencies ?? {}).map(([n, r]) => byDescriptor.get(`${n}@${r}`)!.id);
    deps.set(own.id, [...new Set([...(deps.get(own.id) ?? []), ...ds])].sort());
  }
  return { ids: [...deps.keys()].sort(), deps };
}

describe('yarn producer: berry workspaces', () => {
  const part = produce();
  const want = expected(TEXT);

  it('is a v2 javascript part the server accepts, without warnings', () => {
    expect(TEXT).toMatch(/^__metadata:$/m);
    expect(part).toMatchObject({ ecosystem: 'javascript', schemaVersion: 2, projectName: 'fx-yarn', warnings: [] });
    validatePart(part);
  });

  it('has one node per name@version of the hard-linked entries, with their dependencies and resolved peers', () => {
    expect(part.nodes.map((n) => n.id)).toEqual(want.ids);
    expect(part.nodes.length).toBe(12);
    for (const n of part.nodes) {
      // The one peer (use-sync-external-store → react) resolves to what app, its consumer, depends on.
      const peers = n.id === 'use-sync-external-store@1.5.0' ? ['react@19.1.0'] : [];
      expect(n.dependencies).toEqual([...want.deps.get(n.id)!, ...peers].sort());
    }
    expect(part.nodes.some((n) => n.name === 'even' || n.name.startsWith('@fx/') || n.name === 'fx-yarn')).toBe(false);
  });

  it('maps the patch: resolution to the package it patches, one node with the original entry', () => {
    expect(TEXT).toContain(
      'resolution: "is-number@patch:is-number@npm%3A7.0.0#./patches/is-number.patch::version=7.0.0',
    );
    expect(rootOf(part, '.', 'dependencies').dependencies).toEqual(['is-number@7.0.0']);
    expect(part.nodes.filter((n) => n.id === 'is-number@7.0.0')).toHaveLength(1);
    // The location is the first of the two entries in the file (the unpatched one).
    expect(TEXT.split('\n')[part.locations['is-number@7.0.0'].line! - 1]).toBe('"is-number@npm:7.0.0":');
  });

  it('makes modules of the workspace entries, contexts from their manifests, workspace: edges between them', () => {
    expect(part.modules).toEqual([
      { path: '.', manifest: 'package.json', dependencies: [] },
      { path: 'packages/app', manifest: 'packages/app/package.json', dependencies: ['packages/lib'] },
      { path: 'packages/lib', manifest: 'packages/lib/package.json', dependencies: [] },
      { path: 'packages/tools', manifest: 'packages/tools/package.json', dependencies: [] },
    ]);
    // yarn writes the root's devDependencies into its entry's dependencies: the manifest tells them apart.
    expect(rootOf(part, '.', 'devDependencies').dependencies).toEqual(['kind-of@6.0.3']);
    expect(rootOf(part, 'packages/lib', 'optionalDependencies').dependencies).toEqual(['kind-of@6.0.3']);
    expect(part.roots.map((r) => `${r.module} ${r.context}`)).toEqual([
      '. dependencies',
      '. devDependencies',
      'packages/app dependencies',
      'packages/lib dependencies',
      'packages/lib optionalDependencies',
      'packages/tools devDependencies',
    ]);
  });

  it('resolves app through lib (runtime sections only) and its peer-dependent package', () => {
    const app = rootOf(part, 'packages/app', 'dependencies');
    expect(app.dependencies).toEqual([
      'is-even@1.0.0',
      'is-odd@3.0.1',
      'react@19.1.0',
      'use-sync-external-store@1.5.0',
    ]);
    expect(edgesOf(app)).toEqual([
      'is-even@1.0.0 -> is-odd@0.1.2',
      'is-number@3.0.0 -> kind-of@3.2.2',
      'is-odd@0.1.2 -> is-number@3.0.0',
      'is-odd@3.0.1 -> is-number@6.0.0',
      'kind-of@3.2.2 -> is-buffer@1.1.6',
      'module:packages/app -> is-even@1.0.0',
      'module:packages/app -> is-odd@3.0.1',
      'module:packages/app -> module:packages/lib',
      'module:packages/app -> react@19.1.0',
      'module:packages/app -> use-sync-external-store@1.5.0',
      'module:packages/lib -> is-number@4.0.0',
      'module:packages/lib -> kind-of@6.0.3',
      'use-sync-external-store@1.5.0 -> react@19.1.0',
    ]);
  });

  it('reads the npm ranges of yarn 2 and 3 lockfiles, which carry no npm: protocol', () => {
    const old = TEXT.replace('version: 8', 'version: 6').replace(/^( {4}\S+): "npm:([\^~\d][^"]*)"$/gm, '$1: $2');
    expect(old).toContain('    is-odd: ^3.0.1\n');
    expect(old).toContain('    even: "npm:is-even@^1.0.0"\n');
    const p = produce(old);
    expect(p.warnings).toEqual([]);
    expect(p.roots).toEqual(part.roots);
    expect(p.nodes).toEqual(part.nodes);
  });

  it('names everything from the project root when the lockfile is in a subfolder', () => {
    const files = Object.fromEntries(
      ['package.json', 'packages/app/package.json', 'packages/lib/package.json', 'packages/tools/package.json'].map(
        (f) => [`web/${f}`, fromFixture(f)],
      ),
    );
    const web = produce(TEXT, files, 'web/yarn.lock');
    expect(web.modules.map((m) => [m.path, m.manifest])).toEqual([
      ['web', 'web/package.json'],
      ['web/packages/app', 'web/packages/app/package.json'],
      ['web/packages/lib', 'web/packages/lib/package.json'],
      ['web/packages/tools', 'web/packages/tools/package.json'],
    ]);
    expect(web.projectName).toBe('fx-yarn');
    validatePart(web);
  });

  it('without a workspace manifest, takes all its lockfile dependencies as dependencies and says so', () => {
    const p = produce(TEXT, { 'package.json': undefined });
    expect(p.warnings).toEqual([
      'package.json is missing: its dependencies and devDependencies are all taken as dependencies',
    ]);
    expect(rootOf(p, '.', 'dependencies').dependencies).toEqual(['is-number@7.0.0', 'kind-of@6.0.3']);
    expect(p.projectName).toBe('fx-yarn'); // from the root workspace's locator
    validatePart(p);
  });
});

/** A small berry lockfile: `entries` are written after the metadata as given. */
const berry = (entries: string) => `__metadata:\n  version: 8\n  cacheKey: 10c0\n\n${entries}`;
const pkg = (key: string, resolution: string, version: string, more = '') =>
  `"${key}":\n  version: ${version}\n  resolution: "${resolution}"\n${more}  languageName: node\n  linkType: hard\n\n`;
const ws = (key: string, resolution: string, deps: Record<string, string>) =>
  `"${key}":\n  version: 0.0.0-use.local\n  resolution: "${resolution}"\n  dependencies:\n${Object.entries(deps)
    .map(([n, r]) => `    ${n}: "${r}"\n`)
    .join('')}  languageName: unknown\n  linkType: soft\n\n`;
const manifest = (dependencies: Record<string, string>, extra: object = {}) =>
  JSON.stringify({ name: 'r', dependencies, ...extra });

describe('yarn producer: berry peer variants, virtual entries and links', () => {
  it('gives a peer-dependent package one vertex per peer context, one node', () => {
    const text = berry(
      ws('r@workspace:.', 'r@workspace:.', { a: 'npm:1.0.0', b: 'npm:1.0.0' }) +
        pkg('a@npm:1.0.0', 'a@npm:1.0.0', '1.0.0', '  dependencies:\n    p: "npm:1.0.0"\n    react: "npm:19.0.0"\n') +
        pkg('b@npm:1.0.0', 'b@npm:1.0.0', '1.0.0', '  dependencies:\n    p: "npm:1.0.0"\n    react: "npm:18.0.0"\n') +
        pkg('p@npm:1.0.0', 'p@npm:1.0.0', '1.0.0', '  peerDependencies:\n    react: "*"\n') +
        pkg('react@npm:18.0.0', 'react@npm:18.0.0', '18.0.0') +
        pkg('react@npm:19.0.0', 'react@npm:19.0.0', '19.0.0'),
    );
    const p = produce(text, { 'package.json': manifest({ a: '1.0.0', b: '1.0.0' }) });
    const r = rootOf(p, '.', 'dependencies');
    expect(verticesOf(r)).toEqual([
      'a@1.0.0',
      'b@1.0.0',
      'module:.',
      'p@1.0.0',
      'p@1.0.0',
      'react@18.0.0',
      'react@19.0.0',
    ]);
    expect(edgesOf(r)).toEqual([
      'a@1.0.0 -> p@1.0.0',
      'a@1.0.0 -> react@19.0.0',
      'b@1.0.0 -> p@1.0.0',
      'b@1.0.0 -> react@18.0.0',
      'module:. -> a@1.0.0',
      'module:. -> b@1.0.0',
      'p@1.0.0 -> react@18.0.0',
      'p@1.0.0 -> react@19.0.0',
    ]);
    expect(nodeById(p, 'p@1.0.0').dependencies).toEqual(['react@18.0.0', 'react@19.0.0']);
    expect(p.nodes.map((n) => n.id)).toEqual(['a@1.0.0', 'b@1.0.0', 'p@1.0.0', 'react@18.0.0', 'react@19.0.0']);
    validatePart(p);
  });

  it('maps virtual: entries and descriptors to the real package, and a virtual workspace to its module', () => {
    const text = berry(
      ws('r@workspace:.', 'r@workspace:.', {
        a: 'virtual:abc#npm:1.0.0',
        w: 'virtual:def#workspace:w',
        c: 'virtual:0f0#npm:2.0.0',
      }) +
        pkg('a@npm:1.0.0', 'a@npm:1.0.0', '1.0.0') +
        pkg('a@virtual:abc#npm:1.0.0', 'a@virtual:abc#npm:1.0.0', '1.0.0', '  dependencies:\n    d: "npm:1.0.0"\n') +
        pkg('c@npm:2.0.0', 'c@npm:2.0.0', '2.0.0') +
        pkg('d@npm:1.0.0', 'd@npm:1.0.0', '1.0.0') +
        ws('w@workspace:w', 'w@workspace:w', { d: 'npm:1.0.0' }) +
        ws('w@virtual:def#workspace:w', 'w@virtual:def#workspace:w', { d: 'npm:1.0.0' }),
    );
    const p = produce(text, {
      'package.json': manifest({ a: '1.0.0', w: 'workspace:*', c: '2.0.0' }),
      'w/package.json': manifest({ d: '1.0.0' }),
    });
    expect(p.modules).toEqual([
      { path: '.', manifest: 'package.json', dependencies: ['w'] },
      { path: 'w', manifest: 'w/package.json', dependencies: [] },
    ]);
    expect(p.nodes.map((n) => n.id)).toEqual(['a@1.0.0', 'c@2.0.0', 'd@1.0.0']);
    // The virtual entry's own dependencies count: a → d.
    expect(edgesOf(rootOf(p, '.', 'dependencies'))).toEqual([
      'a@1.0.0 -> d@1.0.0',
      'module:. -> a@1.0.0',
      'module:. -> c@2.0.0',
      'module:. -> module:w',
      'module:w -> d@1.0.0',
    ]);
    expect(p.warnings).toEqual([]);
    validatePart(p);
  });

  it('keeps link:, portal: and file: folders out, and warns about what the lockfile lacks', () => {
    const text = berry(
      ws('r@workspace:.', 'r@workspace:.', {
        l: 'link:../l',
        q: 'portal:../q',
        f: 'file:../f',
        t: 'file:./t.tgz',
        x: 'npm:^1.0.0',
      }) +
        `"l@link:../l::locator=r%40workspace%3A.":\n  version: 0.0.0-use.local\n  resolution: "l@link:../l::locator=r%40workspace%3A."\n  languageName: node\n  linkType: soft\n\n` +
        `"q@portal:../q::locator=r%40workspace%3A.":\n  version: 0.0.0-use.local\n  resolution: "q@portal:../q::locator=r%40workspace%3A."\n  languageName: node\n  linkType: soft\n\n` +
        pkg('f@file:../f::locator=r%40workspace%3A.', 'f@file:../f#../f::hash=1&locator=r%40workspace%3A.', '1.0.0') +
        pkg(
          't@file:./t.tgz::locator=r%40workspace%3A.',
          't@file:./t.tgz#./t.tgz::hash=2&locator=r%40workspace%3A.',
          '3.0.0',
        ),
    );
    const p = produce(text, {
      'package.json': manifest({ l: 'link:../l', q: 'portal:../q', f: 'file:../f', t: 'file:./t.tgz', x: '^1.0.0' }),
    });
    expect(p.nodes.map((n) => n.id)).toEqual(['t@3.0.0']);
    expect(p.warnings).toEqual([
      'requests the lockfile has no entry for (is it up to date?) are left out: x@npm:^1.0.0',
    ]);
    validatePart(p);
  });
});
