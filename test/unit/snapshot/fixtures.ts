// Small valid snapshots for the snapshot unit tests, and a helper that returns the ApiError a body is refused with.
import { ApiError } from '../../../src/domain/errors';
import { validateSnapshot } from '../../../src/domain/snapshot';

/** Any value as JSON-shaped mutable data (tests poke at fields freely). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Doc = any;

export function v1(): Doc {
  return {
    schemaVersion: 1,
    project: 'web-app',
    ecosystem: 'javascript',
    manifests: ['package.json'],
    roots: [{ module: 'web-app', manifest: 'package.json', context: 'dependencies', dependencies: ['lodash@4.17.20'] }],
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
    suppressions: [
      { cve: 'CVE-2021-23337', reason: 'template() is never called', package: 'lodash', expires: '2030-01-31' },
    ],
  };
}

export const A = 'org.example:a@1.0.0';
export const B = 'org.example:b@2.0.0';
export const C = 'org.example:c@3.0.0';
const node = (id: string, deps: string[], relationship = 'transitive') => {
  const at = id.lastIndexOf('@');
  return { id, name: id.slice(0, at), version: id.slice(at + 1), relationship, dependencies: deps };
};

/** :app depends on :lib; :app's runtime resolution reaches a → b and, through :lib, c. */
export function v2(): Doc {
  return {
    schemaVersion: 2,
    project: 'platform',
    ecosystem: 'gradle',
    manifests: ['settings.gradle.kts', 'app/build.gradle.kts'],
    modules: [
      { path: ':app', dependencies: [':lib'], teamName: 'payments', attributes: { tier: 'backend' } },
      { path: ':lib', dependencies: [], teamName: null },
    ],
    roots: [
      {
        module: ':app',
        manifest: 'app/build.gradle.kts',
        context: 'runtimeClasspath',
        dependencies: [A],
        resolution: {
          root: 'app',
          vertices: [
            { id: 'app', module: ':app', node: null, dependencies: ['lib', 'a'] },
            { id: 'lib', module: ':lib', dependencies: ['c'] },
            { id: 'a', node: A, dependencies: ['b'] },
            { id: 'b', module: null, node: B, dependencies: [] },
            { id: 'c', node: C, dependencies: [] },
          ],
        },
      },
      {
        module: ':lib',
        context: 'runtimeClasspath',
        dependencies: [C],
        resolution: {
          root: 'lib',
          vertices: [
            { id: 'lib', module: ':lib', dependencies: ['c'] },
            { id: 'c', node: C, dependencies: [] },
          ],
        },
      },
    ],
    nodes: [node(A, [B], 'direct'), node(B, []), node(C, [], 'direct')],
    suppressions: [{ cve: 'GHSA-jfh8-c2jp-5v3q', reason: 'not reachable\nsee ticket 12', package: 'org.apache.*' }],
  };
}

export const bytesOf = (body: unknown): number => Buffer.byteLength(JSON.stringify(body) ?? '');

/** The ApiError validateSnapshot throws for `body`; fails the test when it accepts or throws anything else. */
export function refusal(body: unknown, bodyBytes = bytesOf(body)): ApiError {
  try {
    validateSnapshot(body, bodyBytes);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('accepted, expected a refusal');
}

/** [status, code, message] of the refusal, for one-line expectations. */
export const refused = (body: unknown, bodyBytes?: number): [number, string, string] => {
  const e = refusal(body, bodyBytes);
  return [e.status, e.code, e.message];
};

export const invalid = (message: string): [number, string, string] => [422, 'invalid_snapshot', message];
export const tooLarge = (message: string): [number, string, string] => [413, 'snapshot_too_large', message];

/** Deep copy of a fixture with `change` applied. */
export function mutate(base: () => Doc, change: (d: Doc) => void): Doc {
  const d = base();
  change(d);
  return d;
}
