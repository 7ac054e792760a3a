// Structural rules of snapshot v1 (and the checks every body goes through first): 422 invalid_snapshot with a
// JSON pointer to the offending field.
import { validateSnapshot } from '../../../src/domain/snapshot';
import { bytesOf, invalid, mutate, refused, v1, type Doc } from './fixtures';

const accepted = (d: Doc) => expect(() => validateSnapshot(d, bytesOf(d))).not.toThrow();

describe('snapshot v1 structure', () => {
  test('a valid v1 snapshot is accepted as sent, with its counted sizes', () => {
    const body = v1();
    const { snapshot, stats } = validateSnapshot(body, bytesOf(body));
    expect(snapshot).toBe(body);
    expect(stats).toEqual({ nodes: 2, roots: 1, modules: 0, vertices: 0, edges: 2 });
  });

  test('optional parts may be left out: manifests, suppressions, root manifest', () => {
    accepted(
      mutate(v1, (d) => {
        delete d.manifests;
        delete d.suppressions;
        delete d.roots[0].manifest;
      }),
    );
  });

  test('unknown fields are ignored at every level (additive changes within a version)', () => {
    accepted(
      mutate(v1, (d) => {
        d.producer = { name: 'cli', version: '1.2.3' };
        d.roots[0].extra = 1;
        d.nodes[0].purl = 'pkg:npm/left-pad@1.3.0';
        d.suppressions[0].note = true;
      }),
    );
  });

  test('v1 ids are used as sent: no name@version rule, no text rules', () => {
    accepted(
      mutate(v1, (d) => {
        d.nodes[1].id = 'lodash';
        d.roots[0].dependencies = ['lodash'];
        d.roots[0].context = '';
        d.nodes[0].name = 'x'.repeat(5000);
      }),
    );
  });

  test.each([
    ['null', null],
    ['an array', []],
    ['a string', 'snapshot'],
    ['a number', 1],
  ])('a body that is %s is refused', (_, body) => {
    expect(refused(body)).toEqual(invalid('/: must be a JSON object'));
  });

  test('a missing schemaVersion is named', () => {
    expect(refused(mutate(v1, (d) => delete d.schemaVersion))).toEqual(invalid('/schemaVersion: is required (1 or 2)'));
  });

  test.each([[0], [3], ['1'], [1.5], [null], [true], [[1]]])('schemaVersion %p is unknown', (version) => {
    const [status, code, message] = refused(mutate(v1, (d) => (d.schemaVersion = version)));
    expect([status, code]).toEqual([422, 'invalid_snapshot']);
    expect(message).toMatch(/^\/schemaVersion: unknown schema version .*; must be 1 or 2$/);
  });

  test.each(['project', 'ecosystem', 'roots', 'nodes'])('top-level %s is required', (field) => {
    expect(refused(mutate(v1, (d) => delete d[field]))).toEqual(invalid(`/${field}: is required`));
  });

  test.each(['id', 'name', 'version', 'relationship', 'dependencies'])('each node requires %s', (field) => {
    expect(refused(mutate(v1, (d) => delete d.nodes[1][field]))).toEqual(invalid(`/nodes/1/${field}: is required`));
  });

  test.each(['module', 'context', 'dependencies'])('each root requires %s', (field) => {
    expect(refused(mutate(v1, (d) => delete d.roots[0][field]))).toEqual(invalid(`/roots/0/${field}: is required`));
  });

  test.each([
    ['/nodes/1/version', 'must be string', (d: Doc) => (d.nodes[1].version = 4)],
    ['/nodes/0/id', 'must be string', (d: Doc) => (d.nodes[0].id = null)],
    ['/nodes/1/dependencies', 'must be array', (d: Doc) => (d.nodes[1].dependencies = 'left-pad@1.3.0')],
    ['/nodes/1/dependencies/0', 'must be string', (d: Doc) => (d.nodes[1].dependencies = [7])],
    ['/nodes/0/relationship', 'must be one of direct, transitive', (d: Doc) => (d.nodes[0].relationship = 'indirect')],
    ['/nodes/0', 'must be object', (d: Doc) => (d.nodes[0] = 'left-pad@1.3.0')],
    ['/nodes', 'must be array', (d: Doc) => (d.nodes = {})],
    ['/roots/0/manifest', 'must be string', (d: Doc) => (d.roots[0].manifest = ['package.json'])],
    ['/roots/0/module', 'must be string', (d: Doc) => (d.roots[0].module = 1)],
    ['/roots/0/dependencies/0', 'must be string', (d: Doc) => (d.roots[0].dependencies = [{}])],
    ['/roots', 'must be array', (d: Doc) => (d.roots = 'web-app')],
    ['/manifests', 'must be array', (d: Doc) => (d.manifests = 'package.json')],
    ['/manifests/0', 'must be string', (d: Doc) => (d.manifests = [null])],
    ['/ecosystem', 'must be one of gradle, python, javascript, typescript', (d: Doc) => (d.ecosystem = 'go')],
    ['/ecosystem', 'must be one of gradle, python, javascript, typescript', (d: Doc) => (d.ecosystem = 'JavaScript')],
    ['/project', 'must be string', (d: Doc) => (d.project = 42)],
  ])('%s: %s', (at, what, change) => {
    expect(refused(mutate(v1, change))).toEqual(invalid(`${at}: ${what}`));
  });

  test.each(['gradle', 'python', 'javascript', 'typescript'])('ecosystem %s is accepted', (ecosystem) => {
    accepted(mutate(v1, (d) => (d.ecosystem = ecosystem)));
  });

  describe('project (the v2 rule applies to v1 too)', () => {
    test.each([
      ['one character', 'a'],
      ['200 characters', 'x'.repeat(200)],
      ['non-ASCII letters', 'プロジェクト'],
      ['punctuation and spaces', 'my project/with: punctuation'],
      ['U+0080 (not a C0 control)', '\u0080 x'],
    ])('%s is accepted', (_, project) => accepted(mutate(v1, (d) => (d.project = project))));
    test('empty is refused', () =>
      expect(refused(mutate(v1, (d) => (d.project = '')))).toEqual(invalid('/project: must not be empty')));
    test('201 characters are refused', () => {
      expect(refused(mutate(v1, (d) => (d.project = 'x'.repeat(201))))).toEqual(
        invalid('/project: must be at most 200 characters'),
      );
    });
    test('length counts characters, not UTF-16 units', () =>
      accepted(mutate(v1, (d) => (d.project = '😀'.repeat(200)))));
    test.each(['\u0000', '\u0009', '\n', '\u001f', '\u007f'])('control character %# is refused', (c) => {
      expect(refused(mutate(v1, (d) => (d.project = `web${c}app`)))).toEqual(
        invalid('/project: must not contain control characters (U+0000 to U+001F, U+007F)'),
      );
    });
  });

  describe('suppressions', () => {
    test.each([
      ['without package or expires', { cve: 'CVE-2020-8203', reason: 'r' }],
      ['with a leap day', { cve: 'CVE-2020-8203', reason: 'r', expires: '2024-02-29' }],
      [
        'with a reason of 2000 characters over lines',
        { cve: 'GHSA-p6mc-m468-83gw', reason: `${'x'.repeat(1000)}\n${'y'.repeat(999)}` },
      ],
    ])('%s is accepted', (_, s) => accepted(mutate(v1, (d) => (d.suppressions = [s]))));

    test.each([
      ['/suppressions', 'must be array', (d: Doc) => (d.suppressions = {})],
      ['/suppressions/0/cve', 'is required', (d: Doc) => delete d.suppressions[0].cve],
      ['/suppressions/0/reason', 'is required', (d: Doc) => delete d.suppressions[0].reason],
      ['/suppressions/0/cve', 'must not be empty', (d: Doc) => (d.suppressions[0].cve = '')],
      ['/suppressions/0/reason', 'must not be empty', (d: Doc) => (d.suppressions[0].reason = '')],
      [
        '/suppressions/0/reason',
        'must be at most 2000 characters',
        (d: Doc) => (d.suppressions[0].reason = 'x'.repeat(2001)),
      ],
      ['/suppressions/0/package', 'must not be empty', (d: Doc) => (d.suppressions[0].package = '')],
      [
        '/suppressions/0/package',
        'must not contain control characters (U+0000 to U+001F, U+007F)',
        (d: Doc) => (d.suppressions[0].package = 'lo\tdash'),
      ],
      ['/suppressions/0/expires', 'must be string', (d: Doc) => (d.suppressions[0].expires = 20300131)],
    ])('%s: %s', (at, what, change) => {
      expect(refused(mutate(v1, change))).toEqual(invalid(`${at}: ${what}`));
    });

    test.each([
      '2023-02-29',
      '2024-02-30',
      '2024-04-31',
      '2024-13-01',
      '2024-00-10',
      '2024-1-01',
      '31/01/2030',
      '2030-01-31T00:00:00Z',
      '',
    ])('expires %p is not a calendar date', (expires) => {
      expect(refused(mutate(v1, (d) => (d.suppressions[0].expires = expires)))).toEqual(
        invalid('/suppressions/0/expires: must be a calendar date YYYY-MM-DD'),
      );
    });
  });

  test('the first structural error is the one reported, pointing at the field', () => {
    const body = mutate(v1, (d) => {
      d.nodes.push({ id: 'a@1', name: 'a', version: 1, relationship: 'transitive', dependencies: [] });
    });
    expect(refused(body)).toEqual(invalid('/nodes/2/version: must be string'));
  });
});
