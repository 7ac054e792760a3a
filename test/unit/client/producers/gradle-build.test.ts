// The Gradle build producer without Gradle: the init script's JSON → part conversion on hand-made documents (the
// only way to cover the variant shape, which needs Gradle 6.8+; Debian's 4.4 runs in
// test/integration/gradle-build.test.ts), the command line, and the errors that need no JVM.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../../../src/client/errors';
import {
  gradleBuildProducer,
  gradleCommand,
  makeGradleBuildProducer,
} from '../../../../src/client/producers/gradle-build';
import { partFromGradleGraph } from '../../../../src/client/producers/gradle-build-graph';
import { GRAPH_TASK, INIT_SCRIPT } from '../../../../src/client/producers/gradle-build-script';
import { edgesOf, nodeById, rootOf, validatePart, verticesOf } from './npm-helpers';

type V = {
  project?: string;
  group?: string;
  name?: string;
  version?: string;
  variant?: string;
  dependencies: number[];
};
const mod = (coord: string, dependencies: number[] = [], variant?: string): V => {
  const [group, name, version] = coord.split(':');
  return { group, name, version, dependencies, ...(variant ? { variant } : {}) };
};
const conf = (
  name: string,
  vertices: V[],
  unresolved: Array<{ requested: string; failure?: string | null }> = [],
  skipped: string[] = [],
) => ({
  name,
  vertices: vertices.map((v, id) => ({ id, ...v })),
  unresolved,
  skipped,
});
const doc = (p: string, configurations: unknown[] = [], extra: Record<string, unknown> = {}) => ({
  format: 'scanner-gradle-graph',
  version: 1,
  gradleVersion: '8.10',
  variants: true,
  rootProjectName: 'shop',
  rootDir: '/w/shop',
  path: p,
  buildFile: p === ':' ? '/w/shop/build.gradle.kts' : `/w/shop/${p.slice(1).split(':').join('/')}/build.gradle.kts`,
  buildFileExists: true,
  configurations,
  failed: [],
  ...extra,
});

// :app depends on :lib and on kit, which Gradle 6.8+ selected as two variants (its runtime and its test fixtures)
// with different dependencies: two vertices of one node, each with its own edges.
const VARIANT_DOCS = [
  doc(':app', [
    conf('runtimeClasspath', [
      { project: ':app', dependencies: [1, 2, 3] },
      { project: ':lib', variant: 'runtimeElements', dependencies: [4] },
      mod('com.example:kit:1.0', [5], 'runtime'),
      mod('com.example:kit:1.0', [6], 'testFixturesRuntimeElements'),
      mod('com.example:guava:33.0-jre', [], 'jreRuntimeElements'),
      mod('com.example:a:1.0', [], 'runtime'),
      mod('com.example:b:1.0', [4], 'runtime'),
    ]),
    conf('compileOnly', [{ project: ':app', dependencies: [] }]),
  ]),
  doc(':lib', [
    conf(
      'compileClasspath',
      [{ project: ':lib', dependencies: [1] }, mod('com.example:guava:33.0-jre', [], 'jreApiElements')],
      [{ requested: 'com.example:gone:1.0', failure: 'Could not find com.example:gone:1.0.\nSearched in ...' }],
    ),
  ]),
  doc(':', [], { buildFileExists: false }),
];

test('variants (Gradle 6.8+ shape): one component selected as two variants is two vertices of one node, each with its own edges', () => {
  const part = partFromGradleGraph('settings.gradle.kts', VARIANT_DOCS);
  const app = rootOf(part, ':app', 'runtimeClasspath');
  expect(verticesOf(app)).toEqual([
    'com.example:a@1.0',
    'com.example:b@1.0',
    'com.example:guava@33.0-jre',
    'com.example:kit@1.0',
    'com.example:kit@1.0',
    'module::app',
    'module::lib',
  ]);
  expect(app.resolution!.vertices.filter((v) => v.node === 'com.example:kit@1.0').map((v) => v.dependencies)).toEqual([
    ['5'],
    ['6'],
  ]);
  expect(edgesOf(app)).toEqual([
    'com.example:b@1.0 -> com.example:guava@33.0-jre',
    'com.example:kit@1.0 -> com.example:a@1.0',
    'com.example:kit@1.0 -> com.example:b@1.0',
    'module::app -> com.example:kit@1.0',
    'module::app -> com.example:kit@1.0',
    'module::app -> module::lib',
    'module::lib -> com.example:guava@33.0-jre',
  ]);
  expect(app).toMatchObject({
    manifest: 'app/build.gradle.kts',
    dependencies: ['com.example:kit@1.0'],
    resolution: { root: '0' },
  });
  // The node's flat dependencies are the union of its vertices' (a compatibility view).
  expect(nodeById(part, 'com.example:kit@1.0')).toEqual({
    id: 'com.example:kit@1.0',
    name: 'com.example:kit',
    version: '1.0',
    relationship: 'direct',
    dependencies: ['com.example:a@1.0', 'com.example:b@1.0'],
  });
  expect(nodeById(part, 'com.example:guava@33.0-jre').relationship).toBe('direct'); // :lib's direct dependency
  expect(nodeById(part, 'com.example:a@1.0').relationship).toBe('transitive');
  expect(part.modules).toEqual([
    { path: ':', manifest: 'build.gradle.kts', dependencies: [] },
    { path: ':app', manifest: 'app/build.gradle.kts', dependencies: [':lib'] },
    { path: ':lib', manifest: 'lib/build.gradle.kts', dependencies: [] },
  ]);
  // compileOnly selected nothing: no root. The root project has no build file: a module, not a manifest.
  expect(part.roots.map((r) => `${r.module} ${r.context}`)).toEqual([':app runtimeClasspath', ':lib compileClasspath']);
  expect(part.manifests).toEqual(['settings.gradle.kts', 'app/build.gradle.kts', 'lib/build.gradle.kts']);
  expect(part.locations).toEqual({
    'com.example:guava@33.0-jre': { file: 'lib/build.gradle.kts' },
    'com.example:kit@1.0': { file: 'app/build.gradle.kts' },
  });
  expect(part.warnings).toEqual([
    'could not resolve com.example:gone:1.0 (Could not find com.example:gone:1.0.) in project :lib compileClasspath',
  ]);
  expect(part.projectName).toBe('shop');
  expect(() => validatePart(part)).not.toThrow();
});

test("a build in a subfolder: its folder's Gradle path in front of every project path, manifests under the folder", () => {
  const part = partFromGradleGraph('backend/settings.gradle', VARIANT_DOCS);
  expect(part.modules.map((m) => [m.path, m.manifest, m.dependencies])).toEqual([
    [':backend', 'backend/build.gradle.kts', []],
    [':backend:app', 'backend/app/build.gradle.kts', [':backend:lib']],
    [':backend:lib', 'backend/lib/build.gradle.kts', []],
  ]);
  expect(verticesOf(rootOf(part, ':backend:app', 'runtimeClasspath'))).toContain('module::backend:lib');
  expect(part.warnings[0]).toMatch(/ in project :backend:lib compileClasspath$/);
  expect(() => validatePart(part)).not.toThrow();
});

test('one unresolved dependency is one warning naming every configuration; failed configurations and skipped components are reported', () => {
  const missing = { requested: 'x:y:1', failure: 'Could not find x:y:1.' };
  const part = partFromGradleGraph('settings.gradle', [
    doc(
      ':',
      [
        conf('compileClasspath', [{ project: ':', dependencies: [1] }, mod('a:b:')], [missing], ['some binary']),
        conf('runtimeClasspath', [{ project: ':', dependencies: [] }], [missing]),
      ],
      {
        failed: [{ name: 'weird', error: 'Cannot resolve\nmore' }],
      },
    ),
  ]);
  expect(part.warnings).toEqual([
    'project : compileClasspath: components without module coordinates are left out: some binary',
    'project : weird: not resolved (Cannot resolve)',
    'could not resolve x:y:1 (Could not find x:y:1.) in project : compileClasspath, project : runtimeClasspath',
  ]);
  // A module without a version (a flatDir jar) gets Gradle's word for none.
  expect(part.nodes.map((n) => n.id)).toEqual(['a:b@unspecified']);
  expect(() => validatePart(part)).not.toThrow();
});

test('garbage from the build is an InputError naming the settings file', () => {
  const bad = (docs: unknown[], message: RegExp) => {
    expect(() => partFromGradleGraph('settings.gradle', docs)).toThrow(InputError);
    expect(() => partFromGradleGraph('settings.gradle', docs)).toThrow(message);
  };
  const app = (vertices: V[]) => [doc(':app', [conf('c', vertices)])];
  bad([], /^settings\.gradle: Gradle ran but wrote no dependency graph/);
  bad([{ hello: 1 }], /^settings\.gradle: Gradle graph document 1: not a scanner-gradle-graph version 1 document/);
  bad([doc('app')], /path "app" is not a Gradle project path/);
  bad([doc(':', 'x' as unknown as unknown[])], /configurations must be an array/);
  bad(app([{ project: ':app', dependencies: [7] }]), /vertices\[0\]\.dependencies must be vertex ids/);
  bad(app([{ project: ':other', dependencies: [] }]), /vertices\[0\] must be the project :app itself/);
  bad(
    app([{ project: ':app', dependencies: [1] }, mod('a:b:1'), mod('c:d:1')]),
    /vertex 2 is not reachable from the project/,
  );
  bad(
    app([
      { project: ':app', dependencies: [1] },
      { project: ':ghost', dependencies: [] },
    ]),
    /vertex 1 is project :ghost, which the build did not report/,
  );
  bad(
    app([{ project: ':app', dependencies: [1] }, { group: 'a', dependencies: [] } as V]),
    /vertices\[1\]\.name must be a string/,
  );
  bad([doc(':'), doc(':')], /project : reported twice/);
});

test('the command line: the executable wrapper when there is one, --offline only when asked', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gradle-cmd-'));
  try {
    const plain = gradleCommand(dir, {}, '/out', '/init.gradle');
    expect(plain).toEqual({
      command: 'gradle',
      args: [
        '--no-daemon',
        '-q',
        '-I',
        '/init.gradle',
        '-Dscanner.graph.out=/out',
        '-Dorg.gradle.configuration-cache=false',
        '-Dorg.gradle.unsafe.configuration-cache=false',
        GRAPH_TASK,
      ],
      warnings: [],
    });
    expect(gradleCommand(dir, { SCANNER_GRADLE_OFFLINE: '1' }, '/out', '/i').args).toContain('--offline');
    fs.writeFileSync(path.join(dir, 'gradlew'), '#!/bin/sh\n', { mode: 0o644 });
    expect(gradleCommand(dir, {}, '/out', '/i')).toMatchObject({
      command: 'gradle',
      warnings: [expect.stringMatching(/^gradlew is not executable/)],
    });
    fs.chmodSync(path.join(dir, 'gradlew'), 0o755);
    expect(gradleCommand(dir, {}, '/out', '/i')).toMatchObject({ command: path.join(dir, 'gradlew'), warnings: [] });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('no Gradle, no folder, a bad timeout: InputErrors that say what to do', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gradle-none-'));
  try {
    const input = { path: 'settings.gradle', text: '', readFile: () => undefined, absoluteDir: dir };
    const noGradle = makeGradleBuildProducer({ env: () => ({ PATH: path.join(dir, 'nothing-here') }) });
    expect(() => noGradle.produce(input)).toThrow(
      /^settings\.gradle: neither \.\/gradlew nor gradle on PATH: .*apt-get install -y gradle.*gradle\.lockfile/,
    );
    expect(() => gradleBuildProducer.produce({ ...input, absoluteDir: undefined })).toThrow(/no folder was given/);
    const badTimeout = makeGradleBuildProducer({ env: () => ({ SCANNER_GRADLE_TIMEOUT: 'soon' }) });
    expect(() => badTimeout.produce(input)).toThrow(/SCANNER_GRADLE_TIMEOUT must be a number of seconds/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  expect(gradleBuildProducer.matches('settings.gradle')).toBe(true);
  expect(gradleBuildProducer.matches('settings.gradle.kts')).toBe(true);
  expect(gradleBuildProducer.matches('build.gradle')).toBe(false);
  expect(gradleBuildProducer.format).toBe('Gradle build');
});

test('the init script guards what Gradle 4.4 lacks and uses no plugin', () => {
  expect(INIT_SCRIPT).toContain("GradleVersion.version('6.8')");
  expect(INIT_SCRIPT).toContain("respondsTo('isCanBeResolved')");
  expect(INIT_SCRIPT).toContain("respondsTo('isConstraint')");
  expect(INIT_SCRIPT).not.toMatch(/apply\s*plugin|plugins\s*\{|buildscript/);
  expect(INIT_SCRIPT).not.toContain('${'); // every TS placeholder was filled in
});
