// uv.lock → v2 part: on a workspace lock the real uv wrote (tools/fixtures/make-python-fixtures.sh: a virtual root,
// packages/app and packages/lib, a dev group, extras) and on hand-made locks for the shapes uv writes more rarely.
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { InputError } from '../../../../src/client/errors';
import { withoutHashLists } from '../../../../src/client/producers/python-common';
import { uvLockProducer } from '../../../../src/client/producers/uv-lock';
import type { ProducedPart } from '../../../../src/client/producers/types';
import { edgesOf, nodeById, rootOf, validatePart, verticesOf } from './npm-helpers';

const LOCK = path.resolve(__dirname, '../../../fixtures/python/uv-workspace/uv.lock');
const text = fs.readFileSync(LOCK, 'utf8');
const produceText = (t: string, file = 'uv.lock'): ProducedPart =>
  uvLockProducer.produce({ path: file, text: t, readFile: () => undefined });
const contexts = (part: ProducedPart, module: string) =>
  part.roots.filter((r) => r.module === module).map((r) => r.context);

describe('uv producer: format', () => {
  it('reads uv.lock only', () => {
    expect(uvLockProducer.format).toBe('uv.lock');
    expect(uvLockProducer.matches('uv.lock')).toBe(true);
    for (const other of ['pyproject.toml', 'poetry.lock', 'uv.lock.bak', 'pylock.toml'])
      expect(uvLockProducer.matches(other)).toBe(false);
  });
});

describe('uv producer: a workspace lock written by uv', () => {
  const part = produceText(text, 'py/uv.lock');
  const lock = parse(text) as any;
  const pkgs = lock.package as any[];
  const firstParty = (p: any) => ['editable', 'virtual'].some((k) => p.source[k] !== undefined);

  it('is a v2 python part the server accepts', () => {
    expect(part).toMatchObject({ ecosystem: 'python', schemaVersion: 2, warnings: [], projectName: 'fx-uv' });
    expect(part.manifests).toEqual([
      'py/uv.lock',
      'py/pyproject.toml',
      'py/packages/app/pyproject.toml',
      'py/packages/lib/pyproject.toml',
    ]);
    validatePart(part);
  });

  it('makes a module of every workspace member, by folder, with member dependencies', () => {
    expect(lock.manifest.members).toEqual(['fx-app', 'fx-lib', 'fx-uv']);
    expect(part.modules).toEqual([
      { path: 'py', manifest: 'py/pyproject.toml', dependencies: ['py/packages/app'] },
      { path: 'py/packages/app', manifest: 'py/packages/app/pyproject.toml', dependencies: ['py/packages/lib'] },
      { path: 'py/packages/lib', manifest: 'py/packages/lib/pyproject.toml', dependencies: [] },
    ]);
  });

  it('has a node per third-party package, with every edge of the lock (extras asked for included)', () => {
    const third = pkgs.filter((p) => !firstParty(p));
    expect(part.nodes.map((n) => n.id)).toEqual(third.map((p) => `${p.name}@${p.version}`).sort());
    const asked = new Map<string, Set<string>>(); // name → extras some entry asks of it
    for (const p of pkgs)
      for (const d of [
        ...(p.dependencies ?? []),
        ...Object.values<any[]>(p['optional-dependencies'] ?? {}).flat(),
        ...Object.values<any[]>(p['dev-dependencies'] ?? {}).flat(),
      ])
        for (const x of d.extra ?? []) asked.set(d.name, new Set([...(asked.get(d.name) ?? []), x]));
    const versionOf = new Map(pkgs.map((p) => [p.name, p.version]));
    for (const p of third) {
      const names = [
        ...(p.dependencies ?? []),
        ...[...(asked.get(p.name) ?? [])].flatMap((x) => p['optional-dependencies'][x]),
      ].map((d: any) => `${d.name}@${versionOf.get(d.name)}`);
      expect(nodeById(part, `${p.name}@${p.version}`).dependencies).toEqual([...new Set(names)].sort());
    }
    expect(nodeById(part, 'requests@2.32.3').dependencies).toContain('pysocks@1.7.1');
  });

  it('gives each module its dependencies, dependency groups and extras as contexts', () => {
    expect(contexts(part, 'py')).toEqual(['dependencies', 'dev', 'extra:cli']);
    expect(contexts(part, 'py/packages/app')).toEqual(['dependencies']);
    expect(contexts(part, 'py/packages/lib')).toEqual(['dependencies', 'extra:fast']);
    expect(rootOf(part, 'py', 'dev').dependencies).toEqual(['iniconfig@2.1.0']);
    expect(edgesOf(rootOf(part, 'py', 'extra:cli'))).toEqual([
      'click@8.2.1 -> colorama@0.4.6',
      'module:py -> click@8.2.1',
    ]);
  });

  it('goes through member modules, and keeps requests[socks] a vertex of its own below app only', () => {
    const root = rootOf(part, 'py', 'dependencies');
    expect(root.dependencies).toEqual(['requests@2.32.3']); // fx-app is a module, not a node
    expect(verticesOf(root).filter((v) => v === 'requests@2.32.3')).toHaveLength(2);
    const vs = root.resolution!.vertices;
    const label = (id: string) => vs[Number(id)].module ?? vs[Number(id)].node;
    const requests = vs.filter((v) => v.node === 'requests@2.32.3').map((v) => v.dependencies.map(label).sort());
    expect(requests).toEqual([
      ['certifi@2025.4.26', 'charset-normalizer@3.4.2', 'idna@3.10', 'urllib3@2.4.0'],
      ['certifi@2025.4.26', 'charset-normalizer@3.4.2', 'idna@3.10', 'pysocks@1.7.1', 'urllib3@2.4.0'],
    ]);
    const edges = edgesOf(root);
    expect(edges).toContain('module:py -> module:py/packages/app');
    expect(edges).toContain('module:py/packages/app -> module:py/packages/lib');
    // app asks for fx-lib[fast]: six below lib in app's and the root's resolutions, not in lib's own dependencies.
    expect(edges).toContain('module:py/packages/lib -> six@1.17.0');
    expect(edgesOf(rootOf(part, 'py/packages/lib', 'dependencies'))).toEqual([
      'module:py/packages/lib -> attrs@25.3.0',
    ]);
  });

  it('parses the lock without its wheel lists to the same tables', () => {
    const stripped = withoutHashLists(text, 'wheels');
    expect(stripped.length).toBeLessThan(text.length / 2);
    const full = parse(text) as any;
    for (const p of full.package) if (p.wheels) p.wheels = [];
    expect(parse(stripped)).toEqual(full);
  });

  it('locates each package at its [[package]] line', () => {
    const lines = text.split('\n');
    for (const n of part.nodes) {
      const { file, line } = part.locations[n.id];
      expect(file).toBe('py/uv.lock');
      expect(lines.slice(line! - 1, line! + 2)).toEqual([
        '[[package]]',
        `name = "${n.name}"`,
        `version = "${n.version}"`,
      ]);
    }
  });
});

describe('uv producer: hand-made locks', () => {
  const pkg = (name: string, body: string) => `[[package]]\nname = "${name}"\n${body}\n\n`;
  const reg = 'source = { registry = "https://pypi.org/simple" }';

  it('tells apart two versions of one name by the dependency’s version, and reads a single project without [manifest]', () => {
    const t =
      'version = 1\nrevision = 2\n\n' +
      pkg(
        'app',
        'source = { editable = "." }\ndependencies = [\n    { name = "numpy", version = "1.26.4", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version < \'3.10\'" },\n    { name = "numpy", version = "2.2.0", source = { registry = "https://pypi.org/simple" }, marker = "python_full_version >= \'3.10\'" },\n]',
      ) +
      pkg('numpy', `version = "1.26.4"\n${reg}`) +
      pkg('numpy', `version = "2.2.0"\n${reg}`);
    const part = produceText(t);
    expect(part.modules).toEqual([{ path: '.', manifest: 'pyproject.toml', dependencies: [] }]);
    expect(part.roots.map((r) => [r.context, r.dependencies])).toEqual([
      ['dependencies', ['numpy@1.26.4', 'numpy@2.2.0']],
    ]);
    const headers = t.split('\n').flatMap((l, i) => (l === '[[package]]' ? [i + 1] : []));
    expect([part.locations['numpy@1.26.4'].line, part.locations['numpy@2.2.0'].line]).toEqual([headers[1], headers[2]]); // each its own
    validatePart(part);
  });

  it('makes modules of directory and workspace sources and of members without a version; warns about the rest', () => {
    const t =
      'version = 1\n\n[manifest]\nmembers = ["root", "tool"]\n\n' +
      pkg(
        'root',
        'source = { virtual = "." }\ndependencies = [{ name = "local-lib" }, { name = "tool" }, { name = "gone" }]',
      ) +
      pkg(
        'local-lib',
        'version = "0.1"\nsource = { directory = "../sibling/lib" }\ndependencies = [{ name = "six" }]',
      ) +
      pkg('tool', 'source = { editable = "tools/tool" }\n[package.dev-dependencies]\nlint = [{ name = "Ruff" }]') +
      pkg('ruff', `version = "0.5.0"\n${reg}`) +
      pkg('six', `version = "1.16.0"\n${reg}`) +
      pkg('orphan', `version = "1.0"\n${reg}`);
    const part = produceText(t, 'ws/uv.lock');
    expect(part.modules.map((m) => m.path)).toEqual(['sibling/lib', 'ws', 'ws/tools/tool']);
    expect(part.roots.map((r) => `${r.module} ${r.context}`)).toEqual([
      'sibling/lib dependencies',
      'ws dependencies',
      'ws/tools/tool lint',
    ]);
    expect(part.nodes.map((n) => n.id)).toEqual(['ruff@0.5.0', 'six@1.16.0']);
    expect(part.warnings).toEqual([
      'dependencies on packages the lock does not list are left out: root → gone',
      '1 locked package is not needed by any workspace member and left out: orphan@1.0',
    ]);
    validatePart(part);
  });

  it('keeps a self-referencing extra (uv writes `all = [{ name = "me", extra = ["a"] }]`) finite', () => {
    const t =
      'version = 1\n\n' +
      pkg(
        'me',
        'source = { editable = "." }\n[package.optional-dependencies]\na = [{ name = "six" }]\nall = [{ name = "me", extra = ["a"] }]',
      ) +
      pkg('six', `version = "1.16.0"\n${reg}`);
    const part = produceText(t);
    expect(edgesOf(rootOf(part, '.', 'extra:all'))).toEqual(['module:. -> module:.', 'module:. -> six@1.16.0']);
    validatePart(part);
  });

  it.each([
    ['not TOML', 'version = = 1', /^uv.lock: not valid TOML/],
    ['no version', '[[package]]\nname = "a"\n', /not a uv.lock \(no version\)/],
    ['an unknown version', 'version = 2\n', /version 2 is not supported/],
    [
      'a package without a name',
      'version = 1\n[[package]]\nversion = "1"\n',
      /package\[0\].name must be a non-empty string/,
    ],
    [
      'a third-party package without a version',
      'version = 1\n[[package]]\nname = "a"\nsource = { registry = "x" }\n',
      /package\[0\].version must be/,
    ],
    [
      'dependencies not an array',
      'version = 1\n[[package]]\nname = "a"\nversion = "1"\ndependencies = "b"\n',
      /package\[0\].dependencies must be an array/,
    ],
    [
      'a dependency without a name',
      'version = 1\n[[package]]\nname = "a"\nversion = "1"\ndependencies = [{ version = "1" }]\n',
      /dependencies\[0\].name must be/,
    ],
    [
      'extra not a list',
      'version = 1\n[[package]]\nname = "a"\nversion = "1"\ndependencies = [{ name = "b", extra = "x" }]\n',
      /extra must be a list of strings/,
    ],
    [
      'source not a table',
      'version = 1\n[[package]]\nname = "a"\nversion = "1"\nsource = "pypi"\n',
      /package\[0\].source must be a table/,
    ],
    ['members not strings', 'version = 1\n[manifest]\nmembers = [1]\n', /manifest.members must be a list of strings/],
    [
      'a duplicate package',
      'version = 1\n' + pkg('a', `version = "1"\n${reg}`) + pkg('A', `version = "1"\n${reg}`),
      /package a@1 is listed twice/,
    ],
    [
      'two projects in one folder',
      'version = 1\n' + pkg('a', 'source = { virtual = "." }') + pkg('b', 'source = { editable = "." }'),
      /packages a and b are both the project in "."/,
    ],
  ])('refuses %s with an InputError', (_what, t, message) => {
    expect(() => produceText(t)).toThrow(InputError);
    expect(() => produceText(t)).toThrow(message);
  });
});
