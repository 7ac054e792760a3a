// The snapshot's cross-reference rules (422 invalid_snapshot), each with the pointer to the offending element.
import { validateSnapshot } from '../../../src/domain/snapshot';
import { A, B, C, bytesOf, invalid, mutate, refused, v1, v2, type Doc } from './fixtures';

const accepted = (d: Doc) => expect(() => validateSnapshot(d, bytesOf(d))).not.toThrow();
const res0 = (d: Doc) => d.roots[0].resolution;

describe('v1 cross-references', () => {
  test.each([
    [
      'a duplicate node id',
      (d: Doc) => d.nodes.push({ ...d.nodes[0] }),
      '/nodes/2/id: duplicate node id "left-pad@1.3.0" (also /nodes/0)',
    ],
    [
      'a duplicate (module, context) root',
      (d: Doc) => d.roots.push({ module: 'web-app', context: 'dependencies', dependencies: [] }),
      '/roots/1: duplicate root for module "web-app" and context "dependencies" (also /roots/0)',
    ],
    [
      'a root dependency on an unknown node',
      (d: Doc) => d.roots[0].dependencies.push('react@18.0.0'),
      '/roots/0/dependencies/1: unknown node "react@18.0.0"',
    ],
    [
      'a node dependency on an unknown node',
      (d: Doc) => (d.nodes[1].dependencies = ['left-pad@1.3.0', 'left-pad@1.2.0']),
      '/nodes/1/dependencies/1: unknown node "left-pad@1.2.0"',
    ],
    [
      'a node id that is only a name (references are exact)',
      (d: Doc) => (d.roots[0].dependencies = ['lodash']),
      '/roots/0/dependencies/0: unknown node "lodash"',
    ],
  ])('%s is refused', (_, change, message) => {
    expect(refused(mutate(v1, change))).toEqual(invalid(message));
  });

  test('the same module in another context, and another module in the same context, are separate roots', () => {
    accepted(
      mutate(v1, (d) => {
        d.roots.push({ module: 'web-app', context: 'devDependencies', dependencies: [] });
        d.roots.push({ module: 'admin', context: 'dependencies', dependencies: ['left-pad@1.3.0'] });
      }),
    );
  });

  test('cycles, self-loops, unreachable nodes and ids other than name@version are accepted in v1', () => {
    accepted(
      mutate(v1, (d) => {
        d.nodes[0].dependencies = ['lodash@4.17.20', 'left-pad@1.3.0'];
        d.nodes.push({ id: 'orphan', name: 'orphan', version: '0.0.1', relationship: 'transitive', dependencies: [] });
      }),
    );
  });

  test('long values are cut in messages', () => {
    const [, , message] = refused(mutate(v1, (d) => (d.roots[0].dependencies = ['x'.repeat(5000)])));
    expect(message).toBe(`/roots/0/dependencies/0: unknown node "${'x'.repeat(120)}…"`);
  });
});

describe('v2 cross-references', () => {
  test.each([
    // rule 5
    [
      'a duplicate module path',
      (d: Doc) => d.modules.push({ path: ':app' }),
      '/modules/2/path: duplicate module path ":app" (also /modules/0)',
    ],
    [
      'a duplicate node id',
      (d: Doc) => d.nodes.push({ ...d.nodes[2] }),
      `/nodes/3/id: duplicate node id "${C}" (also /nodes/2)`,
    ],
    [
      'a duplicate (module, context) root',
      (d: Doc) => d.roots.push({ ...d.roots[1] }),
      '/roots/2: duplicate root for module ":lib" and context "runtimeClasspath" (also /roots/1)',
    ],
    [
      'a duplicate vertex id within a resolution',
      (d: Doc) => res0(d).vertices.push({ id: 'a', node: B, dependencies: [] }),
      '/roots/0/resolution/vertices/5/id: duplicate vertex id "a" (also vertex 2)',
    ],
    // node id = name@version (enforced for v2)
    [
      'a node id other than name@version',
      (d: Doc) => (d.nodes[1].version = '2.0.1'),
      `/nodes/1/id: must equal name@version ("org.example:b@2.0.1")`,
    ],
    // rule 1: every edge, package and module reference exists
    [
      'a module dependency on an unknown module',
      (d: Doc) => d.modules[0].dependencies.push(':core'),
      '/modules/0/dependencies/1: unknown module ":core"',
    ],
    [
      'a flat node dependency on an unknown node',
      (d: Doc) => d.nodes[1].dependencies.push('org.example:z@1'),
      '/nodes/1/dependencies/0: unknown node "org.example:z@1"',
    ],
    [
      'a root of an unknown module',
      (d: Doc) => (d.roots[1].module = ':core'),
      '/roots/1/module: unknown module ":core"',
    ],
    [
      'a root dependency on an unknown node',
      (d: Doc) => (d.roots[1].dependencies = ['c']),
      '/roots/1/dependencies/0: unknown node "c"',
    ],
    [
      'a vertex of an unknown module',
      (d: Doc) => (res0(d).vertices[1].module = ':core'),
      '/roots/0/resolution/vertices/1/module: unknown module ":core"',
    ],
    [
      'a vertex of an unknown node',
      (d: Doc) => (res0(d).vertices[3].node = 'org.example:b@2.0.1'),
      '/roots/0/resolution/vertices/3/node: unknown node "org.example:b@2.0.1"',
    ],
    [
      'a vertex dependency on an unknown vertex',
      (d: Doc) => (res0(d).vertices[2].dependencies = ['b', 'x']),
      '/roots/0/resolution/vertices/2/dependencies/1: unknown vertex "x"',
    ],
    [
      'a vertex dependency on a vertex of another resolution',
      (d: Doc) => {
        d.roots[1].resolution.vertices.push({ id: 'only-here', node: B, dependencies: [] });
        res0(d).vertices[4].dependencies = ['only-here'];
      },
      '/roots/0/resolution/vertices/4/dependencies/0: unknown vertex "only-here"',
    ],
    [
      'a vertex dependency on a node id instead of a vertex id',
      (d: Doc) => (res0(d).vertices[2].dependencies = [B]),
      `/roots/0/resolution/vertices/2/dependencies/0: unknown vertex "${B}"`,
    ],
    // exactly one of module and node
    [
      'a vertex with both module and node',
      (d: Doc) => (res0(d).vertices[1].node = C),
      '/roots/0/resolution/vertices/1: exactly one of module and node must be set, not both',
    ],
    [
      'a vertex with neither (null)',
      (d: Doc) => (res0(d).vertices[3].node = null),
      '/roots/0/resolution/vertices/3: exactly one of module and node must be set, neither is',
    ],
    [
      'a vertex with neither (omitted)',
      (d: Doc) => delete res0(d).vertices[4].node,
      '/roots/0/resolution/vertices/4: exactly one of module and node must be set, neither is',
    ],
    // rule 2: resolution.root identifies the root's own module
    [
      'a resolution root that is no vertex',
      (d: Doc) => (res0(d).root = ':app'),
      '/roots/0/resolution/root: unknown vertex ":app"',
    ],
    [
      'a resolution root on a package vertex',
      (d: Doc) => (d.roots[1].resolution.root = 'c'),
      `/roots/1/resolution/root: vertex "c" is not a vertex of the root's own module ":lib"`,
    ],
    [
      "a resolution root on another module's vertex",
      (d: Doc) => (res0(d).root = 'lib'),
      `/roots/0/resolution/root: vertex "lib" is not a vertex of the root's own module ":app"`,
    ],
    // rule 3: every vertex reachable from its resolution root
    [
      'an unreachable vertex',
      (d: Doc) => (res0(d).vertices[0].dependencies = ['a']),
      '/roots/0/resolution/vertices/1: vertex "lib" is not reachable from the resolution root "app"',
    ],
    [
      'a vertex reachable only against the edge direction',
      (d: Doc) => d.roots[1].resolution.vertices.push({ id: 'b', node: B, dependencies: ['c'] }),
      '/roots/1/resolution/vertices/2: vertex "b" is not reachable from the resolution root "lib"',
    ],
    // rule 4: every package occurs in at least one resolution
    [
      'a package in no resolution',
      (d: Doc) =>
        d.nodes.push({
          id: 'org.example:d@1',
          name: 'org.example:d',
          version: '1',
          relationship: 'transitive',
          dependencies: [],
        }),
      '/nodes/3: package "org.example:d@1" occurs in no resolution',
    ],
  ])('%s is refused', (_, change, message) => {
    expect(refused(mutate(v2, change))).toEqual(invalid(message));
  });

  test('a package used by only one of several resolutions is enough for rule 4', () => {
    accepted(
      mutate(v2, (d) => {
        d.roots[1].resolution.vertices[1].node = C;
      }),
    );
  });

  test('vertex ids are local: the same ids in different resolutions are fine', () => {
    accepted(
      mutate(v2, (d) => {
        d.roots[1].resolution.vertices.push({ id: 'a', node: A, dependencies: [] });
        d.roots[1].resolution.vertices[1].dependencies = ['a'];
      }),
    );
  });

  test('separate vertices of one package (variants), cycles, self-loops and diamonds are accepted', () => {
    accepted(
      mutate(v2, (d) => {
        const vs = res0(d).vertices;
        vs.push({ id: 'b-test-fixtures', node: B, dependencies: ['b', 'b-test-fixtures', 'app'] });
        vs[2].dependencies = ['b', 'b-test-fixtures'];
        vs[4].dependencies = ['b'];
      }),
    );
  });

  test('a module vertex need not have a root of its own, and module cycles are accepted', () => {
    accepted(
      mutate(v2, (d) => {
        d.modules.push({ path: ':shared', dependencies: [':app'] });
        d.modules[1].dependencies = [':shared'];
        res0(d).vertices.push({ id: 'shared', module: ':shared', dependencies: ['b'] });
        res0(d).vertices[1].dependencies.push('shared');
      }),
    );
  });

  test('the flat views are not checked against the resolutions', () => {
    accepted(
      mutate(v2, (d) => {
        d.nodes[1].relationship = 'direct';
        d.nodes[0].relationship = 'transitive';
        d.roots[0].dependencies = [C, B];
        d.nodes[2].dependencies = [A];
      }),
    );
  });

  test('a resolution root that is one of several vertices of the root module is accepted', () => {
    accepted(
      mutate(v2, (d) => {
        res0(d).vertices.push({ id: 'app-test', module: ':app', dependencies: [] });
        res0(d).vertices[4].dependencies = ['app-test'];
      }),
    );
  });
});
