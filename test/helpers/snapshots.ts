// Small hand-written snapshots for HTTP and integration tests.

export function v1Snapshot(project = 'web-app', extra: Record<string, unknown> = {}) {
  return {
    schemaVersion: 1,
    project,
    ecosystem: 'javascript',
    manifests: ['package.json'],
    roots: [{ module: 'web-app', context: 'dependencies', dependencies: ['lodash@4.17.20'] }],
    nodes: [
      { id: 'left-pad@1.3.0', name: 'left-pad', version: '1.3.0', relationship: 'transitive', dependencies: [] },
      {
        id: 'lodash@4.17.20',
        name: 'lodash',
        version: '4.17.20',
        relationship: 'direct',
        dependencies: ['left-pad@1.3.0'],
      },
    ],
    ...extra,
  };
}

/** A v1 npm snapshot whose root depends directly on each [name, version] given; `ref`: the snapshot's metadata.ref. */
export function directSnapshot(project: string, pkgs: ReadonlyArray<[string, string]>, ref?: string) {
  const ids = pkgs.map(([n, v]) => `${n}@${v}`);
  return {
    schemaVersion: 1,
    project,
    ecosystem: 'javascript',
    manifests: ['package.json'],
    roots: [{ module: project, context: 'dependencies', dependencies: ids }],
    nodes: pkgs.map(([name, version], i) => ({ id: ids[i], name, version, relationship: 'direct', dependencies: [] })),
    ...(ref ? { metadata: { ref } } : {}),
  };
}
