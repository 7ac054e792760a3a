// Structural rules of snapshot v2 (the v2 structural schema): 422 invalid_snapshot naming the offending field.
import { validateSnapshot } from '../../../src/domain/snapshot';
import { bytesOf, invalid, mutate, refused, v2, type Doc } from './fixtures';

const accepted = (d: Doc) => expect(() => validateSnapshot(d, bytesOf(d))).not.toThrow();
const CONTROL = 'must not contain control characters (U+0000 to U+001F, U+007F)';

describe('snapshot v2 structure', () => {
  test('a valid v2 snapshot is accepted, with its counted sizes', () => {
    const body = v2();
    const { snapshot, stats } = validateSnapshot(body, bytesOf(body));
    expect(snapshot).toBe(body);
    // edges: the resolution graphs' vertex dependencies (2 + 1 + 1 in the first, 1 in the second).
    expect(stats).toEqual({ nodes: 3, roots: 2, modules: 2, vertices: 7, edges: 5 });
  });

  test('optional parts may be left out', () => {
    accepted(
      mutate(v2, (d) => {
        delete d.manifests;
        delete d.suppressions;
        delete d.roots[0].manifest;
        d.modules = [{ path: ':app' }, { path: ':lib' }];
        delete d.roots[0].resolution.vertices[0].node;
      }),
    );
  });

  test('nodes[].attributions is accepted in any shape, and unknown fields are ignored', () => {
    accepted(
      mutate(v2, (d) => {
        d.nodes[0].attributions = [{ module: ':app', anything: [1, 2] }];
        d.nodes[1].attributions = 'legacy';
        d.buildTool = { name: 'gradle', version: '8.10' };
        d.roots[0].resolution.vertices[2].variant = 'jvm-runtime';
        d.modules[0].owner = 'x';
      }),
    );
  });

  test.each(['project', 'ecosystem', 'modules', 'roots', 'nodes'])('top-level %s is required', (field) => {
    expect(refused(mutate(v2, (d) => delete d[field]))).toEqual(invalid(`/${field}: is required`));
  });

  test.each([
    ['/roots/1/resolution', 'is required', (d: Doc) => delete d.roots[1].resolution],
    ['/roots/1/resolution/root', 'is required', (d: Doc) => delete d.roots[1].resolution.root],
    ['/roots/1/resolution/vertices', 'is required', (d: Doc) => delete d.roots[1].resolution.vertices],
    ['/roots/0/resolution/vertices/3/id', 'is required', (d: Doc) => delete d.roots[0].resolution.vertices[3].id],
    [
      '/roots/0/resolution/vertices/3/dependencies',
      'is required',
      (d: Doc) => delete d.roots[0].resolution.vertices[3].dependencies,
    ],
    ['/roots/0/dependencies', 'is required', (d: Doc) => delete d.roots[0].dependencies],
    ['/modules/1/path', 'is required', (d: Doc) => delete d.modules[1].path],
    ['/nodes/2/version', 'is required', (d: Doc) => delete d.nodes[2].version],
    ['/modules', 'must be array', (d: Doc) => (d.modules = { ':app': {} })],
    ['/roots/1/resolution', 'must be object', (d: Doc) => (d.roots[1].resolution = [])],
    ['/roots/1/resolution/vertices/0', 'must be object', (d: Doc) => (d.roots[1].resolution.vertices[0] = 'lib')],
    [
      '/roots/0/resolution/vertices/0/module',
      'must be string or null',
      (d: Doc) => (d.roots[0].resolution.vertices[0].module = 1),
    ],
    [
      '/roots/0/resolution/vertices/2/node',
      'must be string or null',
      (d: Doc) => (d.roots[0].resolution.vertices[2].node = []),
    ],
    [
      '/roots/0/resolution/vertices/0/dependencies/1',
      'must be string',
      (d: Doc) => (d.roots[0].resolution.vertices[0].dependencies[1] = 2),
    ],
    ['/modules/0/dependencies', 'must be array', (d: Doc) => (d.modules[0].dependencies = ':lib')],
    ['/nodes/0/relationship', 'must be one of direct, transitive', (d: Doc) => (d.nodes[0].relationship = 'Direct')],
  ])('%s: %s', (at, what, change) => {
    expect(refused(mutate(v2, change))).toEqual(invalid(`${at}: ${what}`));
  });

  describe('text values: 1 to 2000 characters without control characters', () => {
    const fields: Array<[string, (d: Doc, value: unknown) => void]> = [
      ['/manifests/1', (d, v) => (d.manifests[1] = v)],
      ['/modules/0/path', (d, v) => (d.modules[0].path = v)],
      ['/modules/0/dependencies/0', (d, v) => (d.modules[0].dependencies[0] = v)],
      ['/roots/0/module', (d, v) => (d.roots[0].module = v)],
      ['/roots/0/manifest', (d, v) => (d.roots[0].manifest = v)],
      ['/roots/0/context', (d, v) => (d.roots[0].context = v)],
      ['/roots/0/dependencies/0', (d, v) => (d.roots[0].dependencies[0] = v)],
      ['/roots/0/resolution/root', (d, v) => (d.roots[0].resolution.root = v)],
      ['/roots/0/resolution/vertices/1/id', (d, v) => (d.roots[0].resolution.vertices[1].id = v)],
      ['/roots/0/resolution/vertices/1/module', (d, v) => (d.roots[0].resolution.vertices[1].module = v)],
      ['/roots/0/resolution/vertices/2/node', (d, v) => (d.roots[0].resolution.vertices[2].node = v)],
      [
        '/roots/0/resolution/vertices/2/dependencies/0',
        (d, v) => (d.roots[0].resolution.vertices[2].dependencies[0] = v),
      ],
      ['/nodes/1/id', (d, v) => (d.nodes[1].id = v)],
      ['/nodes/1/name', (d, v) => (d.nodes[1].name = v)],
      ['/nodes/1/version', (d, v) => (d.nodes[1].version = v)],
      ['/nodes/0/dependencies/0', (d, v) => (d.nodes[0].dependencies[0] = v)],
      ['/suppressions/0/cve', (d, v) => (d.suppressions[0].cve = v)],
    ];
    test.each(fields)('%s must not be empty', (at, set) => {
      expect(refused(mutate(v2, (d) => set(d, '')))).toEqual(invalid(`${at}: must not be empty`));
    });
    test.each(fields)('%s must be at most 2000 characters', (at, set) => {
      expect(refused(mutate(v2, (d) => set(d, 'x'.repeat(2001))))).toEqual(
        invalid(`${at}: must be at most 2000 characters`),
      );
    });
    test.each(fields)('%s must not contain control characters', (at, set) => {
      expect(refused(mutate(v2, (d) => set(d, 'a\u0001b')))).toEqual(invalid(`${at}: ${CONTROL}`));
      expect(refused(mutate(v2, (d) => set(d, 'a\u007fb')))).toEqual(invalid(`${at}: ${CONTROL}`));
    });
    test.each(fields)('%s must be a string', (at, set) => {
      const [status, , message] = refused(mutate(v2, (d) => set(d, 5)));
      expect(status).toBe(422);
      expect(message).toMatch(new RegExp(`^${at}: must be string`));
    });

    test('2000 characters are accepted, counted as characters (code points)', () => {
      accepted(mutate(v2, (d) => (d.roots[0].context = 'x'.repeat(2000))));
      accepted(mutate(v2, (d) => (d.roots[0].context = '😀'.repeat(2000))));
      expect(refused(mutate(v2, (d) => (d.roots[0].context = '😀'.repeat(2001))))).toEqual(
        invalid('/roots/0/context: must be at most 2000 characters'),
      );
    });
  });

  describe('module teamName and attributes', () => {
    test.each([
      ['null', null],
      ['200 characters', 't'.repeat(200)],
      ['spaces and punctuation', 'Payments & Billing (EU)'],
    ])('teamName %s is accepted', (_, teamName) => accepted(mutate(v2, (d) => (d.modules[0].teamName = teamName))));

    test.each([
      ['must not be empty', ''],
      ['must be at most 200 characters', 't'.repeat(201)],
      [CONTROL, 'team\nname'],
      ['must be string or null', 7],
    ])('teamName: %s', (what, teamName) => {
      expect(refused(mutate(v2, (d) => (d.modules[0].teamName = teamName)))).toEqual(
        invalid(`/modules/0/teamName: ${what}`),
      );
    });

    const attrs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    test('50 attributes, a 100-character key, an empty value and a 2000-character value are accepted', () => {
      accepted(mutate(v2, (d) => (d.modules[0].attributes = attrs(50))));
      accepted(mutate(v2, (d) => (d.modules[0].attributes = { ['k'.repeat(100)]: '', big: 'v'.repeat(2000) })));
    });

    test.each([
      ['/modules/0/attributes', 'must have at most 50 entries', attrs(51)],
      ['/modules/0/attributes', 'must be object', [['k', 'v']]],
      ['/modules/0/attributes/', 'key must not be empty', { '': 'v' }],
      [`/modules/0/attributes/${'k'.repeat(101)}`, 'key must be at most 100 characters', { ['k'.repeat(101)]: 'v' }],
      ['/modules/0/attributes/a\tb', `key ${CONTROL}`, { 'a\tb': 'v' }],
      ['/modules/0/attributes/tier', 'must be at most 2000 characters', { tier: 'v'.repeat(2001) }],
      ['/modules/0/attributes/tier', CONTROL, { tier: 'back\u0000end' }],
      ['/modules/0/attributes/tier', 'must be string', { tier: null }],
      ['/modules/0/attributes/a~1b~0c', 'must be string', { 'a/b~c': 1 }],
    ])('%s: %s', (at, what, attributes) => {
      expect(refused(mutate(v2, (d) => (d.modules[0].attributes = attributes)))).toEqual(invalid(`${at}: ${what}`));
    });
  });

  test('the project rule is the same as in v1', () => {
    expect(refused(mutate(v2, (d) => (d.project = 'x'.repeat(201))))).toEqual(
      invalid('/project: must be at most 200 characters'),
    );
    expect(refused(mutate(v2, (d) => (d.project = 'a\u001fb')))).toEqual(invalid(`/project: ${CONTROL}`));
  });

  test('suppression rules are the same as in v1', () => {
    expect(refused(mutate(v2, (d) => (d.suppressions[0].expires = '2025-02-29')))).toEqual(
      invalid('/suppressions/0/expires: must be a calendar date YYYY-MM-DD'),
    );
    accepted(mutate(v2, (d) => (d.suppressions[0].expires = '2028-02-29')));
  });

  test('a v2 body is not checked against v1 and vice versa: v1 fields alone do not make a v2 snapshot', () => {
    expect(refused(mutate(v2, (d) => delete d.modules))).toEqual(invalid('/modules: is required'));
    const v1Like = mutate(v2, (d) => {
      d.schemaVersion = 1;
      delete d.modules;
      for (const r of d.roots) delete r.resolution;
    });
    expect(() => validateSnapshot(v1Like, bytesOf(v1Like))).not.toThrow();
  });
});
