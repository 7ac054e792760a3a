import fs from 'node:fs';
import { snapshotFromGradleLock, validateSnapshot } from '../../../src/domain/snapshot';
import { itWithSharedData, sharedDataPath } from '../../helpers/shared-data';

itWithSharedData('the real JabRef lockfile becomes a valid v1 gradle snapshot: one root per configuration', () => {
  const LOCK = fs.readFileSync(sharedDataPath('lockfiles', 'maven', 'JabRef__jabref__gradle.lockfile'), 'utf8');
  const s = snapshotFromGradleLock(LOCK, { project: 'jabref' });
  expect(() => validateSnapshot(s, Buffer.byteLength(JSON.stringify(s)))).not.toThrow();
  const coordinates = LOCK.split('\n').filter((l) => l && !l.startsWith('#') && !l.startsWith('empty='));
  expect(s.nodes).toHaveLength(coordinates.length);
  expect(s.nodes.find((n) => n.name === 'com.google.guava:guava')).toEqual({
    id: 'com.google.guava:guava@31.1-jre',
    name: 'com.google.guava:guava',
    version: '31.1-jre',
    relationship: 'direct',
    dependencies: [],
  });
  const runtime = s.roots.find((r) => r.context === 'runtimeClasspath')!;
  expect(runtime).toMatchObject({ module: ':', manifest: 'gradle.lockfile' });
  expect(runtime.dependencies).toContain('org.yaml:snakeyaml@1.30');
  expect(s.roots.find((r) => r.context === 'checkstyle')!.dependencies).not.toContain('org.yaml:snakeyaml@1.30');
  expect(s.roots.map((r) => r.context)).toEqual([...s.roots.map((r) => r.context)].sort());
});

test('comments and the empty= line are skipped; an unreadable line is an error', () => {
  const s = snapshotFromGradleLock('# c\na:b:1.0=compileClasspath\nempty=annotationProcessor\n', {
    project: 'p',
    module: ':app',
  });
  expect(s.roots).toEqual([
    { module: ':app', manifest: 'gradle.lockfile', context: 'compileClasspath', dependencies: ['a:b@1.0'] },
  ]);
  expect(() => snapshotFromGradleLock('not a line', { project: 'p' })).toThrow(/unreadable line/);
});
