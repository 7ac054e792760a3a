// piscina's real package-lock.json (lockfileVersion 3, 700+ entries, nesting, aliases): every expectation is computed
// here from the file itself, by a second, independent reading of Node's resolution rules.
import fs from 'node:fs';
import { npmLockProducer } from '../../../../src/client/producers/npm-lock';
import { describeWithSharedData } from '../../../helpers/shared-data';
import { PISCINA, edgesOf, rootOf, validatePart } from './npm-helpers';

describeWithSharedData('npm producer on piscina’s lockfile', () => {
  const text = fs.readFileSync(PISCINA, 'utf8');
  const lock = JSON.parse(text) as { packages: Record<string, Record<string, any>> };
  const P = lock.packages;
  const part = npmLockProducer.produce({ path: 'package-lock.json', text, readFile: () => undefined });

  const installed = Object.keys(P).filter((k) => /(^|\/)node_modules\//.test(k) && !P[k].link);
  const idAt = (key: string) => `${P[key].name ?? key.replace(/^.*node_modules\//, '')}@${P[key].version}`;

  /** Where Node finds `name` from the folder `key`: key/node_modules/name, then each enclosing package's, then the top. */
  function nodeResolve(key: string, name: string): string | undefined {
    let dir = key;
    for (;;) {
      const candidate = dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
      if (P[candidate]) return candidate;
      if (dir === '') return undefined;
      dir = dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '');
    }
  }
  const declared = (key: string) =>
    ['dependencies', 'optionalDependencies', 'peerDependencies'].flatMap((s) => Object.keys(P[key][s] ?? {}));
  const expectedDeps = (key: string) =>
    [
      ...new Set(
        declared(key)
          .map((n) => nodeResolve(key, n))
          .filter((k): k is string => k !== undefined)
          .map(idAt),
      ),
    ].sort();

  it('is a part the server accepts, with nothing left out', () => {
    expect(part).toMatchObject({ schemaVersion: 2, ecosystem: 'javascript', projectName: 'piscina', warnings: [] });
    validatePart(part);
  });

  it('has one node per distinct name@version of the installed entries, aliases under their real names', () => {
    const ids = [...new Set(installed.map(idAt))].sort();
    expect(ids.length).toBeGreaterThan(500);
    expect(part.nodes.map((n) => n.id)).toEqual(ids);
    // string-width-cjs is installed as an alias of string-width.
    expect(P['node_modules/string-width-cjs'].name).toBe('string-width');
    expect(part.nodes.some((n) => n.name === 'string-width-cjs')).toBe(false);
    expect(part.nodes.find((n) => n.id === idAt('node_modules/string-width-cjs'))).toBeDefined();
    for (const n of part.nodes) expect(n.id).toBe(`${n.name}@${n.version}`);
  });

  it("has every copy's dependencies as Node would resolve them", () => {
    const union = new Map<string, Set<string>>();
    for (const key of installed) {
      const set = union.get(idAt(key)) ?? new Set<string>();
      for (const d of expectedDeps(key)) set.add(d);
      union.set(idAt(key), set);
    }
    for (const n of part.nodes) expect([n.id, n.dependencies]).toEqual([n.id, [...union.get(n.id)!].sort()]);
    // A nested copy that resolves differently from the hoisted one: found, and checked on its own.
    const nested = installed.find(
      (k) => k.includes('/node_modules/') && declared(k).some((d) => nodeResolve(k, d) !== `node_modules/${d}`),
    );
    expect(nested).toBeDefined();
  });

  it('makes a root per manifest section of the project, from packages[""]', () => {
    const project = P[''];
    expect(part.modules).toEqual([{ path: '.', manifest: 'package.json', dependencies: [] }]);
    expect(part.roots.map((r) => r.context)).toEqual(['devDependencies', 'optionalDependencies']);
    for (const section of ['devDependencies', 'optionalDependencies']) {
      const root = rootOf(part, '.', section);
      expect(root.dependencies).toEqual(
        Object.keys(project[section])
          .map((n) => idAt(`node_modules/${n}`))
          .sort(),
      );
      expect(root.manifest).toBe('package.json');
    }
    const direct = new Set(part.roots.flatMap((r) => r.dependencies));
    for (const n of part.nodes) expect(n.relationship).toBe(direct.has(n.id) ? 'direct' : 'transitive');
  });

  it('has one vertex per install path a section reaches, with the edges of that copy', () => {
    for (const section of ['devDependencies', 'optionalDependencies']) {
      const reach = new Set<string>();
      const queue = Object.keys(P[''][section]).map((n) => nodeResolve('', n)!);
      for (const k of queue)
        if (!reach.has(k))
          (reach.add(k),
            queue.push(
              ...declared(k)
                .map((d) => nodeResolve(k, d))
                .filter((x): x is string => x !== undefined),
            ));
      const root = rootOf(part, '.', section);
      expect(root.resolution!.vertices).toHaveLength(reach.size + 1);
      // Each vertex's edges are those of one of its package's copies in the reached set.
      const copies = new Map<string, string[]>();
      for (const k of reach) copies.set(idAt(k), [...(copies.get(idAt(k)) ?? []), k]);
      const vs = new Map(root.resolution!.vertices.map((v) => [v.id, v]));
      for (const v of root.resolution!.vertices.slice(1)) {
        const got = [...new Set(v.dependencies.map((d) => vs.get(d)!.node!))].sort();
        expect(copies.get(v.node!)!.some((k) => JSON.stringify(expectedDeps(k)) === JSON.stringify(got))).toBe(true);
      }
    }
    expect(edgesOf(rootOf(part, '.', 'optionalDependencies'))).toContain(
      `module:. -> ${idAt('node_modules/@napi-rs/nice')}`,
    );
  });

  it('locates each package on the line of its first entry key', () => {
    const lines = text.split('\n');
    for (const n of part.nodes) {
      const first = installed.find((k) => idAt(k) === n.id)!;
      expect([n.id, lines[part.locations[n.id].line! - 1]]).toEqual([n.id, `    ${JSON.stringify(first)}: {`]);
      expect(part.locations[n.id].file).toBe('package-lock.json');
    }
  });
});
