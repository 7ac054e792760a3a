// requirements.txt → v1 part: on files pip-compile wrote (tools/fixtures/make-python-fixtures.sh) and on the syntax
// pip accepts around pins (includes, continuations, markers, options).
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../../../../src/client/errors';
import { requirementsProducer } from '../../../../src/client/producers/requirements-txt';
import type { ProducedPart } from '../../../../src/client/producers/types';
import { validatePart } from './npm-helpers';

const DIR = path.resolve(__dirname, '../../../fixtures/python/pip-tools');
const read = (f: string) => fs.readFileSync(path.join(DIR, f), 'utf8');

/** The fixture's file `name`, as if the fixture folder sat at `under` in the project. */
function produceFixture(name: string, under = ''): ProducedPart {
  const prefix = under ? `${under}/` : '';
  return requirementsProducer.produce({
    path: `${prefix}${name}`,
    text: read(name),
    readFile: (p) =>
      p.startsWith(prefix) && fs.existsSync(path.join(DIR, p.slice(prefix.length)))
        ? read(p.slice(prefix.length))
        : undefined,
  });
}
const produceText = (text: string, files: Record<string, string> = {}, file = 'requirements.txt') =>
  requirementsProducer.produce({ path: file, text, readFile: (p) => files[p] });
const ids = (part: ProducedPart) => part.nodes.map((n) => n.id);

/** The pins of a pip-compile output, computed here from its lines: `name==version \` at the start of a line. */
const pinsOf = (text: string) =>
  text
    .split('\n')
    .flatMap((l) => {
      const m = /^([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^ \\]+)/.exec(l);
      return m ? [`${m[1].replace(/[-_.]+/g, '-').toLowerCase()}@${m[2]}`] : [];
    })
    .sort();

describe('requirements producer: format', () => {
  it('reads requirements.txt and its -dev/_test/.prod variants', () => {
    expect(requirementsProducer.format).toBe('requirements.txt');
    for (const f of ['requirements.txt', 'requirements-dev.txt', 'requirements_test.txt', 'requirements.prod.txt'])
      expect(requirementsProducer.matches(f)).toBe(true);
    for (const f of [
      'requirements.in',
      'dev.txt',
      'constraints.txt',
      'requirements.txt.bak',
      'my-requirements.txt',
      'requirementstxt',
    ])
      expect(requirementsProducer.matches(f)).toBe(false);
  });
});

describe('requirements producer: pip-compile --generate-hashes output', () => {
  const text = read('requirements.txt');
  const part = produceFixture('requirements.txt', 'svc');

  it('is a v1 python part the server accepts: every pin a direct node of one root', () => {
    expect(part).toMatchObject({
      ecosystem: 'python',
      schemaVersion: 1,
      manifests: ['svc/requirements.txt'],
      warnings: [],
    });
    expect(ids(part)).toEqual(pinsOf(text));
    expect(ids(part)).toEqual([
      'certifi@2026.10.18',
      'charset-normalizer@3.5.2',
      'idna@3.20',
      'pysocks@1.7.1',
      'requests@2.32.3',
      'urllib3@2.8.0',
    ]);
    for (const n of part.nodes) expect(n).toMatchObject({ relationship: 'direct', dependencies: [] });
    expect(part.modules).toEqual([{ path: 'svc', manifest: 'svc/requirements.txt', dependencies: [] }]);
    expect(part.roots).toEqual([
      { module: 'svc', manifest: 'svc/requirements.txt', context: 'requirements.txt', dependencies: ids(part) },
    ]);
    validatePart(part);
  });

  it('locates each package at its pin line', () => {
    const lines = text.split('\n');
    for (const n of part.nodes) {
      const { file, line } = part.locations[n.id];
      expect(file).toBe('svc/requirements.txt');
      expect(pinsOf(lines[line! - 1])).toEqual([n.id]);
    }
  });

  it('follows -r includes relative to the including file, with locations in the included file', () => {
    const dev = produceFixture('requirements-dev.txt', 'svc');
    expect(dev.manifests).toEqual(['svc/requirements-dev.txt', 'svc/requirements.txt', 'svc/dev.txt']);
    expect(ids(dev)).toEqual([...pinsOf(text), ...pinsOf(read('dev.txt'))].sort());
    expect(dev.roots.map((r) => [r.module, r.context])).toEqual([['svc', 'requirements-dev.txt']]);
    expect(dev.locations['iniconfig@2.0.0'].file).toBe('svc/dev.txt');
    expect(dev.locations['idna@3.20'].file).toBe('svc/requirements.txt');
    validatePart(dev);
  });
});

describe('requirements producer: syntax', () => {
  it('reads continuations, markers, extras, === and spaces, skipping comments and global options', () => {
    const part = produceText(
      [
        '# top comment',
        '--index-url https://example.org/simple',
        '--extra-index-url=https://example.org/other',
        'Django == 4.2.1  # pinned',
        'typing_extensions==4.12.2 ; python_version < "3.11" \\',
        '    --hash=sha256:aaaa',
        'numpy==1.24.4; python_version < "3.9"',
        'numpy==2.1.0; python_version >= "3.9"',
        'legacy===1.0-weird',
        'Zope.Interface[test]==6.0',
        'requests==2.32.3 \\',
        '  --hash=sha256:bbbb \\',
        '  --hash=sha256:cccc',
        'requests==2.32.3',
      ].join('\r\n'),
    );
    expect(part.warnings).toEqual([]);
    expect(ids(part)).toEqual([
      'django@4.2.1',
      'legacy@1.0-weird',
      'numpy@1.24.4',
      'numpy@2.1.0',
      'requests@2.32.3',
      'typing-extensions@4.12.2',
      'zope-interface@6.0',
    ]);
    expect(part.locations['requests@2.32.3']).toEqual({ file: 'requirements.txt', line: 11 });
    expect(part.locations['typing-extensions@4.12.2']).toEqual({ file: 'requirements.txt', line: 5 });
    validatePart(part);
  });

  it('skips with a warning what names no installed version: ranges, wildcards, bare names, URLs, editables', () => {
    const part = produceText(
      [
        'a>=1',
        'b==1.*',
        'c',
        'd==1,<2',
        'e @ https://x.org/e.whl',
        'https://x.org/f-1.0.whl',
        './local',
        '-e .',
        '--editable=git+https://x.org/g#egg=g',
        'h==1',
      ].join('\n'),
    );
    expect(ids(part)).toEqual(['h@1']);
    expect(part.warnings).toEqual([
      expect.stringMatching(
        /^requirements without an exact pin .*requirements.txt:1 \(a>=1\).*requirements.txt:7 \(.\/local\)$/,
      ),
      expect.stringMatching(/^editable requirements .*requirements.txt:8, requirements.txt:9$/),
    ]);
    validatePart(part);
  });

  it('reads each include once (cycles end), skips constraints and says which includes are missing', () => {
    const files = {
      'reqs/base.txt': 'a==1\n-r ../requirements.txt\n-rextra.txt\n',
      'reqs/extra.txt': 'b==2\n--requirement=base.txt\n',
      'reqs/c.txt': 'c==3\n',
    };
    const part = produceText('-r reqs/base.txt\n-c reqs/c.txt\n-r missing.txt\n-r https://x.org/r.txt\nz==9\n', files);
    expect(ids(part)).toEqual(['a@1', 'b@2', 'z@9']);
    expect(part.manifests).toEqual(['requirements.txt', 'reqs/base.txt', 'reqs/extra.txt']);
    expect(part.warnings).toEqual([
      'included requirements files that could not be read are left out: requirements.txt:3 (missing.txt), requirements.txt:4 (https://x.org/r.txt)',
    ]);
    validatePart(part);
  });

  it('makes an empty root of a file without pins', () => {
    const part = produceText('# nothing\n\n', {}, 'api/requirements.txt');
    expect(part.nodes).toEqual([]);
    expect(part.roots).toEqual([
      { module: 'api', manifest: 'api/requirements.txt', context: 'requirements.txt', dependencies: [] },
    ]);
  });

  it.each([
    [
      'a line that is no requirement',
      'a==1\n!!! nonsense\n',
      /^requirements.txt: line 2: not a requirement or an option: "!!! nonsense"$/,
    ],
    ['-r without a file', 'a==1\n-r\n', /^requirements.txt: line 2: -r needs a file name$/],
    ['binary content', '\u0000\u0001PK', /line 1: not a requirement/],
  ])('refuses %s with an InputError', (_what, text, message) => {
    expect(() => produceText(text)).toThrow(InputError);
    expect(() => produceText(text)).toThrow(message);
  });
});

describe('requirements producer: by content (files discovery finds by neither name nor include)', () => {
  const { candidate, reads } = requirementsProducer.byContent!;

  it('takes a .txt named on the command line, and in a walk only one in requirements/ or one level below', () => {
    expect(candidate('pins.txt', ['docs', 'home'], true)).toBe(true);
    expect(candidate('base.txt', ['requirements', 'app'], false)).toBe(true);
    expect(candidate('dev.txt', ['envs', 'requirements', 'app'], false)).toBe(true);
    expect(candidate('old.txt', ['2023', 'archive', 'requirements'], false)).toBe(false);
    expect(candidate('pins.txt', ['docs', 'home'], false)).toBe(false);
    expect(candidate('base.in', ['requirements'], true)).toBe(false);
    // A constraints file installs nothing: never a root of its own in a walk (when named, the user asked for it).
    expect(candidate('constraints.txt', ['requirements'], false)).toBe(false);
    expect(candidate('constraints-py312.txt', ['requirements'], false)).toBe(false);
    expect(candidate('constraints.txt', ['requirements'], true)).toBe(true);
  });

  it('reads what pip-compile writes and the syntax pip accepts around pins', () => {
    for (const f of ['requirements.txt', 'requirements-dev.txt', 'dev.txt']) expect(reads(read(f))).toBe(true);
    expect(
      reads(
        [
          '\uFEFF# comment',
          '--index-url https://example.org/simple',
          '--trusted-host example.org',
          '-c constraints.txt',
          'Django == 4.2.1  # pinned',
          'typing_extensions==4.12.2 ; python_version < "3.11" \\',
          '    --hash=sha256:aaaa',
          'numpy>=1.24,<2 ; "win32" != sys_platform',
          'Zope.Interface[test]==6.0',
          'legacy===1.0-weird',
          'old-style (>=1.0)',
          'e @ https://x.org/e.whl',
          'git+https://x.org/g.git#egg=g',
          '-e .',
          'requests',
        ].join('\r\n'),
      ),
    ).toBe(true);
    expect(reads('-r base.txt\n')).toBe(true);
    expect(reads('Django>=4.2,<5.0\n')).toBe(true);
  });

  it.each([
    ['prose', 'Requirements\n============\n\nThese files pin what each environment installs.\n'],
    ['a sentence with a pin in it', 'Use django==5.0.9 here\n'],
    ['a bulleted list', 'Todo\n- django==5.0.9\n- more\n'],
    ['a semicolon that is no marker', 'django==5.0.9\nNote; see below\n'],
    ['an option pip does not know', '--frobnicate\ndjango==5.0.9\n'],
    ['an unknown option after a pin', 'django==5.0.9 --fast\n'],
    ['bare words only', 'Hello\nWorld\n'],
    ['comments only', '# nothing pinned yet\n'],
    ['nothing', ''],
    ['binary content', 'PK\u0003\u0004\u0000\u0000django==1\n'],
  ])('does not take %s for requirements', (_what, text) => {
    expect(reads(text)).toBe(false);
  });
});
