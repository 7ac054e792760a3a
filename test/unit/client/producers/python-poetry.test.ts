// poetry.lock → v2 part: on the real lockfile of the Poetry project (lock-version 2.1, no pyproject.toml beside it)
// and on the locks the real Poetry 1.x and 2.x wrote (tools/fixtures/make-python-fixtures.sh).
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { InputError } from '../../../../src/client/errors';
import { poetryLockProducer } from '../../../../src/client/producers/poetry-lock';
import { withoutHashLists } from '../../../../src/client/producers/python-common';
import type { LockfileInput, ProducedPart } from '../../../../src/client/producers/types';
import { describeWithSharedData, sharedDataPath } from '../../../helpers/shared-data';
import { edgesOf, nodeById, rootOf, validatePart } from './npm-helpers';

const FIXTURES = path.resolve(__dirname, '../../../fixtures/python');
const REAL = sharedDataPath('lockfiles', 'pypi', 'python-poetry__poetry__poetry.lock');

/** A fixture's poetry.lock as the client hands it over, optionally as if it sat in the subfolder `under`. */
function fixtureInput(name: string, under = ''): LockfileInput {
  const dir = path.join(FIXTURES, name);
  const prefix = under ? `${under}/` : '';
  return {
    path: `${prefix}poetry.lock`,
    text: fs.readFileSync(path.join(dir, 'poetry.lock'), 'utf8'),
    readFile: (p) =>
      p.startsWith(prefix) && fs.existsSync(path.join(dir, p.slice(prefix.length)))
        ? fs.readFileSync(path.join(dir, p.slice(prefix.length)), 'utf8')
        : undefined,
  };
}
const produceText = (text: string, files: Record<string, string> = {}): ProducedPart =>
  poetryLockProducer.produce({ path: 'poetry.lock', text, readFile: (p) => files[p] });
const norm = (n: string) => n.replace(/[-_.]+/g, '-').toLowerCase();

/** The lock's graph, computed here from the parsed file: id → the ids of its dependencies (with extras' packages). */
function lockGraph(text: string) {
  const pkgs = (parse(text) as any).package as any[];
  const idOf = new Map(pkgs.map((p) => [norm(p.name), `${norm(p.name)}@${p.version}`]));
  const deps = new Map<string, Set<string>>(pkgs.map((p) => [idOf.get(norm(p.name))!, new Set()]));
  for (const p of pkgs) {
    for (const [n, v] of Object.entries<any>(p.dependencies ?? {})) {
      const target = idOf.get(norm(n));
      if (!target) continue;
      deps.get(idOf.get(norm(p.name))!)!.add(target);
      // An extra asked of a dependency adds that extra's packages to the dependency's own edges.
      const extras: string[] = (Array.isArray(v) ? v : [v]).flatMap((x: any) => x?.extras ?? []);
      const targetPkg = pkgs.find((q) => norm(q.name) === norm(n));
      for (const x of extras)
        for (const req of targetPkg.extras?.[x] ?? []) {
          const t = idOf.get(norm(/^[A-Za-z0-9._-]+/.exec(req)![0]));
          if (t) deps.get(target)!.add(t);
        }
    }
  }
  return { pkgs, idOf, deps };
}

describe('poetry producer: format', () => {
  it('reads poetry.lock only', () => {
    expect(poetryLockProducer.format).toBe('poetry.lock');
    expect(poetryLockProducer.matches('poetry.lock')).toBe(true);
    for (const other of ['pyproject.toml', 'uv.lock', 'poetry.lock.bak', 'Poetry.lock'])
      expect(poetryLockProducer.matches(other)).toBe(false);
  });
});

describeWithSharedData('poetry producer: the Poetry project’s own lock (2.1, no pyproject.toml)', () => {
  const realText = fs.readFileSync(REAL, 'utf8');
  const part = produceText(realText);
  const { pkgs, idOf, deps } = lockGraph(realText);

  it('is a v2 python part the server accepts, with one node per locked package', () => {
    expect(part).toMatchObject({ ecosystem: 'python', schemaVersion: 2, manifests: ['poetry.lock', 'pyproject.toml'] });
    expect(part.modules).toEqual([{ path: '.', manifest: 'pyproject.toml', dependencies: [] }]);
    expect(pkgs).toHaveLength(78);
    expect(part.nodes.map((n) => n.id)).toEqual([...idOf.values()].sort());
    validatePart(part);
  });

  it('says that the groups’ direct dependencies are inferred', () => {
    expect(part.warnings).toEqual([expect.stringContaining('pyproject.toml not found')]);
  });

  it('keeps every edge of the lock, by PEP 503 name, extras included', () => {
    for (const n of part.nodes) expect(n.dependencies).toEqual([...deps.get(n.id)!].sort());
    expect(nodeById(part, 'keyring@25.7.0').dependencies).toContain('secretstorage@3.5.0'); // written SecretStorage
    expect(nodeById(part, 'anyio@4.13.0').dependencies).toContain('typing-extensions@4.15.0'); // typing_extensions
    // pytest-cov asks for coverage[toml]: tomli hangs from a coverage vertex of its own, below pytest-cov only.
    expect(nodeById(part, 'coverage@7.13.5').dependencies).toEqual(['tomli@2.4.1']);
    const test = rootOf(part, '.', 'test');
    const coverage = test.resolution!.vertices.filter((v) => v.node === 'coverage@7.13.5');
    expect(coverage).toHaveLength(1);
    expect(edgesOf(test)).toContain('coverage@7.13.5 -> tomli@2.4.1');
    for (const n of part.nodes) expect(n.name).toBe(norm(n.name));
  });

  it('makes a context per group of the lock, each rooted in the group’s packages nothing else in it needs', () => {
    const groups = [...new Set(pkgs.flatMap((p) => p.groups as string[]))];
    expect(part.roots.map((r) => r.context)).toEqual(['main', ...groups.filter((g) => g !== 'main').sort()]);
    for (const r of part.roots) {
      const members = new Set(pkgs.filter((p) => p.groups.includes(r.context)).map((p) => idOf.get(norm(p.name))!));
      const needed = new Set([...members].flatMap((m) => [...deps.get(m)!].filter((t) => t !== m && members.has(t))));
      expect(r.dependencies).toEqual([...members].filter((m) => !needed.has(m)).sort());
      // Every package of the group is in the group's resolution.
      const inResolution = new Set(r.resolution!.vertices.map((v) => v.node));
      for (const m of members) expect(inResolution).toContain(m);
      expect(r.manifest).toBe('pyproject.toml');
    }
    expect(rootOf(part, '.', 'main').dependencies).toContain('poetry-core@2.4.1');
    expect(rootOf(part, '.', 'main').dependencies).not.toContain('requests@2.33.1'); // needed by cachecontrol
  });

  it('locates each package at its [[package]] line', () => {
    const lines = realText.split('\n');
    for (const n of part.nodes) {
      const { file, line } = part.locations[n.id];
      expect(file).toBe('poetry.lock');
      expect(lines[line! - 1]).toBe('[[package]]');
      expect(norm(/^name = "(.*)"$/.exec(lines[line!])![1])).toBe(n.name);
    }
  });

  it('parses the lock without its hash lists (the speed-up) to the same tables, line count kept', () => {
    const stripped = withoutHashLists(realText, 'files');
    expect(stripped.length).toBeLessThan(realText.length / 4);
    expect(stripped.split('\n')).toHaveLength(realText.split('\n').length);
    const full = parse(realText) as any;
    for (const p of full.package) p.files = [];
    expect(parse(stripped)).toEqual(full);
    // A list of another shape is left to the parser as it is.
    const odd = 'files = [\n  "a.whl",\n]\n';
    expect(withoutHashLists(`x = 1\n${odd}`, 'files')).toBe(`x = 1\n${odd}`);
  });

  it('names module and manifest after the lock’s folder', () => {
    const sub = poetryLockProducer.produce({ path: 'svc/api/poetry.lock', text: realText, readFile: () => undefined });
    expect(sub.modules).toEqual([{ path: 'svc/api', manifest: 'svc/api/pyproject.toml', dependencies: [] }]);
    expect(sub.locations['anyio@4.13.0']).toEqual({ file: 'svc/api/poetry.lock', line: 3 });
    validatePart(sub);
  });
});

describe('poetry producer: Poetry 1.x lock with pyproject.toml', () => {
  const part = poetryLockProducer.produce(fixtureInput('poetry-v1', 'py'));
  const text = fs.readFileSync(path.join(FIXTURES, 'poetry-v1/poetry.lock'), 'utf8');

  it('is lock-version 2.0 without groups, accepted by the server', () => {
    expect((parse(text) as any).metadata['lock-version']).toBe('2.0');
    expect(text).not.toMatch(/^groups = /m);
    expect(part).toMatchObject({
      schemaVersion: 2,
      warnings: [],
      projectName: 'fx-poetry1',
      manifests: ['py/poetry.lock', 'py/pyproject.toml'],
    });
    validatePart(part);
  });

  it('takes contexts and direct dependencies from pyproject.toml: main, legacy dev, groups, extras', () => {
    expect(part.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['main', ['requests@2.32.3']], // pysocks is optional: only through the extra
      ['dev', ['six@1.17.0']],
      ['test', ['iniconfig@2.0.0']],
      ['extra:socks', ['pysocks@1.7.1']],
    ]);
    expect(edgesOf(rootOf(part, 'py', 'main')).filter((e) => e.startsWith('module:'))).toEqual([
      'module:py -> requests@2.32.3',
    ]);
    expect(nodeById(part, 'requests@2.32.3').relationship).toBe('direct');
    expect(nodeById(part, 'idna@3.20').relationship).toBe('transitive');
  });
});

describe('poetry producer: Poetry 2.x lock with a PEP 621 pyproject.toml', () => {
  const part = poetryLockProducer.produce(fixtureInput('poetry-v2'));

  it('reads [project] dependencies and optional-dependencies and Poetry groups', () => {
    expect(part.warnings).toEqual([]);
    expect(part.projectName).toBe('fx-poetry2');
    expect(part.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['main', ['requests@2.32.3']],
      ['test', ['iniconfig@2.0.0']],
      ['extra:socks', ['pysocks@1.7.1']], // written PySocks
    ]);
    validatePart(part);
  });
});

describe('poetry producer: edge cases', () => {
  const pkg = (name: string, version: string, extra = '') =>
    `[[package]]\nname = "${name}"\nversion = "${version}"\n${extra}\n`;
  const meta = '[metadata]\nlock-version = "2.1"\n';

  it('leaves out, with a warning, a package no declared group reaches', () => {
    const text = pkg('a', '1', 'groups = ["main"]') + pkg('b', '2', 'groups = ["main"]') + meta;
    const part = produceText(text, { 'pyproject.toml': '[project]\nname = "x"\ndependencies = ["A>=1"]\n' });
    expect(part.nodes.map((n) => n.id)).toEqual(['a@1']);
    expect(part.warnings).toEqual([
      expect.stringContaining('1 locked package is not needed by any dependency group and left out: b@2'),
    ]);
    validatePart(part);
  });

  it('reaches a cycle with no way in through its first member, and skips dependencies the lock does not list', () => {
    const text =
      pkg(
        'a',
        '1',
        'groups = ["dev"]\n[package.dependencies]\nb = "*"\nwin-only = {version = "*", markers = "sys_platform == \'win32\'"}',
      ) +
      pkg('b', '1', 'groups = ["dev"]\n[package.dependencies]\na = "*"') +
      meta;
    const part = produceText(text);
    expect(part.roots.map((r) => [r.context, r.dependencies])).toEqual([['dev', ['a@1']]]);
    expect(edgesOf(part.roots[0])).toEqual(['a@1 -> b@1', 'b@1 -> a@1', 'module:. -> a@1']);
    validatePart(part);
  });

  it('reads lock-version 1.1 (category per package, hashes under [metadata.files]) without pyproject.toml', () => {
    const text =
      pkg(
        'click',
        '8.1.3',
        'category = "main"\noptional = false\n\n[package.dependencies]\ncolorama = {version = "*", markers = "platform_system == \\"Windows\\""}',
      ) +
      pkg('colorama', '0.4.6', 'category = "main"') +
      pkg('pytest', '7.2.0', 'category = "dev"\n\n[package.dependencies]\niniconfig = "*"') +
      pkg('iniconfig', '2.0.0', 'category = "dev"') +
      '[metadata]\nlock-version = "1.1"\npython-versions = "^3.8"\ncontent-hash = "x"\n\n[metadata.files]\nclick = [\n    {file = "click-8.1.3.tar.gz", hash = "sha256:aa"},\n]\n';
    const part = produceText(text);
    expect(part.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['main', ['click@8.1.3']],
      ['dev', ['pytest@7.2.0']],
    ]);
    expect(part.locations['pytest@7.2.0'].line).toBe(text.split('\n').indexOf('name = "pytest"'));
    validatePart(part);
  });

  it('links to every locked version of a name', () => {
    const text =
      pkg(
        'a',
        '1',
        '[package.dependencies]\nnumpy = [{version = "<2", markers = "python_version < \'3.9\'"}, {version = ">=2", markers = "python_version >= \'3.9\'"}]',
      ) +
      pkg('numpy', '1.24.4') +
      pkg('numpy', '2.1.0') +
      meta;
    const part = produceText(text, { 'pyproject.toml': '[tool.poetry.dependencies]\npython = "^3.8"\na = "1"\n' });
    expect(nodeById(part, 'a@1').dependencies).toEqual(['numpy@1.24.4', 'numpy@2.1.0']);
    validatePart(part);
  });

  it.each([
    ['not TOML', 'this is [not toml', /poetry.lock: not valid TOML/],
    ['no metadata', pkg('a', '1'), /no \[metadata\] table/],
    ['an unknown lock-version', '[metadata]\nlock-version = "3.0"\n', /lock-version "3.0" is not supported/],
    ['package not an array', 'package = 1\n' + meta, /"package" must be an array/],
    [
      'a package without a version',
      '[[package]]\nname = "a"\n' + meta,
      /package\[0\].version must be a non-empty string/,
    ],
    ['a numeric name', '[[package]]\nname = 1\nversion = "1"\n' + meta, /package\[0\].name must be/],
    [
      'dependencies not a table',
      pkg('a', '1', 'dependencies = "b"') + meta,
      /package\[0\].dependencies must be a table/,
    ],
    [
      'a bad dependency value',
      pkg('a', '1', '[package.dependencies]\nb = 3') + meta,
      /package\[0\].dependencies.b must be/,
    ],
    [
      'extras not lists',
      pkg('a', '1', '[package.extras]\nx = "b"') + meta,
      /package\[0\].extras.x must be a list of strings/,
    ],
    ['groups not strings', pkg('a', '1', 'groups = [1]') + meta, /groups must be a list of strings/],
    ['a duplicate package', pkg('a', '1') + pkg('A', '1') + meta, /a@1 is listed twice/],
  ])('refuses %s with an InputError', (_what, text, message) => {
    expect(() => produceText(text)).toThrow(InputError);
    expect(() => produceText(text)).toThrow(message);
  });

  it('refuses a malformed pyproject.toml with an InputError naming it', () => {
    const text = pkg('a', '1') + meta;
    expect(() => produceText(text, { 'pyproject.toml': '[project\n' })).toThrow(/^pyproject.toml: not valid TOML/);
    expect(() => produceText(text, { 'pyproject.toml': '[project]\ndependencies = "a"\n' })).toThrow(
      /project.dependencies must be a list of strings/,
    );
    expect(() => produceText(text, { 'pyproject.toml': '[tool.poetry]\ngroup = 1\n' })).toThrow(InputError);
  });
});
