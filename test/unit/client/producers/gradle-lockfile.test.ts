// gradle.lockfile → a flat part: one node per coordinate, one root per locked configuration, the module's Gradle
// path from the lockfile's folder; JabRef's real lockfile checked against a reading of the file in the test.
import fs from 'node:fs';
import { gradleLockfileProducer, gradleProjectPath } from '../../../../src/client/producers/gradle-lockfile';
import { InputError } from '../../../../src/client/errors';
import { itWithSharedData, sharedDataPath } from '../../../helpers/shared-data';
import { validatePart } from './npm-helpers';

const JABREF_LOCKFILE = sharedDataPath('lockfiles', 'maven', 'JabRef__jabref__gradle.lockfile');
const produce = (text: string, file = 'gradle.lockfile', files: Record<string, string> = {}) =>
  gradleLockfileProducer.produce({ path: file, text, readFile: (p) => files[p] });

itWithSharedData(
  'JabRef: every coordinate once, a root per configuration with exactly the coordinates locked in it',
  () => {
    const JABREF = fs.readFileSync(JABREF_LOCKFILE, 'utf8');
    const expected = new Map<string, Set<string>>();
    const ids = new Set<string>();
    for (const line of JABREF.split('\n')) {
      const eq = line.indexOf('=');
      if (line.startsWith('#') || line.startsWith('empty=') || eq === -1) continue;
      const [g, a, v] = line.slice(0, eq).split(':');
      ids.add(`${g}:${a}@${v}`);
      for (const c of line.slice(eq + 1).split(','))
        expected.set(c, (expected.get(c) ?? new Set()).add(`${g}:${a}@${v}`));
    }
    const part = produce(JABREF, 'gradle.lockfile', { 'build.gradle': 'plugins {}' });
    expect(part.nodes.map((n) => n.id)).toEqual([...ids].sort());
    expect(part.nodes).toHaveLength(199);
    expect(part.roots.map((r) => r.context)).toEqual([...expected.keys()].sort());
    for (const r of part.roots) {
      expect(r).toMatchObject({ module: ':', manifest: 'build.gradle' });
      expect(r.dependencies).toEqual([...expected.get(r.context)!].sort());
    }
    expect(part.nodes.find((n) => n.id === 'com.fasterxml.jackson.core:jackson-databind@2.13.3')).toEqual({
      id: 'com.fasterxml.jackson.core:jackson-databind@2.13.3',
      name: 'com.fasterxml.jackson.core:jackson-databind',
      version: '2.13.3',
      relationship: 'direct',
      dependencies: [],
    });
    // Locations are the coordinate's own line.
    const loc = part.locations['org.yaml:snakeyaml@1.30'];
    expect(JABREF.split('\n')[loc.line! - 1]).toMatch(/^org\.yaml:snakeyaml:1\.30=/);
    expect(part.warnings).toEqual([]);
    expect(() => validatePart(part)).not.toThrow();
  },
);

test('the module is the Gradle path of the lockfile folder; the build script found next to it is the manifest', () => {
  expect(gradleProjectPath('.')).toBe(':');
  expect(gradleProjectPath('services/api')).toBe(':services:api');
  const part = produce('a:b:1.0=compileClasspath\n', 'services/api/gradle.lockfile', {
    'services/api/build.gradle.kts': '',
  });
  expect(part.modules).toEqual([
    { path: ':services:api', manifest: 'services/api/build.gradle.kts', dependencies: [] },
  ]);
  expect(part.manifests).toEqual(['services/api/gradle.lockfile', 'services/api/build.gradle.kts']);
  expect(part.roots).toEqual([
    {
      module: ':services:api',
      manifest: 'services/api/build.gradle.kts',
      context: 'compileClasspath',
      dependencies: ['a:b@1.0'],
    },
  ]);
});

test('CRLF, comments, empty= and odd lines: odd lines are skipped with a warning; a file of nothing but odd lines is refused', () => {
  const part = produce('# locked\r\na:b:1.0=x,y\r\nnot a line\r\nempty=z\r\n');
  expect(part.nodes.map((n) => n.id)).toEqual(['a:b@1.0']);
  expect(part.roots.map((r) => r.context)).toEqual(['x', 'y']);
  expect(part.warnings).toEqual(['unreadable lines skipped: line 3']);
  expect(() => produce('{"lockfileVersion": 3}')).toThrow(InputError);
  expect(() => produce('{"lockfileVersion": 3}')).toThrow(/gradle\.lockfile: not a Gradle lockfile/);
  expect(produce('# nothing locked\nempty=compileClasspath\n').roots).toEqual([]);
});
