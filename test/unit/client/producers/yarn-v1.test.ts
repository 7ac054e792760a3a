// yarn.lock v1 (classic) → v2 part, on a lockfile the real yarn 1 wrote (tools/fixtures/make-yarn-fixtures.sh).
// Expected nodes and edges are computed here from the fixture's text with a separate, regex-based reading.
import fs from 'node:fs';
import path from 'node:path';
import type { LockfileInput } from '../../../../src/client/producers/types';
import { yarnLockProducer } from '../../../../src/client/producers/yarn-lock';
import { edgesOf, nodeById, rootOf, validatePart, verticesOf } from './npm-helpers';

const DIR = path.resolve(__dirname, '../../../fixtures/yarn/classic');
const TEXT = fs.readFileSync(path.join(DIR, 'yarn.lock'), 'utf8');

/** The fixture as the client hands it over, optionally under a subfolder, with or without folder listings. */
function input(
  opts: { under?: string; text?: string; listDir?: boolean; files?: Record<string, string | undefined> } = {},
): LockfileInput {
  const prefix = opts.under ? `${opts.under}/` : '';
  const local = (p: string) => (p.startsWith(prefix) ? path.join(DIR, p.slice(prefix.length)) : undefined);
  return {
    path: `${prefix}yarn.lock`,
    text: opts.text ?? TEXT,
    readFile(p) {
      if (opts.files && Object.hasOwn(opts.files, p)) return opts.files[p];
      const f = local(p);
      return f && fs.existsSync(f) && fs.statSync(f).isFile() ? fs.readFileSync(f, 'utf8') : undefined;
    },
    ...(opts.listDir === false
      ? {}
      : {
          listDir(p: string) {
            const f = local(p === '.' ? '' : `${p}/`) ?? (p === opts.under ? DIR : undefined);
            return f && fs.existsSync(f) && fs.statSync(f).isDirectory() ? fs.readdirSync(f) : undefined;
          },
        }),
  };
}
const produce = (opts?: Parameters<typeof input>[0]) => yarnLockProducer.produce(input(opts));

/** The fixture read with regular expressions: id per key, and each id's dependency ids. */
function expected(text: string): { ids: string[]; deps: Map<string, string[]> } {
  const blocks = text.split(/\n\n+/).filter((b) => /^\S.*:$/m.test(b) && !b.startsWith('#'));
  const idOf = new Map<string, string>();
  const raw: Array<[string, string[]]> = [];
  for (const b of blocks) {
    const header = b.split('\n')[0].slice(0, -1);
    const keys = header.split(', ').map((k) => k.replace(/^"|"$/g, ''));
    const version = /^ {2}version "(.*)"$/m.exec(b)![1];
    const first = keys[0];
    const alias = /^[^@]+@npm:(@?[^@]+)@/.exec(first);
    const name = alias ? alias[1] : first.slice(0, first.indexOf('@', 1));
    for (const k of keys) idOf.set(k, `${name}@${version}`);
    const deps = [...b.matchAll(/^ {4}"?([^"\s]+)"? "?([^"]+)"?$/gm)].map((m) => `${m[1]}@${m[2]}`);
    raw.push([`${name}@${version}`, deps]);
  }
  const deps = new Map<string, string[]>();
  for (const [id, ks] of raw) deps.set(id, [...new Set(ks.map((k) => idOf.get(k)!))].sort());
  return { ids: [...deps.keys()].sort(), deps };
}

describe('yarn producer: format', () => {
  it('reads yarn.lock, nothing else', () => {
    expect(yarnLockProducer.format).toBe('yarn.lock');
    expect(yarnLockProducer.matches('yarn.lock')).toBe(true);
    for (const other of ['package-lock.json', 'yarn.lock.bak', '.yarnrc.yml', 'pnpm-lock.yaml'])
      expect(yarnLockProducer.matches(other)).toBe(false);
  });
});

describe('yarn producer: classic (v1) workspaces', () => {
  const part = produce();
  const want = expected(TEXT);

  it('is a v2 javascript part the server accepts, without warnings', () => {
    expect(TEXT).toContain('# yarn lockfile v1');
    expect(part).toMatchObject({ ecosystem: 'javascript', schemaVersion: 2, projectName: 'fx-yarn', warnings: [] });
    validatePart(part);
  });

  it('has one node per name@version of the lockfile, with the edges its entries record', () => {
    expect(part.nodes.map((n) => n.id)).toEqual(want.ids);
    expect(part.nodes.length).toBe(10);
    for (const n of part.nodes) expect(n.dependencies).toEqual(want.deps.get(n.id));
    // The alias is its real package; the two keys of kind-of@6.0.3 make one node.
    expect(part.nodes.some((n) => n.name === 'even')).toBe(false);
    expect(nodeById(part, 'is-even@1.0.0').dependencies).toEqual(['is-odd@0.1.2']);
    expect(TEXT).toContain('kind-of@6.0.3, kind-of@^6.0.3:');
  });

  it('makes modules of the project and its workspaces (from the manifests), with the workspace edge', () => {
    expect(part.modules).toEqual([
      { path: '.', manifest: 'package.json', dependencies: [] },
      { path: 'packages/app', manifest: 'packages/app/package.json', dependencies: ['packages/lib'] },
      { path: 'packages/lib', manifest: 'packages/lib/package.json', dependencies: [] },
      { path: 'packages/tools', manifest: 'packages/tools/package.json', dependencies: [] },
    ]);
    expect(part.manifests).toEqual([
      'yarn.lock',
      'package.json',
      'packages/app/package.json',
      'packages/lib/package.json',
      'packages/tools/package.json',
    ]);
    expect(part.roots.map((r) => `${r.module} ${r.context}`)).toEqual([
      '. dependencies',
      '. devDependencies',
      'packages/app dependencies',
      'packages/lib dependencies',
      'packages/lib optionalDependencies',
      'packages/tools devDependencies',
    ]);
  });

  it('resolves through the workspace to its runtime sections, never its devDependencies', () => {
    const app = rootOf(part, 'packages/app', 'dependencies');
    expect(app.dependencies).toEqual(['is-even@1.0.0', 'is-odd@3.0.1']);
    expect(app.resolution!.vertices.map((v) => v.id)).toEqual(app.resolution!.vertices.map((_, i) => String(i)));
    expect(edgesOf(app)).toEqual([
      'is-even@1.0.0 -> is-odd@0.1.2',
      'is-number@3.0.0 -> kind-of@3.2.2',
      'is-odd@0.1.2 -> is-number@3.0.0',
      'is-odd@3.0.1 -> is-number@6.0.0',
      'kind-of@3.2.2 -> is-buffer@1.1.6',
      'module:packages/app -> is-even@1.0.0',
      'module:packages/app -> is-odd@3.0.1',
      'module:packages/app -> module:packages/lib',
      'module:packages/lib -> is-number@4.0.0',
      'module:packages/lib -> kind-of@6.0.3',
    ]);
    const lib = JSON.parse(fs.readFileSync(path.join(DIR, 'packages/lib/package.json'), 'utf8'));
    lib.devDependencies = { 'is-number': '^7.0.0' };
    const p = produce({ files: { 'packages/lib/package.json': JSON.stringify(lib) } });
    expect(verticesOf(rootOf(p, 'packages/app', 'dependencies'))).not.toContain('is-number@7.0.0');
    expect(rootOf(p, 'packages/lib', 'devDependencies').dependencies).toEqual(['is-number@7.0.0']);
    validatePart(p);
  });

  it('marks direct what a root references, and the rest transitive', () => {
    const direct = new Set(part.roots.flatMap((r) => r.dependencies));
    for (const n of part.nodes) expect(n.relationship).toBe(direct.has(n.id) ? 'direct' : 'transitive');
    expect(nodeById(part, 'kind-of@3.2.2').relationship).toBe('transitive');
  });

  it('locates every package on its header line', () => {
    const lines = TEXT.split('\n');
    expect(Object.keys(part.locations).sort()).toEqual(want.ids);
    expect(lines[part.locations['is-even@1.0.0'].line! - 1]).toBe('"even@npm:is-even@^1.0.0":');
    expect(lines[part.locations['kind-of@6.0.3'].line! - 1]).toBe('kind-of@6.0.3, kind-of@^6.0.3:');
    const crlf = produce({ text: TEXT.replace(/\n/g, '\r\n') });
    expect(crlf.locations).toEqual(part.locations);
    expect(crlf.nodes).toEqual(part.nodes);
  });

  it('names everything from the project root when the lockfile is in a subfolder', () => {
    const web = produce({ under: 'web' });
    expect(web.modules.map((m) => [m.path, m.manifest, m.dependencies])).toEqual([
      ['web', 'web/package.json', []],
      ['web/packages/app', 'web/packages/app/package.json', ['web/packages/lib']],
      ['web/packages/lib', 'web/packages/lib/package.json', []],
      ['web/packages/tools', 'web/packages/tools/package.json', []],
    ]);
    expect(web.manifests[0]).toBe('web/yarn.lock');
    expect(Object.values(web.locations).every((l) => l.file === 'web/yarn.lock')).toBe(true);
    validatePart(web);
  });
});

describe('yarn producer: classic without what it needs', () => {
  it('without folder listings, says the workspace glob was skipped and keeps the workspaces it cannot see out', () => {
    const p = produce({ listDir: false });
    expect(p.modules.map((m) => m.path)).toEqual(['.']);
    expect(p.warnings[0]).toMatch(/"packages\/\*" needs a folder listing/);
    // What only the workspaces needed is unreached, left out and named.
    expect(p.warnings[1]).toMatch(
      /^8 packages are not needed by any package.json section and left out: is-buffer@1.1.6/,
    );
    expect(p.nodes.map((n) => n.id)).toEqual(['is-number@7.0.0', 'kind-of@6.0.3']);
    validatePart(p);
  });

  it('expands exact workspace paths without listings', () => {
    const root = JSON.parse(fs.readFileSync(path.join(DIR, 'package.json'), 'utf8'));
    root.workspaces = { packages: ['packages/app', './packages/lib/', 'packages/none', '!packages/tools', 'x/**'] };
    const p = produce({ listDir: false, files: { 'package.json': JSON.stringify(root) } });
    expect(p.modules.map((m) => m.path)).toEqual(['.', 'packages/app', 'packages/lib']);
    expect(p.warnings.slice(0, 2)).toEqual([
      'workspace pattern "!packages/tools" is not supported and was skipped',
      'workspace pattern "x/**" is not supported and was skipped',
    ]);
    validatePart(p);
  });

  it('without the root package.json, takes the top-level packages as the project dependencies', () => {
    const p = produce({ files: { 'package.json': undefined } });
    expect(p.modules).toEqual([{ path: '.', manifest: 'package.json', dependencies: [] }]);
    expect(p.warnings).toEqual([
      'package.json is missing: every package no other package needs is taken as a dependency of the project',
    ]);
    expect(rootOf(p, '.', 'dependencies').dependencies).toEqual([
      'is-even@1.0.0',
      'is-number@4.0.0',
      'is-number@7.0.0',
      'is-odd@3.0.1',
      'kind-of@6.0.3',
    ]);
    expect(p.nodes.map((n) => n.id)).toEqual(expected(TEXT).ids);
    validatePart(p);
  });

  it('warns about requests the lockfile lacks, entries without a version, and skips local folders', () => {
    const text = `${TEXT}\n"local@file:../local":\n  version "1.0.0"\n  dependencies:\n    is-buffer "^1.1.5"\n\nnov@^1.0.0:\n  resolved "x"\n`;
    const root = JSON.parse(fs.readFileSync(path.join(DIR, 'package.json'), 'utf8'));
    root.dependencies = { ...root.dependencies, local: 'file:../local', gone: '^2.0.0', nov: '^1.0.0' };
    const p = produce({ text, files: { 'package.json': JSON.stringify(root) } });
    expect(p.warnings).toEqual([
      'entries without a version are left out: nov@^1.0.0',
      'requests the lockfile has no entry for (is it up to date?) are left out: gone@^2.0.0',
    ]);
    expect(rootOf(p, '.', 'dependencies').dependencies).toEqual(['is-number@7.0.0']);
    expect(p.nodes.map((n) => n.id)).toEqual(expected(TEXT).ids);
    validatePart(p);
  });
});
