// The producer on a real, large pnpm lockfile: vuejs/core (lockfileVersion 9.0, 18 importers, catalogs, peer
// variants, a link inside a snapshot). Every expectation is computed here from the file itself, with the simplest
// reading of the format, not with the producer's code.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { pnpmLockProducer } from '../../../../src/client/producers/pnpm-lock';
import { describeWithSharedData, sharedDataPath } from '../../../helpers/shared-data';
import { edgesOf, nodeById, rootOf, validatePart } from './npm-helpers';

const FILE = sharedDataPath('lockfiles', 'npm', 'vuejs__core__pnpm-lock.yaml');

/** A dependency's node id: "1.0.0(peer)" of name, or an alias's "real@1.0.0"; undefined for a link. */
const idOf = (name: string, ref: string): string | undefined => {
  if (ref.startsWith('link:')) return undefined;
  const base = ref.split('(')[0];
  return /^\d/.test(base) ? `${name}@${base}` : base;
};
const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;
const entries = (o: Record<string, any> | undefined) => Object.entries(o ?? {});

describeWithSharedData('pnpm producer: vuejs/core pnpm-lock.yaml', () => {
  const text = fs.readFileSync(FILE, 'utf8');
  const lock: Record<string, any> = parse(text);
  const part = pnpmLockProducer.produce({ path: 'pnpm-lock.yaml', text, readFile: () => undefined });

  it('is the real file: 18 importers, 620 packages, 621 snapshots', () => {
    expect(lock.lockfileVersion).toBe('9.0');
    expect(Object.keys(lock.importers)).toHaveLength(18);
    expect(Object.keys(lock.packages)).toHaveLength(620);
    expect(Object.keys(lock.snapshots)).toHaveLength(621);
  });

  it('is a part the server accepts, with one node per package and nothing left out', () => {
    expect(part.warnings).toEqual([]);
    expect(part.nodes.map((n) => n.id)).toEqual(
      Object.keys(lock.packages).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
    validatePart(part);
  });

  it('makes a module of every importer, with its links as module dependencies', () => {
    const expected = Object.keys(lock.importers).map((key) => {
      const links = SECTIONS.flatMap((s) =>
        entries(lock.importers[key][s])
          .map(([, d]) => d.version as string)
          .filter((v) => v.startsWith('link:')),
      );
      return {
        path: key,
        manifest: key === '.' ? 'package.json' : `${key}/package.json`,
        dependencies: [...new Set(links.map((l) => path.posix.join(key, l.slice(5))))].sort(),
      };
    });
    expect(part.modules).toEqual(expected);
    expect(part.modules.find((m) => m.path === 'packages/vue')!.dependencies).toEqual([
      'packages/compiler-dom',
      'packages/compiler-sfc',
      'packages/runtime-dom',
      'packages/server-renderer',
      'packages/shared',
    ]);
  });

  it("makes a root per importer section, with the section's packages (catalog: ones at their resolved version)", () => {
    const expected = Object.keys(lock.importers).flatMap((key) =>
      SECTIONS.filter((s) => entries(lock.importers[key][s]).length > 0).map((s) => ({
        module: key,
        context: s,
        dependencies: [
          ...new Set(entries(lock.importers[key][s]).flatMap(([name, d]) => idOf(name, d.version) ?? [])),
        ].sort(),
      })),
    );
    expect(part.roots.map(({ module, context, dependencies }) => ({ module, context, dependencies }))).toEqual(
      expected,
    );
    expect(lock.importers['.'].devDependencies['@babel/parser'].specifier).toBe('catalog:');
    expect(rootOf(part, '.', 'devDependencies').dependencies).toContain(
      `@babel/parser@${lock.catalogs.default['@babel/parser'].version}`,
    );
  });

  it("gives every node the union of its snapshots' runtime dependencies", () => {
    const expected = new Map<string, Set<string>>();
    for (const [key, s] of entries(lock.snapshots)) {
      const id = key.split('(')[0];
      const deps = expected.get(id) ?? new Set<string>();
      for (const [name, ref] of [...entries(s.dependencies), ...entries(s.optionalDependencies)]) {
        const d = idOf(name, ref as string);
        if (d) deps.add(d);
      }
      expected.set(id, deps);
    }
    for (const n of part.nodes) expect([n.id, n.dependencies]).toEqual([n.id, [...expected.get(n.id)!].sort()]);
    expect(nodeById(part, '@babel/parser@7.29.8').dependencies).toEqual(['@babel/types@7.29.8']);
  });

  it('keeps the two peer variants of fdir@6.5.0 as two vertices of one node', () => {
    expect(Object.keys(lock.snapshots).filter((k) => k.startsWith('fdir@6.5.0'))).toEqual([
      'fdir@6.5.0(picomatch@4.0.4)',
      'fdir@6.5.0(picomatch@4.0.5)',
    ]);
    const root = rootOf(part, '.', 'devDependencies');
    const vs = root.resolution!.vertices;
    const byId = new Map(vs.map((v) => [v.id, v]));
    const fdirs = vs.filter((v) => v.node === 'fdir@6.5.0').map((v) => v.dependencies.map((d) => byId.get(d)!.node));
    expect(fdirs.sort()).toEqual([['picomatch@4.0.4'], ['picomatch@4.0.5']]);
    expect(nodeById(part, 'fdir@6.5.0').dependencies).toEqual(['picomatch@4.0.4', 'picomatch@4.0.5']);
    // One vertex per snapshot key: a package has at most as many vertices in a resolution as it has snapshots.
    const variants = new Map<string, number>();
    for (const k of Object.keys(lock.snapshots))
      variants.set(k.split('(')[0], (variants.get(k.split('(')[0]) ?? 0) + 1);
    for (const r of part.roots) {
      const count = new Map<string, number>();
      for (const v of r.resolution!.vertices) count.set(v.module ?? v.node!, (count.get(v.module ?? v.node!) ?? 0) + 1);
      for (const [label, n] of count) expect([label, n <= (variants.get(label) ?? 1)]).toEqual([label, true]);
    }
  });

  it('follows a link inside a snapshot to the workspace member, and links between members with runtime sections only', () => {
    // @vitejs/plugin-vue's snapshot depends on vue through "link:packages/vue" (relative to the lockfile's folder).
    const key = Object.keys(lock.snapshots).find((k) => k.startsWith('@vitejs/plugin-vue@'))!;
    expect(lock.snapshots[key].dependencies.vue).toBe('link:packages/vue');
    expect(edgesOf(rootOf(part, 'packages-private/sfc-playground', 'devDependencies'))).toContain(
      '@vitejs/plugin-vue@6.0.8 -> module:packages/vue',
    );
    // packages/vue's resolution reaches compiler-core through compiler-dom, never compiler-core's devDependencies.
    const vue = edgesOf(rootOf(part, 'packages/vue', 'dependencies'));
    expect(vue).toContain('module:packages/compiler-dom -> module:packages/compiler-core');
    const coreDev = entries(lock.importers['packages/compiler-core'].devDependencies).map(([n, d]) =>
      idOf(n, d.version),
    );
    const coreRuntime = (['dependencies', 'optionalDependencies'] as const).flatMap((s) =>
      entries(lock.importers['packages/compiler-core'][s]).map(([n, d]) => idOf(n, d.version)),
    );
    for (const id of coreDev.filter((d) => !coreRuntime.includes(d)))
      expect(vue).not.toContain(`module:packages/compiler-core -> ${id}`);
  });

  it('locates every package on its packages: entry line', () => {
    const lines = text.split('\n');
    expect(part.locations['fdir@6.5.0']).toEqual({ file: 'pnpm-lock.yaml', line: lines.indexOf('  fdir@6.5.0:') + 1 });
    for (const n of part.nodes) {
      const line = lines[part.locations[n.id].line! - 1];
      expect([n.id, line === `  ${n.id}:` || line === `  '${n.id}':`]).toEqual([n.id, true]);
    }
  });
});
