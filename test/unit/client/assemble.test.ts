// Parts of one ecosystem merged into one snapshot that the server's own validation accepts.
import { assemble, flatResolution, type PartFrom } from '../../../src/client/snapshot/assemble';
import type { ProducedPart } from '../../../src/client/producers/types';
import { validateSnapshot } from '../../../src/domain/snapshot';
import type { SnapshotNode, SnapshotRoot } from '../../../src/shared/types';

const node = (id: string, deps: string[] = []): SnapshotNode => ({
  id,
  name: id.slice(0, id.lastIndexOf('@')),
  version: id.slice(id.lastIndexOf('@') + 1),
  relationship: 'transitive',
  dependencies: deps,
});

function v1Part(dir: string, rootDeps: string[], nodes: SnapshotNode[]): ProducedPart {
  const manifest = dir === '.' ? 'package.json' : `${dir}/package.json`;
  return {
    ecosystem: 'javascript',
    schemaVersion: 1,
    manifests: [dir === '.' ? 'package-lock.json' : `${dir}/package-lock.json`, manifest],
    modules: [{ path: dir, manifest, dependencies: [] }],
    roots: [{ module: dir, manifest, context: 'dependencies', dependencies: rootDeps }],
    nodes,
    locations: Object.fromEntries(nodes.map((n, i) => [n.id, { file: `${dir}/package-lock.json`, line: i + 10 }])),
    warnings: [],
  };
}

function v2Part(dir: string): ProducedPart {
  const root: SnapshotRoot = {
    module: dir,
    manifest: `${dir}/package.json`,
    context: 'dependencies',
    dependencies: ['a@1.0.0'],
    resolution: {
      root: 'm',
      vertices: [
        { id: 'm', module: dir, dependencies: ['1'] },
        { id: '1', node: 'a@1.0.0', dependencies: ['2'] },
        { id: '2', node: 'b@2.0.0', dependencies: [] },
      ],
    },
  };
  return {
    ecosystem: 'javascript',
    schemaVersion: 2,
    manifests: [`${dir}/package-lock.json`, `${dir}/package.json`],
    modules: [{ path: dir, manifest: `${dir}/package.json`, dependencies: [] }],
    roots: [root],
    nodes: [node('a@1.0.0', ['b@2.0.0']), node('b@2.0.0')],
    locations: { 'a@1.0.0': { file: `${dir}/package-lock.json`, line: 5 } },
    warnings: ['something skipped'],
    projectName: 'web',
  };
}

const valid = (s: unknown) => {
  const body = JSON.stringify(s);
  return validateSnapshot(JSON.parse(body), Buffer.byteLength(body));
};

test('a flat root becomes a resolution: the module vertex, then one vertex per reachable package', () => {
  const nodes = new Map([node('a@1', ['b@1']), node('b@1', ['a@1']), node('c@1')].map((n) => [n.id, n]));
  const r = flatResolution({ module: '.', context: 'dependencies', dependencies: ['a@1'] }, nodes);
  expect(r.resolution).toEqual({
    root: '0',
    vertices: [
      { id: '0', module: '.', dependencies: ['1'] },
      { id: '1', node: 'a@1', dependencies: ['2'] },
      { id: '2', node: 'b@1', dependencies: ['1'] },
    ],
  });
});

test('v1 parts stay a v1 snapshot: nodes merged by id with their dependencies united, relationship recomputed', () => {
  const parts: PartFrom[] = [
    { lockfile: 'a/package-lock.json', part: v1Part('a', ['x@1'], [node('x@1', ['y@1']), node('y@1')]) },
    { lockfile: 'b/package-lock.json', part: v1Part('b', ['y@1'], [node('x@1', ['z@1']), node('y@1'), node('z@1')]) },
  ];
  const [one, ...rest] = assemble(parts, { project: 'shop', metadata: { commit: 'abc' } });
  expect(rest).toEqual([]);
  const s = one.snapshot;
  expect(s).toMatchObject({ schemaVersion: 1, project: 'shop', ecosystem: 'javascript', metadata: { commit: 'abc' } });
  expect(s.modules).toBeUndefined();
  expect(s.nodes.map((n) => [n.id, n.relationship, n.dependencies])).toEqual([
    ['x@1', 'direct', ['y@1', 'z@1']],
    ['y@1', 'direct', []],
    ['z@1', 'transitive', []],
  ]);
  expect(s.manifests).toEqual(['a/package-lock.json', 'a/package.json', 'b/package-lock.json', 'b/package.json']);
  expect(one.locations['x@1']).toEqual({ file: 'a/package-lock.json', line: 10 });
  expect(() => valid(s)).not.toThrow();
});

test('a v1 part joins v2 parts through a flat resolution; modules carry the teams CODEOWNERS gives their manifests', () => {
  const parts: PartFrom[] = [
    { lockfile: 'web/package-lock.json', part: v2Part('web') },
    { lockfile: 'legacy/package-lock.json', part: v1Part('legacy', ['b@2.0.0'], [node('b@2.0.0')]) },
  ];
  const [one] = assemble(parts, {
    project: 'shop',
    teamOf: (manifest) =>
      manifest.startsWith('web/') ? { teamName: '@acme/web', attributes: { codeowners: '@acme/web @bob' } } : undefined,
  });
  const s = one.snapshot;
  expect(s.schemaVersion).toBe(2);
  expect(s.metadata).toBeUndefined();
  expect(s.modules).toEqual([
    { path: 'web', dependencies: [], teamName: '@acme/web', attributes: { codeowners: '@acme/web @bob' } },
    { path: 'legacy', dependencies: [] },
  ]);
  expect(s.roots[1].resolution).toEqual({
    root: '0',
    vertices: [
      { id: '0', module: 'legacy', dependencies: ['1'] },
      { id: '1', node: 'b@2.0.0', dependencies: [] },
    ],
  });
  expect(one.warnings).toEqual(['web/package-lock.json: something skipped']);
  expect(() => valid(s)).not.toThrow();
});

test('a lockfile whose module another lockfile already describes is skipped with a warning, not sent twice', () => {
  const parts: PartFrom[] = [
    { lockfile: 'web/package-lock.json', part: v2Part('web') },
    { lockfile: 'web/nested/package-lock.json', part: { ...v2Part('web'), warnings: [] } },
  ];
  const [one] = assemble(parts, { project: 'shop' });
  expect(one.lockfiles).toEqual(['web/package-lock.json']);
  expect(one.snapshot.roots).toHaveLength(1);
  expect(one.warnings).toContain(
    'web/nested/package-lock.json: skipped, its module "web" (dependencies) is already described by web/package-lock.json',
  );
  expect(() => valid(one.snapshot)).not.toThrow();
});

test('lockfiles of one module with different contexts merge (requirements.txt and requirements-dev.txt)', () => {
  const prod = { ...v1Part('.', ['a@1'], [node('a@1')]), ecosystem: 'python' as const };
  const dev = { ...v1Part('.', ['a@1', 'b@1'], [node('a@1'), node('b@1')]), ecosystem: 'python' as const };
  dev.roots = [{ ...dev.roots[0], context: 'requirements-dev.txt' }];
  const [one] = assemble(
    [
      { lockfile: 'requirements.txt', part: prod },
      { lockfile: 'requirements-dev.txt', part: dev },
    ],
    { project: 'svc' },
  );
  expect(one.lockfiles).toEqual(['requirements.txt', 'requirements-dev.txt']);
  expect(one.snapshot.roots.map((r) => r.context)).toEqual(['dependencies', 'requirements-dev.txt']);
  expect(one.warnings).toEqual([]);
  expect(() => valid(one.snapshot)).not.toThrow();
});

test('one snapshot per ecosystem, in the order found', () => {
  const py: ProducedPart = { ...v1Part('svc', ['requests@2.0.0'], [node('requests@2.0.0')]), ecosystem: 'python' };
  const out = assemble(
    [
      { lockfile: 'svc/requirements.txt', part: py },
      { lockfile: 'web/package-lock.json', part: v2Part('web') },
    ],
    { project: 'shop' },
  );
  expect(out.map((a) => [a.snapshot.ecosystem, a.snapshot.schemaVersion])).toEqual([
    ['python', 1],
    ['javascript', 2],
  ]);
});
