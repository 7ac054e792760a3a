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
