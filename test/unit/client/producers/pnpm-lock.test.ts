// pnpm-lock.yaml (v9 and v6) → v2 part, on lockfiles the real pnpm wrote (tools/fixtures/make-pnpm-fixtures.sh).
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { pnpmLockProducer } from '../../../../src/client/producers/pnpm-lock';
import type { LockfileInput } from '../../../../src/client/producers/types';
import { edgesOf, nodeById, rootOf, validatePart, verticesOf } from './npm-helpers';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/pnpm');

/** A fixture's lockfile as the client would hand it over, optionally as if it sat in the subfolder `under`. */
function fixtureInput(name: string, opts: { under?: string; text?: string } = {}): LockfileInput {
  const dir = path.join(FIXTURES, name);
  const prefix = opts.under ? `${opts.under}/` : '';
  return {
    path: `${prefix}pnpm-lock.yaml`,
    text: opts.text ?? fs.readFileSync(path.join(dir, 'pnpm-lock.yaml'), 'utf8'),
    readFile(p) {
      if (!p.startsWith(prefix)) return undefined;
      const f = path.join(dir, p.slice(prefix.length));
      return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : undefined;
    },
  };
}
const produce = (name: string, opts?: Parameters<typeof fixtureInput>[1]) =>
  pnpmLockProducer.produce(fixtureInput(name, opts));
const lockOf = (name: string): Record<string, any> =>
  parse(fs.readFileSync(path.join(FIXTURES, name, 'pnpm-lock.yaml'), 'utf8'));
/** A fixture's lockfile changed by `edit`, written back as YAML. */
const edited = (name: string, edit: (lock: Record<string, any>) => void) => {
  const lock = lockOf(name);
  edit(lock);
  return produce(name, { text: stringify(lock) });
};
const contexts = (part: ReturnType<typeof produce>, module: string) =>
  part.roots.filter((r) => r.module === module).map((r) => r.context);
const lineOf = (text: string, line: number) => text.split('\n')[line - 1];

describe('pnpm producer: format', () => {
  it('reads pnpm-lock.yaml, nothing else', () => {
    expect(pnpmLockProducer.format).toBe('pnpm-lock.yaml');
    expect(pnpmLockProducer.matches('pnpm-lock.yaml')).toBe(true);
    for (const other of [
      'package-lock.json',
      'yarn.lock',
      'pnpm-workspace.yaml',
      'pnpm-lock.yml',
      'pnpm-lock.yaml.bak',
    ]) {
      expect(pnpmLockProducer.matches(other)).toBe(false);
    }
  });
});

describe('pnpm producer: workspace (lockfileVersion 9.0)', () => {
  const part = produce('workspace-v9');

  it('is a v2 javascript part the server accepts', () => {
    expect(lockOf('workspace-v9').lockfileVersion).toBe('9.0');
    expect(part).toMatchObject({ ecosystem: 'javascript', schemaVersion: 2, projectName: 'fx-pnpm-v9', warnings: [] });
    validatePart(part);
  });

  it('makes a module of every importer, with workspace links as module dependencies', () => {
    expect(part.modules).toEqual([
      { path: '.', manifest: 'package.json', dependencies: [] },
      { path: 'packages/app', manifest: 'packages/app/package.json', dependencies: ['packages/lib'] },
      { path: 'packages/lib', manifest: 'packages/lib/package.json', dependencies: [] },
      { path: 'packages/tools', manifest: 'packages/tools/package.json', dependencies: [] },
    ]);
    expect(part.manifests).toEqual([
      'pnpm-lock.yaml',
      'package.json',
      'packages/app/package.json',
      'packages/lib/package.json',
      'packages/tools/package.json',
    ]);
  });

  it("gives each module the contexts of its importer's sections", () => {
    expect(contexts(part, '.')).toEqual(['devDependencies', 'optionalDependencies']);
    expect(contexts(part, 'packages/app')).toEqual(['dependencies']);
    expect(contexts(part, 'packages/lib')).toEqual(['dependencies']);
    expect(contexts(part, 'packages/tools')).toEqual(['devDependencies']);
    for (const r of part.roots) expect(r.manifest).toBe(r.module === '.' ? 'package.json' : `${r.module}/package.json`);
  });

  it('keeps workspace members and links out of the nodes; an alias is a node under its real name', () => {
    const ids = part.nodes.map((n) => n.id);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual([
      'is-buffer@1.1.6',
      'is-even@1.0.0',
      'is-number@3.0.0',
      'is-number@6.0.0',
      'is-number@7.0.0',
      'is-odd@0.1.2',
      'is-odd@3.0.1',
      'js-tokens@4.0.0',
      'kind-of@3.2.2',
      'kind-of@6.0.3',
      'loose-envify@1.4.0',
      'react@18.3.1',
      'react@19.1.0',
      'use-sync-external-store@1.5.0',
    ]);
    expect(rootOf(part, 'packages/lib', 'dependencies').dependencies).toEqual([
      'is-even@1.0.0',
      'react@18.3.1',
      'use-sync-external-store@1.5.0',
    ]);
    expect(nodeById(part, 'is-even@1.0.0')).toMatchObject({
      name: 'is-even',
      version: '1.0.0',
      relationship: 'direct',
      dependencies: ['is-odd@0.1.2'],
    });
  });

  it('takes the version a catalog: specifier resolved to', () => {
    expect(lockOf('workspace-v9').importers['packages/app'].dependencies['is-odd'].specifier).toBe('catalog:');
    expect(rootOf(part, 'packages/app', 'dependencies').dependencies).toEqual([
      'is-odd@3.0.1',
      'react@19.1.0',
      'use-sync-external-store@1.5.0',
    ]);
    expect(nodeById(part, 'is-odd@3.0.1').dependencies).toEqual(['is-number@6.0.0']);
  });

  it('makes each peer variant its own vertex of one node, and follows the link with its runtime sections', () => {
    const app = rootOf(part, 'packages/app', 'dependencies');
    expect(app.resolution!.vertices[0]).toMatchObject({ id: '0', module: 'packages/app' });
    expect(edgesOf(app)).toEqual([
      'is-even@1.0.0 -> is-odd@0.1.2',
      'is-number@3.0.0 -> kind-of@3.2.2',
      'is-odd@0.1.2 -> is-number@3.0.0',
      'is-odd@3.0.1 -> is-number@6.0.0',
      'kind-of@3.2.2 -> is-buffer@1.1.6',
      'loose-envify@1.4.0 -> js-tokens@4.0.0',
      'module:packages/app -> is-odd@3.0.1',
      'module:packages/app -> module:packages/lib',
      'module:packages/app -> react@19.1.0',
      'module:packages/app -> use-sync-external-store@1.5.0',
      'module:packages/lib -> is-even@1.0.0',
      'module:packages/lib -> react@18.3.1',
      'module:packages/lib -> use-sync-external-store@1.5.0',
      'react@18.3.1 -> loose-envify@1.4.0',
      'use-sync-external-store@1.5.0 -> react@18.3.1',
      'use-sync-external-store@1.5.0 -> react@19.1.0',
    ]);
    // Two vertices for use-sync-external-store@1.5.0: app's (with react 19) and lib's (with react 18).
    const vs = app.resolution!.vertices;
    const byId = new Map(vs.map((v) => [v.id, v]));
    const variants = vs
      .filter((v) => v.node === 'use-sync-external-store@1.5.0')
      .map((v) => v.dependencies.map((d) => byId.get(d)!.node));
    expect(variants).toEqual([['react@19.1.0'], ['react@18.3.1']]);
    expect(nodeById(part, 'use-sync-external-store@1.5.0').dependencies).toEqual(['react@18.3.1', 'react@19.1.0']);
    const ids = vs.map((v) => v.id);
    expect(ids).toEqual(ids.map((_, i) => String(i)));
    for (const v of vs) expect((v.module == null) !== (v.node == null)).toBe(true);
  });

  it('sets relationship from the roots: direct when some root references the package', () => {
    expect(nodeById(part, 'kind-of@6.0.3').relationship).toBe('direct'); // tools' devDependencies
    expect(nodeById(part, 'is-buffer@1.1.6').relationship).toBe('direct'); // the project's optionalDependencies
    expect(nodeById(part, 'loose-envify@1.4.0').relationship).toBe('transitive');
  });

  it("never follows a linked workspace member's devDependencies", () => {
    const p = edited('workspace-v9', (lock) => {
      lock.importers['packages/lib'].devDependencies = { 'kind-of': { specifier: '^6.0.3', version: '6.0.3' } };
    });
    expect(verticesOf(rootOf(p, 'packages/app', 'dependencies'))).not.toContain('kind-of@6.0.3');
    expect(rootOf(p, 'packages/lib', 'devDependencies').dependencies).toEqual(['kind-of@6.0.3']);
    validatePart(p);
  });

  it('names modules, manifests and locations from the project root when the lockfile is in a subfolder', () => {
    const web = produce('workspace-v9', { under: 'web' });
    expect(web.modules.map((m) => [m.path, m.manifest, m.dependencies])).toEqual([
      ['web', 'web/package.json', []],
      ['web/packages/app', 'web/packages/app/package.json', ['web/packages/lib']],
      ['web/packages/lib', 'web/packages/lib/package.json', []],
      ['web/packages/tools', 'web/packages/tools/package.json', []],
    ]);
    expect(web.manifests[0]).toBe('web/pnpm-lock.yaml');
    expect(web.projectName).toBe('fx-pnpm-v9');
    expect(rootOf(web, 'web/packages/app', 'dependencies').resolution!.vertices[1].module).toBe('web/packages/lib');
    expect(Object.values(web.locations).every((l) => l.file === 'web/pnpm-lock.yaml')).toBe(true);
    validatePart(web);
  });

  it('locates every package on the line of its packages: entry', () => {
    const text = fixtureInput('workspace-v9').text;
    expect(Object.keys(part.locations).sort()).toEqual(part.nodes.map((n) => n.id));
    for (const n of part.nodes) expect(lineOf(text, part.locations[n.id].line!)).toBe(`  ${n.id}:`);
    // The same lines with CRLF line ends.
    const crlf = produce('workspace-v9', { text: text.replace(/\n/g, '\r\n') });
    expect(crlf.locations).toEqual(part.locations);
  });
});

describe('pnpm producer: workspace (lockfileVersion 6.0, pnpm 8)', () => {
  const part = produce('workspace-v6');
  const v9 = produce('workspace-v9');

  it('reads "/name@version(peers)" keys and "/name@version" alias references into the same graph as v9', () => {
    expect(lockOf('workspace-v6').lockfileVersion).toBe('6.0');
    expect(Object.keys(lockOf('workspace-v6').packages)).toContain('/use-sync-external-store@1.5.0(react@18.3.1)');
    expect(part.warnings).toEqual([]);
    expect(part.modules).toEqual(v9.modules);
    expect(part.roots).toEqual(v9.roots);
    expect(part.nodes).toEqual(v9.nodes);
    validatePart(part);
  });

  it('locates packages on their "/name@version" key line (the first peer variant for a package with several)', () => {
    const text = fixtureInput('workspace-v6').text;
    expect(lineOf(text, part.locations['is-even@1.0.0'].line!)).toBe('  /is-even@1.0.0:');
    expect(lineOf(text, part.locations['use-sync-external-store@1.5.0'].line!)).toBe(
      '  /use-sync-external-store@1.5.0(react@18.3.1):',
    );
  });

  it('reads the top-level sections of a project without workspaces', () => {
    const single = produce('single-v6');
    expect(lockOf('single-v6').importers).toBeUndefined();
    expect(single).toMatchObject({
      projectName: 'fx-pnpm-single',
      warnings: [],
      modules: [{ path: '.', manifest: 'package.json', dependencies: [] }],
    });
    expect(single.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['dependencies', ['is-odd@3.0.1']],
      ['devDependencies', ['is-even@1.0.0']],
    ]);
    expect(edgesOf(rootOf(single, '.', 'devDependencies'))).toContain('module:. -> is-even@1.0.0');
    validatePart(single);
  });
});

describe('pnpm producer: packages no section reaches, dangling references', () => {
  it('leaves out packages no importer section reaches, names them, and the server would refuse them', () => {
    const p = edited('workspace-v9', (lock) => {
      lock.packages['left-pad@1.3.0'] = { resolution: { integrity: 'sha512-x' } };
      lock.snapshots['left-pad@1.3.0'] = {};
      delete lock.importers['packages/tools'].devDependencies;
    });
    expect(p.nodes.some((n) => n.id === 'left-pad@1.3.0' || n.id === 'kind-of@6.0.3')).toBe(false);
    expect(p.warnings).toEqual([
      '2 packages are not needed by any importer section and left out: kind-of@6.0.3, left-pad@1.3.0',
    ]);
    expect(contexts(p, 'packages/tools')).toEqual([]);
    validatePart(p);
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

  it('skips references to packages and folders the lockfile does not describe, and says so', () => {
    const p = edited('workspace-v9', (lock) => {
      delete lock.snapshots['is-number@6.0.0'];
      lock.importers['packages/tools'].dependencies = { gone: { specifier: 'workspace:*', version: 'link:../gone' } };
    });
    expect(nodeById(p, 'is-odd@3.0.1').dependencies).toEqual([]);
    expect(p.modules.find((m) => m.path === 'packages/tools')!.dependencies).toEqual([]);
    expect(p.warnings).toEqual([
      'references to packages the lockfile does not describe are left out: is-number@6.0.0',
      'links to folders that are not importers of the lockfile are left out: packages/tools → link:../gone',
      // is-number@6.0.0 still has its packages entry.
      '1 package is not needed by any importer section and left out: is-number@6.0.0',
    ]);
    validatePart(p);
  });
});
