// The Gradle build producer run for real, offline: Debian's gradle package (4.4.1 on OpenJDK 17; .ci/run installs
// it) on a multi-project build the test writes, whose dependencies come from a file-based Maven repository of POM
// files (a resolution result needs metadata only, never jars). What Gradle 4.4 cannot show is covered with
// hand-made documents in test/unit/client/producers/gradle-build.test.ts: variants (Gradle 6.8+), constraints.
//
// The build:  :app → :lib, com.example:alpha:1.0 → gamma:1.0; :lib → beta:2.0 → gamma:2.0 (implementation, so
// only on :app's runtime classpath, where the conflict selects gamma 2.0 while its compile classpath keeps 1.0);
// :app testImplementation com.example:missing:9.9, which the repository does not have.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InputError } from '../../src/client/errors';
import { makeGradleBuildProducer } from '../../src/client/producers/gradle-build';
import type { LockfileInput, ProducedPart } from '../../src/client/producers/types';
import { edgesOf, nodeById, rootOf, validatePart, verticesOf } from '../unit/client/producers/npm-helpers';

const JDK17 = '/usr/lib/jvm/java-17-openjdk-amd64';
// Gradle 4.4 does not run on newer JDKs (a Temurin 25 is installed here too): point it at Debian's 17 when present.
const env = (home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  ...(fs.existsSync(JDK17) ? { JAVA_HOME: JDK17 } : {}),
  GRADLE_USER_HOME: home,
  ...extra,
});

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => {
    try {
      fs.accessSync(path.join(d, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

let tmp: string;
const write = (rel: string, text: string, mode?: number) => {
  const f = path.join(tmp, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text, mode === undefined ? undefined : { mode });
};

/** A POM in the file repository; deps are group:artifact:version coordinates (compile scope). */
function pom(coord: string, ...deps: string[]) {
  const [g, a, v] = coord.split(':');
  const dep = (d: string) => {
    const [dg, da, dv] = d.split(':');
    return `<dependency><groupId>${dg}</groupId><artifactId>${da}</artifactId><version>${dv}</version></dependency>`;
  };
  write(
    `repo/${g.split('.').join('/')}/${a}/${v}/${a}-${v}.pom`,
    `<project><modelVersion>4.0.0</modelVersion><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version><dependencies>${deps.map(dep).join('')}</dependencies></project>\n`,
  );
}

const input = (dir: string): LockfileInput => ({
  path: 'settings.gradle',
  text: fs.readFileSync(path.join(dir, 'settings.gradle'), 'utf8'),
  readFile: () => undefined,
  absoluteDir: dir,
});

beforeAll(() => {
  if (!onPath('gradle'))
    throw new Error(
      'gradle is not on PATH: install it (apt-get install -y gradle; Gradle 4.4.1 on OpenJDK 17) to run the Gradle build producer test',
    );
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gradle-build-'));
  pom('com.example:alpha:1.0', 'com.example:gamma:1.0');
  pom('com.example:beta:2.0', 'com.example:gamma:2.0');
  pom('com.example:gamma:1.0');
  pom('com.example:gamma:2.0');
  write('shop/settings.gradle', "rootProject.name = 'shop'\ninclude 'app', 'lib'\n");
  write(
    'shop/build.gradle',
    `subprojects {\n  apply plugin: 'java'\n  repositories { maven { url uri('${path.join(tmp, 'repo')}') } }\n}\n`,
  );
  write(
    'shop/app/build.gradle',
    "dependencies {\n  implementation project(':lib')\n  implementation 'com.example:alpha:1.0'\n  testImplementation 'com.example:missing:9.9'\n}\n",
  );
  write('shop/lib/build.gradle', "dependencies {\n  implementation 'com.example:beta:2.0'\n}\n");
  // A wrapper that records how it was called and hands over to Debian's Gradle: proves ./gradlew wins over PATH.
  write(
    'shop/gradlew',
    '#!/bin/sh\nprintf \'%s\\n\' "$@" > "$(dirname "$0")/gradlew-args.txt"\nexec gradle "$@"\n',
    0o755,
  );
  // No wrapper here: gradle from PATH; a build script that does not compile.
  write('broken/settings.gradle', "rootProject.name = 'broken'\n");
  write('broken/build.gradle', 'dependencies {\n  this is not groovy\n');
});

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('a multi-project build on Gradle 4.4', () => {
  let part: ProducedPart;
  let seconds: number;
  beforeAll(() => {
    const started = Date.now();
    part = makeGradleBuildProducer({
      env: () => env(path.join(tmp, 'gradle-home'), { SCANNER_GRADLE_OFFLINE: '1' }),
    }).produce(input(path.join(tmp, 'shop')));
    seconds = (Date.now() - started) / 1000;
  }, 180_000);

  test('ran through ./gradlew with the init script, offline, no daemon; left no output behind', () => {
    const args = fs.readFileSync(path.join(tmp, 'shop/gradlew-args.txt'), 'utf8').trim().split('\n');
    expect(args).toEqual(expect.arrayContaining(['--no-daemon', '-q', '-I', '--offline', 'scannerResolutionGraph']));
    // The init script and output folder lived in a temporary folder that is gone.
    expect(fs.existsSync(args[args.indexOf('-I') + 1])).toBe(false);
    expect(seconds).toBeLessThan(120);
  });

  test('modules are the Gradle projects with their build files; :app depends on :lib', () => {
    expect(part.modules).toEqual([
      { path: ':', manifest: 'build.gradle', dependencies: [] },
      { path: ':app', manifest: 'app/build.gradle', dependencies: [':lib'] },
      { path: ':lib', manifest: 'lib/build.gradle', dependencies: [] },
    ]);
    expect(part.manifests).toEqual(['settings.gradle', 'build.gradle', 'app/build.gradle', 'lib/build.gradle']);
    expect(part.projectName).toBe('shop');
    expect(part.ecosystem).toBe('gradle');
    expect(part.schemaVersion).toBe(2);
  });

  test("a root per project and resolvable configuration that selected something (Gradle 4.4's configurations)", () => {
    // compile, runtime, compileOnly, archives... are resolvable in 4.4 but select nothing here: no roots.
    const contexts = [
      'compileClasspath',
      'default',
      'runtimeClasspath',
      'testCompileClasspath',
      'testRuntimeClasspath',
    ];
    expect(part.roots.map((r) => `${r.module} ${r.context}`)).toEqual([
      ...contexts.map((c) => `:app ${c}`),
      ...contexts.map((c) => `:lib ${c}`),
    ]);
    for (const r of part.roots) expect(r.resolution!.vertices[0]).toMatchObject({ id: '0', module: r.module });
  });

  test('the conflict: gamma 2.0 selected on the runtime classpath, 1.0 where nothing asks for more', () => {
    const runtime = rootOf(part, ':app', 'runtimeClasspath');
    expect(edgesOf(runtime)).toEqual([
      'com.example:alpha@1.0 -> com.example:gamma@2.0',
      'com.example:beta@2.0 -> com.example:gamma@2.0',
      'module::app -> com.example:alpha@1.0',
      'module::app -> module::lib',
      'module::lib -> com.example:beta@2.0',
    ]);
    expect(verticesOf(runtime)).toEqual([
      'com.example:alpha@1.0',
      'com.example:beta@2.0',
      'com.example:gamma@2.0',
      'module::app',
      'module::lib',
    ]);
    expect(runtime).toMatchObject({ manifest: 'app/build.gradle', dependencies: ['com.example:alpha@1.0'] });
    // :lib's implementation dependencies are not on :app's compile classpath: alpha's gamma 1.0 stands.
    expect(edgesOf(rootOf(part, ':app', 'compileClasspath'))).toEqual([
      'com.example:alpha@1.0 -> com.example:gamma@1.0',
      'module::app -> com.example:alpha@1.0',
      'module::app -> module::lib',
    ]);
    expect(edgesOf(rootOf(part, ':lib', 'runtimeClasspath'))).toEqual([
      'com.example:beta@2.0 -> com.example:gamma@2.0',
      'module::lib -> com.example:beta@2.0',
    ]);
  });

  test('nodes once per coordinate, direct where a project declares them; locations are the declaring build file', () => {
    expect(part.nodes.map((n) => `${n.id} ${n.relationship} [${n.dependencies.join(' ')}]`)).toEqual([
      'com.example:alpha@1.0 direct [com.example:gamma@1.0 com.example:gamma@2.0]',
      'com.example:beta@2.0 direct [com.example:gamma@2.0]',
      'com.example:gamma@1.0 transitive []',
      'com.example:gamma@2.0 transitive []',
    ]);
    expect(nodeById(part, 'com.example:alpha@1.0')).toMatchObject({ name: 'com.example:alpha', version: '1.0' });
    expect(part.locations).toEqual({
      'com.example:alpha@1.0': { file: 'app/build.gradle' },
      'com.example:beta@2.0': { file: 'lib/build.gradle' },
    });
  });

  test('the missing module is a warning, not a failure; the part is a valid snapshot for the server', () => {
    expect(part.warnings).toEqual([
      expect.stringMatching(
        /^could not resolve com\.example:missing:9\.9 \(Could not find com\.example:missing:9\.9\.\) in project :app testCompileClasspath, project :app testRuntimeClasspath$/,
      ),
    ]);
    expect(rootOf(part, ':app', 'testCompileClasspath').dependencies).toEqual(['com.example:alpha@1.0']);
    expect(() => validatePart(part)).not.toThrow();
  });
});

test("a build that does not compile: an InputError with the end of Gradle's output (gradle from PATH)", () => {
  const producer = makeGradleBuildProducer({ env: () => env(path.join(tmp, 'gradle-home')) });
  let error: unknown;
  try {
    producer.produce(input(path.join(tmp, 'broken')));
  } catch (err) {
    error = err;
  }
  expect(error).toBeInstanceOf(InputError);
  expect((error as Error).message).toMatch(
    /^settings\.gradle: gradle scannerResolutionGraph \(with the scanner init script\) failed \(exit 1\); its output ended with:\n/,
  );
  expect((error as Error).message).toMatch(/build\.gradle/);
}, 180_000);
